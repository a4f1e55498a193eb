package purchasing_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A flow names its functions as Go values, so a function of the wrong type
// does not compile, and the compiler says which step wants what: here the
// bill's Record step given the function that cancels a bill.
func TestAWrongWorkflowDoesNotCompile(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles the package")
	}
	src, err := filepath.Abs("documents.go")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	const right = "ent.BillFlow{Prepare: PrepareBill, Record: ReceiveBill}"
	if !strings.Contains(string(b), right) {
		t.Fatalf("documents.go no longer declares %s", right)
	}
	dir := t.TempDir()
	wrong := filepath.Join(dir, "documents.go")
	if err := os.WriteFile(wrong, []byte(strings.Replace(string(b), right, "ent.BillFlow{Prepare: PrepareBill, Record: CancelBill}", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	overlay, err := json.Marshal(map[string]map[string]string{"Replace": {src: wrong}})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "overlay.json")
	if err := os.WriteFile(file, overlay, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("go", "build", "-overlay", file, ".").CombinedOutput()
	if err == nil {
		t.Fatal("the package compiled with CancelBill as the bill's Record step")
	}
	// The compiler writes a type of package ent with its path when the
	// package also sees another package named ent (entgo.io/ent).
	msg := strings.ReplaceAll(string(out), `"larder.dev/larder/ent".`, "ent.")
	for _, want := range []string{"cannot use CancelBill", "as func(ctx context.Context, tx *ent.Tx, doc *ent.Bill, lines []*ent.BillLine) error value in struct literal"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the compiler's message lacks %q:\n%s", want, out)
		}
	}
}
