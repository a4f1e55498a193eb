package docs

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// root is the module root, above this package.
const root = ".."

// documents are the Markdown files of the tree, outside dependencies and
// test data.
func documents(t *testing.T) []string {
	t.Helper()
	var docs []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "node_modules", "testdata", "vendor":
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(path, ".md") {
			docs = append(docs, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) < 3 {
		t.Fatalf("found %d Markdown files under %s; the walk is broken", len(docs), root)
	}
	return docs
}

var (
	codeSpan = regexp.MustCompile("`([^`\n]+)`")
	// pathRef is a code span that names a file of the tree: a path with a
	// directory and a known extension, optionally :line.
	pathRef = regexp.MustCompile(`^([A-Za-z0-9_.\-]+/[A-Za-z0-9_.\-/]*\.(?:go|md|sh|sql|json|ya?ml|tmpl|sum|mod|txt|html|css|js))(?::(\d+))?$`)
)

func lines(path string) (int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return strings.Count(string(b), "\n") + 1, nil
}

// check returns what is wrong with one document.
func check(doc string) ([]string, error) {
	b, err := os.ReadFile(doc)
	if err != nil {
		return nil, err
	}
	dir := filepath.Dir(doc)
	var bad []string
	inFence := false
	for i, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inFence = !inFence
			continue
		}
		if inFence {
			continue
		}
		where := fmt.Sprintf("%s:%d", strings.TrimPrefix(doc, root+"/"), i+1)
		for _, m := range codeSpan.FindAllStringSubmatch(line, -1) {
			p := pathRef.FindStringSubmatch(m[1])
			if p == nil || strings.ContainsAny(p[1], "*{}<>") {
				continue
			}
			// Relative to the document, or to the module root.
			path := ""
			for _, base := range []string{dir, root} {
				if _, err := os.Stat(filepath.Join(base, p[1])); err == nil {
					path = filepath.Join(base, p[1])
					break
				}
			}
			if path == "" {
				bad = append(bad, fmt.Sprintf("%s: %s: no such file", where, m[1]))
				continue
			}
			if p[2] != "" {
				n, _ := strconv.Atoi(p[2])
				if total, err := lines(path); err != nil || n < 1 || n > total {
					bad = append(bad, fmt.Sprintf("%s: %s: the file has %d lines", where, m[1], total))
				}
			}
		}
	}
	return bad, nil
}

// Every path a document of the tree names in code (`internal/platform/store/guard.go`,
// `handlers/routes.go:42`) is a file, relative to the document or to the
// module root, with at least that many lines.
func TestPathsResolve(t *testing.T) {
	for _, doc := range documents(t) {
		bad, err := check(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range bad {
			t.Error(b)
		}
	}
}

// The check finds a missing file and a line past a file's end, outside
// fences, and passes what resolves.
func TestPathCheckFindsWhatIsBroken(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("pkg/code.go", "package pkg\n\nfunc F() {}\n")
	doc := write("index.md", strings.Join([]string{
		"`pkg/code.go` and `pkg/code.go:3` and `go test ./...`",
		"```",
		"[in a fence](nowhere.md) `pkg/gone.go`",
		"```",
		"`pkg/code.go:40` `pkg/gone.go`",
	}, "\n"))
	bad, err := check(doc)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"pkg/code.go:40: the file has 4 lines",
		"pkg/gone.go: no such file",
	}
	if len(bad) != len(want) {
		t.Fatalf("found %d problems, want %d:\n%s", len(bad), len(want), strings.Join(bad, "\n"))
	}
	for i, w := range want {
		if !strings.HasSuffix(bad[i], w) {
			t.Errorf("problem %d: %q, want one ending %q", i, bad[i], w)
		}
	}
}
