package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// developers.md's "Adding a document type" lists the files a new document
// type touches by hand: at most eight, each one that exists for the bill
// (<doc> bill, <docs> bills, <module> purchasing, whose <file> is
// documents), and the lists that named
// every document type by hand are gone: the schema names no workflow
// function by a string, the annotations hold no event catalogue, scaling.md
// names no business table, and no test pins the number of event types.
func TestAddingADocumentType(t *testing.T) {
	b, err := os.ReadFile("developers.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(b), "\n## Adding a document type\n")
	if !ok {
		t.Fatal(`developers.md has no section "Adding a document type"`)
	}
	sec, _, _ = strings.Cut(sec, "\n## ")
	item := regexp.MustCompile("(?m)^\\d+\\. `([^`]+)`")
	var files []string
	for _, m := range item.FindAllStringSubmatch(sec, -1) {
		files = append(files, m[1])
	}
	if len(files) == 0 || len(files) > 8 {
		t.Fatalf("the section lists %d files (%v), want 1 to 8", len(files), files)
	}
	bill := strings.NewReplacer("<docs>", "bills", "<doc>", "bill", "<module>", "purchasing", "<file>", "documents")
	for _, f := range files {
		p := filepath.Join(root, bill.Replace(f))
		if _, err := os.Stat(p); err != nil {
			t.Errorf("the section lists %s, which for the bill is %s: %v", f, p, err)
		}
	}

	// Hand-written lists that named every document type, each with what
	// replaced it.
	gone := []struct{ glob, text, why string }{
		{"ent/schema/*.go", `"larder.dev/larder/internal/modules/`, "a workflow is the module's flow value, not a string in the schema"},
		{"internal/generators/annotate/*.go", "var Catalogue", "the event catalogue is the schemas' Emits"},
		{filepath.Join("docs", "scaling.md"), "| not null | distributed | business table |", "an unnamed table with account_id NOT NULL is a business table"},
		{"handlers/openapi_test.go", "!= 61", "the event types are what the schemas emit"},
		{"docs/capabilities_test.go", "!= 61", "the event types are what the schemas emit"},
		{"deploy/haproxy_test.go", "/v1/purchase-orders /v1/bills", "the idempotent creates are the description's"},
	}
	for _, g := range gone {
		paths, err := filepath.Glob(filepath.Join(root, g.glob))
		if err != nil || len(paths) == 0 {
			t.Fatalf("%s: %v (no file)", g.glob, err)
		}
		for _, p := range paths {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(b), g.text) {
				t.Errorf("%s holds %q: %s", p, g.text, g.why)
			}
		}
	}
}
