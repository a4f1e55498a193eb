package fastpath_test

import (
	"os/exec"
	"strings"
	"testing"
)

// The mechanisms' packages under internal/platform/fastpath/ are leaves: they import no other
// Larder package, so each is read, tested and replaced on its own, and the
// code that uses them (store, ratelimit, cmd/larder) decides whether they
// run by the switch.
func TestMechanismPackagesAreLeaves(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH; cannot list the packages' imports")
	}
	out, err := exec.Command(goTool, "list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, "larder.dev/larder/internal/platform/fastpath/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	seen := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		seen++
		for _, imp := range f[1:] {
			if strings.HasPrefix(imp, "larder.dev/larder/") {
				t.Errorf("%s imports %s: a mechanism's package imports no other Larder package", f[0], imp)
			}
		}
	}
	if seen < 5 {
		t.Fatalf("go list listed %d packages under internal/platform/fastpath/, want the switch and every mechanism's: %s", seen, out)
	}
}
