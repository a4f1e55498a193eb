package apicompat

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"larder.dev/larder/openapi/releases"
)

// Against is a Report of the current description against one release.
type Against struct {
	Version string
	*Report
}

// Gate compares the current description with each of versions (every
// release when none is given), newest first.
func Gate(current []byte, versions ...string) ([]Against, error) {
	if len(versions) == 0 {
		versions = releases.Versions()
	}
	rev, err := Load(current)
	if err != nil {
		return nil, fmt.Errorf("the current description: %w", err)
	}
	var out []Against
	for i := len(versions) - 1; i >= 0; i-- {
		v := versions[i]
		doc, err := releases.Document(v)
		if err != nil {
			return nil, err
		}
		base, err := Load(doc)
		if err != nil {
			return nil, fmt.Errorf("release %s: %w", v, err)
		}
		r, err := Compare(v, base, "current", rev)
		if err != nil {
			return nil, fmt.Errorf("against %s: %w", v, err)
		}
		out = append(out, Against{v, r})
	}
	return out, nil
}

// Print writes reports as a developer reads them: per release, each break
// and each addition on a line.
func Print(w *bytes.Buffer, reports []Against) {
	for _, r := range reports {
		fmt.Fprintf(w, "against %s: %d breaking, %d added or compatible\n", r.Version, len(r.Breaks), len(r.Additions))
		for _, c := range r.Breaks {
			fmt.Fprintf(w, "  BREAKS %s\n", c.Line())
		}
		for _, c := range r.Additions {
			fmt.Fprintf(w, "  adds   %s\n", c.Line())
		}
	}
}

// versionLine is info.version as the generator writes it.
var versionLine = regexp.MustCompile(`(?m)^(    "version": ")[0-9]+\.[0-9]+\.[0-9]+(")`)

// Release keeps the current description of the module at root as release v:
// it must follow the newest release and break none; its info.version is set
// to v.0 in the current description (as the next `go generate` writes it,
// from the newest release) and the copy, openapi/releases/v.json; then the
// changelog is written anew.
func Release(root, v string) error {
	major, minor, err := releases.Parse(v)
	if err != nil {
		return err
	}
	if major != 1 {
		return fmt.Errorf("version %s: a release of another major version ships beside /v1 (docs/developers.md, \"The road to /v2\")", v)
	}
	dir := filepath.Join(root, "openapi", "releases")
	have, err := onDisk(dir)
	if err != nil {
		return err
	}
	if n := len(have); n > 0 && releases.Order(v, have[n-1]) <= 0 {
		return fmt.Errorf("version %s: the newest release is %s; a release follows it", v, have[n-1])
	}
	_ = minor
	path := filepath.Join(root, "openapi", "openapi.json")
	cur, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if !versionLine.Match(cur) {
		return fmt.Errorf("%s: no info.version line", path)
	}
	reports, err := gateFiles(dir, cur, have)
	if err != nil {
		return err
	}
	for _, r := range reports {
		if r.Broken() {
			return fmt.Errorf("the current description breaks release %s (larder api diff --against %s): nothing is released", r.Version, r.Version)
		}
	}
	cur = versionLine.ReplaceAll(cur, []byte("${1}"+v+".0${2}"))
	if err := os.WriteFile(filepath.Join(dir, v+".json"), cur, 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(path, cur, 0o644); err != nil {
		return err
	}
	log, err := changelogFiles(dir, append(have, v))
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(root, "docs", "changelog.md"), log, 0o644)
}

// onDisk lists the releases in dir, oldest first.
func onDisk(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if v, ok := strings.CutSuffix(e.Name(), ".json"); ok {
			if _, _, err := releases.Parse(v); err != nil {
				return nil, fmt.Errorf("%s: %w", e.Name(), err)
			}
			out = append(out, v)
		}
	}
	sortVersions(out)
	return out, nil
}

// gateFiles is Gate with the releases read from dir.
func gateFiles(dir string, current []byte, versions []string) ([]Against, error) {
	rev, err := Load(current)
	if err != nil {
		return nil, err
	}
	var out []Against
	for _, v := range versions {
		b, err := os.ReadFile(filepath.Join(dir, v+".json"))
		if err != nil {
			return nil, err
		}
		base, err := Load(b)
		if err != nil {
			return nil, err
		}
		r, err := Compare(v, base, "current", rev)
		if err != nil {
			return nil, err
		}
		out = append(out, Against{v, r})
	}
	return out, nil
}

func loadRelease(dir, v string) (*openapi3.T, error) {
	if dir == "" {
		b, err := releases.Document(v)
		if err != nil {
			return nil, err
		}
		return Load(b)
	}
	b, err := os.ReadFile(filepath.Join(dir, v+".json"))
	if err != nil {
		return nil, err
	}
	return Load(b)
}
