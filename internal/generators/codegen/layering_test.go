package codegen

import (
	"os/exec"
	"strings"
	"testing"
)

// httpLayer are the packages of the HTTP layer: the generated glue, the
// handlers and the ogen server and client.
var httpLayer = []string{
	"larder.dev/larder/internal/restapi",
	"larder.dev/larder/handlers",
	"larder.dev/larder/openapi",
	"larder.dev/larder/client",
}

// notBelowEnt are packages nothing under ent may depend on, directly or not:
// net/http (the HTTP glue is package restapi's) and the database drivers
// (package store opens databases and tells package dberror what their
// errors say).
var notBelowEnt = []string{
	"net/http",
	"github.com/lib/pq",
	"modernc.org/sqlite",
}

// TestLayeringEntBelowHTTP pins where the generator writes: the HTTP glue is
// package restapi, above ent, so no package under larder.dev/larder/ent
// depends on the HTTP layer, and nothing ent depends on is net/http or a
// database driver (notBelowEnt).
func TestLayeringEntBelowHTTP(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH; cannot list ent's dependencies")
	}
	out, err := exec.Command(goTool, "list", "-deps", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}",
		"larder.dev/larder/ent/...").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	var ents int
	var sawSchema bool
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg, imports := fields[0], fields[1:]
		for _, n := range notBelowEnt {
			if within(pkg, n) {
				t.Errorf("ent depends on %s", pkg)
			}
		}
		if !within(pkg, "larder.dev/larder") {
			continue
		}
		underEnt := within(pkg, "larder.dev/larder/ent")
		if underEnt {
			ents++
			sawSchema = sawSchema || pkg == "larder.dev/larder/ent/schema"
		}
		for _, imp := range imports {
			for _, h := range httpLayer {
				if within(imp, h) {
					t.Errorf("%s imports %s, of the HTTP layer above ent", pkg, imp)
				}
			}
			if underEnt && within(imp, "net/http") {
				t.Errorf("%s imports %s; the HTTP glue belongs in package restapi", pkg, imp)
			}
		}
	}
	if ents < 20 || !sawSchema {
		t.Fatalf("go list listed %d packages under larder.dev/larder/ent (schema among them: %v), want all of ent's", ents, sawSchema)
	}
}

// within reports whether the import path p is pkg or below it.
func within(p, pkg string) bool {
	return p == pkg || strings.HasPrefix(p, pkg+"/")
}

// TestSchemaReadOnlyByRuntime pins who reads the schema package: the
// generator loads it, and the generated ent/runtime registers its hooks and
// policies; no other package imports it, so what the schema declares reaches
// the server through generated code (ent/migrate holds the indexes' predicates
// the request log repeats, for one).
func TestSchemaReadOnlyByRuntime(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH; cannot list the module's imports")
	}
	out, err := exec.Command(goTool, "list", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", "larder.dev/larder/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	const schema = "larder.dev/larder/ent/schema"
	var readers []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		for _, imp := range f[1:] {
			if imp == schema {
				readers = append(readers, f[0])
			}
		}
	}
	if len(readers) == 0 {
		t.Fatalf("no package imports %s; the listing is not of the module", schema)
	}
	for _, r := range readers {
		if r != "larder.dev/larder/ent/runtime" && !within(r, "larder.dev/larder/internal/generators") {
			t.Errorf("%s imports %s; read what the schema declares from generated code", r, schema)
		}
	}
}
