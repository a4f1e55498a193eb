package handlers_test

import (
	"strings"
	"testing"

	"larder.dev/larder/policy"
)

// Spec "Reference resources with writes": operations, whose cost is a cost field.
func TestOperations(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		kg := int(a.get("/v1/units-of-measure?search=kilogram").List()[0]["id"].(float64))
		op := a.post("/v1/operations", map[string]any{"code": "MIX", "name": "Mixing", "cost": 12.5, "qty": 100, "unit_of_measure_id": kg}).want(201)
		id := op.ID()
		a.run(t, "create", func(t *testing.T, a *api) {
			want := map[string]any{"id": float64(id), "code": "MIX", "name": "Mixing", "cost": 12.5, "qty": float64(100), "unit_of_measure_id": float64(kg)}
			if diff := cmpDiff(want, op.Data()); diff != "" {
				t.Fatalf("(-want +got):\n%s", diff)
			}
		})
		a.run(t, "code is unique per account", func(t *testing.T, a *api) {
			a.post("/v1/operations", map[string]any{"code": "MIX", "name": "Again"}).field(409, "DUPLICATE", "code")
		})
		a.run(t, "body bounds", func(t *testing.T, a *api) {
			cases := []struct {
				body  map[string]any
				field string
			}{
				{map[string]any{"name": "x"}, "code"},
				{map[string]any{"code": "x"}, "name"},
				{map[string]any{"code": strings.Repeat("c", 41), "name": "x"}, "code"},
				{map[string]any{"code": "x", "name": strings.Repeat("n", 51)}, "name"},
				{map[string]any{"code": "x", "name": "x", "cost": -0.01}, "cost"},
				{map[string]any{"code": "x", "name": "x", "qty": -1}, "qty"},
				{map[string]any{"code": "x", "name": "x", "unit_of_measure_id": 999999999}, "unit_of_measure_id"},
			}
			for _, tc := range cases {
				a.post("/v1/operations", tc.body).field(400, "VALIDATION_ERROR", tc.field)
			}
			a.post("/v1/operations", map[string]any{"code": "FREE", "name": "Free", "cost": 0, "qty": 0}).want(201)
		})
		a.run(t, "update clears with null", func(t *testing.T, a *api) {
			d := a.patch(path("/v1/operations", id), map[string]any{"cost": nil, "unit_of_measure_id": nil, "name": "Mix"}).want(200).Data()
			if d["cost"] != nil || d["unit_of_measure_id"] != nil || d["name"] != "Mix" || d["qty"] != float64(100) {
				t.Fatalf("after update: %v", d)
			}
			a.patch(path("/v1/operations", id), map[string]any{"code": nil}).field(400, "VALIDATION_ERROR", "code")
			d = a.patch(path("/v1/operations", id), map[string]any{"cost": 3.14159, "unit_of_measure_id": kg}).want(200).Data()
			if d["cost"] != 3.14159 || d["unit_of_measure_id"] != float64(kg) {
				t.Fatalf("after update: %v", d)
			}
		})
		a.run(t, "filters and sorts", func(t *testing.T, a *api) {
			a.post("/v1/operations", map[string]any{"code": "BAKE", "name": "Baking"}).want(201)
			codes := func(q string) []string { return a.column("/v1/operations?"+q, "code") }
			if diff := cmpDiff([]string{"BAKE"}, codes("code=BAKE")); diff != "" {
				t.Fatalf("code filter (-want +got):\n%s", diff)
			}
			if diff := cmpDiff([]string{"BAKE"}, codes("name=aki")); diff != "" {
				t.Fatalf("name filter (-want +got):\n%s", diff)
			}
			if diff := cmpDiff([]string{"MIX", "FREE", "BAKE"}, codes("sort=code:desc")); diff != "" {
				t.Fatalf("sort (-want +got):\n%s", diff)
			}
			if diff := cmpDiff([]string{"MIX"}, codes("search=mi")); diff != "" {
				t.Fatalf("search (-want +got):\n%s", diff)
			}
		})
		a.run(t, "delete", func(t *testing.T, a *api) {
			a.del(path("/v1/operations", id)).want(200)
			a.get(path("/v1/operations", id)).problem(404, "NOT_FOUND")
		})
	})
}

// Spec "Common value types" and Authentication 8: cost fields are null
// without cost:read, on single, list, create and update responses alike.
func TestCostRedaction(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		noCost := a.org.Key(t, policy.Live, "manufacturing:write")
		withCost := a.org.Key(t, policy.Live, "manufacturing:write,cost:read")
		create := a.do("POST", "/v1/operations", noCost, map[string]any{"code": "C1", "name": "Costly", "cost": 7.25, "qty": 2}).want(201)
		id := create.ID()
		costs := func(r *response) []any {
			if l, ok := r.JSON()["data"].([]any); ok {
				var out []any
				for _, x := range l {
					out = append(out, x.(map[string]any)["cost"])
				}
				return out
			}
			d := r.Data()
			if _, present := d["cost"]; !present {
				t.Fatalf("cost is absent, not null: %s", r.Body)
			}
			return []any{d["cost"]}
		}
		cases := []struct {
			name string
			key  string
			r    func(key string) *response
			want any
		}{
			{"create without cost:read", noCost, func(string) *response { return create }, nil},
			{"single without cost:read", noCost, func(k string) *response { return a.do("GET", path("/v1/operations", id), k, nil) }, nil},
			{"list without cost:read", noCost, func(k string) *response { return a.do("GET", "/v1/operations", k, nil) }, nil},
			{"update without cost:read", noCost, func(k string) *response {
				return a.do("PATCH", path("/v1/operations", id), k, map[string]any{"name": "Costlier"})
			}, nil},
			{"single with cost:read", withCost, func(k string) *response { return a.do("GET", path("/v1/operations", id), k, nil) }, 7.25},
			{"list with cost:read", withCost, func(k string) *response { return a.do("GET", "/v1/operations", k, nil) }, 7.25},
			{"update with cost:read", withCost, func(k string) *response {
				return a.do("PATCH", path("/v1/operations", id), k, map[string]any{"qty": 3})
			}, 7.25},
			{"create with cost:read", withCost, func(k string) *response {
				return a.do("POST", "/v1/operations", k, map[string]any{"code": "C2", "name": "Other", "cost": 7.25})
			}, 7.25},
		}
		for _, tc := range cases {
			a.run(t, tc.name, func(t *testing.T, a *api) {
				for _, c := range costs(tc.r(tc.key)) {
					if c != tc.want {
						t.Fatalf("cost %v, want %v", c, tc.want)
					}
				}
			})
		}
		a.run(t, "a write without cost:read keeps the stored cost", func(t *testing.T, a *api) {
			d := a.do("GET", path("/v1/operations", id), withCost, nil).want(200).Data()
			if d["cost"] != 7.25 || d["name"] != "Costlier" {
				t.Fatalf("stored: %v", d)
			}
		})
	})
}
