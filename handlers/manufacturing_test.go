package handlers_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/apikey"
	"larder.dev/larder/ent/event"
	"larder.dev/larder/ent/location"
	"larder.dev/larder/ent/productionline"
	"larder.dev/larder/internal/identity/auth"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

// events lists the events of the account of a's key whose type starts with
// prefix, in the order they were written.
func (a *api) events(prefix string) []*ent.Event {
	a.t.Helper()
	acct := a.org.Live.ID
	if strings.HasPrefix(a.key, auth.Prefix(policy.Test)) {
		acct = a.org.Test.ID
	}
	return a.st.Client.Event.Query().
		Where(event.AccountID(acct), event.TypeHasPrefix(prefix)).
		Order(event.ByID()).
		AllX(policy.System(context.Background()))
}

// types are the types of evs.
func types(evs []*ent.Event) []string {
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = e.Type
	}
	return out
}

// wantEvent fails unless e reports the write r of a's key on resource id,
// its snapshot being the answer without the single-only fields named.
func (a *api) wantEvent(e *ent.Event, typ string, id int, r *response, singleOnly ...string) {
	a.t.Helper()
	keyID := a.st.Client.APIKey.Query().Where(apikey.SecretHash(hash(a.key))).OnlyIDX(policy.System(context.Background()))
	env := event.EnvironmentLive
	if strings.HasPrefix(a.key, auth.Prefix(policy.Test)) {
		env = event.EnvironmentTest
	}
	if e.Type != typ || e.ResourceID != id || e.Source != event.SourceAPI || e.Environment != env ||
		e.APIKeyID == nil || *e.APIKeyID != keyID || e.RequestID == nil || *e.RequestID != r.Header.Get("X-Request-Id") {
		a.t.Fatalf("event %+v, want %s of %d by the request %s", e, typ, id, r.Header.Get("X-Request-Id"))
	}
	var snap map[string]any
	if err := json.Unmarshal(e.Snapshot, &snap); err != nil {
		a.t.Fatal(err)
	}
	want := r.Data()
	for _, k := range singleOnly {
		delete(want, k)
	}
	if diff := cmpDiff(want, snap); diff != "" {
		a.t.Fatalf("snapshot (-response +snapshot):\n%s", diff)
	}
}

// warehouse creates a warehouse and returns its id and the id of an area in it.
func (a *api) warehouse(code string) (site, area int) {
	a.t.Helper()
	site = a.post("/v1/warehouses", map[string]any{"code": code, "name": code}).want(201).ID()
	area = a.st.Client.Location.Query().Where(location.ParentID(site)).FirstIDX(policy.System(context.Background()))
	return site, area
}

