package handlers_test

import (
	"context"
	"strings"
	"testing"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/unitofmeasure"
	"larder.dev/larder/internal/seed"
	"larder.dev/larder/policy"
)

// Spec "Reference resources with writes": units of measure, with the shared
// (supplied, read-only) units seeded for every account.
func TestUnitsOfMeasure(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		a.run(t, "shared units are seeded and listed", func(t *testing.T, a *api) {
			r := a.get("/v1/units-of-measure?limit=200&sort=code").want(200)
			codes := map[string]map[string]any{}
			for _, u := range r.List() {
				codes[u["code"].(string)] = u
			}
			for _, c := range []string{"g", "kg", "mg", "lb", "oz", "L", "mL", "each", "unit", "dozen", "case"} {
				u, ok := codes[c]
				if !ok {
					t.Fatalf("shared unit %s missing", c)
				}
				if u["is_global"] != true || u["read_only"] != true {
					t.Fatalf("shared unit %s: %v", c, u)
				}
			}
			if codes["kg"]["weight_in_grams"] != float64(1000) || codes["lb"]["weight_in_grams"] != 453.59237 || codes["L"]["weight_in_grams"] != nil {
				t.Fatalf("weights: kg %v lb %v L %v", codes["kg"]["weight_in_grams"], codes["lb"]["weight_in_grams"], codes["L"]["weight_in_grams"])
			}
		})

		bag := a.post("/v1/units-of-measure", map[string]any{"code": "bag", "name": "Bag", "weight_in_grams": 25000}).want(201)
		id := bag.ID()
		a.run(t, "create returns an own, writable unit", func(t *testing.T, a *api) {
			want := map[string]any{"id": float64(id), "code": "bag", "name": "Bag", "weight_in_grams": float64(25000), "is_global": false, "read_only": false}
			if diff := cmpDiff(want, bag.Data()); diff != "" {
				t.Fatalf("(-want +got):\n%s", diff)
			}
		})
		a.run(t, "list returns own plus shared", func(t *testing.T, a *api) {
			r := a.get("/v1/units-of-measure?search=bag").want(200)
			if l := r.List(); len(l) != 1 || l[0]["code"] != "bag" {
				t.Fatalf("search bag: %v", l)
			}
			total := r.JSON()["pagination"].(map[string]any)["total"]
			all := a.get("/v1/units-of-measure").JSON()["pagination"].(map[string]any)["total"].(float64)
			if total != float64(1) || all != float64(len(seed.Units)+1) {
				t.Fatalf("totals: search %v, all %v", total, all)
			}
		})
		a.run(t, "search matches name or code", func(t *testing.T, a *api) {
			for q, want := range map[string]string{"KILO": "kg", "dozen": "dozen"} {
				l := a.get("/v1/units-of-measure?search=" + q).want(200).List()
				if len(l) != 1 || l[0]["code"] != want {
					t.Fatalf("search %s: %v", q, l)
				}
			}
		})
		a.run(t, "code is unique across own and shared units", func(t *testing.T, a *api) {
			a.post("/v1/units-of-measure", map[string]any{"code": "kg", "name": "Mine", "weight_in_grams": 1}).field(409, "DUPLICATE", "code")
			a.post("/v1/units-of-measure", map[string]any{"code": "bag", "name": "Again", "weight_in_grams": 1}).field(409, "DUPLICATE", "code")
		})
		a.run(t, "body bounds", func(t *testing.T, a *api) {
			cases := []struct {
				body  map[string]any
				field string
			}{
				{map[string]any{"name": "x", "weight_in_grams": 1}, "code"},
				{map[string]any{"code": "x", "weight_in_grams": 1}, "name"},
				{map[string]any{"code": "x", "name": "x"}, "weight_in_grams"},
				{map[string]any{"code": "x", "name": "x", "weight_in_grams": nil}, "weight_in_grams"},
				{map[string]any{"code": "x", "name": "x", "weight_in_grams": -1}, "weight_in_grams"},
				{map[string]any{"code": strings.Repeat("c", 41), "name": "x", "weight_in_grams": 0}, "code"},
				{map[string]any{"code": "x", "name": strings.Repeat("n", 101), "weight_in_grams": 0}, "name"},
				{map[string]any{"code": "x", "name": "x", "weight_in_grams": 0, "read_only": true}, "read_only"},
				{map[string]any{"code": "x", "name": "x", "weight_in_grams": 0, "is_global": true}, "is_global"},
			}
			for _, tc := range cases {
				a.post("/v1/units-of-measure", tc.body).field(400, "VALIDATION_ERROR", tc.field)
			}
			a.post("/v1/units-of-measure", map[string]any{"code": "ct", "name": "Count", "weight_in_grams": 0}).want(201)
		})
		a.run(t, "update changes name and weight, never code", func(t *testing.T, a *api) {
			d := a.patch(path("/v1/units-of-measure", id), map[string]any{"name": "Sack", "weight_in_grams": 20000}).want(200).Data()
			if d["name"] != "Sack" || d["weight_in_grams"] != float64(20000) || d["code"] != "bag" {
				t.Fatalf("after update: %v", d)
			}
			a.patch(path("/v1/units-of-measure", id), map[string]any{"code": "sack"}).field(400, "VALIDATION_ERROR", "code")
		})
		a.run(t, "shared and read-only units refuse update and delete", func(t *testing.T, a *api) {
			kg := a.get("/v1/units-of-measure?search=kg").List()[0]
			kgID := int(kg["id"].(float64))
			a.patch(path("/v1/units-of-measure", kgID), map[string]any{"name": "Kilo"}).problem(403, "READ_ONLY_RECORD")
			a.del(path("/v1/units-of-measure", kgID)).problem(403, "READ_ONLY_RECORD")
			if a.get(path("/v1/units-of-measure", kgID)).Data()["name"] != "Kilogram" {
				t.Fatal("the shared unit changed")
			}
			// A supplied unit of the account itself is read-only too.
			ctx := a.org.Ctx(policy.Live)
			var own *ent.UnitOfMeasure
			err := ent.RunInTx(ctx, a.st.Client, func(tx *ent.Tx) (err error) {
				own, err = tx.UnitOfMeasure.Create().SetCode("supplied").SetName("Supplied").SetReadOnly(true).Save(ctx)
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			a.patch(path("/v1/units-of-measure", own.ID), map[string]any{"name": "x"}).problem(403, "READ_ONLY_RECORD")
			a.del(path("/v1/units-of-measure", own.ID)).problem(403, "READ_ONLY_RECORD")
		})
		a.run(t, "delete is refused while in use", func(t *testing.T, a *api) {
			op := a.post("/v1/operations", map[string]any{"code": "BAKE", "name": "Bake", "unit_of_measure_id": id}).want(201)
			a.del(path("/v1/units-of-measure", id)).problem(409, "IN_USE")
			a.get(path("/v1/units-of-measure", id)).want(200)
			a.del(path("/v1/operations", op.ID())).want(200)
			d := a.del(path("/v1/units-of-measure", id)).want(200).Data()
			if d["code"] != "bag" {
				t.Fatalf("deleted %v", d)
			}
			n := a.st.Client.UnitOfMeasure.Query().Where(unitofmeasure.ID(id)).CountX(policy.System(context.Background()))
			if n != 0 {
				t.Fatal("the unit is still stored")
			}
		})
	})
}
