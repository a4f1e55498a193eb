package store_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestLayeringStoreBelowREST pins the layering: store is below the HTTP
// layer, so nothing it imports, directly or not, may be the REST package
// whose snapshot renderer callers pass in Options.Snapshots.
func TestLayeringStoreBelowREST(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH; cannot list store's dependencies")
	}
	out, err := exec.Command(goTool, "list", "-deps", "larder.dev/larder/internal/platform/store").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 {
		t.Fatalf("go list -deps listed %d packages, want store's whole import graph: %q", len(deps), deps)
	}
	var sawEnt bool
	for _, d := range deps {
		switch {
		case d == "larder.dev/larder/ent":
			sawEnt = true
		case d == "larder.dev/larder/internal/restapi", strings.HasPrefix(d, "larder.dev/larder/handlers"):
			t.Errorf("store depends on %s, a package of the HTTP layer above it", d)
		}
	}
	if !sawEnt {
		t.Fatal("store's dependencies do not include larder.dev/larder/ent; the listing is not of store")
	}
}

// driverOwner reports the packages that may import PostgreSQL's driver: store,
// which opens databases and says what their errors mean, and the fast path's
// mechanisms, which work on the driver's connections. Everything else reaches
// PostgreSQL through store (Array, Listen) and package dberror.
func driverOwner(pkg string) bool {
	return pkg == "larder.dev/larder/internal/platform/store" ||
		pkg == "larder.dev/larder/internal/platform/fastpath" ||
		strings.HasPrefix(pkg, "larder.dev/larder/internal/platform/fastpath/") ||
		// bench's programs load, copy into and inspect PostgreSQL directly
		// (COPY, quoted names, arrays): measuring tools beside the server,
		// not parts of it.
		strings.HasPrefix(pkg, "larder.dev/larder/bench/")
}

// TestOnlyStoreImportsPQ pins who knows the PostgreSQL driver: no package of
// the module but a driverOwner imports github.com/lib/pq. Tests are
// exempt: they build driver errors and open scratch databases themselves.
func TestOnlyStoreImportsPQ(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH; cannot list the module's imports")
	}
	out, err := exec.Command(goTool, "list", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", "larder.dev/larder/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs int
	var sawStore bool
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		pkgs++
		for _, imp := range f[1:] {
			if imp != "github.com/lib/pq" && !strings.HasPrefix(imp, "github.com/lib/pq/") {
				continue
			}
			sawStore = sawStore || f[0] == "larder.dev/larder/internal/platform/store"
			if !driverOwner(f[0]) {
				t.Errorf("%s imports %s; only store and the fast path import the driver", f[0], imp)
			}
		}
	}
	if pkgs < 50 || !sawStore {
		t.Fatalf("go list listed %d packages (store importing lib/pq among them: %v), want the whole module's", pkgs, sawStore)
	}
}
