package fastpath_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// boundary is every Larder package outside internal/platform/fastpath/ whose
// own code (tests aside) imports a package under it: the one place each
// mechanism is reached from, and why. The rest of Larder reaches them
// through these.
var boundary = []struct {
	importer string
	imports  []string
	why      string
}{
	{"internal/platform/config", []string{""},
		"reads --fast-path and LARDER_FAST_PATH into the configuration (config.FastPath)"},
	{"internal/platform/store", []string{"", "pgcancel", "stmtcache"},
		"opens the database: the statement cache under ent, and the guard's own cancel requests, each as the switch says"},
	{"internal/identity/auth", []string{"", "prepared", "trust"},
		"the key's lookup and spend: reserved-budget and trusted-keys (the check's expression and the carrier the gate hands to ent), and the key's fixed statements"},
	{"internal/identity/ratelimit", []string{"leases", "prepared"},
		"the shared counter: the numbers a process reserves ahead, and the limit's fixed upsert"},
	{"handlers", []string{"", "encoders", "logline"},
		"the access log's one write: its line formatted by hand when the server is handed a writer for it (batched-log); and the generated server's encoders, pooled for the process as handlers.New is told (pooled-encoders)"},
	{"openapi/oas", []string{"encoders"},
		"the generated server's response encoders, taken from the pool and handed back (pooled-encoders; the go generate step pooled writes the calls)"},
	{"cmd/larder", []string{"", "logbuf"},
		"the serving process: the log's batches (batched-log) and what the mechanisms change for the whole process (Set.ApplyProcess)"},
	{"internal/testkit/dbtest", []string{""},
		"the test harness: stores on the fast or the plain path, as LARDER_FAST_PATH says or a test asks"},
}

// No package outside internal/platform/fastpath/ imports a package under it
// but those listed in boundary, and each listed import is still made: a new
// importer is a new place a mechanism is reached from, to be listed here
// with its reason, and docs/fast-path.md updated.
func TestBoundaryImporters(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH; cannot list the packages' imports")
	}
	out, err := exec.Command(goTool, "list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, "larder.dev/larder/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	const module = "larder.dev/larder/"
	const root = module + "internal/platform/fastpath"
	want := map[string]bool{}
	for _, b := range boundary {
		for _, imp := range b.imports {
			p := root
			if imp != "" {
				p += "/" + imp
			}
			want[b.importer+" "+p] = true
		}
	}
	packages := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		packages++
		pkg := strings.TrimPrefix(f[0], module)
		if pkg == strings.TrimPrefix(root, module) || strings.HasPrefix(f[0], root+"/") {
			continue
		}
		for _, imp := range f[1:] {
			if imp != root && !strings.HasPrefix(imp, root+"/") {
				continue
			}
			if !want[pkg+" "+imp] {
				t.Errorf("%s imports %s, and is not listed in boundary: reach the mechanism through a listed package, or list it with its reason", pkg, imp)
			}
			delete(want, pkg+" "+imp)
		}
	}
	if packages < 50 {
		t.Fatalf("go list listed %d packages of the module, want all of them", packages)
	}
	left := make([]string, 0, len(want))
	for k := range want {
		left = append(left, k)
	}
	slices.Sort(left)
	for _, k := range left {
		t.Errorf("boundary lists %s, which is no longer imported: take it off the list", strings.Replace(k, " ", " importing ", 1))
	}
}
