package handlers_test

import (
	"slices"
	"testing"

	"larder.dev/larder/policy"
)

// The specification's "Read-only reference resources" (tax rates, salespersons)
// and docs/api-behaviour.md, "Resources" (customer types, price lists, shipping methods,
// territories): seeded rows, fields, filters, search and sorts by their
// effect on the rows, read-only, the sales:read scope and isolation.
func TestSalesReferenceLists(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		a = seeded(t, a)
		cases := []struct {
			name, path, column string
			want               []string
		}{
			{"tax rates by id", "/v1/tax-rates", "code", []string{"GST", "HST-ON", "QC", "ZERO"}},
			{"tax rates by name", "/v1/tax-rates?sort=name", "code", []string{"QC", "GST", "HST-ON", "ZERO"}},
			{"tax rates by code descending", "/v1/tax-rates?sort=code:desc", "code", []string{"ZERO", "QC", "HST-ON", "GST"}},
			{"tax rate name filter is partial", "/v1/tax-rates?name=hst", "code", []string{"HST-ON"}},
			{"tax rate search matches the description", "/v1/tax-rates?search=groceries", "code", []string{"ZERO"}},
			{"tax rate search matches the code", "/v1/tax-rates?search=hst-", "code", []string{"HST-ON"}},
			{"salespersons by last name", "/v1/salespersons?sort=last_name", "code", []string{"SP02", "SP03", "SP01", "SP04"}},
			{"salespersons by first name descending", "/v1/salespersons?sort=first_name:desc", "code", []string{"SP04", "SP01", "SP02", "SP03"}},
			{"salespersons active", "/v1/salespersons?active=false", "code", []string{"SP04"}},
			{"salesperson last_name is partial", "/v1/salespersons?last_name=LEOD", "code", []string{"SP04"}},
			{"salesperson email is partial", "/v1/salespersons?email=chan@", "code", []string{"SP02"}},
			{"salesperson search", "/v1/salespersons?search=amélie", "code", []string{"SP03"}},
			{"customer types by name", "/v1/customer-types?sort=name", "code", []string{"FOODSERVICE", "ONLINE", "RETAIL", "WHOLESALE"}},
			{"customer type search", "/v1/customer-types?search=whole", "code", []string{"WHOLESALE"}},
			{"price lists by code", "/v1/price-lists?sort=code", "code", []string{"EXPORT-US", "PROMO-2025", "STANDARD", "WHOLESALE"}},
			{"shipping methods by name descending", "/v1/shipping-methods?sort=name:desc", "code", []string{"REEFER", "LTL", "PICKUP", "COURIER"}},
			{"territories by id", "/v1/territories", "code", []string{"QC", "ON", "WEST", "ATL"}},
			{"territory search matches the name", "/v1/territories?search=atlantic", "code", []string{"ATL"}},
		}
		for _, tc := range cases {
			a.run(t, tc.name, func(t *testing.T, a *api) {
				if got := a.column(tc.path, tc.column); !slices.Equal(got, tc.want) {
					t.Fatalf("%s: %v, want %v", tc.path, got, tc.want)
				}
			})
		}

		a.run(t, "fields", func(t *testing.T, a *api) {
			qc := a.get("/v1/tax-rates?search=QST").want(200).List()
			if len(qc) != 1 {
				t.Fatalf("QST rates: %v", qc)
			}
			want := map[string]any{"id": qc[0]["id"], "code": "QC", "name": "GST + QST", "description": "Quebec: federal tax and Quebec sales tax.",
				"tax_rate1": float64(5), "tax_rate1_label": "GST", "tax_rate2": 9.975, "tax_rate2_label": "QST"}
			if diff := cmpDiff(want, qc[0]); diff != "" {
				t.Fatalf("tax rate (-want +got):\n%s", diff)
			}
			if diff := cmpDiff(qc[0], a.get(path("/v1/tax-rates", int(qc[0]["id"].(float64)))).want(200).Data()); diff != "" {
				t.Fatalf("list and single differ:\n%s", diff)
			}
			sp := a.get("/v1/salespersons?search=SP03").want(200).List()[0]
			if sp["email"] != nil || sp["active"] != true || sp["first_name"] != "Amélie" || sp["last_name"] != "Gauthier" {
				t.Fatalf("salesperson: %v", sp)
			}
			pl := a.get("/v1/price-lists?search=EXPORT").want(200).List()[0]
			want = map[string]any{"id": pl["id"], "code": "EXPORT-US", "name": "Export USA", "description": "Prices for customers in the United States.",
				"active": true, "currency": "USD"}
			if diff := cmpDiff(want, pl); diff != "" {
				t.Fatalf("price list (-want +got):\n%s", diff)
			}
			for _, p := range []string{"/v1/customer-types", "/v1/shipping-methods", "/v1/territories"} {
				row := a.get(p + "?limit=1").want(200).List()[0]
				keys := []string{}
				for k := range row {
					keys = append(keys, k)
				}
				slices.Sort(keys)
				if !slices.Equal(keys, []string{"active", "code", "description", "id", "name"}) {
					t.Fatalf("%s fields %v", p, keys)
				}
			}
		})

		a.run(t, "read-only, sales:read, isolated", func(t *testing.T, a *api) {
			sales, _ := a.newKey(policy.Test, "sales:read")
			catalog, _ := a.newKey(policy.Test, "catalog:read,purchasing:write,cost:read")
			other := seeded(t, a)
			for _, p := range []string{"/v1/tax-rates", "/v1/salespersons", "/v1/customer-types", "/v1/price-lists", "/v1/shipping-methods", "/v1/territories"} {
				rows := a.do("GET", p, sales, nil).want(200).List()
				a.do("GET", p, catalog, nil).problem(403, "INSUFFICIENT_SCOPE")
				a.do("POST", p, a.key, map[string]any{"code": "X", "name": "X"}).problem(405, "METHOD_NOT_ALLOWED")
				id := int(rows[0]["id"].(float64))
				a.do("GET", path(p, id), sales, nil).want(200)
				a.do("PATCH", path(p, id), a.key, map[string]any{"name": "Y"}).problem(405, "METHOD_NOT_ALLOWED")
				a.do("DELETE", path(p, id), a.key, nil).problem(405, "METHOD_NOT_ALLOWED")
				other.get(path(p, id)).problem(404, "NOT_FOUND")
				theirs := int(other.get(p).want(200).List()[0]["id"].(float64))
				a.get(path(p, theirs)).problem(404, "NOT_FOUND")
			}
		})
	})
}
