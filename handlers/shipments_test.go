package handlers_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"testing"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/invoice"
	"larder.dev/larder/ent/productlot"
	"larder.dev/larder/ent/shipment"
	"larder.dev/larder/ent/shipmentline"
	"larder.dev/larder/ent/stockmovement"
	"larder.dev/larder/internal/restapi"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

// lot creates a lot of product through the API and returns its id.
func (a *api) lot(product int, number string, quantity float64, expires any) int {
	a.t.Helper()
	return a.post("/v1/product-lots", map[string]any{"product_id": product, "lot_number": number,
		"quantity_base": quantity, "expiration_date": expires}).want(201).ID()
}

// lotQuantity is a lot's quantity_base as the API shows it.
func (a *api) lotQuantity(id int) any {
	a.t.Helper()
	return a.get(path("/v1/product-lots", id)).want(200).Data()["quantity_base"]
}

// shipmentMovements are the SHIPPING movements of a shipment, lot → quantity.
func (a *api) shipmentMovements(id int) map[int]float64 {
	a.t.Helper()
	ms, err := a.st.Client.StockMovement.Query().
		Where(stockmovement.DocumentType("shipment"), stockmovement.DocumentID(id)).
		All(a.org.Ctx(policy.Test))
	if err != nil {
		a.t.Fatal(err)
	}
	out := map[int]float64{}
	for _, m := range ms {
		if m.Type != stockmovement.TypeSHIPPING {
			a.t.Fatalf("movement %+v of a shipment", m)
		}
		out[m.LotID] += m.QuantityBase.InexactFloat64()
	}
	return out
}

// shipmentAsRead is the shipment id as a read of the database shows it (the
// API has no retrieval of a shipment): a create answers with the lines it
// wrote, and this is what they must equal.
func (a *api) shipmentAsRead(id int) map[string]any {
	a.t.Helper()
	e, err := a.st.Client.Shipment.Query().Where(shipment.ID(id)).
		WithLines(func(q *ent.ShipmentLineQuery) { q.Order(ent.Asc(shipmentline.FieldID)) }).
		Only(a.org.Ctx(policy.Test))
	if err != nil {
		a.t.Fatal(err)
	}
	v := restapi.Shipment(e)
	b, err := v.MarshalJSON()
	if err != nil {
		a.t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		a.t.Fatal(err)
	}
	return out
}

// shipLine is a shipment line body.
func shipLine(orderLine any, quantity float64, more ...any) map[string]any {
	l := map[string]any{"sales_order_line_id": orderLine, "quantity_base": quantity}
	for i := 0; i+1 < len(more); i += 2 {
		l[more[i].(string)] = more[i+1]
	}
	return l
}

