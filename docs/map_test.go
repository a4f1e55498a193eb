package docs

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strings"
	"testing"
)

const module = "larder.dev/larder/"

// mapRow is one line of the map in developers.md: a folder, and the folders
// its packages may import.
type mapRow struct {
	folder string
	allows []string
	used   map[string]bool
}

var backticked = regexp.MustCompile("`([^`]+)`")

// readMap reads the table under "## The map" in developers.md.
func readMap(t *testing.T) []*mapRow {
	t.Helper()
	b, err := os.ReadFile("developers.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "\n## The map\n")
	if !ok {
		t.Fatal("developers.md has no section \"## The map\"")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	var rows []*mapRow
	for _, line := range strings.Split(section, "\n") {
		cells := strings.Split(line, " | ")
		if len(cells) != 3 || !strings.HasPrefix(line, "| `") {
			continue
		}
		folder := backticked.FindStringSubmatch(cells[0])
		r := &mapRow{folder: strings.TrimSuffix(folder[1], "/"), used: map[string]bool{}}
		for _, m := range backticked.FindAllStringSubmatch(cells[2], -1) {
			r.allows = append(r.allows, strings.TrimSuffix(m[1], "/"))
		}
		if strings.TrimSpace(strings.TrimSuffix(cells[2], "|")) != "—" && len(r.allows) == 0 {
			t.Errorf("the map's line for %s allows neither folders nor \"—\": %q", r.folder, cells[2])
		}
		rows = append(rows, r)
	}
	if len(rows) < 10 {
		t.Fatalf("the map has %d lines, want one per folder", len(rows))
	}
	return rows
}

// under reports whether path is folder or inside it.
func under(path, folder string) bool {
	return path == folder || strings.HasPrefix(path, folder+"/")
}

// rowOf is the deepest line of the map whose folder holds path.
func rowOf(rows []*mapRow, path string) *mapRow {
	var best *mapRow
	for _, r := range rows {
		if under(path, r.folder) && (best == nil || len(r.folder) > len(best.folder)) {
			best = r
		}
	}
	return best
}

// importsOf lists the module's packages and the module's packages each
// imports (tests left out).
func importsOf(t *testing.T) map[string][]string {
	t.Helper()
	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", "./...")
	cmd.Dir = ".."
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	pkgs := map[string][]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 || !strings.HasPrefix(fields[0], module) {
			continue
		}
		var deps []string
		for _, d := range fields[1:] {
			if strings.HasPrefix(d, module) {
				deps = append(deps, strings.TrimPrefix(d, module))
			}
		}
		pkgs[strings.TrimPrefix(fields[0], module)] = deps
	}
	if len(pkgs) < 50 {
		t.Fatalf("go list found %d packages of the module, want every one", len(pkgs))
	}
	return pkgs
}

// checkMap returns one line per import the map does not allow, per package
// in no folder of the map, and per allowance no import uses.
func checkMap(rows []*mapRow, pkgs map[string][]string) []string {
	var bad []string
	for pkg, deps := range pkgs {
		from := rowOf(rows, pkg)
		if from == nil {
			bad = append(bad, pkg+" is in no folder of the map")
			continue
		}
		for _, dep := range deps {
			to := rowOf(rows, dep)
			if to == from {
				continue
			}
			allowed := false
			for _, a := range from.allows {
				if to != nil && under(to.folder, a) {
					from.used[a] = true
					allowed = true
				}
			}
			if !allowed {
				bad = append(bad, pkg+" imports "+dep+": the map lets "+from.folder+"/ import only "+strings.Join(from.allows, ", "))
			}
		}
	}
	for _, r := range rows {
		for _, a := range r.allows {
			if !r.used[a] {
				bad = append(bad, "the map lets "+r.folder+"/ import "+a+"/, which none of its packages does: take it off the map")
			}
		}
	}
	sort.Strings(bad)
	return bad
}

// The map in developers.md is the tree's: every package of the module sits
// in one of its folders, imports only what its line allows, and every
// allowance is in use.
func TestTheMapHoldsTheImports(t *testing.T) {
	rows := readMap(t)
	for _, r := range rows {
		if _, err := os.Stat("../" + r.folder); err != nil {
			t.Errorf("the map names %s/, which does not exist", r.folder)
		}
	}
	for _, line := range checkMap(rows, importsOf(t)) {
		t.Error(line)
	}
}

// The check refuses a new arrow, a package outside the map and an allowance
// nothing uses.
func TestTheMapCheckRefuses(t *testing.T) {
	rows := func() []*mapRow {
		return []*mapRow{
			{folder: "ent", used: map[string]bool{}},
			{folder: "handlers", allows: []string{"ent", "internal/platform"}, used: map[string]bool{}},
			{folder: "internal/platform", used: map[string]bool{}},
			{folder: "internal/platform/store", allows: []string{"ent"}, used: map[string]bool{}},
		}
	}
	ok := map[string][]string{
		"ent":                     nil,
		"handlers":                {"ent", "internal/platform/store"},
		"internal/platform/ids":   nil,
		"internal/platform/store": {"ent", "internal/platform/store/inner"},
	}
	if bad := checkMap(rows(), ok); len(bad) != 0 {
		t.Fatalf("a tree the map allows: %v", bad)
	}
	for name, c := range map[string]struct {
		pkgs map[string][]string
		want string
	}{
		"new arrow":        {map[string][]string{"ent": {"handlers"}, "handlers": {"ent", "internal/platform"}, "internal/platform/store": {"ent"}}, "ent imports handlers"},
		"outside the map":  {map[string][]string{"cmd/larder": nil, "handlers": {"ent", "internal/platform"}, "internal/platform/store": {"ent"}}, "cmd/larder is in no folder"},
		"unused allowance": {map[string][]string{"handlers": {"ent"}, "internal/platform/store": {"ent"}}, "handlers/ import internal/platform/, which none"},
	} {
		bad := strings.Join(checkMap(rows(), c.pkgs), "\n")
		if !strings.Contains(bad, c.want) {
			t.Errorf("%s: the check says %q, want a line with %q", name, bad, c.want)
		}
	}
}
