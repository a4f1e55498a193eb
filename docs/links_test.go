// Package docs holds the project's documents; its test keeps their links and
// the code's citations of them pointing at something that exists.
package docs

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var (
	fence    = regexp.MustCompile("(?s)```.*?```")
	mdLink   = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	external = regexp.MustCompile(`^[a-z]+:`)
	heading  = regexp.MustCompile(`^#+\s+(.*)$`)
	notWord  = regexp.MustCompile(`[^\p{L}\p{N}_\- ]`)
	// citation is a code comment's reference to a section of a document:
	// docs/api-behaviour.md, "Errors" (the heading may wrap onto the next
	// comment line).
	citation = regexp.MustCompile(`(docs/[a-z-]+\.md),?\s*\(?"([^"]+)"`)
)

// anchor is the fragment GitHub gives a heading: lower case, punctuation
// dropped, spaces made hyphens.
func anchor(h string) string {
	return strings.ReplaceAll(notWord.ReplaceAllString(strings.ToLower(strings.TrimSpace(h)), ""), " ", "-")
}

// headings are a Markdown file's headings as written.
func headings(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var hs []string
	inFence := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "```") {
			inFence = !inFence
			continue
		}
		if m := heading.FindStringSubmatch(line); m != nil && !inFence {
			hs = append(hs, m[1])
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return hs
}

func TestAnchor(t *testing.T) {
	for h, want := range map[string]string{
		"Errors":                       "errors",
		"Syncing with `updated_since`": "syncing-with-updated_since",
		"For security reviewers":       "for-security-reviewers",
		"Caching and compression":      "caching-and-compression",
	} {
		if got := anchor(h); got != want {
			t.Errorf("anchor(%q) = %q, want %q", h, got, want)
		}
	}
}

// TestRelativeLinks: every relative link of the README and of docs/ names a
// file of the repository and, for a Markdown file, one of its headings.
func TestRelativeLinks(t *testing.T) {
	files, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, filepath.Join("..", "README.md"))
	for _, file := range files {
		body, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range mdLink.FindAllStringSubmatch(fence.ReplaceAllString(string(body), ""), -1) {
			link := m[1]
			if external.MatchString(link) {
				continue
			}
			target, frag, _ := strings.Cut(link, "#")
			path := file
			if target != "" {
				path = filepath.Join(filepath.Dir(file), target)
			}
			if _, err := os.Stat(path); err != nil {
				t.Errorf("%s: link %s: no such file", file, link)
				continue
			}
			if frag == "" || !strings.HasSuffix(path, ".md") {
				continue
			}
			found := false
			for _, h := range headings(t, path) {
				if anchor(h) == frag {
					found = true
					break
				}
			}
			if !found {
				t.Errorf("%s: link %s: %s has no such heading", file, link, path)
			}
		}
	}
}

// TestCitations: every comment that cites a section of a document of docs/
// by its heading ("docs/api-behaviour.md, \"Errors\"") names a heading that
// document has.
func TestCitations(t *testing.T) {
	root := ".."
	cited := 0
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "node_modules" || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, ".tmpl") {
			return nil
		}
		body, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		// A citation may wrap: join comment lines first.
		text := regexp.MustCompile(`\n\s*//\s*`).ReplaceAllString(string(body), " ")
		for _, m := range citation.FindAllStringSubmatch(text, -1) {
			doc, section := filepath.Join(root, m[1]), m[2]
			cited++
			found := false
			for _, h := range headings(t, doc) {
				if h == section {
					found = true
					break
				}
			}
			if !found {
				t.Errorf("%s cites %s, %q: no such heading", path, m[1], section)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if cited == 0 {
		t.Fatal("no citation found: the pattern no longer matches the code's citations")
	}
}