// docs/api-behaviour.md, "Resources" (Shipments) and "Lot picking": an order ships in
// two partial shipments, each with its invoice, BACK_ORDER then SHIPPED; the
// lots lose what the SHIPPING movements say; refusals write nothing.
func TestShipments(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		a = seeded(t, a)
		almond, sugar, flour := a.productID("RM-ALMOND"), a.productID("RM-SUGAR"), a.productID("RM-FLOUR")
		later := a.lot(almond, "AL-LATER", 3000, "2027-03-01T00:00:00Z")
		first := a.lot(almond, "AL-FIRST", 2000, "2027-01-15T00:00:00Z")
		never := a.lot(almond, "AL-NONE", 5000, nil)
		expired := a.lot(almond, "AL-OLD", 9999, "2026-01-01T00:00:00Z")
		held := a.lot(almond, "AL-HELD", 9999, "2027-02-01T00:00:00Z")
		ctx := a.org.Ctx(policy.Test)
		if err := ent.RunInTx(ctx, a.st.Client, func(tx *ent.Tx) error {
			return tx.ProductLot.UpdateOneID(held).SetQcStatus(productlot.QcStatusQUARANTINE).Exec(ctx)
		}); err != nil {
			t.Fatal(err)
		}
		sugarLot := a.lotOf(sugar, "SU-2611-05")
		sugarID := int(sugarLot["id"].(float64))
		sugarBefore := sugarLot["quantity_base"].(float64)
		cust := a.customerFor("SHIPTO")
		so := a.post("/v1/sales-orders", map[string]any{"customer_id": cust, "order_date": "2026-11-20", "lines": []any{
			sold(almond, 6, "uom_type", "INVENTORY_UNIT", "price", 14.95, "tax1", true),
			sold(sugar, 500, "price", 0.002, "discount_rate", 12.5),
		}}).want(201)
		orderID := so.ID()
		ls := so.Data()["lines"].([]any)
		line1, line2 := ls[0].(map[string]any)["id"], ls[1].(map[string]any)["id"]
		ship := func(body map[string]any) *response {
			return a.post(fmt.Sprintf("/v1/sales-orders/%d/shipments", orderID), body)
		}

		var inv1 int
		a.run(t, "a first partial shipment picks first-expiring sellable lots and invoices them", func(t *testing.T, a *api) {
			r := ship(map[string]any{"ship_date": "2026-11-21", "tracking_number": "TRK-1", "lines": []any{shipLine(line1, 2500)}}).want(201)
			d := r.Data()
			if d["sales_order_id"] != float64(orderID) || d["ship_date"] != "2026-11-21" || d["invoice_id"] == nil || len(d["lines"].([]any)) != 1 {
				t.Fatalf("shipment %v", d)
			}
			inv1 = int(d["invoice_id"].(float64))
			if diff := cmpDiff(a.shipmentAsRead(r.ID()), d); diff != "" {
				t.Fatalf("the answer and a read differ (-read +answer):\n%s", diff)
			}
			// AL-FIRST expires first (2000 g), then AL-LATER; the lot without an
			// expiry comes last, the expired and quarantined lots never.
			if got := a.shipmentMovements(r.ID()); !mapsEqual(got, map[int]float64{first: -2000, later: -500}) {
				t.Fatalf("movements %v", got)
			}
			for id, want := range map[int]float64{first: 0, later: 2500, never: 5000, expired: 9999, held: 9999} {
				if got := a.lotQuantity(id); got != want {
					t.Errorf("lot %d holds %v, want %v", id, got, want)
				}
			}
			o := a.get(path("/v1/sales-orders", orderID)).want(200).Data()
			if o["status"] != "BACK_ORDER" || o["ship_date"] != "2026-11-21" || o["tracking_number"] != "TRK-1" {
				t.Fatalf("order %v", o)
			}
			if l := o["lines"].([]any)[0].(map[string]any); l["shipped_qty_base"] != 2500.0 {
				t.Fatalf("order line %v", l)
			}
			iv := a.get(path("/v1/invoices", inv1)).want(200).Data()
			addr := map[string]any{"line1": "5 Market Square", "line2": nil, "city": "Québec", "state": "QC", "postal_code": "G1K 3R5"}
			// 2.5 kg at 14.95 = 37.375 → 37.38.
			for k, want := range map[string]any{"sales_order_id": float64(orderID), "customer_id": float64(cust), "company": "SHIPTO Foods",
				"billing_address": addr, "shipping_address": addr, "order_date": "2026-11-20", "ship_date": "2026-11-21",
				"invoice_date": "2026-11-21", "is_cancelled": false, "cancelled_at": nil, "paid_amount": nil,
				"subtotal": 37.38, "tax1": true, "tax2": false, "tax1_rate": 5.0, "tax2_rate": 9.975} {
				if diff := cmpDiff(want, iv[k]); diff != "" {
					t.Errorf("invoice %s (-want +got):\n%s", k, diff)
				}
			}
			il := iv["lines"].([]any)
			want := map[string]any{"id": il[0].(map[string]any)["id"], "product_id": float64(almond), "product_code": "RM-ALMOND",
				"product_name": "Almonds, sliced", "shipped_qty": 2.5, "shipped_qty_base": 2500.0, "price": 14.95,
				"discount_rate": nil, "tax1": true, "tax2": false, "uom_type": "INVENTORY_UNIT"}
			if len(il) != 1 || cmpDiff(want, il[0]) != "" {
				t.Fatalf("invoice lines (-want +got):\n%s", cmpDiff([]any{want}, il))
			}
			evs := a.events("sales_order.")
			if last := evs[len(evs)-1]; last.Type != "sales_order.updated" || last.ResourceID != orderID {
				t.Fatalf("event %s", last.Type)
			}
			if evs := a.events("invoice."); len(evs) != 1 || evs[0].Type != "invoice.created" || evs[0].ResourceID != inv1 {
				t.Fatalf("invoice events %v", types(evs))
			}
		})

		a.run(t, "refusals name the line and write nothing", func(t *testing.T, a *api) {
			other := a.post("/v1/sales-orders", map[string]any{"customer_id": cust, "lines": []any{sold(almond, 100000), sold(flour, 1)}}).want(201)
			oLine := other.Data()["lines"].([]any)[0].(map[string]any)["id"]
			before := a.billState(almond)
			invoices := len(a.get("/v1/invoices?limit=200").List())
			cases := []struct {
				name, code, field string
				status            int
				order             int
				body              map[string]any
			}{
				{"an expired lot", "LOT_NOT_SELLABLE", "lines[0].lot_id", 409, other.ID(), map[string]any{"lines": []any{shipLine(oLine, 1, "lot_id", expired)}}},
				{"a quarantined lot", "LOT_NOT_SELLABLE", "lines[0].lot_id", 409, other.ID(), map[string]any{"lines": []any{shipLine(oLine, 1, "lot_id", held)}}},
				{"more than the named lot holds", "INSUFFICIENT_STOCK", "lines[0].quantity_base", 409, other.ID(), map[string]any{"lines": []any{shipLine(oLine, 5001, "lot_id", never)}}},
				// Sellable: 2500 + 5000 g; the expired and held lots do not count.
				{"more than the sellable lots hold", "INSUFFICIENT_STOCK", "lines[1].quantity_base", 409, other.ID(), map[string]any{"lines": []any{shipLine(oLine, 7000), shipLine(oLine, 501)}}},
				{"a lot of another product", "VALIDATION_ERROR", "lines[0].lot_id", 400, other.ID(), map[string]any{"lines": []any{shipLine(oLine, 1, "lot_id", sugarID)}}},
				{"a line of another order", "VALIDATION_ERROR", "lines[0].sales_order_line_id", 400, other.ID(), map[string]any{"lines": []any{shipLine(line1, 1)}}},
				{"more than the line has left", "VALIDATION_ERROR", "lines[1].quantity_base", 400, orderID, map[string]any{"lines": []any{shipLine(line1, 3000), shipLine(line1, 501)}}},
				{"quantity_base > 0", "VALIDATION_ERROR", "lines[0].quantity_base", 400, orderID, map[string]any{"lines": []any{shipLine(line1, 0)}}},
				{"at least one line", "VALIDATION_ERROR", "lines", 400, orderID, map[string]any{"lines": []any{}}},
				{"an unknown lot", "VALIDATION_ERROR", "lines[0].lot_id", 400, orderID, map[string]any{"lines": []any{shipLine(line1, 1, "lot_id", 99999999)}}},
				{"a malformed ship_date", "VALIDATION_ERROR", "ship_date", 400, orderID, map[string]any{"ship_date": "tomorrow", "lines": []any{shipLine(line1, 1)}}},
				{"sales_order_id comes from the path", "VALIDATION_ERROR", "sales_order_id", 400, orderID, map[string]any{"sales_order_id": orderID, "lines": []any{shipLine(line1, 1)}}},
			}
			for _, tc := range cases {
				a.run(t, tc.name, func(t *testing.T, a *api) {
					a.post(fmt.Sprintf("/v1/sales-orders/%d/shipments", tc.order), tc.body).field(tc.status, tc.code, tc.field)
				})
			}
			if after := a.billState(almond); after != before {
				t.Fatalf("refused shipments wrote something: %+v -> %+v", before, after)
			}
			if n := len(a.get("/v1/invoices?limit=200").List()); n != invoices {
				t.Fatalf("refused shipments made invoices: %d -> %d", invoices, n)
			}
			a.post("/v1/sales-orders/99999999/shipments", map[string]any{"lines": []any{shipLine(line1, 1)}}).problem(404, "NOT_FOUND")
			a.post(path("/v1/sales-orders", other.ID())+"/cancel", nil).want(200)
			a.post(fmt.Sprintf("/v1/sales-orders/%d/shipments", other.ID()), map[string]any{"lines": []any{shipLine(oLine, 1)}}).problem(409, "INVALID_STATE")
		})

		a.run(t, "a second shipment from a named lot completes the order", func(t *testing.T, a *api) {
			r := ship(map[string]any{"ship_date": "2026-11-23", "lines": []any{shipLine(line1, 3500, "lot_id", never), shipLine(line2, 500)}}).want(201)
			if got := a.shipmentMovements(r.ID()); !mapsEqual(got, map[int]float64{never: -3500, sugarID: -500}) {
				t.Fatalf("movements %v", got)
			}
			if got := a.lotQuantity(never); got != 1500.0 {
				t.Fatalf("named lot %v", got)
			}
			if got := a.lotQuantity(sugarID); got != sugarBefore-500 {
				t.Fatalf("sugar lot %v, want %v", got, sugarBefore-500)
			}
			o := a.get(path("/v1/sales-orders", orderID)).want(200).Data()
			if o["status"] != "SHIPPED" || o["ship_date"] != "2026-11-23" || o["tracking_number"] != "TRK-1" {
				t.Fatalf("order %v", o)
			}
			inv2 := int(r.Data()["invoice_id"].(float64))
			iv := a.get(path("/v1/invoices", inv2)).want(200).Data()
			// 3.5 × 14.95 = 52.325; 500 g × 0.002 less 12.5 % = 0.875; 53.2 → 53.20.
			if iv["subtotal"] != 53.2 || len(iv["lines"].([]any)) != 2 || iv["invoice_no"].(float64) <= a.get(path("/v1/invoices", inv1)).Data()["invoice_no"].(float64) {
				t.Fatalf("second invoice %v", iv)
			}
			evs := a.events("sales_order.")
			if last := evs[len(evs)-1]; last.Type != "sales_order.shipped" || last.ResourceID != orderID {
				t.Fatalf("event %s", last.Type)
			}
			ship(map[string]any{"lines": []any{shipLine(line1, 1)}}).problem(409, "INVALID_STATE")
			a.patch(path("/v1/sales-orders", orderID), map[string]any{"tracking_number": "x"}).problem(409, "INVALID_STATE")
			a.post(path("/v1/sales-orders", orderID)+"/status", map[string]any{"status": "CLOSE"}).want(200)
			checkStockLedger(t, a)
		})

		a.run(t, "invoices: filters, sorts, lines, redaction, read-only", func(t *testing.T, a *api) {
			rows := a.get(fmt.Sprintf("/v1/invoices?sales_order_id=%d", orderID)).want(200).List()
			if len(rows) != 2 || rows[0]["lines"] != nil {
				t.Fatalf("by order: %v", rows)
			}
			if rows := a.get(fmt.Sprintf("/v1/invoices?customer_id=%d&invoice_date_from=2026-11-22&invoice_date_to=2026-11-23", cust)).want(200).List(); len(rows) != 1 || rows[0]["ship_date"] != "2026-11-23" {
				t.Fatalf("by date: %v", rows)
			}
			no := a.get(path("/v1/invoices", inv1)).Data()["invoice_no"]
			if rows := a.get(fmt.Sprintf("/v1/invoices?search=%v", no)).want(200).List(); !slices.ContainsFunc(rows, func(r map[string]any) bool { return r["id"] == float64(inv1) }) {
				t.Fatalf("search by number: %v", rows)
			}
			for _, s := range []string{"created_at", "id", "invoice_no", "order_date", "ship_date", "updated_at"} {
				a.get("/v1/invoices?sort=" + s + ":desc").want(200)
			}
			a.get("/v1/invoices?invoice_date_from=2026-13-01").field(400, "VALIDATION_ERROR", "invoice_date_from")
			key, _ := a.newKey(policy.Test, "sales:read")
			iv := a.do("GET", path("/v1/invoices", inv1), key, nil).want(200).Data()
			for _, k := range []string{"subtotal", "paid_amount", "tax1", "tax2", "tax1_rate", "tax2_rate"} {
				if iv[k] != nil {
					t.Errorf("%s = %v without cost:read", k, iv[k])
				}
			}
			if l := iv["lines"].([]any)[0].(map[string]any); l["price"] != nil || l["tax1"] != nil || l["shipped_qty_base"] != 2500.0 {
				t.Errorf("line %v", l)
			}
			a.post("/v1/invoices", map[string]any{}).problem(405, "METHOD_NOT_ALLOWED")
			other := dbtest.NewOrg(t, a.st, "")
			foreign := other.Key(t, policy.Live, "all")
			a.do("GET", path("/v1/invoices", inv1), foreign, nil).problem(404, "NOT_FOUND")
			a.do("POST", fmt.Sprintf("/v1/sales-orders/%d/shipments", orderID), foreign, map[string]any{"lines": []any{shipLine(line1, 1)}}).problem(404, "NOT_FOUND")
			n, err := a.st.Client.Invoice.Query().Where(invoice.SalesOrderID(orderID)).Count(ctx)
			if err != nil || n != 2 {
				t.Fatalf("%d invoices, %v", n, err)
			}
		})
	})
}

