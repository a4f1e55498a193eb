package codegen

import (
	"strings"
	"testing"

	"entgo.io/ent/entc/gen"
	"entgo.io/ent/schema/field"

	"larder.dev/larder/annotate"
)

// The converters name ogen's Go identifiers, so pascal must agree with ogen.
func TestPascalMatchesOgen(t *testing.T) {
	cases := map[string]string{
		"id":                   "ID",
		"unit_of_measure_id":   "UnitOfMeasureID",
		"is_major_allergen":    "IsMajorAllergen",
		"name_fr":              "NameFr",
		"last4":                "Last4",
		"api_key_id":           "APIKeyID",
		"website_url":          "WebsiteURL",
		"listUnitsOfMeasure":   "ListUnitsOfMeasure",
		"units_of_measure":     "UnitsOfMeasure",
		"rate_limit_per_min":   "RateLimitPerMin",
		"uom_id":               "UomID",
		"regulatory_reference": "RegulatoryReference",
	}
	for in, want := range cases {
		if got := pascal(in); got != want {
			t.Errorf("pascal(%q) = %q, want %q", in, got, want)
		}
	}
}

func resourceWith(fields ...*Field) *Resource {
	typ := &gen.Type{Name: "Thing"}
	r := &Resource{Type: typ, Ann: annotate.Expose("things", "thing_id", annotate.Catalog, annotate.CRUD...), Schema: "Thing"}
	for _, f := range fields {
		f.Res = r
		typ.Fields = append(typ.Fields, f.F)
		r.Fields = append(r.Fields, f)
	}
	typ.Indexes = []*gen.Index{{Columns: []string{"account_id", "name"}}}
	return r
}

func costField(a annotate.Field, nillable bool) *Field {
	a.Cost = true
	return &Field{Name: "cost", Ann: a, F: &gen.Field{Name: "cost", Type: &field.TypeInfo{Type: field.TypeFloat64}, Nillable: nillable, Optional: nillable}}
}

// The generator refuses annotations that would leak or break the API.
func TestValidationRefuses(t *testing.T) {
	name := &Field{Name: "name", F: &gen.Field{Name: "name", Type: &field.TypeInfo{Type: field.TypeString}}}
	cases := []struct {
		name string
		r    *Resource
		want string
	}{
		{"sortable cost", resourceWith(costField(annotate.Sortable(), true)), "cannot be sortable"},
		{"filterable cost", resourceWith(costField(annotate.Filterable(), true)), "cannot be sortable, filterable or searchable"},
		{"searchable cost", resourceWith(costField(annotate.Searchable(), true)), "cannot be sortable, filterable or searchable"},
		{"cost that cannot be nil", resourceWith(costField(annotate.Field{}, false)), "Nillable"},
		{"sort without an index", resourceWith(&Field{Name: "code", Ann: annotate.Sortable(), F: &gen.Field{Name: "code", Type: &field.TypeInfo{Type: field.TypeString}}}), "no index"},
		{"null clearing a required field", resourceWith(&Field{Name: "name", Ann: annotate.Field{Null: annotate.NullClears}, F: name.F}), "nillable"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.r.validate()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("validate: %v, want an error mentioning %q", err, tc.want)
			}
		})
	}
	ok := resourceWith(&Field{Name: "name", Ann: annotate.Field{Sort: true, Filter: annotate.Partial}, F: name.F}, costField(annotate.Field{}, true))
	if err := ok.validate(); err != nil {
		t.Fatalf("a valid resource is refused: %v", err)
	}
}
