package handlers_test

import (
	"strings"
	"testing"
)

// Spec "Reference resources with writes": tags.
func TestTags(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		created := a.post("/v1/tags", map[string]any{"name": "Organic", "ref_type": "PRODUCT", "description": "Certified"}).want(201)
		id := created.ID()
		want := map[string]any{"id": float64(id), "name": "Organic", "ref_type": "PRODUCT", "description": "Certified"}
		if diff := cmpDiff(want, created.Data()); diff != "" {
			t.Fatalf("create (-want +got):\n%s", diff)
		}

		a.run(t, "retrieve returns the record", func(t *testing.T, a *api) {
			if diff := cmpDiff(want, a.get(path("/v1/tags", id)).want(200).Data()); diff != "" {
				t.Fatalf("(-want +got):\n%s", diff)
			}
		})
		a.run(t, "name is unique per ref_type", func(t *testing.T, a *api) {
			a.post("/v1/tags", map[string]any{"name": "Organic", "ref_type": "PRODUCT"}).field(409, "DUPLICATE", "name")
			a.post("/v1/tags", map[string]any{"name": "Organic", "ref_type": "CUSTOMER"}).want(201)
		})
		a.run(t, "body bounds", func(t *testing.T, a *api) {
			cases := []struct {
				body  map[string]any
				field string
			}{
				{map[string]any{"ref_type": "PRODUCT"}, "name"},
				{map[string]any{"name": "x"}, "ref_type"},
				{map[string]any{"name": "", "ref_type": "PRODUCT"}, "name"},
				{map[string]any{"name": strings.Repeat("n", 101), "ref_type": "PRODUCT"}, "name"},
				{map[string]any{"name": "x", "ref_type": "PRODUCT", "description": strings.Repeat("d", 501)}, "description"},
				{map[string]any{"name": "x", "ref_type": "LOT"}, "ref_type"},
				{map[string]any{"name": 7, "ref_type": "PRODUCT"}, "name"},
				{map[string]any{"name": "x", "ref_type": "PRODUCT", "id": 5}, "id"},
			}
			for _, tc := range cases {
				a.post("/v1/tags", tc.body).field(400, "VALIDATION_ERROR", tc.field)
			}
			a.post("/v1/tags", map[string]any{"name": strings.Repeat("n", 100), "ref_type": "SUPPLIER", "description": strings.Repeat("d", 500)}).want(201)
		})
		a.run(t, "update changes name and description", func(t *testing.T, a *api) {
			d := a.patch(path("/v1/tags", id), map[string]any{"name": "Bio"}).want(200).Data()
			if d["name"] != "Bio" || d["description"] != "Certified" || d["ref_type"] != "PRODUCT" {
				t.Fatalf("after renaming: %v", d)
			}
			d = a.patch(path("/v1/tags", id), map[string]any{"description": nil}).want(200).Data()
			if d["description"] != nil || d["name"] != "Bio" {
				t.Fatalf("null should clear the description only: %v", d)
			}
		})
		a.run(t, "ref_type is fixed at creation", func(t *testing.T, a *api) {
			a.patch(path("/v1/tags", id), map[string]any{"ref_type": "SUPPLIER"}).field(400, "VALIDATION_ERROR", "ref_type")
			if got := a.get(path("/v1/tags", id)).Data()["ref_type"]; got != "PRODUCT" {
				t.Fatalf("ref_type changed to %v", got)
			}
		})
		a.run(t, "name cannot be null", func(t *testing.T, a *api) {
			a.patch(path("/v1/tags", id), map[string]any{"name": nil}).field(400, "VALIDATION_ERROR", "name")
		})
		a.run(t, "list needs ref_type", func(t *testing.T, a *api) {
			a.get("/v1/tags").field(400, "VALIDATION_ERROR", "ref_type")
		})
		a.run(t, "list filters by ref_type, name and search", func(t *testing.T, a *api) {
			for _, n := range []string{"Gluten-free", "Glazed", "Vegan"} {
				a.post("/v1/tags", map[string]any{"name": n, "ref_type": "PRODUCT"}).want(201)
			}
			names := func(path string) []string { return a.column(path, "name") }
			if diff := cmpDiff([]string{"Glazed", "Gluten-free"}, names("/v1/tags?ref_type=PRODUCT&name=gl&sort=name")); diff != "" {
				t.Fatalf("name filter (-want +got):\n%s", diff)
			}
			if diff := cmpDiff([]string{"Vegan"}, names("/v1/tags?ref_type=PRODUCT&search=EGA")); diff != "" {
				t.Fatalf("search (-want +got):\n%s", diff)
			}
			if diff := cmpDiff([]string{"Organic"}, names("/v1/tags?ref_type=CUSTOMER")); diff != "" {
				t.Fatalf("ref_type filter (-want +got):\n%s", diff)
			}
		})
		a.run(t, "delete returns the deleted record", func(t *testing.T, a *api) {
			d := a.del(path("/v1/tags", id)).want(200).Data()
			if int(d["id"].(float64)) != id || d["name"] != "Bio" {
				t.Fatalf("deleted %v", d)
			}
			a.get(path("/v1/tags", id)).problem(404, "NOT_FOUND")
			a.del(path("/v1/tags", id)).problem(404, "NOT_FOUND")
		})
	})
}