// Spec "Reference resources with writes" and "States and transitions > Others":
// production lines, whose delete is soft.
func TestProductionLines(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		main, area := a.warehouse("MAIN")
		created := a.post("/v1/production-lines", map[string]any{"name": "Cookie line", "description": "Depositor and oven", "warehouse_id": main}).want(201)
		id := created.ID()
		want := map[string]any{"id": float64(id), "name": "Cookie line", "description": "Depositor and oven", "warehouse_id": float64(main)}

		a.run(t, "create returns the record and writes production_line.created", func(t *testing.T, a *api) {
			if diff := cmpDiff(want, created.Data()); diff != "" {
				t.Fatalf("(-want +got):\n%s", diff)
			}
			if diff := cmpDiff(want, a.get(path("/v1/production-lines", id)).want(200).Data()); diff != "" {
				t.Fatalf("retrieve (-want +got):\n%s", diff)
			}
			evs := a.events("production_line.")
			if len(evs) != 1 {
				t.Fatalf("events %v", types(evs))
			}
			a.wantEvent(evs[0], "production_line.created", id, created)
		})
		a.run(t, "only name is required", func(t *testing.T, a *api) {
			d := a.post("/v1/production-lines", map[string]any{"name": "Bare"}).want(201).Data()
			if d["description"] != nil || d["warehouse_id"] != nil {
				t.Fatalf("%v", d)
			}
		})
		a.run(t, "name is unique per account", func(t *testing.T, a *api) {
			a.post("/v1/production-lines", map[string]any{"name": "Cookie line"}).field(409, "DUPLICATE", "name")
			a.patch(path("/v1/production-lines", a.post("/v1/production-lines", map[string]any{"name": "Other"}).want(201).ID()),
				map[string]any{"name": "Cookie line"}).field(409, "DUPLICATE", "name")
		})
		a.run(t, "body bounds", func(t *testing.T, a *api) {
			cases := []struct {
				name  string
				body  map[string]any
				field string
			}{
				{"name missing", map[string]any{"description": "x"}, "name"},
				{"name empty", map[string]any{"name": ""}, "name"},
				{"name over 100", map[string]any{"name": strings.Repeat("n", 101)}, "name"},
				{"name null", map[string]any{"name": nil}, "name"},
				{"description over 500", map[string]any{"name": "x", "description": strings.Repeat("d", 501)}, "description"},
				{"warehouse missing", map[string]any{"name": "x", "warehouse_id": 987654321}, "warehouse_id"},
				{"warehouse an area, not a warehouse", map[string]any{"name": "x", "warehouse_id": area}, "warehouse_id"},
				{"warehouse of the wrong type", map[string]any{"name": "x", "warehouse_id": "MAIN"}, "warehouse_id"},
				{"unknown field", map[string]any{"name": "x", "capacity": 5}, "capacity"},
				{"id", map[string]any{"name": "x", "id": 5}, "id"},
				{"deleted_at", map[string]any{"name": "x", "deleted_at": "2026-01-01T00:00:00Z"}, "deleted_at"},
			}
			for _, tc := range cases {
				a.run(t, tc.name, func(t *testing.T, a *api) {
					a.post("/v1/production-lines", tc.body).field(400, "VALIDATION_ERROR", tc.field)
				})
			}
			a.patch(path("/v1/production-lines", id), map[string]any{"warehouse_id": area}).field(400, "VALIDATION_ERROR", "warehouse_id")
			a.patch(path("/v1/production-lines", id), map[string]any{"name": nil}).field(400, "VALIDATION_ERROR", "name")
			a.post("/v1/production-lines", map[string]any{"name": strings.Repeat("n", 100), "description": strings.Repeat("d", 500)}).want(201)
		})
		a.run(t, "update: omitted fields stay, null clears description and warehouse", func(t *testing.T, a *api) {
			lid := a.post("/v1/production-lines", map[string]any{"name": "Bars", "description": "Slab", "warehouse_id": main}).want(201).ID()
			d := a.patch(path("/v1/production-lines", lid), map[string]any{"name": "Bar line"}).want(200).Data()
			if diff := cmpDiff(map[string]any{"id": float64(lid), "name": "Bar line", "description": "Slab", "warehouse_id": float64(main)}, d); diff != "" {
				t.Fatalf("rename (-want +got):\n%s", diff)
			}
			d = a.patch(path("/v1/production-lines", lid), map[string]any{"description": nil, "warehouse_id": nil}).want(200).Data()
			if diff := cmpDiff(map[string]any{"id": float64(lid), "name": "Bar line", "description": nil, "warehouse_id": nil}, d); diff != "" {
				t.Fatalf("null (-want +got):\n%s", diff)
			}
			if diff := cmpDiff(d, a.get(path("/v1/production-lines", lid)).want(200).Data()); diff != "" {
				t.Fatalf("stored (-response +read):\n%s", diff)
			}
		})
	})
}

// Spec "Production lines": search and name (partial) filters; sort id and name.
func TestProductionLineLists(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		for _, n := range []string{"Cookie line", "Granola bars", "Pilot", "cake finishing"} {
			a.post("/v1/production-lines", map[string]any{"name": n}).want(201)
		}
		names := func(q string) []string { return a.column("/v1/production-lines?"+q, "name") }
		cases := []struct {
			name, query string
			want        []string
		}{
			{"id order by default", "", []string{"Cookie line", "Granola bars", "Pilot", "cake finishing"}},
			{"sort by name", "sort=name", []string{"Cookie line", "Granola bars", "Pilot", "cake finishing"}},
			{"sort by name descending", "sort=name:desc", []string{"cake finishing", "Pilot", "Granola bars", "Cookie line"}},
			{"sort by id descending", "sort=id:desc", []string{"cake finishing", "Pilot", "Granola bars", "Cookie line"}},
			{"name is a partial, case-insensitive filter", "name=LINE", []string{"Cookie line"}},
			{"name filter", "name=a&sort=name", []string{"Granola bars", "cake finishing"}},
			{"search", "search=granola", []string{"Granola bars"}},
			{"page", "sort=name&limit=2&offset=1", []string{"Granola bars", "Pilot"}},
		}
		for _, tc := range cases {
			a.run(t, tc.name, func(t *testing.T, a *api) {
				if diff := cmpDiff(tc.want, names(tc.query)); diff != "" {
					t.Fatalf("%s (-want +got):\n%s", tc.query, diff)
				}
			})
		}
		a.run(t, "unknown parameters and sorts are refused", func(t *testing.T, a *api) {
			a.get("/v1/production-lines?warehouse_id=1").field(400, "VALIDATION_ERROR", "warehouse_id")
			a.get("/v1/production-lines?sort=description").field(400, "VALIDATION_ERROR", "sort")
			a.get("/v1/production-lines?include_deleted=true").field(400, "VALIDATION_ERROR", "include_deleted")
		})
	})
}

