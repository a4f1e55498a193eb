package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"larder.dev/larder/ent/organization"
	"larder.dev/larder/ent/purchaseorder"
	"larder.dev/larder/ent/supplier"
	"larder.dev/larder/internal/modules/purchasing"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

// supplierFor creates a supplier with an address and returns its id.
func (a *api) supplierFor(code string) int {
	a.t.Helper()
	return a.post("/v1/suppliers", map[string]any{"supplier_code": code, "company": code + " Ltd.",
		"address": map[string]any{"line1": "1 Mill Road", "city": "Saskatoon", "state": "SK", "postal_code": "S7K 1A1"}}).want(201).ID()
}

// line is a document line body.
func line(product int, quantity any, more ...any) map[string]any {
	l := map[string]any{"product_id": product, "quantity": quantity}
	for i := 0; i+1 < len(more); i += 2 {
		l[more[i].(string)] = more[i+1]
	}
	return l
}

// lines is n copies of l.
func lines(n int, l map[string]any) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = l
	}
	return out
}

// Spec "Purchase order", "Purchase orders", "States and transitions >
// Purchase order", docs/api-behaviour.md, "Money" and "Resources" (Purchase
// orders, with the status moves): creation, money, lines, updates, the status
// operation, filters, events and isolation.
func TestPurchaseOrders(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		a = seeded(t, a)
		flour, sugar := a.productID("RM-FLOUR"), a.productID("RM-SUGAR")
		sup := a.supplierFor("MILLPO")
		created := a.post("/v1/purchase-orders", map[string]any{"supplier_id": sup, "order_date": "2026-11-20",
			"expected_date": "2026-12-01", "supplier_reference": "SO-77", "notes": "Dock 2",
			"lines": []any{
				line(flour, 0.1, "cost", 0.1),
				line(flour, 0.1, "cost", 0.1, "supplier_partno", "AP-25", "lead_time", 3, "notes", "sifted"),
				line(sugar, 0.1, "cost", 0.1, "discount_rate", 12.5, "expiration_date", "2027-01-31"),
			}}).want(201)
		id := created.ID()
		d := created.Data()

		a.run(t, "create: OPEN, supplier copied, exact subtotal, lines in base units", func(t *testing.T, a *api) {
			addr := map[string]any{"line1": "1 Mill Road", "line2": nil, "city": "Saskatoon", "state": "SK", "postal_code": "S7K 1A1"}
			for k, want := range map[string]any{"status": "OPEN", "supplier_id": float64(sup), "company": "MILLPO Ltd.",
				"billing_address": addr, "shipping_address": addr, "order_date": "2026-11-20", "expected_date": "2026-12-01",
				"received_date": nil, "supplier_reference": "SO-77", "notes": "Dock 2",
				// 0.01 + 0.01 + 0.00875 = 0.02875, rounded once, half-up.
				"subtotal": 0.03, "tax1": false, "tax2": false, "tax1_rate": nil, "tax2_rate": nil} {
				if diff := cmpDiff(want, d[k]); diff != "" {
					t.Errorf("%s (-want +got):\n%s", k, diff)
				}
			}
			ls := d["lines"].([]any)
			if len(ls) != 3 {
				t.Fatalf("lines: %v", ls)
			}
			second, third := ls[1].(map[string]any), ls[2].(map[string]any)
			want := map[string]any{"id": second["id"], "product_id": float64(flour), "product_code": "RM-FLOUR",
				"product_name": "All-purpose wheat flour", "quantity": 0.1, "quantity_base": 2500.0, "cost": 0.1,
				"discount_rate": nil, "expiration_date": nil, "lead_time": 3.0, "notes": "sifted", "supplier_partno": "AP-25"}
			if diff := cmpDiff(want, second); diff != "" {
				t.Fatalf("line (-want +got):\n%s", diff)
			}
			// A bag of flour is 25,000 g; a kilogram of sugar 1,000 g.
			if third["quantity_base"] != 100.0 || third["expiration_date"] != "2027-01-31T00:00:00Z" || third["discount_rate"] != 12.5 {
				t.Fatalf("third line: %v", third)
			}
			if !(ls[0].(map[string]any)["id"].(float64) < second["id"].(float64)) {
				t.Fatalf("lines are not in id order: %v", ls)
			}
			if diff := cmpDiff(d, a.get(path("/v1/purchase-orders", id)).want(200).Data()); diff != "" {
				t.Fatalf("create and read differ:\n%s", diff)
			}
			if d["purchase_order_no"].(float64) < 1 {
				t.Fatalf("purchase_order_no %v", d["purchase_order_no"])
			}
			evs := a.events("purchase_order.")
			if len(evs) != 1 {
				t.Fatalf("events %v, want one purchase_order.created (lines are the order's own)", types(evs))
			}
			a.wantEvent(evs[0], "purchase_order.created", id, created, "lines", "subtotal", "tax1", "tax2", "tax1_rate", "tax2_rate")
		})

		a.run(t, "creating moves no stock and changes no cost", func(t *testing.T, a *api) {
			p := a.get(path("/v1/products", flour)).want(200).Data()
			if p["cost"] != 21.75 {
				t.Fatalf("flour cost %v after an order, want 21.75", p["cost"])
			}
			n, err := a.st.Client.StockMovement.Query().Count(a.org.Ctx(policy.Test))
			if err != nil {
				t.Fatal(err)
			}
			b := a.post("/v1/purchase-orders", map[string]any{"supplier_id": sup, "lines": []any{line(flour, 3, "cost", 30)}}).want(201)
			m, _ := a.st.Client.StockMovement.Query().Count(a.org.Ctx(policy.Test))
			if m != n {
				t.Fatalf("movements %d -> %d", n, m)
			}
			if b.Data()["subtotal"] != 90.0 {
				t.Fatalf("subtotal %v", b.Data()["subtotal"])
			}
		})

		a.run(t, "money: 1000 lines of 0.01 and values that break floats", func(t *testing.T, a *api) {
			// 200 lines (the limit) of 0.1 × 0.1 at 12.5 % off: 200 × 0.00875 = 1.75 exactly.
			r := a.post("/v1/purchase-orders", map[string]any{"supplier_id": sup,
				"lines": lines(200, line(flour, 0.1, "cost", 0.1, "discount_rate", 12.5))}).want(201)
			if r.Data()["subtotal"] != 1.75 {
				t.Fatalf("subtotal %v, want 1.75", r.Data()["subtotal"])
			}
			// 3 at 0.1 and 3 at 0.335: 0.3 + 1.005 = 1.305 → 1.31 (half-up, once;
			// half-even would give 1.30, and rounding each line 1.30 too).
			r = a.post("/v1/purchase-orders", map[string]any{"supplier_id": sup,
				"lines": []any{line(flour, 3, "cost", 0.1), line(flour, 3, "cost", 0.335)}}).want(201)
			if r.Data()["subtotal"] != 1.31 {
				t.Fatalf("subtotal %v, want 1.31", r.Data()["subtotal"])
			}
			// Digit for digit: the largest decimal the bounds accept.
			r = a.post("/v1/purchase-orders", map[string]any{"supplier_id": sup,
				"lines": []any{line(flour, 0.000001, "cost", 12345678.123456)}}).want(201)
			l := r.Data()["lines"].([]any)[0].(map[string]any)
			if fmt.Sprint(l["cost"]) != "1.2345678123456e+07" || l["quantity"] != 0.000001 {
				t.Fatalf("line %v", l)
			}
		})

		a.run(t, "body rules name the line", func(t *testing.T, a *api) {
			cases := []struct {
				name  string
				body  map[string]any
				field string
			}{
				{"supplier_id is required", map[string]any{"lines": []any{line(flour, 1)}}, "supplier_id"},
				{"lines are required", map[string]any{"supplier_id": sup}, "lines"},
				{"at least one line", map[string]any{"supplier_id": sup, "lines": []any{}}, "lines"},
				{"at most 200 lines", map[string]any{"supplier_id": sup, "lines": lines(201, line(flour, 1))}, "lines"},
				{"quantity > 0", map[string]any{"supplier_id": sup, "lines": []any{line(flour, 1), line(flour, 1), line(flour, 1), line(flour, 0)}}, "lines[3].quantity"},
				{"quantity is required", map[string]any{"supplier_id": sup, "lines": []any{map[string]any{"product_id": flour}}}, "lines[0].quantity"},
				{"product_id is required", map[string]any{"supplier_id": sup, "lines": []any{map[string]any{"quantity": 1}}}, "lines[0].product_id"},
				{"an unknown product", map[string]any{"supplier_id": sup, "lines": []any{line(flour, 1), line(99999999, 1)}}, "lines[1].product_id"},
				{"cost >= 0", map[string]any{"supplier_id": sup, "lines": []any{line(flour, 1, "cost", -0.01)}}, "lines[0].cost"},
				{"discount_rate <= 100", map[string]any{"supplier_id": sup, "lines": []any{line(flour, 1, "discount_rate", 100.5)}}, "lines[0].discount_rate"},
				{"7 decimals", map[string]any{"supplier_id": sup, "lines": []any{line(flour, 0.0000001)}}, "lines[0].quantity"},
				{"lead_time >= 0", map[string]any{"supplier_id": sup, "lines": []any{line(flour, 1, "lead_time", -1)}}, "lines[0].lead_time"},
				{"a malformed expiration_date", map[string]any{"supplier_id": sup, "lines": []any{line(flour, 1, "expiration_date", "2027-02-30")}}, "lines[0].expiration_date"},
				{"supplier_partno at most 100", map[string]any{"supplier_id": sup, "lines": []any{line(flour, 1, "supplier_partno", strings.Repeat("p", 101))}}, "lines[0].supplier_partno"},
				{"an unknown line field", map[string]any{"supplier_id": sup, "lines": []any{line(flour, 1, "price", 1)}}, "lines[0].price"},
				{"a quantity beyond what is kept, in base units", map[string]any{"supplier_id": sup, "lines": []any{line(flour, 1), line(flour, 99999999999999)}}, "lines[1].quantity"},
				{"a subtotal beyond what is kept", map[string]any{"supplier_id": sup, "lines": []any{line(sugar, 250, "cost", 99999999999999)}}, "lines"},
				{"notes at most 2000", map[string]any{"supplier_id": sup, "notes": strings.Repeat("n", 2001), "lines": []any{line(flour, 1)}}, "notes"},
				{"supplier_reference at most 255", map[string]any{"supplier_id": sup, "supplier_reference": strings.Repeat("r", 256), "lines": []any{line(flour, 1)}}, "supplier_reference"},
				{"an unknown supplier", map[string]any{"supplier_id": 99999999, "lines": []any{line(flour, 1)}}, "supplier_id"},
				{"status is not writable", map[string]any{"supplier_id": sup, "status": "SENT", "lines": []any{line(flour, 1)}}, "status"},
			}
			before := len(a.get("/v1/purchase-orders?limit=200").List())
			for _, tc := range cases {
				a.run(t, tc.name, func(t *testing.T, a *api) {
					a.post("/v1/purchase-orders", tc.body).field(400, "VALIDATION_ERROR", tc.field)
				})
			}
			if after := len(a.get("/v1/purchase-orders?limit=200").List()); after != before {
				t.Fatalf("refused creates left orders: %d -> %d", before, after)
			}
		})

		a.run(t, "update: lines replaced whole, kept when not sent, other fields", func(t *testing.T, a *api) {
			po := a.post("/v1/purchase-orders", map[string]any{"supplier_id": sup, "lines": []any{line(flour, 2, "cost", 10), line(sugar, 1)}}).want(201)
			oldLines := po.Data()["lines"].([]any)
			r := a.patch(path("/v1/purchase-orders", po.ID()), map[string]any{"expected_date": "2026-12-24", "order_date": "2026-12-01",
				"notes": "rush", "supplier_reference": "REF-9"}).want(200)
			if diff := cmpDiff(oldLines, r.Data()["lines"]); diff != "" {
				t.Fatalf("lines changed although not sent:\n%s", diff)
			}
			for k, want := range map[string]any{"expected_date": "2026-12-24", "order_date": "2026-12-01", "notes": "rush", "supplier_reference": "REF-9", "subtotal": 20.0} {
				if r.Data()[k] != want {
					t.Errorf("%s = %v, want %v", k, r.Data()[k], want)
				}
			}
			r = a.patch(path("/v1/purchase-orders", po.ID()), map[string]any{"lines": []any{line(sugar, 4, "cost", 2.5)}}).want(200)
			ls := r.Data()["lines"].([]any)
			if len(ls) != 1 || ls[0].(map[string]any)["quantity"] != 4.0 || r.Data()["subtotal"] != 10.0 {
				t.Fatalf("replaced: %v subtotal %v", ls, r.Data()["subtotal"])
			}
			if ls[0].(map[string]any)["id"].(float64) <= oldLines[1].(map[string]any)["id"].(float64) {
				t.Fatalf("a replaced line keeps an old id: %v", ls)
			}
			if diff := cmpDiff(r.Data(), a.get(path("/v1/purchase-orders", po.ID())).want(200).Data()); diff != "" {
				t.Fatalf("update and read differ:\n%s", diff)
			}
			a.patch(path("/v1/purchase-orders", po.ID()), map[string]any{"lines": []any{}}).field(400, "VALIDATION_ERROR", "lines")
			a.patch(path("/v1/purchase-orders", po.ID()), map[string]any{"lines": []any{line(sugar, -1)}}).field(400, "VALIDATION_ERROR", "lines[0].quantity")
			if n := len(a.get(path("/v1/purchase-orders", po.ID())).want(200).Data()["lines"].([]any)); n != 1 {
				t.Fatalf("a refused update changed the lines: %d", n)
			}
			evs := a.events("purchase_order.")
			last := evs[len(evs)-1]
			if last.Type != "purchase_order.updated" || last.ResourceID != po.ID() {
				t.Fatalf("last event %s of %d", last.Type, last.ResourceID)
			}
		})

		a.run(t, "changing the supplier copies its address again", func(t *testing.T, a *api) {
			other := a.post("/v1/suppliers", map[string]any{"supplier_code": "SWEETPO", "company": "Sweet Co.",
				"address": map[string]any{"line1": "9 Cane St", "city": "Regina"}}).want(201).ID()
			po := a.post("/v1/purchase-orders", map[string]any{"supplier_id": sup, "lines": []any{line(flour, 1)}}).want(201)
			r := a.patch(path("/v1/purchase-orders", po.ID()), map[string]any{"supplier_id": other}).want(200).Data()
			want := map[string]any{"line1": "9 Cane St", "line2": nil, "city": "Regina", "state": nil, "postal_code": nil}
			if diff := cmpDiff(want, r["billing_address"]); diff != "" {
				t.Fatalf("billing (-want +got):\n%s", diff)
			}
			if diff := cmpDiff(want, r["shipping_address"]); diff != "" {
				t.Fatalf("shipping (-want +got):\n%s", diff)
			}
			if r["company"] != "Sweet Co." || r["supplier_id"] != float64(other) {
				t.Fatalf("%v", r)
			}
			a.patch(path("/v1/purchase-orders", po.ID()), map[string]any{"billing_address": want}).field(400, "VALIDATION_ERROR", "billing_address")
		})

		a.run(t, "status: the moves, edits only in OPEN or SENT, events", func(t *testing.T, a *api) {
			po := a.post("/v1/purchase-orders", map[string]any{"supplier_id": sup, "lines": []any{line(flour, 1)}}).want(201).ID()
			status := func(s string) *response {
				return a.post(path("/v1/purchase-orders", po)+"/status", map[string]any{"status": s})
			}
			status("SENT").want(200)
			a.patch(path("/v1/purchase-orders", po), map[string]any{"notes": "sent, still editable"}).want(200)
			status("OPEN").want(200)
			status("CLOSED").problem(409, "INVALID_STATE")
			status("RECEIVED").problem(409, "INVALID_STATE")
			status("CONFIRMED").want(200)
			a.patch(path("/v1/purchase-orders", po), map[string]any{"notes": "too late"}).problem(409, "INVALID_STATE")
			a.patch(path("/v1/purchase-orders", po), map[string]any{"lines": []any{line(flour, 2)}}).problem(409, "INVALID_STATE")
			status("OPEN").problem(409, "INVALID_STATE")
			status("BACK_ORDER").want(200)
			r := status("RECEIVED").want(200)
			if r.Data()["received_date"] == nil || len(r.Data()["lines"].([]any)) != 1 {
				t.Fatalf("received: %s", r.Body)
			}
			status("CANCELLED").problem(409, "INVALID_STATE")
			status("CLOSED").want(200)
			status("OPEN").problem(409, "INVALID_STATE")
			status("SHIPPED").field(400, "VALIDATION_ERROR", "status")
			var got []string
			for _, e := range a.events("purchase_order.") {
				if e.ResourceID == po {
					got = append(got, e.Type)
				}
			}
			want := []string{"purchase_order.created", "purchase_order.updated", "purchase_order.updated", "purchase_order.updated",
				"purchase_order.updated", "purchase_order.updated", "purchase_order.received", "purchase_order.closed"}
			if !slices.Equal(got, want) {
				t.Fatalf("events %v, want %v", got, want)
			}
			c := a.post("/v1/purchase-orders", map[string]any{"supplier_id": sup, "lines": []any{line(flour, 1)}}).want(201).ID()
			a.post(path("/v1/purchase-orders", c)+"/status", map[string]any{"status": "CANCELLED"}).want(200)
			evs := a.events("purchase_order.cancelled")
			if len(evs) != 1 || evs[0].ResourceID != c {
				t.Fatalf("cancelled events %v", types(evs))
			}
		})

		a.run(t, "lists: filters, sorts, search, lines null", func(t *testing.T, a *api) {
			rows := a.get(fmt.Sprintf("/v1/purchase-orders?supplier_id=%d&order_date_from=2026-11-20&order_date_to=2026-11-20", sup)).want(200).List()
			if len(rows) != 1 || rows[0]["id"] != float64(id) || rows[0]["lines"] != nil || rows[0]["subtotal"] != 0.03 {
				t.Fatalf("filtered %v", rows)
			}
			// Of this supplier: the seeded orders are dated from the day seeded.
			if n := len(a.get(fmt.Sprintf("/v1/purchase-orders?supplier_id=%d&order_date_from=2026-11-21", sup)).want(200).List()); n != 1 {
				t.Fatalf("order_date_from is inclusive and excludes earlier: %d rows", n) // the one of 2026-12-01
			}
			a.get("/v1/purchase-orders?order_date_to=2026-13-01").field(400, "VALIDATION_ERROR", "order_date_to")
			if rows := a.get("/v1/purchase-orders?search=SO-77").want(200).List(); len(rows) != 1 || rows[0]["id"] != float64(id) {
				t.Fatalf("search by reference: %v", rows)
			}
			no := int(d["purchase_order_no"].(float64))
			if rows := a.get(fmt.Sprintf("/v1/purchase-orders?search=%d", no)).want(200).List(); len(rows) < 1 || !slices.ContainsFunc(rows, func(r map[string]any) bool { return r["id"] == float64(id) }) {
				t.Fatalf("search by number: %v", rows)
			}
			nos := a.get("/v1/purchase-orders?sort=purchase_order_no:desc&limit=200").want(200).List()
			for i := 1; i < len(nos); i++ {
				if nos[i-1]["purchase_order_no"].(float64) <= nos[i]["purchase_order_no"].(float64) {
					t.Fatalf("not sorted by number desc")
				}
			}
			for _, s := range []string{"created_at", "expected_date", "id", "order_date", "purchase_order_no", "status", "updated_at"} {
				a.get("/v1/purchase-orders?sort=" + s + ":desc").want(200)
			}
			a.get("/v1/purchase-orders?sort=subtotal").field(400, "VALIDATION_ERROR", "sort")
			if rows := a.get(fmt.Sprintf("/v1/purchase-orders?supplier_id=%d&status=CLOSED&status=CANCELLED", sup)).want(200).List(); len(rows) != 2 {
				t.Fatalf("status filter: %d rows", len(rows))
			}
			a.get("/v1/purchase-orders?status=SHIPPED").field(400, "VALIDATION_ERROR", "status")
		})

		a.run(t, "costs are redacted, lines included", func(t *testing.T, a *api) {
			key, _ := a.newKey(policy.Test, "purchasing:read,purchasing:write")
			r := a.do("GET", path("/v1/purchase-orders", id), key, nil).want(200).Data()
			for _, k := range []string{"subtotal", "tax1", "tax2", "tax1_rate", "tax2_rate"} {
				if r[k] != nil {
					t.Errorf("%s = %v without cost:read", k, r[k])
				}
			}
			for _, l := range r["lines"].([]any) {
				if l.(map[string]any)["cost"] != nil || l.(map[string]any)["discount_rate"] != nil {
					t.Fatalf("line costs shown: %v", l)
				}
			}
			w := a.do("POST", "/v1/purchase-orders", key, map[string]any{"supplier_id": sup, "lines": []any{line(flour, 1, "cost", 5)}}).want(201).Data()
			if w["subtotal"] != nil || w["lines"].([]any)[0].(map[string]any)["cost"] != nil {
				t.Fatalf("a write answers costs without cost:read: %v", w)
			}
			ro, _ := a.newKey(policy.Test, "purchasing:read")
			a.do("POST", "/v1/purchase-orders", ro, map[string]any{"supplier_id": sup, "lines": []any{line(flour, 1)}}).problem(403, "INSUFFICIENT_SCOPE")
		})

		a.run(t, "another account's order and supplier are unreachable", func(t *testing.T, a *api) {
			other := dbtest.NewOrg(t, a.st, "")
			key := other.Key(t, policy.Live, "all")
			a.do("GET", path("/v1/purchase-orders", id), key, nil).problem(404, "NOT_FOUND")
			a.do("PATCH", path("/v1/purchase-orders", id), key, map[string]any{"notes": "x"}).problem(404, "NOT_FOUND")
			a.do("PATCH", path("/v1/purchase-orders", id), key, map[string]any{"lines": []any{line(flour, 1)}}).problem(404, "NOT_FOUND")
			a.do("POST", path("/v1/purchase-orders", id)+"/status", key, map[string]any{"status": "SENT"}).problem(404, "NOT_FOUND")
			a.do("POST", "/v1/purchase-orders", key, map[string]any{"supplier_id": sup, "lines": []any{line(1, 1)}}).field(400, "VALIDATION_ERROR", "supplier_id")
		})
	})
}

