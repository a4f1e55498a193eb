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