// Spec "States and transitions > Others": a production line's delete is soft;
// it leaves lists and reads, runs keep referencing the row, and its name is
// free again.
func TestProductionLineSoftDelete(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		sys := policy.System(context.Background())
		main, _ := a.warehouse("MAIN")
		created := a.post("/v1/production-lines", map[string]any{"name": "Cookie line", "description": "Oven", "warehouse_id": main}).want(201)
		id := created.ID()
		keep := a.post("/v1/production-lines", map[string]any{"name": "Pilot"}).want(201).ID()
		deleted := a.del(path("/v1/production-lines", id))

		a.run(t, "delete returns the record as it was", func(t *testing.T, a *api) {
			if diff := cmpDiff(created.Data(), deleted.want(200).Data()); diff != "" {
				t.Fatalf("(-created +deleted):\n%s", diff)
			}
		})
		a.run(t, "the line leaves reads, updates and deletes", func(t *testing.T, a *api) {
			p := path("/v1/production-lines", id)
			a.get(p).problem(404, "NOT_FOUND")
			a.patch(p, map[string]any{"name": "Back"}).problem(404, "NOT_FOUND")
			a.del(p).problem(404, "NOT_FOUND")
			a.get(path("/v1/production-lines", keep)).want(200)
		})
		a.run(t, "the line leaves lists", func(t *testing.T, a *api) {
			for q, want := range map[string][]string{
				"":                         {"Pilot"},
				"?sort=name:desc":          {"Pilot"},
				"?search=cookie":           nil,
				"?name=cookie":             nil,
				"?sort=id:desc&offset=0":   {"Pilot"},
				"?search=o&sort=name:desc": {"Pilot"},
			} {
				if diff := cmpDiff(want, a.column("/v1/production-lines"+q, "name")); diff != "" {
					t.Fatalf("%q (-want +got):\n%s", q, diff)
				}
			}
			if total := a.get("/v1/production-lines").want(200).JSON()["pagination"].(map[string]any)["total"]; total != 1.0 {
				t.Fatalf("total %v, want 1", total)
			}
		})
		a.run(t, "the row stays, marked deleted, unchanged otherwise", func(t *testing.T, a *api) {
			row := a.st.Client.ProductionLine.GetX(sys, id)
			if row.DeletedAt == nil || row.Name != "Cookie line" || row.WarehouseID == nil || *row.WarehouseID != main {
				t.Fatalf("row %+v", row)
			}
			if time.Since(*row.DeletedAt) > time.Minute || row.DeletedAt.After(time.Now().Add(time.Second)) {
				t.Fatalf("deleted_at %v", row.DeletedAt)
			}
		})
		a.run(t, "the soft delete is reported as production_line.deleted, not updated", func(t *testing.T, a *api) {
			evs := a.events("production_line.")
			if diff := cmpDiff([]string{"production_line.created", "production_line.created", "production_line.deleted"}, types(evs)); diff != "" {
				t.Fatalf("events (-want +got):\n%s", diff)
			}
			a.wantEvent(evs[2], "production_line.deleted", id, deleted)
		})
		a.run(t, "a failed delete writes no event", func(t *testing.T, a *api) {
			before := len(a.events("production_line."))
			a.del(path("/v1/production-lines", id)).problem(404, "NOT_FOUND")
			if n := len(a.events("production_line.")); n != before {
				t.Fatalf("%d events after a refused delete, want %d", n, before)
			}
		})
		a.run(t, "a deleted line's name is free for a new line", func(t *testing.T, a *api) {
			again := a.post("/v1/production-lines", map[string]any{"name": "Cookie line"}).want(201).ID()
			if again == id {
				t.Fatal("the id was reused")
			}
			a.post("/v1/production-lines", map[string]any{"name": "Cookie line"}).field(409, "DUPLICATE", "name")
			a.del(path("/v1/production-lines", again)).want(200)
			a.post("/v1/production-lines", map[string]any{"name": "Cookie line"}).want(201)
			n := a.st.Client.ProductionLine.Query().
				Where(productionline.AccountID(a.org.Live.ID), productionline.Name("Cookie line")).
				CountX(sys)
			if n != 3 {
				t.Fatalf("%d rows named Cookie line, want 3 (two deleted)", n)
			}
		})
		a.run(t, "a soft delete in the web application is reported as deleted too", func(t *testing.T, a *api) {
			lid := a.post("/v1/production-lines", map[string]any{"name": "App line"}).want(201).ID()
			ctx := a.org.Ctx(policy.Live)
			err := ent.RunInTx(ctx, a.st.Client, func(tx *ent.Tx) error {
				return tx.ProductionLine.UpdateOneID(lid).SetDeletedAt(time.Now()).Exec(ctx)
			})
			if err != nil {
				t.Fatal(err)
			}
			evs := a.events("production_line.")
			last := evs[len(evs)-1]
			if last.Type != "production_line.deleted" || last.ResourceID != lid || last.Source != event.SourceApp {
				t.Fatalf("last event %+v", last)
			}
			a.get(path("/v1/production-lines", lid)).problem(404, "NOT_FOUND")
		})
	})
}

