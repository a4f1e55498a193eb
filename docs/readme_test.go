package docs

import (
	"os"
	"strings"
	"testing"
)

// blockOf is the lines of the first sh block of a README section.
func blockOf(t *testing.T, readme, section string) []string {
	t.Helper()
	_, rest, ok := strings.Cut(readme, "\n## "+section+"\n")
	if !ok {
		t.Fatalf("the README has no section %q", section)
	}
	if i := strings.Index(rest, "\n## "); i >= 0 {
		rest = rest[:i]
	}
	_, block, ok := strings.Cut(rest, "```sh\n")
	if !ok {
		t.Fatalf("the README's %q has no sh block", section)
	}
	block, _, _ = strings.Cut(block, "```")
	return strings.Split(strings.TrimSuffix(block, "\n"), "\n")
}

// The README's commands are the ones a newcomer needs, in order, and CI
// runs them: the build and the server on the embedded database (in
// .ci/tour, the README's tour), and the test command, word for word, with
// a package timeout that holds on a busy two-core machine.
func TestReadmeCommands(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	ci, err := os.ReadFile("../.ci/run")
	if err != nil {
		t.Fatal(err)
	}
	tour, err := os.ReadFile("../.ci/tour")
	if err != nil {
		t.Fatal(err)
	}
	run := blockOf(t, string(readme), "Run it")
	if want := []string{"go build -o larder ./cmd/larder", "./larder serve --demo"}; strings.Join(run, "\n") != strings.Join(want, "\n") {
		t.Errorf("the README's commands to build and run the server are %q, want %q", run, want)
	}
	for _, line := range run {
		if !strings.Contains(string(tour), line) {
			t.Errorf("CI's tour (.ci/tour) does not run the README's %q", line)
		}
	}
	if !strings.Contains(string(ci), "bash .ci/tour") {
		t.Errorf(".ci/run does not follow the README's tour (.ci/tour)")
	}
	test := blockOf(t, string(readme), "Test it")[0]
	if !strings.HasSuffix(test, "go test -timeout 30m ./...") {
		t.Errorf("the README's test command %q does not run the whole suite with -timeout 30m", test)
	}
	found := false
	for _, line := range strings.Split(string(ci), "\n") {
		found = found || strings.TrimSpace(line) == test
	}
	if !found {
		t.Errorf(".ci/run does not run the README's test command as written: %s", test)
	}
}

// Users run the binary they built: the README and the guides never compile
// the server with go run (only developers' commands do, in developers.md),
// so a reader's first start compiles once and later ones start at once.
func TestReadersRunTheBuiltBinary(t *testing.T) {
	for _, doc := range []string{"../README.md", "integrators.md", "operators.md", "api-behaviour.md"} {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			if strings.Contains(line, "go run ./cmd/larder") {
				t.Errorf("%s:%d runs go run ./cmd/larder, not the built ./larder: %s", doc, i+1, line)
			}
		}
	}
}
