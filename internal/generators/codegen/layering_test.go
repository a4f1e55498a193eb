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

// netHTTPBelowEnt are the packages of the module that ent depends on and that
// may import net/http: problem names each error code's HTTP status with
// net/http's constants, and ent's guards return those codes.
var netHTTPBelowEnt = map[string]bool{
	"larder.dev/larder/internal/platform/problem": true,
}

// TestLayeringEntBelowHTTP pins where the generator writes: the HTTP glue is
// package restapi, above ent, so no package under larder.dev/larder/ent
// depends on the HTTP layer or imports net/http, and nothing else of the
// module that ent depends on brings net/http in beyond netHTTPBelowEnt.
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
			if !within(imp, "net/http") {
				continue
			}
			switch {
			case underEnt:
				t.Errorf("%s imports %s; the HTTP glue belongs in package restapi", pkg, imp)
			case !netHTTPBelowEnt[pkg]:
				t.Errorf("%s imports %s and ent depends on it", pkg, imp)
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