// Spec "Reference resources with writes": equipment, with out_of_service
// toggled by update and a hard delete.
func TestEquipment(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		sys := policy.System(context.Background())
		main, area := a.warehouse("MAIN")
		created := a.post("/v1/equipment", map[string]any{"code": "OVEN-01", "name": "Tunnel oven", "warehouse_id": main}).want(201)
		id := created.ID()
		want := map[string]any{"id": float64(id), "code": "OVEN-01", "name": "Tunnel oven", "out_of_service": false, "warehouse_id": float64(main)}

		a.run(t, "create defaults out_of_service to false and writes equipment.created", func(t *testing.T, a *api) {
			if diff := cmpDiff(want, created.Data()); diff != "" {
				t.Fatalf("(-want +got):\n%s", diff)
			}
			if diff := cmpDiff(want, a.get(path("/v1/equipment", id)).want(200).Data()); diff != "" {
				t.Fatalf("retrieve (-want +got):\n%s", diff)
			}
			evs := a.events("equipment.")
			if len(evs) != 1 {
				t.Fatalf("events %v", types(evs))
			}
			a.wantEvent(evs[0], "equipment.created", id, created)
		})
		a.run(t, "code is unique per account", func(t *testing.T, a *api) {
			a.post("/v1/equipment", map[string]any{"code": "OVEN-01", "name": "Again"}).field(409, "DUPLICATE", "code")
		})
		a.run(t, "body bounds", func(t *testing.T, a *api) {
			cases := []struct {
				name  string
				body  map[string]any
				field string
			}{
				{"code missing", map[string]any{"name": "x"}, "code"},
				{"name missing", map[string]any{"code": "x"}, "name"},
				{"code empty", map[string]any{"code": "", "name": "x"}, "code"},
				{"code over 40", map[string]any{"code": strings.Repeat("c", 41), "name": "x"}, "code"},
				{"name over 100", map[string]any{"code": "x", "name": strings.Repeat("n", 101)}, "name"},
				{"out_of_service not a boolean", map[string]any{"code": "x", "name": "x", "out_of_service": "yes"}, "out_of_service"},
				{"out_of_service null", map[string]any{"code": "x", "name": "x", "out_of_service": nil}, "out_of_service"},
				{"warehouse missing", map[string]any{"code": "x", "name": "x", "warehouse_id": 987654321}, "warehouse_id"},
				{"warehouse an area", map[string]any{"code": "x", "name": "x", "warehouse_id": area}, "warehouse_id"},
				{"unknown field", map[string]any{"code": "x", "name": "x", "serial": "S1"}, "serial"},
			}
			for _, tc := range cases {
				a.run(t, tc.name, func(t *testing.T, a *api) {
					a.post("/v1/equipment", tc.body).field(400, "VALIDATION_ERROR", tc.field)
				})
			}
			a.post("/v1/equipment", map[string]any{"code": strings.Repeat("c", 40), "name": strings.Repeat("n", 100), "out_of_service": true}).want(201)
		})
		a.run(t, "update toggles out_of_service; null clears the warehouse only", func(t *testing.T, a *api) {
			p := path("/v1/equipment", id)
			d := a.patch(p, map[string]any{"out_of_service": true}).want(200).Data()
			if d["out_of_service"] != true || d["warehouse_id"] != float64(main) || d["code"] != "OVEN-01" {
				t.Fatalf("%v", d)
			}
			d = a.patch(p, map[string]any{"warehouse_id": nil, "out_of_service": false}).want(200).Data()
			if d["out_of_service"] != false || d["warehouse_id"] != nil || d["name"] != "Tunnel oven" {
				t.Fatalf("%v", d)
			}
			a.patch(p, map[string]any{"out_of_service": nil}).field(400, "VALIDATION_ERROR", "out_of_service")
			a.patch(p, map[string]any{"code": nil}).field(400, "VALIDATION_ERROR", "code")
			a.patch(p, map[string]any{"warehouse_id": area}).field(400, "VALIDATION_ERROR", "warehouse_id")
			d = a.patch(p, map[string]any{"warehouse_id": main}).want(200).Data()
			if diff := cmpDiff(want, d); diff != "" {
				t.Fatalf("(-want +got):\n%s", diff)
			}
			updates := 0
			for _, e := range a.events("equipment.updated") {
				if e.ResourceID == id {
					updates++
				}
			}
			if updates != 3 {
				t.Fatalf("%d equipment.updated events, want one per successful update (3)", updates)
			}
		})
		a.run(t, "delete removes the row and writes equipment.deleted", func(t *testing.T, a *api) {
			r := a.del(path("/v1/equipment", id)).want(200)
			if diff := cmpDiff(want, r.Data()); diff != "" {
				t.Fatalf("(-want +got):\n%s", diff)
			}
			a.get(path("/v1/equipment", id)).problem(404, "NOT_FOUND")
			a.del(path("/v1/equipment", id)).problem(404, "NOT_FOUND")
			if _, err := a.st.Client.Equipment.Get(sys, id); !ent.IsNotFound(err) {
				t.Fatalf("the row is still there: %v", err)
			}
			evs := a.events("equipment.")
			a.wantEvent(evs[len(evs)-1], "equipment.deleted", id, r)
		})
	})
}

