package flows

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// module writes a module example.com/m with the given files (path from the
// root → content) and returns its root.
func module(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	files["go.mod"] = "module example.com/m\n"
	for p, c := range files {
		p = filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// Find reads each package-level flow value with the steps it sets, under
// whatever name the package imports ent, and leaves tests and other types
// out.
func TestFindReadsTheDeclarations(t *testing.T) {
	root := module(t, map[string]string{
		"internal/modules/buying/flows.go": `package buying

import gen "example.com/m/ent"

var BillFlow = gen.BillFlow{Prepare: PrepareBill, Record: func() {}}

var notAFlow = gen.Bill{}
`,
		"internal/modules/selling/ship.go": `package selling

import "example.com/m/ent"

var (
	ShipmentFlow = ent.ShipmentFlow[*Picked]{Prepare: Pick, Record: Ship}
)
`,
		"internal/modules/selling/ship_test.go": `package selling

import "example.com/m/ent"

var testFlow = ent.OrderFlow{Cancel: nil}
`,
	})
	module, err := Module(root)
	if err != nil || module != "example.com/m" {
		t.Fatalf("Module: %q, %v", module, err)
	}
	got, err := Find(root, module)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, f := range got {
		lines = append(lines, f.String())
	}
	want := []string{
		"internal/modules/buying/flows.go:5: example.com/m/internal/modules/buying.BillFlow = ent.BillFlow{Prepare, Record}",
		"internal/modules/selling/ship.go:6: example.com/m/internal/modules/selling.ShipmentFlow = ent.ShipmentFlow{Prepare, Record}",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Fatalf("Find:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	if r := got[1].Ref("Record"); r != "selling.ShipmentFlow.Record" {
		t.Errorf("Ref = %s", r)
	}
}

// A flow value the generated handlers could not call through, or whose
// steps are not named, is refused with where it is.
func TestFindRefuses(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"positional", `var BillFlow = ent.BillFlow{PrepareBill, ReceiveBill}`, "flows.go:5: BillFlow sets its steps by position"},
		{"blank", `var _ = ent.BillFlow{Prepare: PrepareBill}`, "flows.go:5: the flow of Bill must be a named variable"},
		{"in a function", "func init() {\n\t_ = ent.BillFlow{Prepare: PrepareBill}\n}", "flows.go:6: a value of ent.BillFlow outside a package-level variable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := module(t, map[string]string{"internal/modules/buying/flows.go": "package buying\n\nimport \"example.com/m/ent\"\n\n" + tc.src + "\n"})
			_, err := Find(root, "example.com/m")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Find: %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// The digest changes with what a flow is (its package, name and steps),
// not with where in its file it is.
func TestDigest(t *testing.T) {
	src := func(pre, steps string) map[string]string {
		return map[string]string{"internal/modules/buying/flows.go": "package buying\n\nimport \"example.com/m/ent\"\n" + pre + "\nvar BillFlow = ent.BillFlow{" + steps + "}\n"}
	}
	digest := func(files map[string]string) string {
		d, err := Digest(module(t, files))
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	a := digest(src("", "Prepare: P"))
	if b := digest(src("\n// moved down\n", "Prepare: P")); a != b {
		t.Errorf("a flow moved down a file changed the digest:\n%s\n%s", a, b)
	}
	if c := digest(src("", "Prepare: P, Record: R")); a == c {
		t.Errorf("a step added left the digest as it was: %s", a)
	}
}
