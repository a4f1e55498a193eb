package handlers_test

import (
	"fmt"
	"math"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/bill"
	"larder.dev/larder/ent/organization"
	"larder.dev/larder/ent/productlot"
	"larder.dev/larder/ent/stockmovement"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

// lotOf is the seeded lot of product with the given number, as the API shows it.
func (a *api) lotOf(product int, number string) map[string]any {
	a.t.Helper()
	rows := a.get(fmt.Sprintf("/v1/product-lots?product_id=%d&lot_number=%s", product, url.QueryEscape(number))).want(200).List()
	for _, r := range rows {
		if r["lot_number"] == number {
			return r
		}
	}
	a.t.Fatalf("no lot %s of product %d", number, product)
	return nil
}

// onHand is a product's stock in base units: its lots' positive quantities.
func (a *api) onHand(product int) decimal.Decimal {
	a.t.Helper()
	lots, err := a.st.Client.ProductLot.Query().Where(productlot.ProductID(product), productlot.QuantityBaseGT(decimal.Zero)).All(a.org.Ctx(policy.Test))
	if err != nil {
		a.t.Fatal(err)
	}
	sum := decimal.Zero
	for _, l := range lots {
		sum = sum.Add(l.QuantityBase)
	}
	return sum
}

// movementsOf are the stock movements a bill wrote, in id order.
func (a *api) movementsOf(billID int) []*ent.StockMovement {
	a.t.Helper()
	ms, err := a.st.Client.StockMovement.Query().
		Where(stockmovement.DocumentType("bill"), stockmovement.DocumentID(billID)).
		Order(stockmovement.ByID()).
		All(a.org.Ctx(policy.Test))
	if err != nil {
		a.t.Fatal(err)
	}
	return ms
}

// billState is what a refused bill must leave as it was.
type billState struct {
	bills, lots, movements int
	cost                   any
	stock                  string
}

func (a *api) billState(product int) billState {
	a.t.Helper()
	ctx := a.org.Ctx(policy.Test)
	s := billState{cost: a.get(path("/v1/products", product)).want(200).Data()["cost"], stock: a.onHand(product).String()}
	var err error
	if s.bills, err = a.st.Client.Bill.Query().Count(ctx); err == nil {
		if s.lots, err = a.st.Client.ProductLot.Query().Count(ctx); err == nil {
			s.movements, err = a.st.Client.StockMovement.Query().Count(ctx)
		}
	}
	if err != nil {
		a.t.Fatal(err)
	}
	return s
}

// The specification's "Bill", "Bills" and docs/api-behaviour.md, "Money" and
// "Resources" (Bills): a bill
// receives each line into a new or topped-up lot with one PURCHASE_ENTRY
// movement, in base units, recosts products by the weighted average, and
// refuses a lot with another expiry without writing anything.
func TestBills(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		a = seeded(t, a)
		flour, sugar := a.productID("RM-FLOUR"), a.productID("RM-SUGAR")
		sup := a.supplierFor("MILLB")
		_, area := a.warehouse("RECV")
		seededLot := a.lotOf(flour, "FL-2611-01")
		seededLoc := int(seededLot["location_id"].(float64))
		seededExp := seededLot["expiration_date"].(string)[:10]

		a.run(t, "weighted average cost over on-hand stock, in inventory units", func(t *testing.T, a *api) {
			// 635,000 g on hand is 25.4 bags at 21.75 (552.45); 4.6 bags at 25.50
			// (117.30) make 669.75 for 30 bags: 22.325 a bag.
			if got := a.onHand(flour).String(); got != "635000" {
				t.Fatalf("seeded flour on hand %s g, the numbers below assume 635000", got)
			}
			if c := a.get(path("/v1/products", flour)).want(200).Data()["cost"]; c != 21.75 {
				t.Fatalf("seeded flour cost %v", c)
			}
			a.post("/v1/bills", map[string]any{"supplier_id": sup, "bill_date": "2026-11-02",
				"lines": []any{line(flour, 4.6, "cost", 25.5, "lot_number", "AVG-1")}}).want(201)
			if c := a.get(path("/v1/products", flour)).want(200).Data()["cost"]; c != 22.325 {
				t.Fatalf("flour cost %v after the bill, want 22.325", c)
			}
			// A discount counts: 30 bags on hand at 22.325 and 20 at 30 less 12.5 %
			// (26.25): (669.75 + 525) / 50 = 23.895.
			a.post("/v1/bills", map[string]any{"supplier_id": sup, "bill_date": "2026-11-02",
				"lines": []any{line(flour, 20, "cost", 30, "discount_rate", 12.5, "lot_number", "AVG-2"), line(flour, 1, "lot_number", "AVG-3")}}).want(201)
			// The line without a cost adds stock, not value: 51 bags are on hand now.
			if c := a.get(path("/v1/products", flour)).want(200).Data()["cost"]; c != 23.895 {
				t.Fatalf("flour cost %v after the discounted bill, want 23.895", c)
			}
		})

		a.run(t, "an account that costs manually keeps its costs", func(t *testing.T, a *api) {
			ctx := policy.System(a.org.Ctx(policy.Test))
			set := func(on bool) {
				if err := a.st.Client.Organization.UpdateOneID(a.org.Org.ID).SetManualCosting(on).Exec(ctx); err != nil {
					t.Fatal(err)
				}
			}
			set(true)
			defer set(false)
			before := a.get(path("/v1/products", sugar)).want(200).Data()["cost"]
			a.post("/v1/bills", map[string]any{"supplier_id": sup, "bill_date": "2026-11-03",
				"lines": []any{line(sugar, 10, "cost", 99, "lot_number", "MAN-1")}}).want(201)
			if c := a.get(path("/v1/products", sugar)).want(200).Data()["cost"]; c != before {
				t.Fatalf("sugar cost %v -> %v under manual costing", before, c)
			}
			if _, err := a.st.Client.Organization.Query().Where(organization.ManualCosting(true)).OnlyID(ctx); err != nil {
				t.Fatal("manual costing was not on during the bill:", err)
			}
		})

		a.run(t, "lines become lots and PURCHASE_ENTRY movements, in base units", func(t *testing.T, a *api) {
			topBefore := a.lotOf(flour, "FL-2611-01")["quantity_base"].(float64)
			lotEvents, productEvents := len(a.events("product_lot.")), len(a.events("product."))
			r := a.post("/v1/bills", map[string]any{"supplier_id": sup, "bill_date": "2026-11-20", "supplier_reference": "INV-4411",
				"notes": "two pallets",
				"lines": []any{
					line(flour, 2, "cost", 0.1, "lot_number", "B-NEW", "location_id", area, "expiration_date", "2027-06-30"),
					line(flour, 1.5, "cost", 0.1, "lot_number", "FL-2611-01", "location_id", seededLoc, "expiration_date", seededExp),
					line(sugar, 0.1, "cost", 0.1, "discount_rate", 12.5, "lot_number", "B-NEW", "supplier_partno", "SG-1"),
					line(flour, 0.5, "cost", 0.1, "lot_number", "B-NEW", "location_id", area, "expiration_date", "2027-06-30"),
				}}).want(201)
			d := r.Data()
			addr := map[string]any{"line1": "1 Mill Road", "line2": nil, "city": "Saskatoon", "state": "SK", "postal_code": "S7K 1A1"}
			// 0.2 + 0.15 + 0.00875 + 0.05 = 0.40875 → 0.41, rounded once.
			for k, want := range map[string]any{"supplier_id": float64(sup), "company": "MILLB Ltd.", "billing_address": addr,
				"bill_date": "2026-11-20", "supplier_reference": "INV-4411", "notes": "two pallets", "is_cancelled": false,
				"cancelled_at": nil, "purchase_order_id": nil, "subtotal": 0.41, "tax1": false, "tax2": false,
				"tax1_rate": nil, "tax2_rate": nil, "paid_amount": nil} {
				if diff := cmpDiff(want, d[k]); diff != "" {
					t.Errorf("%s (-want +got):\n%s", k, diff)
				}
			}
			if diff := cmpDiff(d, a.get(path("/v1/bills", r.ID())).want(200).Data()); diff != "" {
				t.Fatalf("create and read differ:\n%s", diff)
			}
			ls := d["lines"].([]any)
			if len(ls) != 4 {
				t.Fatalf("lines %v", ls)
			}
			l := func(i int) map[string]any { return ls[i].(map[string]any) }
			wantFirst := map[string]any{"id": l(0)["id"], "product_id": float64(flour), "product_code": "RM-FLOUR",
				"product_name": "All-purpose wheat flour", "quantity": 2.0, "quantity_base": 50000.0, "cost": 0.1,
				"discount_rate": nil, "expiration_date": "2027-06-30T00:00:00Z", "supplier_partno": nil,
				"lot_number": "B-NEW", "location_id": float64(area), "lot_id": l(0)["lot_id"]}
			if diff := cmpDiff(wantFirst, l(0)); diff != "" {
				t.Fatalf("first line (-want +got):\n%s", diff)
			}
			// The first and last lines share a lot; the sugar line with the same
			// number is its own product's lot; the second tops up the seeded lot.
			if l(0)["lot_id"] != l(3)["lot_id"] || l(2)["lot_id"] == l(0)["lot_id"] || l(1)["lot_id"] != seededLot["id"] {
				t.Fatalf("lots %v %v %v %v", l(0)["lot_id"], l(1)["lot_id"], l(2)["lot_id"], l(3)["lot_id"])
			}
			fresh := a.get(path("/v1/product-lots", int(l(0)["lot_id"].(float64)))).want(200).Data()
			if fresh["quantity_base"] != 62500.0 || fresh["lot_number"] != "B-NEW" || fresh["location_id"] != float64(area) ||
				fresh["expiration_date"] != "2027-06-30T00:00:00Z" || fresh["product_id"] != float64(flour) {
				t.Fatalf("new lot %v", fresh)
			}
			sugarLot := a.get(path("/v1/product-lots", int(l(2)["lot_id"].(float64)))).want(200).Data()
			if sugarLot["quantity_base"] != 100.0 || sugarLot["location_id"] != nil {
				t.Fatalf("sugar lot %v (0.1 kg = 100 g, no location)", sugarLot)
			}
			if got := a.lotOf(flour, "FL-2611-01")["quantity_base"]; got != topBefore+37500 {
				t.Fatalf("topped-up lot %v, want %v + 37500", got, topBefore)
			}
			ms := a.movementsOf(r.ID())
			if len(ms) != 4 {
				t.Fatalf("%d movements, want one per line", len(ms))
			}
			for i, m := range ms {
				if m.Type != stockmovement.TypePURCHASE_ENTRY || float64(m.LotID) != l(i)["lot_id"] ||
					m.QuantityBase.InexactFloat64() != l(i)["quantity_base"] {
					t.Errorf("movement %d: %s lot %d %s, line %v", i, m.Type, m.LotID, m.QuantityBase, l(i))
				}
			}
			checkStockLedger(t, a)
			// The new lots, the topped-up lot and the recosted products report
			// their changes: two lots made, one topped up, two products recosted.
			var got []string
			for _, e := range a.events("product_lot.")[lotEvents:] {
				got = append(got, fmt.Sprintf("%s %d", e.Type, e.ResourceID))
			}
			for _, e := range a.events("product.")[productEvents:] {
				got = append(got, fmt.Sprintf("%s %d", e.Type, e.ResourceID))
			}
			want := []string{fmt.Sprintf("product_lot.updated %v", seededLot["id"]), fmt.Sprintf("product_lot.created %v", l(0)["lot_id"]),
				fmt.Sprintf("product_lot.created %v", l(2)["lot_id"]), fmt.Sprintf("product.updated %d", flour), fmt.Sprintf("product.updated %d", sugar)}
			slices.Sort(want)
			slices.Sort(got)
			if diff := cmpDiff(want, got); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
			evs := a.events("bill.")
			a.wantEvent(evs[len(evs)-1], "bill.created", r.ID(), r, "lines", "subtotal", "paid_amount", "tax1", "tax2", "tax1_rate", "tax2_rate")
		})

		a.run(t, "a lot with another expiry refuses the whole bill", func(t *testing.T, a *api) {
			before := a.billState(flour)
			no := a.get("/v1/bills?sort=bill_no:desc&limit=1").want(200).List()[0]["bill_no"].(float64)
			p := a.post("/v1/bills", map[string]any{"supplier_id": sup, "bill_date": "2026-11-21",
				"lines": []any{
					line(flour, 3, "cost", 40, "lot_number", "NEVER"),
					line(flour, 1, "cost", 40, "lot_number", "FL-2611-01", "location_id", seededLoc, "expiration_date", "2030-01-01"),
				}}).field(409, "LOT_EXPIRY_MISMATCH", "lines[1].expiration_date")
			if !strings.Contains(fmt.Sprint(p["detail"]), seededExp) {
				t.Errorf("the detail does not give the lot's expiry: %v", p["detail"])
			}
			// No expiry against a lot that has one is another expiry too.
			a.post("/v1/bills", map[string]any{"supplier_id": sup, "bill_date": "2026-11-21",
				"lines": []any{line(flour, 1, "lot_number", "FL-2611-01", "location_id", seededLoc)}}).field(409, "LOT_EXPIRY_MISMATCH", "lines[0].expiration_date")
			// Two lines of one new lot must agree as well.
			a.post("/v1/bills", map[string]any{"supplier_id": sup, "bill_date": "2026-11-21",
				"lines": []any{line(sugar, 1, "lot_number", "TWO", "expiration_date", "2027-01-01"), line(sugar, 1, "lot_number", "TWO")}}).field(409, "LOT_EXPIRY_MISMATCH", "lines[1].expiration_date")
			if after := a.billState(flour); after != before {
				t.Fatalf("a refused bill wrote something: %+v -> %+v", before, after)
			}
			r := a.post("/v1/bills", map[string]any{"supplier_id": sup, "bill_date": "2026-11-21",
				"lines": []any{line(flour, 1, "lot_number", "FL-2611-01", "location_id", seededLoc, "expiration_date", seededExp)}}).want(201)
			if r.Data()["bill_no"] != no+1 {
				t.Fatalf("bill_no %v after %v: refused bills left a gap", r.Data()["bill_no"], no)
			}
		})

		a.run(t, "the same number at another location, or of another product, is another lot", func(t *testing.T, a *api) {
			before := a.lotOf(flour, "FL-2611-01")["quantity_base"]
			r := a.post("/v1/bills", map[string]any{"supplier_id": sup, "bill_date": "2026-11-21", "lines": []any{
				line(flour, 1, "lot_number", "FL-2611-01", "location_id", area, "expiration_date", "2031-01-01"),
				line(sugar, 1, "lot_number", "FL-2611-01", "location_id", seededLoc, "expiration_date", "2031-01-01"),
			}}).want(201)
			ls := r.Data()["lines"].([]any)
			for _, l := range ls {
				if l.(map[string]any)["lot_id"] == seededLot["id"] {
					t.Fatalf("a line went into the seeded lot: %v", l)
				}
			}
			if after := a.lotOf(flour, "FL-2611-01")["quantity_base"]; after != before {
				t.Fatalf("the seeded lot went from %v to %v", before, after)
			}
		})

		a.run(t, "lots topped up together, each exact and reported", func(t *testing.T, a *api) {
			second := a.lotOf(flour, "FL-2611-02")
			secondLoc, secondExp := int(second["location_id"].(float64)), second["expiration_date"].(string)[:10]
			firstQ, secondQ := a.lotOf(flour, "FL-2611-01")["quantity_base"].(float64), second["quantity_base"].(float64)
			lotEvents := len(a.events("product_lot."))
			a.post("/v1/bills", map[string]any{"supplier_id": sup, "bill_date": "2026-11-21", "lines": []any{
				line(flour, 0.1, "lot_number", "FL-2611-01", "location_id", seededLoc, "expiration_date", seededExp),
				line(flour, 0.2, "lot_number", "FL-2611-02", "location_id", secondLoc, "expiration_date", secondExp),
				line(flour, 0.000004, "lot_number", "FL-2611-01", "location_id", seededLoc, "expiration_date", seededExp),
			}}).want(201)
			// 0.1 + 0.000004 bags = 2500.1 g; 0.2 bags = 5000 g.
			if got := a.lotOf(flour, "FL-2611-01")["quantity_base"]; got != firstQ+2500.1 {
				t.Errorf("FL-2611-01: %v, want %v", got, firstQ+2500.1)
			}
			if got := a.lotOf(flour, "FL-2611-02")["quantity_base"]; got != secondQ+5000 {
				t.Errorf("FL-2611-02: %v, want %v", got, secondQ+5000)
			}
			var got []string
			for _, e := range a.events("product_lot.")[lotEvents:] {
				got = append(got, fmt.Sprintf("%s %d", e.Type, e.ResourceID))
			}
			want := []string{fmt.Sprintf("product_lot.updated %v", seededLot["id"]), fmt.Sprintf("product_lot.updated %v", second["id"])}
			if !slices.Equal(got, want) {
				t.Errorf("events %v, want %v", got, want)
			}
			checkStockLedger(t, a)
			// Only a bulk writer with its movements may change many lots' quantities.
			ctx := a.org.Ctx(policy.Test)
			err := ent.RunInTx(ctx, a.st.Client, func(tx *ent.Tx) error {
				return tx.ProductLot.Update().Where(productlot.ProductID(flour)).SetQuantityBase(decimal.NewFromInt(1)).Exec(ctx)
			})
			if err == nil || !strings.Contains(err.Error(), "WithBulkStock") {
				t.Fatalf("a bulk quantity change without movements: %v", err)
			}
		})

		a.run(t, "a linked purchase order keeps its status", func(t *testing.T, a *api) {
			po := a.post("/v1/purchase-orders", map[string]any{"supplier_id": sup, "lines": []any{line(sugar, 2)}}).want(201).ID()
			a.post(path("/v1/purchase-orders", po)+"/status", map[string]any{"status": "CONFIRMED"}).want(200)
			b := a.post("/v1/bills", map[string]any{"supplier_id": sup, "bill_date": "2026-11-22", "purchase_order_id": po,
				"lines": []any{line(sugar, 2, "lot_number", "PO-LINK")}}).want(201)
			if b.Data()["purchase_order_id"] != float64(po) {
				t.Fatalf("bill %v", b.Data())
			}
			if s := a.get(path("/v1/purchase-orders", po)).want(200).Data()["status"]; s != "CONFIRMED" {
				t.Fatalf("order status %v after a bill", s)
			}
			rows := a.get(fmt.Sprintf("/v1/bills?purchase_order_id=%d", po)).want(200).List()
			if len(rows) != 1 || rows[0]["id"] != float64(b.ID()) || rows[0]["lines"] != nil {
				t.Fatalf("by order: %v", rows)
			}
		})

		a.run(t, "body rules name the field", func(t *testing.T, a *api) {
			ok := line(flour, 1, "lot_number", "OK")
			cases := []struct {
				name  string
				body  map[string]any
				field string
			}{
				{"supplier_id is required", map[string]any{"bill_date": "2026-11-20", "lines": []any{ok}}, "supplier_id"},
				{"bill_date is required", map[string]any{"supplier_id": sup, "lines": []any{ok}}, "bill_date"},
				{"a malformed bill_date", map[string]any{"supplier_id": sup, "bill_date": "20-11-2026", "lines": []any{ok}}, "bill_date"},
				{"lines are required", map[string]any{"supplier_id": sup, "bill_date": "2026-11-20"}, "lines"},
				{"at least one line", map[string]any{"supplier_id": sup, "bill_date": "2026-11-20", "lines": []any{}}, "lines"},
				{"at most 1000 lines", map[string]any{"supplier_id": sup, "bill_date": "2026-11-20", "lines": lines(1001, ok)}, "lines"},
				{"lot_number is required", map[string]any{"supplier_id": sup, "bill_date": "2026-11-20", "lines": []any{ok, line(flour, 1)}}, "lines[1].lot_number"},
				{"lot_number is not empty", map[string]any{"supplier_id": sup, "bill_date": "2026-11-20", "lines": []any{line(flour, 1, "lot_number", "")}}, "lines[0].lot_number"},
				{"lot_number at most 100", map[string]any{"supplier_id": sup, "bill_date": "2026-11-20", "lines": []any{line(flour, 1, "lot_number", strings.Repeat("l", 101))}}, "lines[0].lot_number"},
				{"quantity > 0", map[string]any{"supplier_id": sup, "bill_date": "2026-11-20", "lines": []any{line(flour, 0, "lot_number", "Z")}}, "lines[0].quantity"},
				{"cost >= 0", map[string]any{"supplier_id": sup, "bill_date": "2026-11-20", "lines": []any{line(flour, 1, "lot_number", "Z", "cost", -1)}}, "lines[0].cost"},
				{"discount_rate >= 0", map[string]any{"supplier_id": sup, "bill_date": "2026-11-20", "lines": []any{line(flour, 1, "lot_number", "Z", "discount_rate", -0.5)}}, "lines[0].discount_rate"},
				{"an unknown location", map[string]any{"supplier_id": sup, "bill_date": "2026-11-20", "lines": []any{ok, line(flour, 1, "lot_number", "Z", "location_id", 99999999)}}, "lines[1].location_id"},
				{"location_id > 0", map[string]any{"supplier_id": sup, "bill_date": "2026-11-20", "lines": []any{line(flour, 1, "lot_number", "Z", "location_id", 0)}}, "lines[0].location_id"},
				{"a malformed expiration_date", map[string]any{"supplier_id": sup, "bill_date": "2026-11-20", "lines": []any{line(flour, 1, "lot_number", "Z", "expiration_date", "soon")}}, "lines[0].expiration_date"},
				{"an unknown purchase order", map[string]any{"supplier_id": sup, "bill_date": "2026-11-20", "purchase_order_id": 99999999, "lines": []any{ok}}, "purchase_order_id"},
				{"notes at most 2000", map[string]any{"supplier_id": sup, "bill_date": "2026-11-20", "notes": strings.Repeat("n", 2001), "lines": []any{ok}}, "notes"},
				{"supplier_reference at most 255", map[string]any{"supplier_id": sup, "bill_date": "2026-11-20", "supplier_reference": strings.Repeat("r", 256), "lines": []any{ok}}, "supplier_reference"},
				{"a quantity beyond what a lot keeps, in base units", map[string]any{"supplier_id": sup, "bill_date": "2026-11-20", "lines": []any{ok, line(flour, 99999999999999, "lot_number", "Z")}}, "lines[1].quantity"},
				{"two lines of one lot beyond what it keeps", map[string]any{"supplier_id": sup, "bill_date": "2026-11-20", "lines": []any{line(flour, 3999999999, "lot_number", "Z"), line(flour, 3999999999, "lot_number", "Z")}}, "lines[1].quantity"},
				{"a subtotal beyond what is kept", map[string]any{"supplier_id": sup, "bill_date": "2026-11-20", "lines": []any{line(sugar, 250, "lot_number", "Z", "cost", 99999999999999)}}, "lines"},
				{"bill_no is not writable", map[string]any{"supplier_id": sup, "bill_date": "2026-11-20", "bill_no": 7, "lines": []any{ok}}, "bill_no"},
				{"lot_id is not writable", map[string]any{"supplier_id": sup, "bill_date": "2026-11-20", "lines": []any{line(flour, 1, "lot_number", "Z", "lot_id", 1)}}, "lines[0].lot_id"},
			}
			before := a.billState(flour)
			for _, tc := range cases {
				a.run(t, tc.name, func(t *testing.T, a *api) {
					a.post("/v1/bills", tc.body).field(400, "VALIDATION_ERROR", tc.field)
				})
			}
			if after := a.billState(flour); after != before {
				t.Fatalf("refused bills wrote something: %+v -> %+v", before, after)
			}
		})

		a.run(t, "1000 lines for at most 200 products; 1000 lines of 0.01", func(t *testing.T, a *api) {
			r := a.post("/v1/bills", map[string]any{"supplier_id": sup, "bill_date": "2026-11-23",
				"lines": lines(1000, line(sugar, 1, "cost", 0.01, "lot_number", "CENTS"))}).want(201)
			if r.Data()["subtotal"] != 10.0 || len(r.Data()["lines"].([]any)) != 1000 {
				t.Fatalf("subtotal %v, %d lines", r.Data()["subtotal"], len(r.Data()["lines"].([]any)))
			}
			if lot := a.lotOf(sugar, "CENTS"); lot["quantity_base"] != 1_000_000.0 {
				t.Fatalf("one lot for 1000 lines of 1 kg: %v", lot["quantity_base"])
			}
			if n := len(a.movementsOf(r.ID())); n != 1000 {
				t.Fatalf("%d movements", n)
			}
			ctx := a.org.Ctx(policy.Test)
			var ids []int
			err := ent.RunInTx(ctx, a.st.Client, func(tx *ent.Tx) error {
				for i := range 201 {
					p, err := tx.Product.Create().SetProductCode(fmt.Sprintf("BULK-%03d", i)).SetProductType("RAW_MATERIAL").Save(ctx)
					if err != nil {
						return err
					}
					ids = append(ids, p.ID)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			many := func(n int) []any {
				out := make([]any, 0, 1000)
				for i := range 1000 {
					out = append(out, line(ids[i%n], 1, "lot_number", "MANY"))
				}
				return out
			}
			a.post("/v1/bills", map[string]any{"supplier_id": sup, "bill_date": "2026-11-23", "lines": many(201)}).field(400, "VALIDATION_ERROR", "lines[200].product_id")
			r = a.post("/v1/bills", map[string]any{"supplier_id": sup, "bill_date": "2026-11-23", "lines": many(200)}).want(201)
			if n := len(a.movementsOf(r.ID())); n != 1000 {
				t.Fatalf("%d movements", n)
			}
			checkStockLedger(t, a)
		})

		a.run(t, "lists: filters, sorts, search, lines null", func(t *testing.T, a *api) {
			// Of this supplier: the seeded bills are dated from the day seeded.
			rows := a.get(fmt.Sprintf("/v1/bills?supplier_id=%d&bill_date_from=2026-11-20&bill_date_to=2026-11-20", sup)).want(200).List()
			if len(rows) != 1 || rows[0]["supplier_reference"] != "INV-4411" || rows[0]["lines"] != nil {
				t.Fatalf("one day: %v", rows)
			}
			if n := len(a.get(fmt.Sprintf("/v1/bills?supplier_id=%d&bill_date_from=2026-11-22", sup)).want(200).List()); n != 3 {
				t.Fatalf("from 2026-11-22, inclusive: %d bills", n)
			}
			if n := len(a.get(fmt.Sprintf("/v1/bills?supplier_id=%d&bill_date_to=2026-11-02", sup)).want(200).List()); n != 2 {
				t.Fatalf("to 2026-11-02, inclusive: %d bills", n)
			}
			a.get("/v1/bills?bill_date_from=2026-02-30").field(400, "VALIDATION_ERROR", "bill_date_from")
			if rows := a.get(fmt.Sprintf("/v1/bills?supplier_id=%d&search=INV-4411", sup)).want(200).List(); len(rows) != 1 {
				t.Fatalf("search by reference: %v", rows)
			}
			if rows := a.get("/v1/bills?search=MILLB").want(200).List(); len(rows) < 8 {
				t.Fatalf("search by company: %d", len(rows))
			}
			nos := a.get("/v1/bills?sort=bill_no&limit=200").want(200).List()
			for i := 1; i < len(nos); i++ {
				if nos[i]["bill_no"].(float64) != nos[i-1]["bill_no"].(float64)+1 {
					t.Fatalf("bill numbers are not consecutive: %v then %v", nos[i-1]["bill_no"], nos[i]["bill_no"])
				}
			}
			for _, s := range []string{"bill_date", "bill_no", "id"} {
				a.get("/v1/bills?sort=" + s + ":desc").want(200)
			}
			a.get("/v1/bills?sort=subtotal").field(400, "VALIDATION_ERROR", "sort")
		})

		a.run(t, "costs are redacted; reads need purchasing:read", func(t *testing.T, a *api) {
			key, _ := a.newKey(policy.Test, "purchasing:read,purchasing:write")
			p := a.get(path("/v1/products", sugar)).want(200).Data()
			c0, ok := p["cost"].(float64)
			if !ok || c0 <= 0 {
				t.Fatalf("seeded sugar cost %v: the recost check below needs one", p["cost"])
			}
			per := 1.0
			for _, k := range []string{"uom_qty", "uom_base_conversion"} {
				if f, ok := p[k].(float64); ok {
					per *= f
				}
			}
			q := a.onHand(sugar).InexactFloat64() / per // inventory units on hand
			b := a.do("POST", "/v1/bills", key, map[string]any{"supplier_id": sup, "bill_date": "2026-11-24",
				"lines": []any{line(sugar, 1, "cost", 5, "lot_number", "RED")}}).want(201).Data()
			// The weighted average starts from the product's real cost, which
			// the caller cannot see.
			want := (q*c0 + 5) / (q + 1)
			if c := a.get(path("/v1/products", sugar)).want(200).Data()["cost"].(float64); math.Abs(c-want) > 1e-4 {
				t.Errorf("a bill by a key without cost:read recosted sugar to %v, want %v (%v on hand at %v)", c, want, q, c0)
			}
			for _, r := range []map[string]any{b, a.do("GET", path("/v1/bills", int(b["id"].(float64))), key, nil).want(200).Data()} {
				for _, k := range []string{"subtotal", "paid_amount", "tax1", "tax2", "tax1_rate", "tax2_rate"} {
					if r[k] != nil {
						t.Errorf("%s = %v without cost:read", k, r[k])
					}
				}
				if l := r["lines"].([]any)[0].(map[string]any); l["cost"] != nil || l["discount_rate"] != nil || l["quantity"] != 1.0 {
					t.Errorf("line %v", l)
				}
			}
			inv, _ := a.newKey(policy.Test, "inventory:read,inventory:write")
			a.do("GET", "/v1/bills", inv, nil).problem(403, "INSUFFICIENT_SCOPE")
			ro, _ := a.newKey(policy.Test, "purchasing:read")
			a.do("POST", "/v1/bills", ro, map[string]any{"supplier_id": sup, "bill_date": "2026-11-24", "lines": []any{line(sugar, 1, "lot_number", "RO")}}).problem(403, "INSUFFICIENT_SCOPE")
		})

		a.run(t, "another account's bills, suppliers, products and locations are unreachable", func(t *testing.T, a *api) {
			id := a.get("/v1/bills?limit=1").want(200).List()[0]["id"].(float64)
			other := dbtest.NewOrg(t, a.st, "")
			key := other.Key(t, policy.Live, "all")
			a.do("GET", path("/v1/bills", int(id)), key, nil).problem(404, "NOT_FOUND")
			if rows := a.do("GET", "/v1/bills", key, nil).want(200).List(); len(rows) != 0 {
				t.Fatalf("another account lists %d bills", len(rows))
			}
			a.do("POST", "/v1/bills", key, map[string]any{"supplier_id": sup, "bill_date": "2026-11-24",
				"lines": []any{line(sugar, 1, "lot_number", "X")}}).field(400, "VALIDATION_ERROR", "supplier_id")
			n, err := a.st.Client.Bill.Query().Where(bill.SupplierID(sup)).Count(policy.System(a.org.Ctx(policy.Test)))
			if err != nil || n == 0 {
				t.Fatal(n, err)
			}
		})
	})
}

// Spec Common rules "Idempotency-Key" on bills: a replay answers the first
// bill and receives nothing again.
func TestBillIdempotency(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		a = seeded(t, a)
		sugar := a.productID("RM-SUGAR")
		sup := a.supplierFor("IDEMB")
		body := map[string]any{"supplier_id": sup, "bill_date": "2026-11-24", "lines": []any{line(sugar, 2, "cost", 3, "lot_number", "IDEM")}}
		first := a.do("POST", "/v1/bills", a.key, body, "Idempotency-Key", "bill-1").want(201)
		again := a.do("POST", "/v1/bills", a.key, body, "Idempotency-Key", "bill-1").want(200)
		if string(first.Body) != string(again.Body) {
			t.Fatalf("replay differs:\n%s\n%s", first.Body, again.Body)
		}
		if q := a.lotOf(sugar, "IDEM")["quantity_base"]; q != 2000.0 {
			t.Fatalf("the lot holds %v after a replay, want 2000", q)
		}
		if n := len(a.movementsOf(first.ID())); n != 1 {
			t.Fatalf("%d movements", n)
		}
		a.do("POST", "/v1/bills", a.key, map[string]any{"supplier_id": sup, "bill_date": "2026-11-25", "lines": body["lines"]},
			"Idempotency-Key", "bill-1").problem(409, "IDEMPOTENCY_KEY_REUSED")
		// The same key on purchase orders is the same key of the account.
		a.do("POST", "/v1/purchase-orders", a.key, map[string]any{"supplier_id": sup, "lines": []any{line(sugar, 1)}},
			"Idempotency-Key", "bill-1").problem(409, "IDEMPOTENCY_KEY_REUSED")
	})
}

