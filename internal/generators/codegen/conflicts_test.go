package codegen

import (
	"strings"
	"testing"

	"entgo.io/ent/entc/gen"

	"larder.dev/larder/internal/generators/annotate"
)

// A unique index's declared answer is listed by the index's name, as the
// graph holds it (decoded from JSON); a declaration on an index that is not
// unique, or without a code or message, stops the generator.
func TestUniqueConflicts(t *testing.T) {
	declared := annotate.Conflict("DEFAULT_ADDRESS_EXISTS", "is_default", "A default exists.")
	asLoaded := map[string]any{"code": declared.Code, "field": declared.Field, "message": declared.Message}
	graph := func(unique bool, a any) *gen.Graph {
		return &gen.Graph{Nodes: []*gen.Type{{Name: "ShippingAddress", Indexes: []*gen.Index{
			{Name: "shippingaddress_customer_id", Columns: []string{"customer_id"}},
			{Name: "shipping_addresses_one_default", Unique: unique, Columns: []string{"customer_id"}, Annotations: gen.Annotations{annotate.ConflictName: a}},
		}}}}
	}
	got, err := uniqueConflicts(graph(true, asLoaded))
	if err != nil || len(got) != 1 || got[0].Name != "shipping_addresses_one_default" || got[0].IndexConflict != declared {
		t.Fatalf("%+v %v", got, err)
	}
	if _, err := uniqueConflicts(graph(false, asLoaded)); err == nil || !strings.Contains(err.Error(), "unique") {
		t.Fatalf("a conflict on an index that is not unique: %v", err)
	}
	if _, err := uniqueConflicts(graph(true, map[string]any{"field": "is_default"})); err == nil {
		t.Fatal("a conflict without code or message accepted")
	}
}
