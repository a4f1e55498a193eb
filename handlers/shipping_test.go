package handlers_test

import (
	"fmt"
	"testing"

	"larder.dev/larder/policy"
)

// Spec "Customers" (shipping addresses) and "Customer shipping address": a
// nested, unpaginated resource with the customer's tenancy, the address
// required and replaced whole, at most one default, changes reported as the
// customer's customer.updated.
func TestShippingAddresses(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		cust := a.post("/v1/customers", map[string]any{"customer_code": "SHIP", "company": "Ship Co."}).want(201).ID()
		other := a.post("/v1/customers", map[string]any{"customer_code": "OTHER", "company": "Other Co."}).want(201).ID()
		base := fmt.Sprintf("/v1/customers/%d/shipping-addresses", cust)
		created := a.post(base, map[string]any{"address": map[string]any{"line1": "1 Dock Road", "city": "Laval"}, "contact": "Dock 1", "is_default": true}).want(201)
		id := created.ID()

		a.run(t, "create answers the address with every part, the customer from the path", func(t *testing.T, a *api) {
			want := map[string]any{"id": float64(id), "customer_id": float64(cust), "contact": "Dock 1", "phone": nil, "is_default": true,
				"address": map[string]any{"line1": "1 Dock Road", "line2": nil, "city": "Laval", "state": nil, "postal_code": nil}}
			if diff := cmpDiff(want, created.Data()); diff != "" {
				t.Fatalf("(-want +got):\n%s", diff)
			}
			if diff := cmpDiff(want, a.get(path(base, id)).want(200).Data()); diff != "" {
				t.Fatalf("read (-want +got):\n%s", diff)
			}
		})

		a.run(t, "body rules", func(t *testing.T, a *api) {
			a.post(base, map[string]any{"contact": "x"}).field(400, "VALIDATION_ERROR", "address")
			a.post(base, map[string]any{"address": nil}).field(400, "VALIDATION_ERROR", "address")
			a.post(base, map[string]any{"address": map[string]any{"postal_code": "123456789012345678901"}}).field(400, "VALIDATION_ERROR", "address.postal_code")
			a.post(base, map[string]any{"address": map[string]any{"city": "X"}, "customer_id": other}).field(400, "VALIDATION_ERROR", "customer_id")
			a.post(base, map[string]any{"address": map[string]any{"city": "X"}, "is_default": true}).field(409, "DEFAULT_ADDRESS_EXISTS", "is_default")
		})

		a.run(t, "one default; an update can move it", func(t *testing.T, a *api) {
			second := a.post(base, map[string]any{"address": map[string]any{"city": "Terrebonne"}}).want(201).ID()
			a.patch(path(base, second), map[string]any{"is_default": true}).field(409, "DEFAULT_ADDRESS_EXISTS", "is_default")
			a.patch(path(base, id), map[string]any{"is_default": true}).want(200) // itself: no conflict
			a.patch(path(base, id), map[string]any{"is_default": false}).want(200)
			a.patch(path(base, second), map[string]any{"is_default": true}).want(200)
			// Another customer's default is no conflict.
			a.post(fmt.Sprintf("/v1/customers/%d/shipping-addresses", other), map[string]any{"address": map[string]any{"city": "Y"}, "is_default": true}).want(201)
		})

		a.run(t, "the address is replaced whole; omitted unchanged; null refused", func(t *testing.T, a *api) {
			d := a.patch(path(base, id), map[string]any{"address": map[string]any{"line2": "Door 3"}}).want(200).Data()
			if diff := cmpDiff(map[string]any{"line1": nil, "line2": "Door 3", "city": nil, "state": nil, "postal_code": nil}, d["address"]); diff != "" {
				t.Fatalf("replaced (-want +got):\n%s", diff)
			}
			d = a.patch(path(base, id), map[string]any{"phone": "450-555-0100"}).want(200).Data()
			if d["address"].(map[string]any)["line2"] != "Door 3" {
				t.Fatalf("an update without address changed it: %v", d["address"])
			}
			a.patch(path(base, id), map[string]any{"address": nil}).field(400, "VALIDATION_ERROR", "address")
		})

		a.run(t, "the list is every address of the customer, unpaginated", func(t *testing.T, a *api) {
			body := a.get(base).want(200).JSON()
			rows := body["data"].([]any)
			if len(rows) != 2 || body["pagination"].(map[string]any)["total"] != float64(2) {
				t.Fatalf("list: %v", body)
			}
			a.get(base+"?limit=1").field(400, "VALIDATION_ERROR", "limit")
		})

		a.run(t, "a child of another customer, or of a customer not seen, is not found", func(t *testing.T, a *api) {
			wrong := fmt.Sprintf("/v1/customers/%d/shipping-addresses", other)
			a.get(path(wrong, id)).problem(404, "NOT_FOUND")
			a.patch(path(wrong, id), map[string]any{"contact": "x"}).problem(404, "NOT_FOUND")
			a.del(path(wrong, id)).problem(404, "NOT_FOUND")
			a.get("/v1/customers/999999/shipping-addresses").problem(404, "NOT_FOUND")
			a.post("/v1/customers/999999/shipping-addresses", map[string]any{"address": map[string]any{"city": "X"}}).problem(404, "NOT_FOUND")
			b := newAPI(t, a.st)
			b.get(base).problem(404, "NOT_FOUND")
			b.get(path(base, id)).problem(404, "NOT_FOUND")
			b.post(base, map[string]any{"address": map[string]any{"city": "X"}}).problem(404, "NOT_FOUND")
			theirs := b.post("/v1/customers", map[string]any{"customer_code": "THEIRS", "company": "T"}).want(201).ID()
			a.get(fmt.Sprintf("/v1/customers/%d/shipping-addresses", theirs)).problem(404, "NOT_FOUND")
		})

		a.run(t, "changes are the customer's customer.updated; delete; the customer's delete takes them", func(t *testing.T, a *api) {
			before := len(a.events("customer.updated"))
			a.del(path(base, id)).want(200)
			a.get(path(base, id)).problem(404, "NOT_FOUND")
			evs := a.events("customer.updated")
			if len(evs) != before+1 || evs[len(evs)-1].ResourceID != cust {
				t.Fatalf("customer.updated events %d → %d, want one more for customer %d", before, len(evs), cust)
			}
			a.del(path("/v1/customers", cust)).want(200)
			a.get(base).problem(404, "NOT_FOUND")
		})

		a.run(t, "scopes", func(t *testing.T, a *api) {
			read, _ := a.newKey(policy.Live, "sales:read")
			base := fmt.Sprintf("/v1/customers/%d/shipping-addresses", other)
			a.do("GET", base, read, nil).want(200)
			a.do("POST", base, read, map[string]any{"address": map[string]any{"city": "Z"}}).problem(403, "INSUFFICIENT_SCOPE")
		})
	})
}

// docs/api-behaviour.md, "Test mode": the seeded test account has customers with shipping addresses.
func TestSeededShippingAddresses(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		a = seeded(t, a)
		c := a.get("/v1/customers?customer_code=EPI-QC").want(200).List()[0]
		rows := a.get(fmt.Sprintf("/v1/customers/%d/shipping-addresses", int(c["id"].(float64)))).want(200).List()
		defaults := 0
		for _, r := range rows {
			if r["is_default"] == true {
				defaults++
			}
		}
		if len(rows) != 2 || defaults != 1 {
			t.Fatalf("EPI-QC's addresses: %v", rows)
		}
	})
}
