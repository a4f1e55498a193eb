package handlers_test

import (
	"context"
	"sort"
	"strings"
	"testing"

	"larder.dev/larder/ent/location"
	"larder.dev/larder/internal/modules/inventory"
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

// Spec "Reference resources with writes", Warehouses: a warehouse is removed
// with all its locations, and refused (409 IN_USE) only while a location is
// used by stock, movements or productions (counts are not recorded). A
// production line or equipment names its warehouse without holding it: the
// removal clears the name, and a soft-deleted line, gone from the API, holds
// nothing either. A refused removal changes nothing.
func TestWarehouseDeleteRule(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		a = seeded(t, a)
		sys := policy.System(context.Background())
		flour := a.productID("RM-FLOUR")
		lineWarehouse := func(id int) *int { return a.st.Client.ProductionLine.GetX(sys, id).WarehouseID }

		a.run(t, "a soft-deleted line does not hold its warehouse", func(t *testing.T, a *api) {
			site, _ := a.warehouse("GONE-LINE")
			line := a.post("/v1/production-lines", map[string]any{"name": "Gone line", "warehouse_id": site}).want(201).ID()
			a.del(path("/v1/production-lines", line)).want(200)
			before := len(a.events("production_line."))
			a.del(path("/v1/warehouses", site)).want(200)
			a.get(path("/v1/warehouses", site)).problem(404, "NOT_FOUND")
			row := a.st.Client.ProductionLine.GetX(sys, line)
			if row.DeletedAt == nil || row.WarehouseID != nil {
				t.Fatalf("the deleted line's row: %+v, want still deleted, without its warehouse", row)
			}
			a.get(path("/v1/production-lines", line)).problem(404, "NOT_FOUND")
			if n := len(a.events("production_line.")); n != before {
				t.Fatalf("%d production_line events for a line deleted before, want none", n-before)
			}
		})
		a.run(t, "a line names its warehouse without holding it", func(t *testing.T, a *api) {
			site, _ := a.warehouse("LINE-HOME")
			line := a.post("/v1/production-lines", map[string]any{"name": "Live line", "warehouse_id": site}).want(201).ID()
			a.del(path("/v1/warehouses", site)).want(200)
			d := a.get(path("/v1/production-lines", line)).want(200).Data()
			if d["warehouse_id"] != nil {
				t.Fatalf("the line still names the removed warehouse: %v", d)
			}
			evs := a.events("production_line.updated")
			if len(evs) == 0 || evs[len(evs)-1].ResourceID != line {
				t.Fatalf("no production_line.updated for line %d", line)
			}
			if !strings.Contains(string(evs[len(evs)-1].Snapshot), `"warehouse_id":null`) {
				t.Fatalf("snapshot %s, want warehouse_id null", evs[len(evs)-1].Snapshot)
			}
		})
		a.run(t, "equipment names its warehouse without holding it", func(t *testing.T, a *api) {
			site, _ := a.warehouse("EQ-HOME")
			eq := a.post("/v1/equipment", map[string]any{"code": "EQ-HOME-1", "name": "Mixer", "warehouse_id": site}).want(201).ID()
			a.del(path("/v1/warehouses", site)).want(200)
			if d := a.get(path("/v1/equipment", eq)).want(200).Data(); d["warehouse_id"] != nil {
				t.Fatalf("the equipment still names the removed warehouse: %v", d)
			}
			evs := a.events("equipment.updated")
			if len(evs) == 0 || evs[len(evs)-1].ResourceID != eq {
				t.Fatalf("no equipment.updated for equipment %d", eq)
			}
		})
		a.run(t, "stock holds it, and the refusal changes nothing", func(t *testing.T, a *api) {
			site, area := a.warehouse("STOCKED")
			line := a.post("/v1/production-lines", map[string]any{"name": "Stocked line", "warehouse_id": site}).want(201).ID()
			a.post("/v1/product-lots", map[string]any{"product_id": flour, "lot_number": "WH-1", "location_id": area, "quantity_base": 1}).want(201)
			before := len(a.events(""))
			a.del(path("/v1/warehouses", site)).problem(409, "IN_USE")
			a.get(path("/v1/warehouses", site)).want(200)
			if w := lineWarehouse(line); w == nil || *w != site {
				t.Fatalf("a refused removal changed the line's warehouse to %v", w)
			}
			if n := len(a.events("")); n != before {
				t.Fatalf("a refused removal wrote %d events", n-before)
			}
		})
		a.run(t, "movements hold it after the stock left", func(t *testing.T, a *api) {
			site, area := a.warehouse("MOVED-OUT")
			lot := a.post("/v1/product-lots", map[string]any{"product_id": flour, "lot_number": "WH-2", "location_id": area, "quantity_base": 1}).want(201).ID()
			a.patch(path("/v1/product-lots", lot), map[string]any{"location_id": nil}).want(200)
			a.del(path("/v1/warehouses", site)).problem(409, "IN_USE")
		})
	})
}
