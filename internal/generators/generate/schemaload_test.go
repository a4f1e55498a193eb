package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestOverlayPutsTheSnapshotOverTheGeneratedFiles(t *testing.T) {
	dir := t.TempDir()
	gen, snap := filepath.Join(dir, "ent"), filepath.Join(dir, "snapshot")
	writeFiles(t, gen, map[string]string{
		"client.go":          "package ent // now",
		"tag/tag.go":         "package tag // now",
		"added/added.go":     "package added",
		"schema/tag.go":      "package schema",
		"entc.go":            "package main",
		"compiled_test.go":   "package ent",
		".entc/entc_load.go": "package main",
		"migrate/notes.txt":  "not Go",
	})
	writeFiles(t, snap, map[string]string{
		"client.go":      "package ent // then",
		"tag/tag.go":     "package tag // then",
		"gone/gone.go":   "package gone",
		"tag/extra.go":   "package tag",
		"schema/tag.go":  "package schema // never taken",
		"other_test.go":  "package ent",
		"README.md":      "not Go",
		"entc.go":        "package main // never taken",
		"hook/hook.go":   "package hook",
		"predicate/p.go": "package predicate",
	})
	o, err := overlayOver(gen, snap)
	if err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.Abs(gen)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		filepath.Join(abs, "client.go"):      filepath.Join(snap, "client.go"),
		filepath.Join(abs, "tag/tag.go"):     filepath.Join(snap, "tag/tag.go"),
		filepath.Join(abs, "tag/extra.go"):   filepath.Join(snap, "tag/extra.go"),
		filepath.Join(abs, "gone/gone.go"):   filepath.Join(snap, "gone/gone.go"),
		filepath.Join(abs, "hook/hook.go"):   filepath.Join(snap, "hook/hook.go"),
		filepath.Join(abs, "predicate/p.go"): filepath.Join(snap, "predicate/p.go"),
		filepath.Join(abs, "added/added.go"): "",
	}
	if diff := cmp.Diff(want, o.Replace); diff != "" {
		t.Errorf("overlay (-want +got):\n%s", diff)
	}

	copied := filepath.Join(dir, "copy")
	if err := copyGenerated(gen, copied); err != nil {
		t.Fatal(err)
	}
	var got []string
	if err := walkGenerated(copied, func(rel string) error { got = append(got, rel); return nil }); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"added/added.go", "client.go", "tag/tag.go"}, got); diff != "" {
		t.Errorf("copied (-want +got):\n%s", diff)
	}
	if b, err := os.ReadFile(filepath.Join(copied, "client.go")); err != nil || string(b) != "package ent // now" {
		t.Errorf("copied client.go = %q, %v", b, err)
	}
}

// The go command reads the overlay file as overlayOver writes it: a program
// run with it sees the snapshot's package, not the one on disk.
func TestGoCommandReadsTheOverlay(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	dir := t.TempDir()
	mod, snap := filepath.Join(dir, "mod"), filepath.Join(dir, "snapshot")
	writeFiles(t, mod, map[string]string{
		"go.mod":       "module example.com/m\n\ngo 1.22\n",
		"main.go":      "package main\n\nimport (\n\t\"fmt\"\n\n\t\"example.com/m/ent/tag\"\n)\n\nfunc main() { fmt.Print(tag.Label) }\n",
		"ent/tag/a.go": "package tag\n\nconst Label = \"current\"\n",
		"ent/tag/b.go": "package tag\n\nconst Extra = Missing\n",
	})
	writeFiles(t, snap, map[string]string{"tag/a.go": "package tag\n\nconst Label = \"snapshot\"\n"})
	o, err := overlayOver(filepath.Join(mod, "ent"), snap)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "overlay.json")
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "run", "-overlay="+file, ".")
	cmd.Dir = mod
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go run -overlay: %v\n%s", err, out)
	}
	if got := strings.TrimSpace(string(out)); got != "snapshot" {
		t.Errorf("the program printed %q, want the snapshot's label", got)
	}
}
