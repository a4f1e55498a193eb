// Package releases keeps every released description of version 1, one file
// per release (1.0.json, 1.1.json, …), as it was released. A file here is
// never changed: the gate (package apicompat) compares the current
// description with each, and `larder api release` adds the next.
package releases

import (
	"embed"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

//go:embed *.json
var files embed.FS

// Versions are the released versions ("1.0", "1.1", …), oldest first.
func Versions() []string {
	entries, err := files.ReadDir(".")
	if err != nil {
		panic(err)
	}
	var out []string
	for _, e := range entries {
		if v, ok := strings.CutSuffix(e.Name(), ".json"); ok {
			out = append(out, v)
		}
	}
	slices.SortFunc(out, Order)
	return out
}

// Document is the description released as version v.
func Document(v string) ([]byte, error) {
	b, err := files.ReadFile(v + ".json")
	if err != nil {
		return nil, fmt.Errorf("no release %q (released: %s)", v, strings.Join(Versions(), ", "))
	}
	return b, nil
}

// Parse reads a release's version, MAJOR.MINOR, as its two numbers.
func Parse(v string) (major, minor int, err error) {
	a, b, ok := strings.Cut(v, ".")
	if ok {
		major, err = strconv.Atoi(a)
	}
	if ok && err == nil {
		minor, err = strconv.Atoi(b)
	}
	if !ok || err != nil || major < 0 || minor < 0 || strconv.Itoa(major)+"."+strconv.Itoa(minor) != v {
		return 0, 0, fmt.Errorf("version %q is not MAJOR.MINOR (1.3)", v)
	}
	return major, minor, nil
}

// Order compares two versions by their numbers (1.9 before 1.10).
func Order(a, b string) int {
	am, an, _ := Parse(a)
	bm, bn, _ := Parse(b)
	if am != bm {
		return am - bm
	}
	return an - bn
}