// docs/api-behaviour.md, "Idempotency keys": 20 concurrent bills with one key make one bill.
func TestBillIdempotencyConcurrent(t *testing.T) {
	concurrentKey(t, "/v1/bills", func(a *api, sup, flour int) map[string]any {
		return map[string]any{"supplier_id": sup, "bill_date": "2026-11-24", "lines": lines(50, line(flour, 1, "cost", 1, "lot_number", "RACE"))}
	}, func(a *api, sup int) int {
		n, err := a.st.Client.Bill.Query().Where(bill.SupplierID(sup)).Count(a.org.Ctx(policy.Test))
		if err != nil {
			a.t.Fatal(err)
		}
		return n
	})
}

// docs/api-behaviour.md, "Test mode": purchase orders in
// every status and bills, one cancelled, whose lines trace to lots and
// PURCHASE_ENTRY movements.
func TestSeededPurchasing(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		a = seeded(t, a)
		statuses := map[any]int{}
		for _, po := range a.get("/v1/purchase-orders?limit=200").want(200).List() {
			statuses[po["status"]]++
			if po["subtotal"] == nil || po["purchase_order_no"] == nil || po["company"] == nil {
				t.Errorf("order without subtotal, number or company: %v", po)
			}
		}
		for _, s := range []string{"OPEN", "SENT", "CONFIRMED", "BACK_ORDER", "RECEIVED", "CLOSED", "CANCELLED"} {
			if statuses[s] == 0 {
				t.Errorf("no seeded purchase order is %s", s)
			}
		}
		bills := a.get("/v1/bills?limit=200&sort=bill_no").want(200).List()
		cancelled, linked := 0, 0
		for i, b := range bills {
			if b["bill_no"] != float64(i+1) {
				t.Errorf("bill numbers %v at %d", b["bill_no"], i)
			}
			if b["is_cancelled"] == true {
				cancelled++
				if b["cancelled_at"] == nil {
					t.Errorf("cancelled without a date: %v", b)
				}
			}
			if b["purchase_order_id"] != nil {
				linked++
			}
			full := a.get(path("/v1/bills", int(b["id"].(float64)))).want(200).Data()
			ms := a.movementsOf(int(b["id"].(float64)))
			ls := full["lines"].([]any)
			if len(ms) != len(ls) || len(ls) == 0 {
				t.Fatalf("bill %v: %d lines, %d movements", b["bill_no"], len(ls), len(ms))
			}
			for j, l := range ls {
				l := l.(map[string]any)
				lot := a.get(path("/v1/product-lots", int(l["lot_id"].(float64)))).want(200).Data()
				if lot["lot_number"] != l["lot_number"] || lot["product_id"] != l["product_id"] ||
					float64(ms[j].LotID) != l["lot_id"] || ms[j].QuantityBase.InexactFloat64() != l["quantity_base"] {
					t.Errorf("bill %v line %d does not trace: %v, lot %v, movement %+v", b["bill_no"], j, l, lot, ms[j])
				}
			}
		}
		if len(bills) < 3 || cancelled != 1 || linked == 0 {
			t.Fatalf("%d bills, %d cancelled, %d with an order", len(bills), cancelled, linked)
		}
		checkStockLedger(t, a)
	})
}
