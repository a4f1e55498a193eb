package handlers_test

import (
	"context"
	"sort"
	"strings"
	"testing"

	"larder.dev/larder/ent/location"
	"larder.dev/larder/inventory"
	"larder.dev/larder/policy"
)

// Spec "Reference resources with writes": warehouses are sites with a default
// floor plan; a warehouse's id is its location id.
func TestWarehouses(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		sys := policy.System(context.Background())
		paths := func(siteID int) []string {
			locs := a.st.Client.Location.Query().
				Where(location.Or(location.ID(siteID), location.ParentID(siteID))).
				AllX(sys)
			var out []string
			for _, l := range locs {
				out = append(out, l.Path)
			}
			sort.Strings(out)
			return out
		}
		floorPlan := func(code string) []string {
			out := []string{code}
			for _, a := range inventory.FloorPlan {
				out = append(out, code+"/"+a.Code)
			}
			sort.Strings(out)
			return out
		}

		main := a.post("/v1/warehouses", map[string]any{"code": "MAIN", "name": "Main plant", "description": "Bakery"}).want(201)
		id := main.ID()
		a.run(t, "create makes an active site", func(t *testing.T, a *api) {
			want := map[string]any{"id": float64(id), "code": "MAIN", "name": "Main plant", "description": "Bakery", "is_active": true}
			if diff := cmpDiff(want, main.Data()); diff != "" {
				t.Fatalf("(-want +got):\n%s", diff)
			}
		})
		a.run(t, "create makes the default floor plan", func(t *testing.T, a *api) {
			if diff := cmpDiff(floorPlan("MAIN"), paths(id)); diff != "" {
				t.Fatalf("locations (-want +got):\n%s", diff)
			}
		})
		a.run(t, "inner locations are not warehouses", func(t *testing.T, a *api) {
			inner := a.st.Client.Location.Query().Where(location.ParentID(id)).FirstIDX(sys)
			a.get(path("/v1/warehouses", inner)).problem(404, "NOT_FOUND")
			a.patch(path("/v1/warehouses", inner), map[string]any{"name": "x"}).problem(404, "NOT_FOUND")
			a.del(path("/v1/warehouses", inner)).problem(404, "NOT_FOUND")
			if l := a.get("/v1/warehouses").List(); len(l) != 1 {
				t.Fatalf("list shows %d warehouses, want 1", len(l))
			}
		})
		a.run(t, "code is unique among warehouses", func(t *testing.T, a *api) {
			a.post("/v1/warehouses", map[string]any{"code": "MAIN", "name": "Again"}).field(409, "DUPLICATE", "code")
			// An area code is not a warehouse code.
			a.post("/v1/warehouses", map[string]any{"code": "STORAGE", "name": "Depot"}).want(201)
		})
		a.run(t, "body bounds", func(t *testing.T, a *api) {
			cases := []struct {
				body  map[string]any
				field string
			}{
				{map[string]any{"name": "x"}, "code"},
				{map[string]any{"code": "x"}, "name"},
				{map[string]any{"code": strings.Repeat("c", 41), "name": "x"}, "code"},
				{map[string]any{"code": "x", "name": strings.Repeat("n", 101)}, "name"},
				{map[string]any{"code": "x", "name": "x", "description": strings.Repeat("d", 501)}, "description"},
				{map[string]any{"code": "x", "name": "x", "is_active": false}, "is_active"},
			}
			for _, tc := range cases {
				a.post("/v1/warehouses", tc.body).field(400, "VALIDATION_ERROR", tc.field)
			}
		})
		a.run(t, "null is ignored, not cleared", func(t *testing.T, a *api) {
			d := a.patch(path("/v1/warehouses", id), map[string]any{"description": nil, "name": nil, "code": nil}).want(200).Data()
			if d["description"] != "Bakery" || d["name"] != "Main plant" || d["code"] != "MAIN" {
				t.Fatalf("null changed the record: %v", d)
			}
		})
		a.run(t, "changing the code moves the location paths", func(t *testing.T, a *api) {
			d := a.patch(path("/v1/warehouses", id), map[string]any{"code": "PLANT1", "name": "Plant 1"}).want(200).Data()
			if d["code"] != "PLANT1" || d["name"] != "Plant 1" {
				t.Fatalf("after update: %v", d)
			}
			if diff := cmpDiff(floorPlan("PLANT1"), paths(id)); diff != "" {
				t.Fatalf("locations (-want +got):\n%s", diff)
			}
		})
		a.run(t, "list search, name filter and sorts", func(t *testing.T, a *api) {
			a.post("/v1/warehouses", map[string]any{"code": "COLD", "name": "Cold storage"}).want(201)
			names := func(q string) []string { return a.column("/v1/warehouses?"+q, "code") }
			if diff := cmpDiff([]string{"COLD", "PLANT1", "STORAGE"}, names("sort=code")); diff != "" {
				t.Fatalf("sort=code (-want +got):\n%s", diff)
			}
			if diff := cmpDiff([]string{"PLANT1", "STORAGE", "COLD"}, names("sort=name:desc")); diff != "" {
				t.Fatalf("sort=name:desc (-want +got):\n%s", diff)
			}
			if diff := cmpDiff([]string{"COLD"}, names("search=cold")); diff != "" {
				t.Fatalf("search (-want +got):\n%s", diff)
			}
			if diff := cmpDiff([]string{"PLANT1"}, names("search=plant1")); diff != "" {
				t.Fatalf("search by code (-want +got):\n%s", diff)
			}
			if diff := cmpDiff([]string{"COLD"}, names("name=STOR&sort=code&limit=1")); diff != "" {
				t.Fatalf("name filter (-want +got):\n%s", diff)
			}
		})
		a.run(t, "delete removes the site and all its locations", func(t *testing.T, a *api) {
			d := a.del(path("/v1/warehouses", id)).want(200).Data()
			if d["code"] != "PLANT1" {
				t.Fatalf("deleted %v", d)
			}
			if p := paths(id); len(p) != 0 {
				t.Fatalf("locations left: %v", p)
			}
			a.get(path("/v1/warehouses", id)).problem(404, "NOT_FOUND")
		})
	})
}
