package openapi_test

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"larder.dev/larder/openapi"
)

// document is the published description as a JSON tree.
func document(t *testing.T) map[string]any {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(openapi.Document, &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// walk calls f on every object of v with its JSON pointer.
func walk(v any, at string, f func(at string, o map[string]any)) {
	switch x := v.(type) {
	case map[string]any:
		f(at, x)
		for k, c := range x {
			walk(c, at+"/"+k, f)
		}
	case []any:
		for i, c := range x {
			walk(c, at+"/"+strconv.Itoa(i), f)
		}
	}
}

// clauseEnd ends a clause: a full stop or a semicolon before a space or the end.
var clauseEnd = regexp.MustCompile(`[.;](\s+|$)`)

// Every description of the published description says each thing once: no
// clause (a sentence, or a part of one between semicolons) comes twice.
func TestDescriptionsSayEachThingOnce(t *testing.T) {
	n := 0
	walk(document(t), "#", func(at string, o map[string]any) {
		d, ok := o["description"].(string)
		if !ok {
			return
		}
		n++
		seen := map[string]bool{}
		for _, c := range clauseEnd.Split(d, -1) {
			c = strings.ToLower(strings.TrimSpace(c))
			if c == "" {
				continue
			}
			if seen[c] {
				t.Errorf("%s says %q twice: %q", at, c, d)
			}
			seen[c] = true
		}
	})
	if n < 500 {
		t.Fatalf("only %d descriptions seen", n)
	}
}

// A field or edge absent from lists is described by the operations its
// resource has: a resource without lists and retrievals (shipments, only
// created) speaks of neither; one with them says so once.
func TestSingleOnlyDescriptionsFitTheirResource(t *testing.T) {
	props := func(schema string) map[string]any {
		s := document(t)["components"].(map[string]any)["schemas"].(map[string]any)[schema].(map[string]any)
		return s["properties"].(map[string]any)
	}
	desc := func(schema, prop string) string {
		return props(schema)[prop].(map[string]any)["description"].(string)
	}
	if d := desc("Shipment", "lines"); strings.Contains(d, "retrieval") || strings.Contains(d, "list") {
		t.Errorf("Shipment.lines speaks of retrievals or lists shipments do not have: %q", d)
	}
	for _, c := range []struct{ schema, want string }{
		{"Bill", "Only on single retrieval and writes; null in lists."},
		{"PurchaseOrder", "Only on single retrieval and writes; null in lists."},
		{"SalesOrder", "Only on single retrieval and writes; null in lists."},
		{"Invoice", "Only on single retrieval; null in lists."}, // invoices are only read
	} {
		if d := desc(c.schema, "lines"); strings.Count(d, "null in lists") != 1 || !strings.HasSuffix(d, c.want) {
			t.Errorf("%s.lines: %q, want it to end %q, once", c.schema, d, c.want)
		}
	}
}

// The description's one server is relative: a page or a client reading the
// served description calls the server it read it from.
func TestServerIsRelative(t *testing.T) {
	servers, _ := document(t)["servers"].([]any)
	if len(servers) != 1 || servers[0].(map[string]any)["url"] != "/v1" {
		t.Fatalf("servers %v, want the one relative /v1", servers)
	}
}