// Spec "Equipment": search, code (exact), name (partial) and
// include_out_of_service (default true; false returns only equipment in
// service); sort code, id, name.
func TestEquipmentLists(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		for _, e := range []struct {
			code, name string
			out        bool
		}{
			{"MIX-01", "Spiral mixer", false},
			{"OVEN-02", "Rack oven", true},
			{"OVEN-01", "Tunnel oven", false},
			{"MD-01", "Metal detector", true},
		} {
			a.post("/v1/equipment", map[string]any{"code": e.code, "name": e.name, "out_of_service": e.out}).want(201)
		}
		codes := func(q string) []string { return a.column("/v1/equipment?"+q, "code") }
		cases := []struct {
			name, query string
			want        []string
		}{
			{"all, by id, out of service included by default", "", []string{"MIX-01", "OVEN-02", "OVEN-01", "MD-01"}},
			{"include_out_of_service=true is the default", "include_out_of_service=true", []string{"MIX-01", "OVEN-02", "OVEN-01", "MD-01"}},
			{"include_out_of_service=false lists equipment in service", "include_out_of_service=false", []string{"MIX-01", "OVEN-01"}},
			{"sort by code", "sort=code", []string{"MD-01", "MIX-01", "OVEN-01", "OVEN-02"}},
			{"sort by code descending", "sort=code:desc", []string{"OVEN-02", "OVEN-01", "MIX-01", "MD-01"}},
			{"sort by name", "sort=name", []string{"MD-01", "OVEN-02", "MIX-01", "OVEN-01"}},
			{"sort by name descending, in service", "sort=name:desc&include_out_of_service=false", []string{"OVEN-01", "MIX-01"}},
			{"code is exact", "code=OVEN-01", []string{"OVEN-01"}},
			{"code is not partial", "code=OVEN", nil},
			{"name is partial and case-insensitive", "name=OVEN&sort=code", []string{"OVEN-01", "OVEN-02"}},
			{"name and include combine", "name=oven&include_out_of_service=false", []string{"OVEN-01"}},
			{"search matches code", "search=md-&sort=code", []string{"MD-01"}},
			{"search matches name", "search=mixer", []string{"MIX-01"}},
			{"search and include combine", "search=oven&include_out_of_service=false", []string{"OVEN-01"}},
		}
		for _, tc := range cases {
			a.run(t, tc.name, func(t *testing.T, a *api) {
				if diff := cmpDiff(tc.want, codes(tc.query)); diff != "" {
					t.Fatalf("%s (-want +got):\n%s", tc.query, diff)
				}
			})
		}
		a.run(t, "totals follow the include parameter", func(t *testing.T, a *api) {
			for q, want := range map[string]float64{"": 4, "?include_out_of_service=false": 2} {
				if got := a.get("/v1/equipment" + q).want(200).JSON()["pagination"].(map[string]any)["total"]; got != want {
					t.Fatalf("%q: total %v, want %v", q, got, want)
				}
			}
		})
		a.run(t, "bad parameters are refused naming them", func(t *testing.T, a *api) {
			a.get("/v1/equipment?include_out_of_service=maybe").field(400, "VALIDATION_ERROR", "include_out_of_service")
			a.get("/v1/equipment?out_of_service=true").field(400, "VALIDATION_ERROR", "out_of_service")
			a.get("/v1/equipment?sort=out_of_service").field(400, "VALIDATION_ERROR", "sort")
			a.get("/v1/equipment?code="+strings.Repeat("c", 201)).field(400, "VALIDATION_ERROR", "code")
		})
	})
}

