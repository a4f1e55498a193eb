package main

import (
	"go/types"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
)

// The driver's answers give go/packages the same types as the go command's,
// a repeated query is answered from the cache, and queries with other
// patterns are not.
func TestPackagesDriver(t *testing.T) {
	exe := filepath.Join(t.TempDir(), "generate")
	if out, err := exec.Command("go", "build", "-o", exe, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cache := t.TempDir()
	driver := []string{"GOPACKAGESDRIVER=" + exe, cacheEnv + "=" + cache}
	load := func(env []string, patterns ...string) ([]*packages.Package, error) {
		cfg := &packages.Config{Mode: packages.NeedTypes | packages.NeedName, Env: append(os.Environ(), env...)}
		return packages.Load(cfg, patterns...)
	}
	// What ogen asks about an external type: its package and the
	// interfaces it checks the type against.
	patterns := []string{"larder.dev/larder/client/bounds", "encoding", "encoding/json"}
	want, err := load([]string{"GOPACKAGESDRIVER=off"}, patterns...)
	if err != nil {
		t.Fatal(err)
	}
	for round := range 2 {
		got, err := load(driver, patterns...)
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if g, w := describe(t, got), describe(t, want); g != w {
			t.Fatalf("round %d: through the driver:\n%s\nthrough go list:\n%s", round, g, w)
		}
		if n := answers(t, cache); n != 1 {
			t.Fatalf("round %d: %d answers cached, want 1", round, n)
		}
	}

	// Other patterns are another query.
	got, err := load(driver, "encoding")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].PkgPath != "encoding" || got[0].Types.Scope().Lookup("TextMarshaler") == nil {
		t.Fatalf("encoding through the driver: %v", got)
	}
	if n := answers(t, cache); n != 2 {
		t.Fatalf("%d answers cached, want 2", n)
	}

	// A cached answer is the answer: spoiled, the query fails.
	files, _ := filepath.Glob(filepath.Join(cache, "*.json"))
	for _, f := range files {
		if err := os.WriteFile(f, []byte("{"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := load(driver, patterns...); err == nil {
		t.Fatal("a spoiled cached answer was not used")
	}
}

// describe lists the packages and the methods of bounds.Decimal, the facts
// ogen reads.
func describe(t *testing.T, pkgs []*packages.Package) string {
	t.Helper()
	var b strings.Builder
	for _, p := range pkgs {
		if len(p.Errors) > 0 {
			t.Fatalf("%s: %v", p.PkgPath, p.Errors)
		}
		if p.Types == nil {
			t.Fatalf("%s: no types", p.PkgPath)
		}
		b.WriteString(p.Name + " " + p.PkgPath + "\n")
		if p.PkgPath != "larder.dev/larder/client/bounds" {
			continue
		}
		obj := p.Types.Scope().Lookup("Decimal")
		if obj == nil {
			t.Fatal("bounds.Decimal not found")
		}
		ms := types.NewMethodSet(types.NewPointer(obj.Type()))
		for i := range ms.Len() {
			b.WriteString("  " + ms.At(i).String() + "\n")
		}
	}
	lines := strings.Split(b.String(), "\n")
	if len(lines) < 5 {
		t.Fatalf("too little to compare: %q", b.String())
	}
	return b.String()
}

func answers(t *testing.T, dir string) int {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	return len(files)
}
