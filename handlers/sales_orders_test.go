package handlers_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

// taxRateID is the id of the seeded tax rate with the given code.
func (a *api) taxRateID(code string) int {
	a.t.Helper()
	for _, r := range a.get("/v1/tax-rates?limit=200").want(200).List() {
		if r["code"] == code {
			return int(r["id"].(float64))
		}
	}
	a.t.Fatalf("no tax rate %s", code)
	return 0
}

// customerFor creates a customer with an address and the QC tax rate.
func (a *api) customerFor(code string) int {
	a.t.Helper()
	return a.post("/v1/customers", map[string]any{"customer_code": code, "company": code + " Foods", "tax_rate_id": a.taxRateID("QC"),
		"address": map[string]any{"line1": "5 Market Square", "city": "Québec", "state": "QC", "postal_code": "G1K 3R5"}}).want(201).ID()
}

// sold is a sales order line body.
func sold(product int, qty any, more ...any) map[string]any {
	l := map[string]any{"product_id": product, "order_qty": qty}
	for i := 0; i+1 < len(more); i += 2 {
		l[more[i].(string)] = more[i+1]
	}
	return l
}

// The specification's "Sales order", "Sales orders" and docs/api-behaviour.md,
// "Resources" (Sales orders: update, cancel, status change): creation, unit conversion, money, keep-by-id line
// updates, the state machine, lists, redaction and isolation.
func TestSalesOrders(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		a = seeded(t, a)
		flour, sugar, butter := a.productID("RM-FLOUR"), a.productID("RM-SUGAR"), a.productID("RM-BUTTER")
		cust := a.customerFor("EPI")
		addr := map[string]any{"line1": "5 Market Square", "line2": nil, "city": "Québec", "state": "QC", "postal_code": "G1K 3R5"}
		created := a.post("/v1/sales-orders", map[string]any{"customer_id": cust, "order_date": "2026-11-20", "expected_date": "2026-11-27",
			"customer_purchase_order_no": "EPI-PO-88", "tracking_number": "1Z999",
			"lines": []any{
				sold(sugar, 0.1, "price", 0.1),
				sold(flour, 2, "uom_type", "INVENTORY_UNIT", "price", 0.1, "tax1", true),
				sold(butter, 3, "uom_type", "PACKAGING_SIZE", "price", 0.1, "discount_rate", 12.5, "notes", "keep cold"),
				sold(butter, 1, "uom_type", "INVENTORY_UNIT"),
			}}).want(201)
		id := created.ID()
		d := created.Data()

		a.run(t, "create: OPEN, the customer's name, address and tax rates, base units, exact subtotal", func(t *testing.T, a *api) {
			// 0.01 + 0.2 + 0.2625 + 0 = 0.4725 → 0.47, rounded once.
			for k, want := range map[string]any{"status": "OPEN", "customer_id": float64(cust), "company": "EPI Foods",
				"billing_address": addr, "shipping_address": addr, "order_date": "2026-11-20", "expected_date": "2026-11-27",
				"ship_date": nil, "customer_purchase_order_no": "EPI-PO-88", "tracking_number": "1Z999",
				"subtotal": 0.47, "tax1": true, "tax2": false, "tax1_rate": 5.0, "tax2_rate": 9.975} {
				if diff := cmpDiff(want, d[k]); diff != "" {
					t.Errorf("%s (-want +got):\n%s", k, diff)
				}
			}
			ls := d["lines"].([]any)
			if len(ls) != 4 {
				t.Fatalf("lines %v", ls)
			}
			l := func(i int) map[string]any { return ls[i].(map[string]any) }
			want := map[string]any{"id": l(2)["id"], "product_id": float64(butter), "product_code": "RM-BUTTER",
				"product_name": "Unsalted butter (case of 36 × 454 g)", "order_qty": 3.0, "order_qty_base": 1362.0,
				"uom_type": "PACKAGING_SIZE", "price": 0.1, "discount_rate": 12.5, "notes": "keep cold", "tax1": false, "tax2": false,
				"shipped_qty_base": 0.0, "cancelled_qty_base": nil}
			if diff := cmpDiff(want, l(2)); diff != "" {
				t.Fatalf("line (-want +got):\n%s", diff)
			}
			// BASE_UOM is the base unit: 0.1 g; a bag of flour is 25,000 g; a
			// case of butter 36 × 454 g.
			for i, base := range []float64{0.1, 50000, 1362, 16344} {
				if l(i)["order_qty_base"] != base {
					t.Errorf("line %d order_qty_base %v, want %v", i, l(i)["order_qty_base"], base)
				}
			}
			if l(0)["uom_type"] != "BASE_UOM" || l(3)["price"] != nil {
				t.Errorf("defaults: %v, %v", l(0), l(3))
			}
			if diff := cmpDiff(d, a.get(path("/v1/sales-orders", id)).want(200).Data()); diff != "" {
				t.Fatalf("create and read differ:\n%s", diff)
			}
			evs := a.events("sales_order.")
			a.wantEvent(evs[len(evs)-1], "sales_order.created", id, created, "lines", "subtotal", "tax1", "tax2", "tax1_rate", "tax2_rate")
		})

		a.run(t, "a billing address given is the shipping address too; one given is kept", func(t *testing.T, a *api) {
			bill := map[string]any{"line1": "PO Box 9", "line2": nil, "city": "Lévis", "state": "QC", "postal_code": nil}
			ship := map[string]any{"line1": "Dock 4", "line2": "Door B", "city": "Lévis", "state": nil, "postal_code": nil}
			r := a.post("/v1/sales-orders", map[string]any{"customer_id": cust, "billing_address": bill, "lines": []any{sold(sugar, 1)}}).want(201).Data()
			if diff := cmpDiff(bill, r["shipping_address"]); diff != "" {
				t.Fatalf("shipping (-want +got):\n%s", diff)
			}
			r = a.post("/v1/sales-orders", map[string]any{"customer_id": cust, "billing_address": bill, "shipping_address": ship, "lines": []any{sold(sugar, 1)}}).want(201).Data()
			if diff := cmpDiff(ship, r["shipping_address"]); diff != "" {
				t.Fatalf("shipping (-want +got):\n%s", diff)
			}
			if diff := cmpDiff(bill, r["billing_address"]); diff != "" {
				t.Fatalf("billing (-want +got):\n%s", diff)
			}
		})

		a.run(t, "body rules name the field", func(t *testing.T, a *api) {
			ok := sold(sugar, 1)
			cases := []struct {
				name  string
				body  map[string]any
				field string
			}{
				{"customer_id is required", map[string]any{"lines": []any{ok}}, "customer_id"},
				{"an unknown customer", map[string]any{"customer_id": 99999999, "lines": []any{ok}}, "customer_id"},
				{"lines are required", map[string]any{"customer_id": cust}, "lines"},
				{"at least one line", map[string]any{"customer_id": cust, "lines": []any{}}, "lines"},
				{"at most 200 lines", map[string]any{"customer_id": cust, "lines": lines(201, ok)}, "lines"},
				{"order_qty > 0", map[string]any{"customer_id": cust, "lines": []any{ok, sold(sugar, 0)}}, "lines[1].order_qty"},
				{"order_qty is required", map[string]any{"customer_id": cust, "lines": []any{map[string]any{"product_id": sugar}}}, "lines[0].order_qty"},
				{"an unknown uom_type", map[string]any{"customer_id": cust, "lines": []any{sold(sugar, 1, "uom_type", "CASE")}}, "lines[0].uom_type"},
				{"price >= 0", map[string]any{"customer_id": cust, "lines": []any{sold(sugar, 1, "price", -1)}}, "lines[0].price"},
				{"discount_rate <= 100", map[string]any{"customer_id": cust, "lines": []any{sold(sugar, 1, "discount_rate", 101)}}, "lines[0].discount_rate"},
				{"an unknown product", map[string]any{"customer_id": cust, "lines": []any{sold(99999999, 1)}}, "lines[0].product_id"},
				{"a line id on create", map[string]any{"customer_id": cust, "lines": []any{ok, sold(sugar, 1, "id", 1)}}, "lines[1].id"},
				{"notes at most 2000", map[string]any{"customer_id": cust, "lines": []any{sold(sugar, 1, "notes", strings.Repeat("n", 2001))}}, "lines[0].notes"},
				{"customer_purchase_order_no at most 100", map[string]any{"customer_id": cust, "customer_purchase_order_no": strings.Repeat("p", 101), "lines": []any{ok}}, "customer_purchase_order_no"},
				{"tracking_number at most 100", map[string]any{"customer_id": cust, "tracking_number": strings.Repeat("t", 101), "lines": []any{ok}}, "tracking_number"},
				{"an address part at most 100", map[string]any{"customer_id": cust, "billing_address": map[string]any{"city": strings.Repeat("c", 101)}, "lines": []any{ok}}, "billing_address.city"},
				{"status is not writable", map[string]any{"customer_id": cust, "status": "SHIPPED", "lines": []any{ok}}, "status"},
				{"a quantity beyond what is kept, in base units", map[string]any{"customer_id": cust, "lines": []any{sold(flour, 99999999999999, "uom_type", "INVENTORY_UNIT")}}, "lines[0].order_qty"},
			}
			before := len(a.get("/v1/sales-orders?limit=200").List())
			for _, tc := range cases {
				a.run(t, tc.name, func(t *testing.T, a *api) {
					a.post("/v1/sales-orders", tc.body).field(400, "VALIDATION_ERROR", tc.field)
				})
			}
			if after := len(a.get("/v1/sales-orders?limit=200").List()); after != before {
				t.Fatalf("refused creates left orders: %d -> %d", before, after)
			}
		})

		a.run(t, "update: a line with id is kept, one without added, the others removed", func(t *testing.T, a *api) {
			so := a.post("/v1/sales-orders", map[string]any{"customer_id": cust, "lines": []any{sold(sugar, 1, "price", 2), sold(flour, 1, "price", 3)}}).want(201)
			old := so.Data()["lines"].([]any)
			keep, drop := old[0].(map[string]any)["id"], old[1].(map[string]any)["id"]
			r := a.patch(path("/v1/sales-orders", so.ID()), map[string]any{"lines": []any{
				sold(sugar, 5, "id", keep, "price", 2, "uom_type", "INVENTORY_UNIT"),
				sold(butter, 1, "price", 10),
			}, "tracking_number": "NEW-1", "expected_date": "2026-12-24", "customer_purchase_order_no": "EPI-PO-89"}).want(200).Data()
			ls := r["lines"].([]any)
			if len(ls) != 2 {
				t.Fatalf("lines %v", ls)
			}
			first, second := ls[0].(map[string]any), ls[1].(map[string]any)
			if first["id"] != keep || first["order_qty"] != 5.0 || first["order_qty_base"] != 5000.0 || first["uom_type"] != "INVENTORY_UNIT" {
				t.Fatalf("kept line %v", first)
			}
			if second["id"] == drop || second["id"].(float64) <= drop.(float64) || second["product_id"] != float64(butter) {
				t.Fatalf("added line %v", second)
			}
			if r["subtotal"] != 20.0 || r["tracking_number"] != "NEW-1" || r["expected_date"] != "2026-12-24" || r["customer_purchase_order_no"] != "EPI-PO-89" {
				t.Fatalf("order %v", r)
			}
			if diff := cmpDiff(r, a.get(path("/v1/sales-orders", so.ID())).want(200).Data()); diff != "" {
				t.Fatalf("update and read differ:\n%s", diff)
			}
			otherLine := d["lines"].([]any)[0].(map[string]any)["id"]
			a.patch(path("/v1/sales-orders", so.ID()), map[string]any{"lines": []any{sold(sugar, 1, "id", otherLine)}}).field(400, "VALIDATION_ERROR", "lines[0].id")
			a.patch(path("/v1/sales-orders", so.ID()), map[string]any{"lines": []any{sold(sugar, 1, "id", keep), sold(sugar, 2, "id", keep)}}).field(400, "VALIDATION_ERROR", "lines[1].id")
			a.patch(path("/v1/sales-orders", so.ID()), map[string]any{"customer_id": cust}).field(400, "VALIDATION_ERROR", "customer_id")
			a.patch(path("/v1/sales-orders", so.ID()), map[string]any{"lines": []any{}}).field(400, "VALIDATION_ERROR", "lines")
			if diff := cmpDiff(r, a.get(path("/v1/sales-orders", so.ID())).want(200).Data()); diff != "" {
				t.Fatalf("refused updates changed the order:\n%s", diff)
			}
			// Addresses are written whole; omitted they stay.
			na := map[string]any{"line1": "9 Rue Neuve", "line2": nil, "city": "Lévis", "state": nil, "postal_code": nil}
			r = a.patch(path("/v1/sales-orders", so.ID()), map[string]any{"shipping_address": na}).want(200).Data()
			if diff := cmpDiff(na, r["shipping_address"]); diff != "" || cmpDiff(addr, r["billing_address"]) != "" {
				t.Fatalf("addresses %v %v", r["billing_address"], r["shipping_address"])
			}
			if len(r["lines"].([]any)) != 2 {
				t.Fatalf("lines not sent were changed: %v", r["lines"])
			}
		})

		a.run(t, "status: the moves, edits in OPEN or BACK_ORDER, cancel, events", func(t *testing.T, a *api) {
			so := a.post("/v1/sales-orders", map[string]any{"customer_id": cust, "lines": []any{sold(sugar, 2, "uom_type", "INVENTORY_UNIT")}}).want(201).ID()
			status := func(s string) *response {
				return a.post(path("/v1/sales-orders", so)+"/status", map[string]any{"status": s})
			}
			status("PREPARING").want(200)
			a.patch(path("/v1/sales-orders", so), map[string]any{"tracking_number": "x"}).problem(409, "INVALID_STATE")
			status("OPEN").want(200)
			status("CLOSE").problem(409, "INVALID_STATE")
			status("SHIPPED").problem(409, "INVALID_STATE")
			status("CANCELLED").problem(409, "INVALID_STATE")
			status("OPEN").problem(409, "INVALID_STATE")
			status("CLOSED").field(400, "VALIDATION_ERROR", "status")
			status("BACK_ORDER").want(200)
			a.patch(path("/v1/sales-orders", so), map[string]any{"tracking_number": "editable in BACK_ORDER"}).want(200)
			status("OPEN").problem(409, "INVALID_STATE")
			status("PREPARING").problem(409, "INVALID_STATE")
			r := a.post(path("/v1/sales-orders", so)+"/cancel", nil).want(200).Data()
			if r["status"] != "CANCELLED" {
				t.Fatalf("cancel: %v", r)
			}
			if l := r["lines"].([]any)[0].(map[string]any); l["cancelled_qty_base"] != 2000.0 || l["shipped_qty_base"] != 0.0 {
				t.Fatalf("written off: %v", l)
			}
			a.post(path("/v1/sales-orders", so)+"/cancel", nil).problem(409, "INVALID_STATE")
			a.patch(path("/v1/sales-orders", so), map[string]any{"tracking_number": "too late"}).problem(409, "INVALID_STATE")
			var got []string
			for _, e := range a.events("sales_order.") {
				if e.ResourceID == so {
					got = append(got, e.Type)
				}
			}
			want := []string{"sales_order.created", "sales_order.updated", "sales_order.updated", "sales_order.updated", "sales_order.updated", "sales_order.cancelled"}
			if !slices.Equal(got, want) {
				t.Fatalf("events %v, want %v", got, want)
			}
			a.post(path("/v1/sales-orders", 99999999)+"/cancel", nil).problem(404, "NOT_FOUND")
		})

		a.run(t, "lists: filters, sorts, search, lines null", func(t *testing.T, a *api) {
			rows := a.get(fmt.Sprintf("/v1/sales-orders?customer_id=%d&order_date_from=2026-11-20&order_date_to=2026-11-20", cust)).want(200).List()
			if len(rows) != 1 || rows[0]["id"] != float64(id) || rows[0]["lines"] != nil || rows[0]["subtotal"] != 0.47 {
				t.Fatalf("filtered %v", rows)
			}
			if rows := a.get("/v1/sales-orders?search=EPI-PO-88").want(200).List(); len(rows) != 1 || rows[0]["id"] != float64(id) {
				t.Fatalf("search by the customer's number: %v", rows)
			}
			if rows := a.get(fmt.Sprintf("/v1/sales-orders?status=CANCELLED&customer_id=%d", cust)).want(200).List(); len(rows) != 1 {
				t.Fatalf("status filter: %v", rows)
			}
			if rows := a.get(fmt.Sprintf("/v1/sales-orders?status=CANCELLED&status=OPEN&customer_id=%d", cust)).want(200).List(); len(rows) < 3 {
				t.Fatalf("repeated status filter: %d rows", len(rows))
			}
			for _, s := range []string{"created_at", "expected_date", "id", "order_date", "sales_order_no", "status", "updated_at"} {
				a.get("/v1/sales-orders?sort=" + s + ":desc").want(200)
			}
			a.get("/v1/sales-orders?sort=subtotal").field(400, "VALIDATION_ERROR", "sort")
			a.get("/v1/sales-orders?status=CLOSED").field(400, "VALIDATION_ERROR", "status")
		})

		a.run(t, "costs are redacted", func(t *testing.T, a *api) {
			key, _ := a.newKey(policy.Test, "sales:read,sales:write")
			r := a.do("GET", path("/v1/sales-orders", id), key, nil).want(200).Data()
			for _, k := range []string{"subtotal", "tax1", "tax2", "tax1_rate", "tax2_rate"} {
				if r[k] != nil {
					t.Errorf("%s = %v without cost:read", k, r[k])
				}
			}
			for _, l := range r["lines"].([]any) {
				l := l.(map[string]any)
				if l["price"] != nil || l["discount_rate"] != nil || l["tax1"] != nil || l["tax2"] != nil || l["order_qty_base"] == nil {
					t.Fatalf("line %v", l)
				}
			}
			ro, _ := a.newKey(policy.Test, "sales:read")
			a.do("POST", "/v1/sales-orders", ro, map[string]any{"customer_id": cust, "lines": []any{sold(sugar, 1)}}).problem(403, "INSUFFICIENT_SCOPE")
		})

		a.run(t, "a customer with orders is in use", func(t *testing.T, a *api) {
			a.del(path("/v1/customers", cust)).problem(409, "IN_USE")
		})

		a.run(t, "another account's order and customer are unreachable", func(t *testing.T, a *api) {
			other := dbtest.NewOrg(t, a.st, "")
			key := other.Key(t, policy.Live, "all")
			a.do("GET", path("/v1/sales-orders", id), key, nil).problem(404, "NOT_FOUND")
			a.do("PATCH", path("/v1/sales-orders", id), key, map[string]any{"tracking_number": "x"}).problem(404, "NOT_FOUND")
			keep := d["lines"].([]any)[0].(map[string]any)["id"]
			a.do("PATCH", path("/v1/sales-orders", id), key, map[string]any{"lines": []any{sold(sugar, 1, "id", keep)}}).problem(404, "NOT_FOUND")
			a.do("POST", path("/v1/sales-orders", id)+"/cancel", key, nil).problem(404, "NOT_FOUND")
			a.do("POST", "/v1/sales-orders", key, map[string]any{"customer_id": cust, "lines": []any{sold(sugar, 1)}}).field(400, "VALIDATION_ERROR", "customer_id")
		})
	})
}