// docs/api-behaviour.md, "Resources" (Employees): employees are read-only, paginated, with
// search (code, first and last name, e-mail) and sort code, id, last_name.
func TestEmployees(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		ctx := a.org.Ctx(policy.Live)
		var ids []int
		for _, e := range []struct {
			code, first, last, email string
			active                   bool
		}{
			{"E002", "Marie", "Tremblay", "marie@example.com", true},
			{"E001", "Jean", "Gagnon", "", true},
			{"E003", "Aisha", "Okafor", "aisha@plant.example", false},
		} {
			b := a.st.Client.Employee.Create().SetCode(e.code).SetFirstName(e.first).SetLastName(e.last).SetActive(e.active)
			if e.email != "" {
				b.SetEmail(e.email)
			}
			ids = append(ids, b.SaveX(ctx).ID)
		}
		a.run(t, "retrieve", func(t *testing.T, a *api) {
			want := map[string]any{"id": float64(ids[2]), "code": "E003", "first_name": "Aisha", "last_name": "Okafor", "email": "aisha@plant.example", "active": false}
			if diff := cmpDiff(want, a.get(path("/v1/employees", ids[2])).want(200).Data()); diff != "" {
				t.Fatalf("(-want +got):\n%s", diff)
			}
			if d := a.get(path("/v1/employees", ids[1])).want(200).Data(); d["email"] != nil || d["active"] != true {
				t.Fatalf("%v", d)
			}
			a.get(path("/v1/employees", 987654321)).problem(404, "NOT_FOUND")
		})
		codes := func(q string) []string { return a.column("/v1/employees?"+q, "code") }
		cases := []struct {
			name, query string
			want        []string
		}{
			{"by id", "", []string{"E002", "E001", "E003"}},
			{"sort by code", "sort=code", []string{"E001", "E002", "E003"}},
			{"sort by last_name", "sort=last_name", []string{"E001", "E003", "E002"}},
			{"sort by last_name descending", "sort=last_name:desc", []string{"E002", "E003", "E001"}},
			{"search by code", "search=e001", []string{"E001"}},
			{"search by first name", "search=aish", []string{"E003"}},
			{"search by last name", "search=TREMB", []string{"E002"}},
			{"search by e-mail", "search=plant.example", []string{"E003"}},
			{"page", "sort=code&limit=1&offset=1", []string{"E002"}},
		}
		for _, tc := range cases {
			a.run(t, tc.name, func(t *testing.T, a *api) {
				if diff := cmpDiff(tc.want, codes(tc.query)); diff != "" {
					t.Fatalf("%s (-want +got):\n%s", tc.query, diff)
				}
			})
		}
		a.run(t, "no writes, no other parameters", func(t *testing.T, a *api) {
			a.post("/v1/employees", map[string]any{"code": "E9", "first_name": "x", "last_name": "y"}).problem(405, "METHOD_NOT_ALLOWED")
			a.patch(path("/v1/employees", ids[0]), map[string]any{"active": false}).problem(405, "METHOD_NOT_ALLOWED")
			a.del(path("/v1/employees", ids[0])).problem(405, "METHOD_NOT_ALLOWED")
			a.get("/v1/employees?active=true").field(400, "VALIDATION_ERROR", "active")
			a.get("/v1/employees?sort=first_name").field(400, "VALIDATION_ERROR", "sort")
		})
	})
}

// Spec Authentication 7–9: production lines, equipment and employees are the
// manufacturing module's.
func TestManufacturingScopes(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		line := a.post("/v1/production-lines", map[string]any{"name": "L"}).want(201).ID()
		equip := a.post("/v1/equipment", map[string]any{"code": "E", "name": "E"}).want(201).ID()
		emp := a.st.Client.Employee.Create().SetCode("E1").SetFirstName("A").SetLastName("B").SaveX(a.org.Ctx(policy.Live)).ID
		reads := []string{"/v1/production-lines", path("/v1/production-lines", line), "/v1/equipment", path("/v1/equipment", equip),
			"/v1/employees", path("/v1/employees", emp)}
		writes := []struct {
			method, path string
			body         any
		}{
			{"POST", "/v1/production-lines", map[string]any{"name": "New"}},
			{"PATCH", path("/v1/production-lines", line), map[string]any{"name": "Renamed"}},
			{"DELETE", path("/v1/production-lines", line), nil},
			{"POST", "/v1/equipment", map[string]any{"code": "N", "name": "New"}},
			{"PATCH", path("/v1/equipment", equip), map[string]any{"out_of_service": true}},
			{"DELETE", path("/v1/equipment", equip), nil},
		}
		for _, tc := range []struct {
			name, scopes      string
			canRead, canWrite bool
		}{
			{"manufacturing:read reads, cannot write", "manufacturing:read", true, false},
			{"catalog:write cannot read", "catalog:write", false, false},
			{"inventory:write cannot read", "inventory:write", false, false},
			{"cost:read alone cannot read", "cost:read", false, false},
			{"read-all reads, cannot write", "read-all", true, false},
		} {
			a.run(t, tc.name, func(t *testing.T, a *api) {
				key := a.org.Key(t, policy.Live, tc.scopes)
				for _, p := range reads {
					r := a.do("GET", p, key, nil)
					if tc.canRead {
						r.want(200)
					} else {
						r.problem(403, "INSUFFICIENT_SCOPE")
					}
				}
				for _, w := range writes {
					a.do(w.method, w.path, key, w.body).problem(403, "INSUFFICIENT_SCOPE")
				}
			})
		}
		a.run(t, "manufacturing:write writes and reads", func(t *testing.T, a *api) {
			key := a.org.Key(t, policy.Live, "manufacturing:write")
			for _, p := range reads {
				a.do("GET", p, key, nil).want(200)
			}
			for _, w := range writes {
				r := a.do(w.method, w.path, key, w.body)
				if w.method == "POST" {
					r.want(201)
				} else {
					r.want(200)
				}
			}
		})
	})
}