func mapsEqual(a, b map[int]float64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// docs/api-behaviour.md, "Concurrent writes": on PostgreSQL, concurrent shipments drawing on the same
// lots never oversell a lot and never answer 500.
func TestShipmentsConcurrent(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		if a.st.Dialect != "postgres" {
			t.Skip("concurrency is SQLite's single writer; lot locking is tested on PostgreSQL")
		}
		a = seeded(t, a)
		almond := a.productID("RM-ALMOND")
		lots := []int{a.lot(almond, "RACE-1", 600, "2027-01-01T00:00:00Z"), a.lot(almond, "RACE-2", 400, "2027-02-01T00:00:00Z")}
		cust := a.customerFor("RACE")
		type order struct{ id, line int }
		orders := make([]order, 10)
		for i := range orders {
			r := a.post("/v1/sales-orders", map[string]any{"customer_id": cust, "lines": []any{sold(almond, 300)}}).want(201)
			orders[i] = order{r.ID(), int(r.Data()["lines"].([]any)[0].(map[string]any)["id"].(float64))}
		}
		var wg sync.WaitGroup
		res := make([]*response, len(orders))
		for i, o := range orders {
			wg.Add(1)
			go func() {
				defer wg.Done()
				res[i] = a.post(fmt.Sprintf("/v1/sales-orders/%d/shipments", o.id), map[string]any{"lines": []any{shipLine(o.line, 300)}})
			}()
		}
		wg.Wait()
		shipped := 0
		for _, r := range res {
			switch r.Status {
			case http.StatusCreated:
				shipped++
			case http.StatusConflict:
				if c := r.JSON()["code"]; c != "INSUFFICIENT_STOCK" {
					t.Fatalf("409 %v: %s", c, r.Body)
				}
			default:
				t.Fatalf("status %d: %s", r.Status, r.Body)
			}
		}
		// 1000 g make three shipments of 300 g; 100 g are left.
		if shipped != 3 {
			t.Fatalf("%d shipments, want 3", shipped)
		}
		if q := a.lotQuantity(lots[0]).(float64) + a.lotQuantity(lots[1]).(float64); q != 100 {
			t.Fatalf("lots hold %v g, want 100", q)
		}
		checkStockLedger(t, a)
	})
}