// Spec "Purchase orders" create rules: 409 SUPPLIER_BLOCKED when the account
// blocks unapproved suppliers and the supplier is suspended or rejected.
func TestPurchaseOrderSupplierBlocked(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		a = seeded(t, a)
		flour := a.productID("RM-FLOUR")
		ctx := a.org.Ctx(policy.Test)
		app := policy.App(context.Background(), a.org.Test.ID, policy.Test)
		ids := map[supplier.ApprovalStatus]int{}
		for _, s := range []supplier.ApprovalStatus{supplier.ApprovalStatusPENDING, supplier.ApprovalStatusAPPROVED, supplier.ApprovalStatusSUSPENDED, supplier.ApprovalStatusREJECTED} {
			id := a.supplierFor("BLK-" + string(s))
			if s != supplier.ApprovalStatusPENDING {
				tx, err := a.st.Client.Tx(app)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := purchasing.SetApproval(app, tx, id, purchasing.Approval{Status: s}); err != nil {
					t.Fatal(err)
				}
				if err := tx.Commit(); err != nil {
					t.Fatal(err)
				}
			}
			ids[s] = id
		}
		create := func(s supplier.ApprovalStatus) *response {
			return a.post("/v1/purchase-orders", map[string]any{"supplier_id": ids[s], "lines": []any{line(flour, 1)}})
		}
		for s := range ids {
			create(s).want(201) // not blocked until the organization says so
		}
		if err := a.st.Client.Organization.Update().Where(organization.ID(a.org.Org.ID)).SetBlockUnapprovedSuppliers(true).Exec(policy.System(ctx)); err != nil {
			t.Fatal(err)
		}
		create(supplier.ApprovalStatusSUSPENDED).field(409, "SUPPLIER_BLOCKED", "supplier_id")
		create(supplier.ApprovalStatusREJECTED).field(409, "SUPPLIER_BLOCKED", "supplier_id")
		create(supplier.ApprovalStatusPENDING).want(201)
		po := create(supplier.ApprovalStatusAPPROVED).want(201).ID()
		a.patch(path("/v1/purchase-orders", po), map[string]any{"supplier_id": ids[supplier.ApprovalStatusREJECTED]}).field(409, "SUPPLIER_BLOCKED", "supplier_id")
		n, err := a.st.Client.PurchaseOrder.Query().Where(purchaseorder.SupplierIDIn(ids[supplier.ApprovalStatusSUSPENDED], ids[supplier.ApprovalStatusREJECTED])).Count(ctx)
		if err != nil || n != 2 {
			t.Fatalf("orders of blocked suppliers: %d, %v (want the two made before blocking)", n, err)
		}
	})
}