// docs/api-behaviour.md, "Tenancy": another account's production lines, equipment and
// employees are not found, in both directions, and its warehouses cannot be
// referenced.
func TestManufacturingTenancy(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		other := dbtest.NewOrg(t, a.st, "")
		b := *a
		b.org, b.key = other, other.Key(t, policy.Live, "all")
		accounts := []*api{a, &b}
		type rows struct{ warehouse, line, equip, emp int }
		made := make([]rows, 2)
		for i, x := range accounts {
			wh, _ := x.warehouse("MAIN")
			made[i] = rows{
				warehouse: wh,
				line:      x.post("/v1/production-lines", map[string]any{"name": "Same name", "warehouse_id": wh}).want(201).ID(),
				equip:     x.post("/v1/equipment", map[string]any{"code": "SAME", "name": "Same", "warehouse_id": wh}).want(201).ID(),
				emp:       x.st.Client.Employee.Create().SetCode("SAME").SetFirstName("A").SetLastName("B").SaveX(x.org.Ctx(policy.Live)).ID,
			}
		}
		testKey := a.org.Key(t, policy.Test, "all")
		for i, tc := range []struct {
			name  string
			key   string
			rows  rows
			owner *api
		}{
			{"B cannot see A's rows", b.key, made[0], a},
			{"A cannot see B's rows", a.key, made[1], &b},
			{"A's test account cannot see A's live rows", testKey, made[0], a},
		} {
			a.run(t, tc.name, func(t *testing.T, x *api) {
				for _, coll := range []struct {
					path string
					id   int
				}{{"/v1/production-lines", tc.rows.line}, {"/v1/equipment", tc.rows.equip}} {
					p := path(coll.path, coll.id)
					x.do("GET", p, tc.key, nil).problem(404, "NOT_FOUND")
					x.do("PATCH", p, tc.key, map[string]any{"name": "Theirs"}).problem(404, "NOT_FOUND")
					x.do("DELETE", p, tc.key, nil).problem(404, "NOT_FOUND")
				}
				x.do("GET", path("/v1/employees", tc.rows.emp), tc.key, nil).problem(404, "NOT_FOUND")
				x.do("POST", "/v1/production-lines", tc.key, map[string]any{"name": "X", "warehouse_id": tc.rows.warehouse}).
					field(400, "VALIDATION_ERROR", "warehouse_id")
				x.do("POST", "/v1/equipment", tc.key, map[string]any{"code": "X", "name": "X", "warehouse_id": tc.rows.warehouse}).
					field(400, "VALIDATION_ERROR", "warehouse_id")
				empty := i == 2 // the test account has no rows of its own
				for coll, theirs := range map[string]int{"/v1/production-lines": tc.rows.line, "/v1/equipment": tc.rows.equip, "/v1/employees": tc.rows.emp} {
					l := x.do("GET", coll, tc.key, nil).want(200).List()
					if empty && len(l) != 0 {
						t.Fatalf("%s lists another account's rows: %v", coll, l)
					}
					for _, r := range l {
						if int(r["id"].(float64)) == theirs {
							t.Fatalf("%s lists another account's row %v", coll, r)
						}
					}
				}
				// The owner's rows are untouched.
				if d := x.do("GET", path("/v1/production-lines", tc.rows.line), tc.owner.key, nil).want(200).Data(); d["name"] != "Same name" {
					t.Fatalf("changed: %v", d)
				}
				if d := x.do("GET", path("/v1/equipment", tc.rows.equip), tc.owner.key, nil).want(200).Data(); d["name"] != "Same" {
					t.Fatalf("changed: %v", d)
				}
			})
		}
	})
}