// docs/api-behaviour.md, "Test mode": sales orders in every
// status with lines in every unit, shipped orders with their invoices (one
// cancelled), each shipment accounted by SHIPPING movements.
func TestSeededSales(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		a = seeded(t, a)
		statuses, units := map[any]int{}, map[any]int{}
		for _, o := range a.get("/v1/sales-orders?limit=200").want(200).List() {
			statuses[o["status"]]++
			full := a.get(path("/v1/sales-orders", int(o["id"].(float64)))).want(200).Data()
			for _, l := range full["lines"].([]any) {
				units[l.(map[string]any)["uom_type"]]++
			}
		}
		for _, s := range []string{"OPEN", "BACK_ORDER", "PREPARING", "CANCELLED", "CLOSE", "SHIPPED"} {
			if statuses[s] == 0 {
				t.Errorf("no seeded sales order is %s", s)
			}
		}
		for _, u := range []string{"BASE_UOM", "INVENTORY_UNIT", "PACKAGING_SIZE"} {
			if units[u] == 0 {
				t.Errorf("no seeded line is in %s", u)
			}
		}
		invoices := a.get("/v1/invoices?limit=200").want(200).List()
		cancelled := 0
		for _, iv := range invoices {
			if iv["is_cancelled"] == true {
				cancelled++
			}
			if iv["subtotal"] == nil || iv["sales_order_id"] == nil {
				t.Errorf("invoice %v", iv)
			}
		}
		if len(invoices) < 3 || cancelled != 1 {
			t.Fatalf("%d invoices, %d cancelled", len(invoices), cancelled)
		}
		n, err := a.st.Client.StockMovement.Query().Where(stockmovement.TypeEQ(stockmovement.TypeSHIPPING)).Count(a.org.Ctx(policy.Test))
		if err != nil || n < 3 {
			t.Fatalf("%d SHIPPING movements, %v", n, err)
		}
		checkStockLedger(t, a)
	})
}
