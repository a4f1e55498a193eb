package handlers_test

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"larder.dev/larder/policy"
)

// Spec "Customer" and "Customers": body rules (code trimmed and upper-cased,
// unique per account), the address written whole, references that must be
// the account's, tag_ids replaced as a whole, filters and sorts, delete with
// the attached tags, events, isolation and scopes.
func TestCustomers(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		tagID := func(a *api, name, ref string) int {
			return a.post("/v1/tags", map[string]any{"name": name, "ref_type": ref}).want(201).ID()
		}
		vip, retail, product := tagID(a, "VIP", "CUSTOMER"), tagID(a, "Retail", "CUSTOMER"), tagID(a, "Organic", "PRODUCT")
		created := a.post("/v1/customers", map[string]any{"customer_code": "  epi-qc ", "company": "Épicerie du Marché",
			"email": "achats@epicerie.example", "tag_ids": []int{vip, retail},
			"address": map[string]any{"line1": "12 rue Principale", "city": "Québec", "state": "QC", "postal_code": "G1A 1A1"}}).want(201)
		id := created.ID()

		a.run(t, "create stores the code trimmed and upper-cased and answers what a read returns", func(t *testing.T, a *api) {
			d := created.Data()
			want := map[string]any{"id": float64(id), "customer_code": "EPI-QC", "company": "Épicerie du Marché", "active": true,
				"email": "achats@epicerie.example", "contact": nil, "phone": nil, "website": nil,
				"customer_type_id": nil, "price_list_id": nil, "salesperson_id": nil, "shipping_method_id": nil, "tax_rate_id": nil, "territory_id": nil,
				"address":    map[string]any{"line1": "12 rue Principale", "line2": nil, "city": "Québec", "state": "QC", "postal_code": "G1A 1A1"},
				"tag_ids":    []any{float64(vip), float64(retail)},
				"created_at": d["created_at"], "updated_at": d["updated_at"]}
			if diff := cmpDiff(want, d); diff != "" {
				t.Fatalf("(-want +got):\n%s", diff)
			}
			if diff := cmpDiff(d, a.get(path("/v1/customers", id)).want(200).Data()); diff != "" {
				t.Fatalf("create and read differ:\n%s", diff)
			}
			if l := a.get("/v1/customers").want(200).List(); len(l) != 1 || l[0]["tag_ids"] != nil {
				t.Fatalf("tag_ids must be null in lists: %v", l)
			}
			a.wantEvent(a.events("customer.")[0], "customer.created", id, created)
		})

		a.run(t, "body rules", func(t *testing.T, a *api) {
			cases := []struct {
				name   string
				body   map[string]any
				status int
				field  string
			}{
				{"company is required", map[string]any{"customer_code": "C1"}, 400, "company"},
				{"customer_code is required", map[string]any{"company": "C"}, 400, "customer_code"},
				{"customer_code of 41 characters", map[string]any{"customer_code": strings.Repeat("C", 41), "company": "C"}, 400, "customer_code"},
				{"customer_code of spaces", map[string]any{"customer_code": "   ", "company": "C"}, 400, "customer_code"},
				{"the same code once normalized", map[string]any{"customer_code": "Epi-Qc", "company": "C"}, 409, "customer_code"},
				{"company of 101 characters", map[string]any{"customer_code": "C2", "company": strings.Repeat("c", 101)}, 400, "company"},
				{"phone of 51 characters", map[string]any{"customer_code": "C3", "company": "C", "phone": strings.Repeat("5", 51)}, 400, "phone"},
				{"a zero reference", map[string]any{"customer_code": "C4", "company": "C", "price_list_id": 0}, 400, "price_list_id"},
				{"a missing reference", map[string]any{"customer_code": "C5", "company": "C", "territory_id": 999999}, 400, "territory_id"},
				{"a PRODUCT tag", map[string]any{"customer_code": "C6", "company": "C", "tag_ids": []int{vip, product}}, 400, "tag_ids[1]"},
				{"a tag twice", map[string]any{"customer_code": "C7", "company": "C", "tag_ids": []int{vip, vip}}, 400, "tag_ids[1]"},
				{"a tag id of 0", map[string]any{"customer_code": "C8", "company": "C", "tag_ids": []int{0}}, 400, "tag_ids[0]"},
				{"101 tags", map[string]any{"customer_code": "C9", "company": "C", "tag_ids": make([]int, 101)}, 400, "tag_ids"},
			}
			for _, tc := range cases {
				a.run(t, tc.name, func(t *testing.T, a *api) {
					code := "VALIDATION_ERROR"
					if tc.status == 409 {
						code = "DUPLICATE"
					}
					a.post("/v1/customers", tc.body).field(tc.status, code, tc.field)
				})
			}
			if n := len(a.get("/v1/customers").want(200).List()); n != 1 {
				t.Fatalf("%d customers after refusals, want 1", n)
			}
		})

		a.run(t, "tag_ids are replaced whole; omitted unchanged; [] and null remove all", func(t *testing.T, a *api) {
			p := path("/v1/customers", id)
			ids := func(d map[string]any) []any { x, _ := d["tag_ids"].([]any); return x }
			if got := ids(a.patch(p, map[string]any{"tag_ids": []int{retail}}).want(200).Data()); !slices.Equal(got, []any{float64(retail)}) {
				t.Fatalf("replaced: %v", got)
			}
			if got := ids(a.patch(p, map[string]any{"phone": "418-555-0100"}).want(200).Data()); !slices.Equal(got, []any{float64(retail)}) {
				t.Fatalf("omitted: %v", got)
			}
			a.patch(p, map[string]any{"tag_ids": []int{product}}).field(400, "VALIDATION_ERROR", "tag_ids[0]")
			if got := ids(a.get(p).want(200).Data()); !slices.Equal(got, []any{float64(retail)}) {
				t.Fatalf("a refused update changed the tags: %v", got)
			}
			if got := a.patch(p, map[string]any{"tag_ids": []int{}}).want(200).Data()["tag_ids"]; got == nil || len(got.([]any)) != 0 {
				t.Fatalf("[]: %v", got)
			}
			a.patch(p, map[string]any{"tag_ids": []int{vip, retail}}).want(200)
			if got := a.patch(p, map[string]any{"tag_ids": nil}).want(200).Data()["tag_ids"]; got == nil || len(got.([]any)) != 0 {
				t.Fatalf("null: %v", got)
			}
			a.patch(p, map[string]any{"tag_ids": []int{vip}}).want(200)
		})

		a.run(t, "update rules", func(t *testing.T, a *api) {
			other := a.post("/v1/customers", map[string]any{"customer_code": "OTHER", "company": "Other"}).want(201).ID()
			a.patch(path("/v1/customers", other), map[string]any{"customer_code": " epi-qc"}).field(409, "DUPLICATE", "customer_code")
			d := a.patch(path("/v1/customers", other), map[string]any{"customer_code": " other-2 ", "active": false}).want(200).Data()
			if d["customer_code"] != "OTHER-2" || d["active"] != false {
				t.Fatalf("update: %v", d)
			}
			a.patch(path("/v1/customers", other), map[string]any{"company": nil}).field(400, "VALIDATION_ERROR", "company")
			d = a.patch(path("/v1/customers", other), map[string]any{"address": map[string]any{"city": "Laval"}}).want(200).Data()
			if diff := cmpDiff(map[string]any{"line1": nil, "line2": nil, "city": "Laval", "state": nil, "postal_code": nil}, d["address"]); diff != "" {
				t.Fatalf("address replaced whole:\n%s", diff)
			}
		})

		a.run(t, "a tag attached to a customer is in use; delete removes the customer with its tags", func(t *testing.T, a *api) {
			gone := a.post("/v1/customers", map[string]any{"customer_code": "GONE", "company": "Gone", "tag_ids": []int{retail}}).want(201).ID()
			a.del(path("/v1/tags", retail)).problem(409, "IN_USE")
			r := a.del(path("/v1/customers", gone)).want(200)
			a.get(path("/v1/customers", gone)).problem(404, "NOT_FOUND")
			evs := a.events("customer.")
			a.wantEvent(evs[len(evs)-1], "customer.deleted", gone, r)
			a.patch(path("/v1/customers", id), map[string]any{"tag_ids": []int{vip}}).want(200)
			a.del(path("/v1/tags", retail)).want(200)
		})

		a.run(t, "another account's rows are not found, and not referable", func(t *testing.T, a *api) {
			b := newAPI(t, a.st)
			theirTag := tagID(b, "Theirs", "CUSTOMER")
			theirs := b.post("/v1/customers", map[string]any{"customer_code": "EPI-QC", "company": "Same code elsewhere"}).want(201).ID()
			a.get(path("/v1/customers", theirs)).problem(404, "NOT_FOUND")
			b.get(path("/v1/customers", id)).problem(404, "NOT_FOUND")
			b.patch(path("/v1/customers", id), map[string]any{"company": "Mine"}).problem(404, "NOT_FOUND")
			a.del(path("/v1/customers", theirs)).problem(404, "NOT_FOUND")
			a.patch(path("/v1/customers", id), map[string]any{"tag_ids": []int{theirTag}}).field(400, "VALIDATION_ERROR", "tag_ids[0]")
		})

		a.run(t, "scopes", func(t *testing.T, a *api) {
			read, _ := a.newKey(policy.Live, "sales:read")
			write, _ := a.newKey(policy.Live, "sales:write")
			purchasing, _ := a.newKey(policy.Live, "purchasing:write,catalog:write")
			a.do("GET", path("/v1/customers", id), read, nil).want(200)
			a.do("POST", "/v1/customers", read, map[string]any{"customer_code": "S1", "company": "S"}).problem(403, "INSUFFICIENT_SCOPE")
			a.do("POST", "/v1/customers", write, map[string]any{"customer_code": "S2", "company": "S"}).want(201)
			a.do("GET", "/v1/customers", purchasing, nil).problem(403, "INSUFFICIENT_SCOPE")
		})
	})
}

