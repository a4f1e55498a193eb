package handlers_test

import (
	"testing"

	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

// docs/api-behaviour.md, "Tenancy": another account's record is indistinguishable from a
// missing one; a reference to it in a body is a 400 on that field; the live
// and test accounts of one organization are separate.
func TestTenancy(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		other := dbtest.NewOrg(t, a.st, "")
		otherKey := other.Key(t, policy.Live, "all")
		testKey := a.org.Key(t, policy.Test, "all")
		mine := map[string]int{
			"/v1/tags":             a.post("/v1/tags", map[string]any{"name": "Mine", "ref_type": "PRODUCT"}).want(201).ID(),
			"/v1/units-of-measure": a.post("/v1/units-of-measure", map[string]any{"code": "mine", "name": "Mine", "weight_in_grams": 1}).want(201).ID(),
			"/v1/allergens":        a.post("/v1/allergens", map[string]any{"name": "Mine", "name_fr": "Mien"}).want(201).ID(),
			"/v1/warehouses":       a.post("/v1/warehouses", map[string]any{"code": "MINE", "name": "Mine"}).want(201).ID(),
			"/v1/operations":       a.post("/v1/operations", map[string]any{"code": "MINE", "name": "Mine"}).want(201).ID(),
		}
		for _, tc := range []struct{ name, key string }{{"another organization", otherKey}, {"the test account of the same organization", testKey}} {
			a.run(t, tc.name, func(t *testing.T, a *api) {
				for coll, id := range mine {
					p := path(coll, id)
					a.do("GET", p, tc.key, nil).problem(404, "NOT_FOUND")
					a.do("PATCH", p, tc.key, map[string]any{"name": "Theirs"}).problem(404, "NOT_FOUND")
					a.do("DELETE", p, tc.key, nil).problem(404, "NOT_FOUND")
				}
				for _, coll := range []string{"/v1/units-of-measure?search=mine", "/v1/allergens?search=mine", "/v1/warehouses?search=mine", "/v1/operations?search=mine"} {
					if l := a.do("GET", coll, tc.key, nil).want(200).List(); len(l) != 0 {
						t.Fatalf("%s lists another account's rows: %v", coll, l)
					}
				}
				if l := a.do("GET", "/v1/tags?ref_type=PRODUCT", tc.key, nil).want(200).List(); len(l) != 0 {
					t.Fatalf("tags of another account listed: %v", l)
				}
			})
		}
		a.run(t, "the owner still has its rows unchanged", func(t *testing.T, a *api) {
			for coll, id := range mine {
				if a.get(path(coll, id)).want(200).Data()["name"] != "Mine" {
					t.Fatalf("%s changed", coll)
				}
			}
		})
		a.run(t, "a body referencing another account's row is a 400 on the field", func(t *testing.T, a *api) {
			uom := mine["/v1/units-of-measure"]
			a.do("POST", "/v1/operations", otherKey, map[string]any{"code": "X", "name": "X", "unit_of_measure_id": uom}).
				field(400, "VALIDATION_ERROR", "unit_of_measure_id")
			theirs := a.do("POST", "/v1/operations", otherKey, map[string]any{"code": "Y", "name": "Y"}).want(201).ID()
			a.do("PATCH", path("/v1/operations", theirs), otherKey, map[string]any{"unit_of_measure_id": uom}).
				field(400, "VALIDATION_ERROR", "unit_of_measure_id")
			// A shared unit is everyone's to reference.
			g := int(a.do("GET", "/v1/units-of-measure?search=gram", otherKey, nil).List()[0]["id"].(float64))
			a.do("PATCH", path("/v1/operations", theirs), otherKey, map[string]any{"unit_of_measure_id": g}).want(200)
		})
		a.run(t, "the same unique value in two accounts is no conflict", func(t *testing.T, a *api) {
			a.do("POST", "/v1/tags", otherKey, map[string]any{"name": "Mine", "ref_type": "PRODUCT"}).want(201)
			a.do("POST", "/v1/warehouses", testKey, map[string]any{"code": "MINE", "name": "Mine"}).want(201)
		})
	})
}
