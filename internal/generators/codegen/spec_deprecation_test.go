package codegen

import (
	"encoding/json"
	"strings"
	"testing"

	"entgo.io/ent/entc/gen"
	"entgo.io/ent/schema/field"

	"larder.dev/larder/internal/generators/annotate"
	"larder.dev/larder/internal/platform/deprecation"
)

// A test annotation of a field and an operation makes the description say
// deprecated, with dates and replacement in words and in x-deprecation, which
// the server's table reads back: the path from the schema to the headers.
func TestDeprecationAnnotationsReachTheDescription(t *testing.T) {
	name := &Field{Name: "name", F: &gen.Field{Name: "name", Type: &field.TypeInfo{Type: field.TypeString}}}
	old := &Field{Name: "label", Ann: annotate.Deprecate("2026-12-05", "2027-12-31", "the field name"),
		F: &gen.Field{Name: "label", Type: &field.TypeInfo{Type: field.TypeString}}}
	r := resourceWith(name, old)
	r.Ann = r.Ann.Deprecate(annotate.Delete, annotate.Deprecation{Since: "2026-12-01", Use: "archiving"})
	doc, err := parseTree([]byte(`{
	  "paths": {
	    "/things": {
	      "get": {"operationId": "` + r.OperationID(annotate.List) + `", "parameters": [{"name": "label", "in": "query", "schema": {"type": "string"}}]},
	      "post": {"operationId": "` + r.OperationID(annotate.Create) + `", "requestBody": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/ThingCreate"}}}}}
	    },
	    "/things/{thing_id}": {"delete": {"operationId": "` + r.OperationID(annotate.Delete) + `", "description": "Removes a thing."}}
	  },
	  "components": {"schemas": {
	    "Thing": {"type": "object", "properties": {"name": {"type": "string"}, "label": {"type": "string", "description": "A label."}}},
	    "ThingCreate": {"type": "object", "properties": {"name": {"type": "string"}, "label": {"type": "string"}}}
	  }}
	}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := deprecate(doc.(*object), []*Resource{r}); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	out := string(b)
	for _, want := range []string{
		`"description":"Removes a thing. Deprecated since 2026-12-01; use archiving instead.","deprecated":true,"x-deprecation":{"since":"2026-12-01","replacement":"archiving"}`,
		`"description":"A label. Deprecated since 2026-12-05; it may be removed after 2027-12-31 in a next major version, never from version 1; use the field name instead."`,
		`"name":"label","in":"query","schema":{"type":"string"},"deprecated":true`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the description lacks %s:\n%s", want, out)
		}
	}
	if n := strings.Count(out, `"x-deprecation"`); n != 4 { // the delete, the two schemas' field, the filter
		t.Errorf("%d x-deprecation, want 4:\n%s", n, out)
	}
	table, err := deprecation.FromDescription(b)
	if err != nil {
		t.Fatal(err)
	}
	uses, n := table.Uses(r.OperationID(annotate.Create), nil, []byte(`{"name":"a","label":"b"}`))
	if len(uses) != 1 || uses[0] != r.OperationID(annotate.Create)+":label" || n.Sunset.Format("2006-01-02") != "2027-12-31" {
		t.Errorf("create with label: %v %+v", uses, n)
	}
	if uses, _ := table.Uses(r.OperationID(annotate.Create), nil, []byte(`{"name":"a"}`)); len(uses) != 0 {
		t.Errorf("create without label: %v", uses)
	}
	if uses, n := table.Uses(r.OperationID(annotate.Delete), nil, nil); len(uses) != 1 || !n.Sunset.IsZero() || n.Since.Format("2006-01-02") != "2026-12-01" {
		t.Errorf("delete: %v %+v", uses, n)
	}

	// A deprecation the description cannot show is refused.
	r.Ann = r.Ann.Deprecate(annotate.Update, annotate.Deprecation{Since: "2026-12-01"})
	doc2, _ := parseTree([]byte(`{"paths": {}, "components": {"schemas": {"Thing": {"properties": {"label": {}}}}}}`))
	if err := deprecate(doc2.(*object), []*Resource{r}); err == nil || !strings.Contains(err.Error(), "not in the description") {
		t.Errorf("an operation not in the description: %v", err)
	}
}