// docs/api-behaviour.md, "Test mode": production lines (in a
// warehouse and not), equipment in and out of service, employees active and
// not.
func TestSeededManufacturing(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		a = seeded(t, a)
		a.run(t, "production lines in a warehouse and without", func(t *testing.T, a *api) {
			in, out := 0, 0
			for _, l := range a.get("/v1/production-lines").want(200).List() {
				if l["warehouse_id"] == nil {
					out++
					continue
				}
				in++
				a.get(path("/v1/warehouses", int(l["warehouse_id"].(float64)))).want(200)
			}
			if in == 0 || out == 0 {
				t.Fatalf("%d lines in a warehouse, %d without", in, out)
			}
		})
		a.run(t, "equipment in and out of service", func(t *testing.T, a *api) {
			all := a.get("/v1/equipment").want(200).List()
			available := a.get("/v1/equipment?include_out_of_service=false").want(200).List()
			if len(available) == 0 || len(available) == len(all) {
				t.Fatalf("%d pieces of equipment, %d in service", len(all), len(available))
			}
		})
		a.run(t, "employees active and not", func(t *testing.T, a *api) {
			active := map[any]int{}
			for _, e := range a.get("/v1/employees").want(200).List() {
				active[e["active"]]++
			}
			if active[true] == 0 || active[false] == 0 {
				t.Fatalf("active %v", active)
			}
		})
	})
}

// The API description publishes the manufacturing paths, the include
// parameter with its default, the soft delete, and the events' snapshots.
func TestManufacturingDescription(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		doc := a.do("GET", "/v1/openapi.json", "", nil).want(200).JSON()
		paths := doc["paths"].(map[string]any)
		ops := map[string][]string{
			"/production-lines":                      {"get", "post"},
			"/production-lines/{production_line_id}": {"get", "patch", "delete"},
			"/equipment":                             {"get", "post"},
			"/equipment/{equipment_id}":              {"get", "patch", "delete"},
			"/employees":                             {"get"},
			"/employees/{employee_id}":               {"get"},
		}
		for p, methods := range ops {
			item, _ := paths[p].(map[string]any)
			if item == nil {
				t.Fatalf("path %s missing", p)
			}
			var got []string
			for m := range item {
				got = append(got, m)
			}
			if diff := cmpDiff(sorted(methods), sorted(got)); diff != "" {
				t.Errorf("%s methods (-want +got):\n%s", p, diff)
			}
		}
		var include map[string]any
		for _, x := range paths["/equipment"].(map[string]any)["get"].(map[string]any)["parameters"].([]any) {
			if pm := x.(map[string]any); pm["name"] == "include_out_of_service" {
				include = pm
			}
		}
		if include == nil || include["schema"].(map[string]any)["default"] != true || include["schema"].(map[string]any)["type"] != "boolean" ||
			!strings.Contains(include["description"].(string), "false lists only equipment whose out_of_service is false") {
			t.Fatalf("include_out_of_service: %v", include)
		}
		del := paths["/production-lines/{production_line_id}"].(map[string]any)["delete"].(map[string]any)
		if !strings.HasPrefix(del["description"].(string), "Soft delete") {
			t.Fatalf("production line delete: %v", del["description"])
		}
		if d := paths["/equipment/{equipment_id}"].(map[string]any)["delete"].(map[string]any)["description"]; strings.Contains(d.(string), "Soft") {
			t.Fatalf("equipment delete is hard: %v", d)
		}
		schemas := doc["components"].(map[string]any)["schemas"].(map[string]any)
		for _, s := range []string{"ProductionLineSnapshot", "EquipmentSnapshot"} {
			if schemas[s] == nil {
				t.Errorf("schema %s missing", s)
			}
		}
		if schemas["EmployeeSnapshot"] != nil {
			t.Error("employees emit no events, yet have a snapshot schema")
		}
		if _, ok := schemas["ProductionLine"].(map[string]any)["properties"].(map[string]any)["deleted_at"]; ok {
			t.Error("deleted_at is in the API")
		}
	})
}

// Concurrent deletes of one production line: one deletes it, the others find
// it gone (404), and one event is written.
func TestProductionLineConcurrentDeletes(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		id := a.post("/v1/production-lines", map[string]any{"name": "Contended"}).want(201).ID()
		const n = 8
		statuses := make(chan int, n)
		var wg sync.WaitGroup
		for range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				req, _ := http.NewRequest("DELETE", a.url+path("/v1/production-lines", id), nil)
				req.Header.Set("Authorization", "Bearer "+a.key)
				res, err := http.DefaultClient.Do(req)
				if err != nil {
					statuses <- 0
					return
				}
				res.Body.Close()
				statuses <- res.StatusCode
			}()
		}
		wg.Wait()
		close(statuses)
		count := map[int]int{}
		for s := range statuses {
			count[s]++
		}
		if diff := cmpDiff(map[int]int{200: 1, 404: n - 1}, count); diff != "" {
			t.Fatalf("statuses (-want +got):\n%s", diff)
		}
		if got := types(a.events("production_line.deleted")); len(got) != 1 {
			t.Fatalf("%d production_line.deleted events, want 1", len(got))
		}
	})
}