// The specification's Common rules "Idempotency-Key" and docs/api-behaviour.md,
// "Idempotency keys": replays, reuse with
// another body, the key's bounds and scope, and a failed first attempt.
func TestPurchaseOrderIdempotency(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		a = seeded(t, a)
		flour := a.productID("RM-FLOUR")
		sup := a.supplierFor("IDEM")
		body := map[string]any{"supplier_id": sup, "lines": []any{line(flour, 2, "cost", 3)}}
		send := func(key string, body any) *response {
			return a.do("POST", "/v1/purchase-orders", a.key, body, "Idempotency-Key", key)
		}
		first := send("order-1", body).want(201)
		again := send("order-1", body).want(200)
		if string(first.Body) != string(again.Body) {
			t.Fatalf("replay differs:\n%s\n%s", first.Body, again.Body)
		}
		// The same body spelled differently is the same request.
		send("order-1", `{"lines":[{"cost":3,"quantity":2,"product_id":`+fmt.Sprint(flour)+`}],  "supplier_id":`+fmt.Sprint(sup)+`}`).want(200)
		send("order-1", map[string]any{"supplier_id": sup, "lines": []any{line(flour, 3)}}).problem(409, "IDEMPOTENCY_KEY_REUSED")
		send(strings.Repeat("k", 201), body).field(400, "VALIDATION_ERROR", "Idempotency-Key")
		send(strings.Repeat("k", 200), body).want(201)
		// A failed first attempt leaves nothing behind.
		send("order-2", map[string]any{"supplier_id": sup, "lines": []any{line(99999999, 1)}}).field(400, "VALIDATION_ERROR", "lines[0].product_id")
		send("order-2", body).want(201)
		// Scoped per account: in the live account "order-1" is a new key (and
		// the test account's supplier is not the live account's).
		other := a.org.Key(t, policy.Live, "all")
		a.do("POST", "/v1/purchase-orders", other, body, "Idempotency-Key", "order-1").field(400, "VALIDATION_ERROR", "supplier_id")
		n, err := a.st.Client.PurchaseOrder.Query().Where(purchaseorder.SupplierID(sup)).Count(a.org.Ctx(policy.Test))
		if err != nil || n != 3 {
			t.Fatalf("orders %d, %v; want 3", n, err)
		}
		// Updates take no key.
		a.do("PATCH", path("/v1/purchase-orders", first.ID()), a.key, map[string]any{"notes": "x"}, "Idempotency-Key", "order-9").want(200)
	})
}

