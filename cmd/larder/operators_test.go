package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

// operatorsGuide is the operators' guide, which lists every command and
// flag.
var operatorsGuide = filepath.Join("..", "..", "docs", "operators.md")

// guideSection is the text of one "## " section of the guide.
func guideSection(t *testing.T, doc, title string) string {
	t.Helper()
	_, rest, ok := strings.Cut(doc, "\n## "+title+"\n")
	if !ok {
		t.Fatalf("%s has no section %q", operatorsGuide, title)
	}
	if i := strings.Index(rest, "\n## "); i >= 0 {
		rest = rest[:i]
	}
	return rest
}

var (
	firstCell = regexp.MustCompile("(?m)^\\| `([^`]+)`")
	longFlag  = regexp.MustCompile(`--[a-z][a-z0-9-]*`)
	helpFlag  = regexp.MustCompile(`(?m)^  -([a-z][a-z0-9-]*)`)
)

// guideCommands are the commands the guide's command table names: the words
// after "larder" up to the first flag or placeholder, "a\|b" standing for
// each of a and b.
func guideCommands(rows []string) []string {
	var out []string
	for _, row := range rows {
		words := strings.Fields(strings.TrimPrefix(row, "larder "))
		names := []string{""}
		for _, w := range words {
			if strings.HasPrefix(w, "-") || strings.HasPrefix(w, "[") || strings.ToUpper(w) == w {
				break
			}
			var next []string
			for _, n := range names {
				for _, alt := range strings.Split(strings.ReplaceAll(w, `\|`, "|"), "|") {
					next = append(next, strings.TrimSpace(n+" "+alt))
				}
			}
			names = next
		}
		out = append(out, names...)
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// The operators' guide lists every command and no other, and names every
// flag a command reads, in the command's row or in the configuration table,
// and no flag that no command reads.
func TestOperatorsGuideListsEveryCommandAndFlag(t *testing.T) {
	b, err := os.ReadFile(operatorsGuide)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	var rows, flagCells []string
	for _, m := range firstCell.FindAllStringSubmatch(guideSection(t, doc, "Commands"), -1) {
		if strings.HasPrefix(m[1], "larder ") {
			rows = append(rows, m[1])
		}
	}
	for _, m := range firstCell.FindAllStringSubmatch(guideSection(t, doc, "Configuration"), -1) {
		flagCells = append(flagCells, m[1])
	}
	if len(rows) < 20 || len(flagCells) < 10 {
		t.Fatalf("read %d command rows and %d configuration rows from %s; the tables were not found", len(rows), len(flagCells), operatorsGuide)
	}
	listed, real := guideCommands(rows), commandNames()
	for _, c := range real {
		if !slices.Contains(listed, c) {
			t.Errorf("larder %s is not in %s's command table", c, operatorsGuide)
		}
	}
	for _, c := range listed {
		if !slices.Contains(real, c) {
			t.Errorf("%s lists larder %s, which is not a command", operatorsGuide, c)
		}
	}

	documented := map[string]bool{}
	for _, cell := range append(rows, flagCells...) {
		for _, f := range longFlag.FindAllString(cell, -1) {
			documented[f] = true
		}
	}
	read := map[string]bool{"--help": true, "--version": true}
	for _, c := range real {
		out, _, err := runOut(append(strings.Fields(c), "--help")...)
		if err != nil {
			t.Fatalf("larder %s --help: %v", c, err)
		}
		flags := helpFlag.FindAllStringSubmatch(out, -1)
		if len(flags) == 0 {
			t.Fatalf("larder %s --help lists no flags:\n%s", c, out)
		}
		for _, f := range flags {
			read["--"+f[1]] = true
			if !documented["--"+f[1]] {
				t.Errorf("larder %s reads --%s, which %s does not name in its row or its configuration table", c, f[1], operatorsGuide)
			}
		}
	}
	for f := range documented {
		if !read[f] {
			t.Errorf("%s names %s, which no command reads", operatorsGuide, f)
		}
	}
}