// Spec "Customers" list rules over the seeded test account.
func TestSeededCustomers(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		a = seeded(t, a)
		wholesale := a.get("/v1/price-lists?search=WHOLESALE").want(200).List()[0]["id"].(float64)
		cases := []struct {
			name, query string
			want        []string
		}{
			{"by id", "", []string{"EPI-QC", "NORTHDIST", "CAFE-ALPHA", "US-GOURMET", "OLDSHOP"}},
			{"customer_code is partial", "customer_code=gour", []string{"US-GOURMET"}},
			{"company is partial and case-insensitive", "company=CAFÉ", []string{"CAFE-ALPHA"}},
			{"email is partial", "email=northdist", []string{"NORTHDIST"}},
			{"price_list_id", "price_list_id=" + fmt.Sprint(int(wholesale)), []string{"NORTHDIST"}},
			{"search matches the company", "search=gourmet", []string{"US-GOURMET"}},
			{"search matches the code", "search=oldshop", []string{"OLDSHOP"}},
			{"sort by company", "sort=company", []string{"OLDSHOP", "CAFE-ALPHA", "US-GOURMET", "NORTHDIST", "EPI-QC"}},
			{"sort by customer_code descending", "sort=customer_code:desc", []string{"US-GOURMET", "OLDSHOP", "NORTHDIST", "EPI-QC", "CAFE-ALPHA"}},
		}
		for _, tc := range cases {
			a.run(t, tc.name, func(t *testing.T, a *api) {
				if got := a.column("/v1/customers?"+tc.query, "customer_code"); !slices.Equal(got, tc.want) {
					t.Fatalf("%s: %v, want %v", tc.query, got, tc.want)
				}
			})
		}
		a.run(t, "seeded references and tags", func(t *testing.T, a *api) {
			c := a.get("/v1/customers?customer_code=CAFE").want(200).List()[0]
			d := a.get(path("/v1/customers", int(c["id"].(float64)))).want(200).Data()
			for _, f := range []string{"customer_type_id", "price_list_id", "salesperson_id", "shipping_method_id", "tax_rate_id", "territory_id"} {
				if d[f] == nil {
					t.Errorf("%s is null", f)
				}
			}
			if tags, _ := d["tag_ids"].([]any); len(tags) != 2 {
				t.Errorf("tag_ids %v, want two", d["tag_ids"])
			}
		})
		a.run(t, "updated_since", func(t *testing.T, a *api) {
			next := time.Now().UTC().Truncate(time.Second).Add(time.Second)
			time.Sleep(time.Until(next) + 50*time.Millisecond)
			c := a.get("/v1/customers?customer_code=NORTHDIST").List()[0]
			a.patch(path("/v1/customers", int(c["id"].(float64))), map[string]any{"website": "https://northdist.example"}).want(200)
			if got := a.column("/v1/customers?updated_since="+url.QueryEscape(next.Format(time.RFC3339)), "customer_code"); !slices.Equal(got, []string{"NORTHDIST"}) {
				t.Fatalf("updated since %v: %v", next, got)
			}
		})
	})
}