// docs/api-behaviour.md, "Idempotency keys": on PostgreSQL, 20 concurrent creates with one key make
// one order; every other caller gets the replay or 409 IDEMPOTENCY_KEY_IN_USE.
func TestPurchaseOrderIdempotencyConcurrent(t *testing.T) {
	concurrentKey(t, "/v1/purchase-orders", func(a *api, sup, flour int) map[string]any {
		return map[string]any{"supplier_id": sup, "lines": lines(50, line(flour, 1, "cost", 1))}
	}, func(a *api, sup int) int {
		n, err := a.st.Client.PurchaseOrder.Query().Where(purchaseorder.SupplierID(sup)).Count(a.org.Ctx(policy.Test))
		if err != nil {
			a.t.Fatal(err)
		}
		return n
	})
}

// concurrentKey sends 20 creates with one Idempotency-Key at once and checks
// that exactly one record exists and every answer is 201, 200 or 409
// IDEMPOTENCY_KEY_IN_USE.
func concurrentKey(t *testing.T, collection string, body func(a *api, sup, flour int) map[string]any, count func(a *api, sup int) int) {
	run(t, func(t *testing.T, a *api) {
		if a.st.Dialect != "postgres" {
			t.Skip("concurrency is SQLite's single writer; the claim is tested on PostgreSQL")
		}
		a = seeded(t, a)
		sup := a.supplierFor("RACE")
		b := body(a, sup, a.productID("RM-FLOUR"))
		var wg sync.WaitGroup
		res := make([]*response, 20)
		for i := range res {
			wg.Add(1)
			go func() {
				defer wg.Done()
				res[i] = a.do("POST", collection, a.key, b, "Idempotency-Key", "race-1")
			}()
		}
		wg.Wait()
		created := 0
		for _, r := range res {
			switch r.Status {
			case http.StatusCreated:
				created++
			case http.StatusOK:
			case http.StatusConflict:
				if c := r.JSON()["code"]; c != "IDEMPOTENCY_KEY_IN_USE" {
					t.Fatalf("409 %v: %s", c, r.Body)
				}
			default:
				t.Fatalf("status %d: %s", r.Status, r.Body)
			}
		}
		if created != 1 {
			t.Fatalf("%d answers were 201, want 1", created)
		}
		if n := count(a, sup); n != 1 {
			t.Fatalf("%d records, want 1", n)
		}
		a.do("POST", collection, a.key, b, "Idempotency-Key", "race-1").want(200)
	})
}
