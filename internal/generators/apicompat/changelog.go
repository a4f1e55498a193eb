package apicompat

import (
	"bytes"
	"fmt"
	"slices"

	"larder.dev/larder/openapi/releases"
)

func sortVersions(vs []string) { slices.SortFunc(vs, releases.Order) }

// Changelog is docs/changelog.md: each release's additions over the one
// before it, newest first, from the released descriptions.
func Changelog() ([]byte, error) { return changelogFiles("", releases.Versions()) }

// changelogFiles is Changelog of versions read from dir ("": the embedded
// releases).
func changelogFiles(dir string, versions []string) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(changelogHead)
	type entry struct {
		v    string
		adds []Change
	}
	var entries []entry
	for i, v := range versions {
		if i == 0 {
			entries = append(entries, entry{v: v})
			continue
		}
		base, err := loadRelease(dir, versions[i-1])
		if err != nil {
			return nil, err
		}
		rev, err := loadRelease(dir, v)
		if err != nil {
			return nil, err
		}
		r, err := Compare(versions[i-1], base, v, rev)
		if err != nil {
			return nil, err
		}
		if r.Broken() {
			return nil, fmt.Errorf("release %s breaks release %s: %s", v, versions[i-1], r.Breaks[0].Line())
		}
		entries = append(entries, entry{v, r.Additions})
	}
	for i := len(entries) - 1; i >= 0; i-- {
		e := entries[i]
		fmt.Fprintf(&b, "\n## %s\n\n", e.v)
		if i == 0 {
			b.WriteString("The first release of version 1.\n")
			continue
		}
		if len(e.adds) == 0 {
			b.WriteString("No change to the description.\n")
			continue
		}
		for _, c := range e.adds {
			fmt.Fprintf(&b, "- %s\n", markdownLine(c))
		}
	}
	return b.Bytes(), nil
}

// markdownLine is c's line with every operation it touches.
func markdownLine(c Change) string {
	if len(c.Where) == 0 {
		return c.Text
	}
	where := ""
	for i, w := range c.Where {
		if i > 0 {
			where += ", "
		}
		where += "`" + w + "`"
	}
	return c.Text + ": " + where
}

const changelogHead = `# Changelog of version 1

What each release of version 1 of the API added, newest first, written from the released
descriptions in ` + "`openapi/releases/`" + ` by ` + "`larder api release`" + ` (and checked by ` + "`go test ./internal/generators/apicompat`" + `):
each line is what oasdiff reads between one release and the one before it, with the operations
and webhook events it touches. Version 1 only grows: nothing a release lists is removed,
renamed or retyped later. How the releases were obtained, and the rules that keep them, are in
[developers.md](developers.md#version-1-only-grows).
`
