package docs

import (
	"os"
	"strings"
	"testing"
)

// commandOf is the first line of the first sh block of a README section.
func commandOf(t *testing.T, readme, section string) string {
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
	line, _, _ := strings.Cut(block, "\n")
	return line
}

// The README's two commands are the ones a newcomer needs, and CI runs both:
// the server on the embedded database (in .ci/tour, the README's tour), and
// the test command, word for word.
func TestReadmeCommands(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	ci, err := os.ReadFile("../.ci/run")
	if err != nil {
		t.Fatal(err)
	}
	run := commandOf(t, string(readme), "Run it")
	if run != "go run ./cmd/larder serve --demo" {
		t.Errorf("the README's command to run the server is %q", run)
	}
	tour, err := os.ReadFile("../.ci/tour")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(tour), run) || !strings.Contains(string(ci), "bash .ci/tour") {
		t.Errorf("CI does not follow the README's tour with its command %q (.ci/tour, run by .ci/run)", run)
	}
	test := commandOf(t, string(readme), "Test it")
	if !strings.HasSuffix(test, "go test ./...") {
		t.Errorf("the README's test command %q does not run the whole suite", test)
	}
	found := false
	for _, line := range strings.Split(string(ci), "\n") {
		found = found || strings.TrimSpace(line) == test
	}
	if !found {
		t.Errorf(".ci/run does not run the README's test command as written: %s", test)
	}
}
