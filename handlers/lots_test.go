package handlers_test

import (
	"fmt"
	"net/url"
	"sync"
	"testing"

	"github.com/shopspring/decimal"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/event"
	"larder.dev/larder/ent/lotcorrection"
	"larder.dev/larder/ent/productlot"
	"larder.dev/larder/ent/stockmovement"
	"larder.dev/larder/internal/platform/config"
	"larder.dev/larder/policy"
)

// productID is the id of the seeded product with the given code.
func (a *api) productID(code string) int {
	a.t.Helper()
	rows := a.get("/v1/products?product_code=" + url.QueryEscape(code)).want(200).List()
	for _, r := range rows {
		if r["product_code"] == code {
			return int(r["id"].(float64))
		}
	}
	a.t.Fatalf("no product %s", code)
	return 0
}

// warehouseAreas returns a new warehouse's id and the id of one of its areas.
func (a *api) warehouseWithArea(code string) (site, area int) {
	a.t.Helper()
	site = a.post("/v1/warehouses", map[string]any{"code": code, "name": code}).want(201).ID()
	loc, err := a.st.Client.Location.Query().All(a.org.Ctx(policy.Test))
	if err != nil {
		a.t.Fatal(err)
	}
	for _, l := range loc {
		if l.ParentID != nil && *l.ParentID == site {
			return site, l.ID
		}
	}
	a.t.Fatalf("warehouse %d has no area", site)
	return 0, 0
}

// Spec "Product lots" and States: every body rule, filter and sort, the
// archive operations, and the stock movement of every write.
func TestProductLots(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		a = seeded(t, a)
		flour, oats := a.productID("RM-FLOUR"), a.productID("RM-OATS")
		site, area := a.warehouseWithArea("LOTS")
		other, _ := a.warehouseWithArea("ELSEWHERE")
		lot := a.post("/v1/product-lots", map[string]any{"product_id": flour, "lot_number": "F-100", "location_id": area,
			"quantity_base": 2500.5, "expiration_date": "2027-03-01T00:00:00Z"}).want(201)
		id := lot.ID()
		ctx := a.org.Ctx(policy.Test)

		a.run(t, "create answers what a read returns, with borrowed fields", func(t *testing.T, a *api) {
			got := lot.Data()
			read := a.get(path("/v1/product-lots", id)).want(200).Data()
			if diff := cmpDiff(read, got); diff != "" {
				t.Fatalf("create and read differ (-read +create):\n%s", diff)
			}
			for k, want := range map[string]any{"product_code": "RM-FLOUR", "product_name": "All-purpose wheat flour",
				"location_id": float64(area), "lot_number": "F-100", "quantity_base": 2500.5, "archived": false,
				"qc_status": "AVAILABLE", "lot_origin": "PRODUCT_FORM", "uom_base_conversion": float64(25000)} {
				if got[k] != want {
					t.Errorf("%s = %v, want %v", k, got[k], want)
				}
			}
			if got["location_code"] != "RECEIVING" && got["location_code"] == nil {
				t.Errorf("location_code %v", got["location_code"])
			}
		})
		a.run(t, "create writes a PRODUCT_FORM movement of the quantity", func(t *testing.T, a *api) {
			mv, err := a.st.Client.StockMovement.Query().Where(stockmovement.LotID(id)).All(ctx)
			if err != nil || len(mv) != 1 {
				t.Fatalf("movements %v %v", mv, err)
			}
			if mv[0].Type != stockmovement.TypePRODUCT_FORM || !mv[0].QuantityBase.Equal(decimal.RequireFromString("2500.5")) ||
				mv[0].Source != stockmovement.SourceAPI || mv[0].APIKeyID == nil || mv[0].RequestID == nil || *mv[0].LocationID != area {
				t.Fatalf("movement %+v", mv[0])
			}
		})
		a.run(t, "body rules", func(t *testing.T, a *api) {
			cases := []struct {
				name  string
				body  map[string]any
				field string
			}{
				{"product required", map[string]any{"lot_number": "X", "quantity_base": 1}, "product_id"},
				{"quantity required", map[string]any{"product_id": flour, "lot_number": "X"}, "quantity_base"},
				{"negative quantity", map[string]any{"product_id": flour, "lot_number": "X", "quantity_base": -1}, "quantity_base"},
				{"empty lot number", map[string]any{"product_id": flour, "lot_number": "", "quantity_base": 1}, "lot_number"},
				{"qc_status not writable", map[string]any{"product_id": flour, "lot_number": "X", "quantity_base": 1, "qc_status": "RELEASED"}, "qc_status"},
				{"archived not writable", map[string]any{"product_id": flour, "lot_number": "X", "quantity_base": 1, "archived": true}, "archived"},
				{"unknown product", map[string]any{"product_id": 999999999, "lot_number": "X", "quantity_base": 1}, "product_id"},
				{"unknown location", map[string]any{"product_id": flour, "lot_number": "X", "quantity_base": 1, "location_id": 999999999}, "location_id"},
			}
			for _, tc := range cases {
				a.post("/v1/product-lots", tc.body).field(400, "VALIDATION_ERROR", tc.field)
			}
			a.patch(path("/v1/product-lots", id), map[string]any{"quantity_base": nil}).field(400, "VALIDATION_ERROR", "quantity_base")
			a.patch(path("/v1/product-lots", id), map[string]any{"product_id": oats}).field(400, "VALIDATION_ERROR", "product_id")
			a.patch(path("/v1/product-lots", id), map[string]any{"qc_status": "REJECTED"}).field(400, "VALIDATION_ERROR", "qc_status")
		})
		a.run(t, "a lot number is unique per product and location", func(t *testing.T, a *api) {
			a.post("/v1/product-lots", map[string]any{"product_id": flour, "lot_number": "F-100", "location_id": area, "quantity_base": 1}).
				field(409, "DUPLICATE", "lot_number")
			a.post("/v1/product-lots", map[string]any{"product_id": oats, "lot_number": "F-100", "location_id": area, "quantity_base": 1}).want(201)
			a.post("/v1/product-lots", map[string]any{"product_id": flour, "lot_number": "F-100", "location_id": site, "quantity_base": 1}).want(201)
			a.post("/v1/product-lots", map[string]any{"product_id": flour, "lot_number": "F-NOWHERE", "quantity_base": 1}).want(201)
			a.post("/v1/product-lots", map[string]any{"product_id": flour, "lot_number": "F-NOWHERE", "quantity_base": 1}).field(409, "DUPLICATE", "lot_number")
			moved := a.post("/v1/product-lots", map[string]any{"product_id": flour, "lot_number": "F-101", "location_id": area, "quantity_base": 1}).want(201).ID()
			a.patch(path("/v1/product-lots", moved), map[string]any{"lot_number": "F-100"}).field(409, "DUPLICATE", "lot_number")
		})
		var unnumbered int
		a.run(t, "one unnumbered lot per product", func(t *testing.T, a *api) {
			unnumbered = a.post("/v1/product-lots", map[string]any{"product_id": oats, "quantity_base": 10}).want(201).ID()
			a.post("/v1/product-lots", map[string]any{"product_id": oats, "quantity_base": 5, "location_id": area}).problem(409, "DUPLICATE")
			if d := a.get(path("/v1/product-lots", unnumbered)).Data(); d["lot_number"] != nil {
				t.Fatalf("lot_number %v", d["lot_number"])
			}
		})
		a.run(t, "archive and unarchive follow the States table", func(t *testing.T, a *api) {
			a.post(path("/v1/product-lots", id)+"/unarchive", nil).problem(409, "INVALID_STATE")
			d := a.post(path("/v1/product-lots", id)+"/archive", nil).want(200).Data()
			if d["archived"] != true || d["product_code"] != "RM-FLOUR" {
				t.Fatalf("after archive: %v", d)
			}
			a.post(path("/v1/product-lots", id)+"/archive", nil).problem(409, "INVALID_STATE")
			if d := a.get(path("/v1/product-lots", id)).want(200).Data(); d["archived"] != true {
				t.Fatalf("an archived lot stays readable and archived: %v", d)
			}
			a.post(path("/v1/product-lots", id)+"/unarchive", nil).want(200)
			a.post(path("/v1/product-lots", unnumbered)+"/archive", nil).problem(409, "INVALID_STATE")
			a.post(path("/v1/product-lots", unnumbered)+"/unarchive", nil).problem(409, "INVALID_STATE")
			a.post("/v1/product-lots/999999999/archive", nil).problem(404, "NOT_FOUND")
			types := map[string]int{}
			evs, err := a.st.Client.Event.Query().Where(event.ResourceType("product_lot"), event.ResourceID(id)).All(policy.System(ctx))
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range evs {
				types[e.Type]++
			}
			want := map[string]int{"product_lot.created": 1, "product_lot.archived": 1, "product_lot.unarchived": 1}
			if diff := cmpDiff(want, types); diff != "" {
				t.Fatalf("events (-want +got):\n%s", diff)
			}
		})
		a.run(t, "a PATCH of quantity_base is a correction, not a movement", func(t *testing.T, a *api) {
			d := a.patch(path("/v1/product-lots", id), map[string]any{"quantity_base": 2400}).want(200).Data()
			if d["quantity_base"] != float64(2400) || d["product_name"] == nil {
				t.Fatalf("after correction: %v", d)
			}
			n, _ := a.st.Client.StockMovement.Query().Where(stockmovement.LotID(id)).Count(ctx)
			cs, err := a.st.Client.LotCorrection.Query().Where(lotcorrection.LotID(id)).All(ctx)
			if err != nil || n != 1 || len(cs) != 1 || !cs[0].QuantityBefore.Equal(decimal.RequireFromString("2500.5")) || !cs[0].QuantityAfter.Equal(decimal.NewFromInt(2400)) {
				t.Fatalf("%d movements, corrections %+v (%v)", n, cs, err)
			}
		})
		a.run(t, "filters", func(t *testing.T, a *api) {
			numbers := func(q string) []any {
				var out []any
				for _, r := range a.get("/v1/product-lots?sort=id&" + q).want(200).List() {
					out = append(out, r["lot_number"])
				}
				return out
			}
			cases := []struct {
				query string
				want  []any
			}{
				// The seeded lots come first: OA-2610-03 is oats, SU-2611-05 has no location.
				{fmt.Sprintf("product_id=%d", oats), []any{"OA-2610-03", "F-100", nil}},
				{"lot_number=nowh", []any{"F-NOWHERE"}},
				{fmt.Sprintf("location_id=%d", site), []any{"F-100"}},
				{fmt.Sprintf("warehouse_id=%d", site), []any{"SU-2611-05", "F-100", "F-100", "F-100", "F-NOWHERE", "F-101", nil}},
				{fmt.Sprintf("warehouse_id=%d", other), []any{"SU-2611-05", "F-NOWHERE", nil}},
				{"search=f-10", []any{"F-100", "F-100", "F-100", "F-101"}},
				{"archived=true", []any{"FL-2609-07", "BR-2608-01"}},
			}
			for _, tc := range cases {
				if diff := cmpDiff(tc.want, numbers(tc.query)); diff != "" {
					t.Errorf("%s (-want +got):\n%s", tc.query, diff)
				}
			}
			a.post(path("/v1/product-lots", id)+"/archive", nil).want(200)
			if got := numbers("archived=true"); len(got) != 3 || got[2] != "F-100" {
				t.Errorf("archived=true: %v", got)
			}
			if got, all := numbers("archived=false"), numbers(""); len(got) != len(all)-3 {
				t.Errorf("archived=false %d of %d", len(got), len(all))
			}
			a.post(path("/v1/product-lots", id)+"/unarchive", nil).want(200)
		})
		a.run(t, "sorts", func(t *testing.T, a *api) {
			column := func(sort, field string) []any {
				var out []any
				for _, r := range a.get("/v1/product-lots?sort=" + sort).want(200).List() {
					out = append(out, r[field])
				}
				return out
			}
			names := column("product_name:desc", "product_name")
			if names[0] != "Whole eggs (case of 15 dozen)" || names[len(names)-1] != "All-purpose wheat flour" {
				t.Errorf("product_name:desc %v", names)
			}
			q := column("quantity_base", "quantity_base")
			for i := 1; i < len(q); i++ {
				if q[i-1].(float64) > q[i].(float64) {
					t.Fatalf("quantity_base not ascending: %v", q)
				}
			}
			exp := column("expiration_date", "expiration_date")
			for i := 1; i < len(exp); i++ {
				if exp[i-1] == nil && exp[i] != nil || exp[i-1] != nil && exp[i] != nil && exp[i-1].(string) > exp[i].(string) {
					t.Fatalf("expiration_date not ascending with nulls last: %v", exp)
				}
			}
			if exp[len(exp)-1] != nil || exp[0] == nil {
				t.Fatalf("expiration_date: %v", exp)
			}
		})
		a.run(t, "moving a lot moves it between warehouses; a warehouse holding stock cannot go", func(t *testing.T, a *api) {
			_, otherArea := a.warehouseWithArea("MOVE")
			moving := a.post("/v1/product-lots", map[string]any{"product_id": flour, "lot_number": "MV-1", "location_id": area, "quantity_base": 1}).want(201).ID()
			d := a.patch(path("/v1/product-lots", moving), map[string]any{"location_id": otherArea}).want(200).Data()
			if d["location_id"] != float64(otherArea) || d["location_code"] == nil {
				t.Fatalf("after the move: %v", d)
			}
			in := func(w int) bool {
				for _, r := range a.get(fmt.Sprintf("/v1/product-lots?warehouse_id=%d&lot_number=MV-1", w)).want(200).List() {
					if int(r["id"].(float64)) == moving {
						return true
					}
				}
				return false
			}
			if in(site) {
				t.Fatal("the moved lot is still listed in its old warehouse")
			}
			d = a.patch(path("/v1/product-lots", moving), map[string]any{"location_id": nil}).want(200).Data()
			if d["location_code"] != nil || !in(site) {
				t.Fatalf("a lot without location is in every warehouse's list: %v", d)
			}
			a.del(path("/v1/warehouses", site)).problem(409, "IN_USE")
			empty := a.post("/v1/warehouses", map[string]any{"code": "EMPTY", "name": "Empty"}).want(201).ID()
			a.del(path("/v1/warehouses", empty)).want(200)
		})
		a.run(t, "another account cannot see or use the lot", func(t *testing.T, a *api) {
			b := newAPI(t, a.st)
			b.get(path("/v1/product-lots", id)).problem(404, "NOT_FOUND")
			b.post(path("/v1/product-lots", id)+"/archive", nil).problem(404, "NOT_FOUND")
			b.post("/v1/product-lots", map[string]any{"product_id": flour, "lot_number": "X", "quantity_base": 1}).field(400, "VALIDATION_ERROR", "product_id")
			a.post("/v1/product-lots", map[string]any{"product_id": flour, "lot_number": "X", "quantity_base": 1,
				"location_id": b.post("/v1/warehouses", map[string]any{"code": "B", "name": "B"}).want(201).ID()}).field(400, "VALIDATION_ERROR", "location_id")
		})
		a.run(t, "scopes", func(t *testing.T, a *api) {
			read := a.org.Key(t, policy.Test, "inventory:read")
			a.do("GET", "/v1/product-lots", read, nil).want(200)
			a.do("POST", "/v1/product-lots", read, map[string]any{"product_id": flour, "quantity_base": 1}).problem(403, "INSUFFICIENT_SCOPE")
			a.do("POST", path("/v1/product-lots", id)+"/archive", read, nil).problem(403, "INSUFFICIENT_SCOPE")
			a.do("GET", "/v1/product-lots", a.org.Key(t, policy.Test, "catalog:write"), nil).problem(403, "INSUFFICIENT_SCOPE")
		})
		a.run(t, "every lot's quantity is its movements plus its corrections", func(t *testing.T, a *api) {
			checkStockLedger(t, a)
		})
	})
}

// checkStockLedger fails unless every lot of a's account has the quantity its
// movements and corrections add up to.
func checkStockLedger(t *testing.T, a *api) {
	t.Helper()
	ctx := a.org.Ctx(policy.Test)
	lots, err := a.st.Client.ProductLot.Query().WithMovements().WithCorrections().Order(productlot.ByID()).All(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range lots {
		sum := decimal.Zero
		for _, m := range l.Edges.Movements {
			sum = sum.Add(m.QuantityBase)
		}
		for _, c := range l.Edges.Corrections {
			sum = sum.Add(c.QuantityAfter.Sub(c.QuantityBefore))
		}
		if !sum.Equal(l.QuantityBase) {
			t.Errorf("lot %d holds %s, its movements and corrections add up to %s", l.ID, l.QuantityBase, sum)
		}
	}
}

// docs/api-behaviour.md, "Test mode": lots in every QC
// status, archived lots and an unnumbered lot, each accounted by its movements.
func TestSeededLots(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		a = seeded(t, a)
		statuses, archived, unnumbered := map[any]int{}, 0, 0
		for _, l := range a.get("/v1/product-lots?limit=200").want(200).List() {
			statuses[l["qc_status"]]++
			if l["archived"] == true {
				archived++
			}
			if l["lot_number"] == nil {
				unnumbered++
			}
			if l["product_code"] == nil || l["quantity_base"] == nil {
				t.Errorf("lot without product or quantity: %v", l)
			}
		}
		for _, s := range []string{"AVAILABLE", "ON_HOLD", "QUARANTINE", "RELEASED", "REJECTED"} {
			if statuses[s] == 0 {
				t.Errorf("no seeded lot is %s: %v", s, statuses)
			}
		}
		if archived == 0 || unnumbered == 0 {
			t.Errorf("%d archived and %d unnumbered seeded lots", archived, unnumbered)
		}
		checkStockLedger(t, a)
	})
}

// docs/api-behaviour.md, "Concurrent writes": concurrent writers of the same lots (creates and PATCH
// corrections) leave every lot's quantity equal to its movements and
// corrections, with no lost update and no 500. PostgreSQL runs them in
// parallel; SQLite serialises writers.
func TestConcurrentStockWrites(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		a = seeded(t, a)
		flour := a.productID("RM-FLOUR")
		var ids []int
		for i := range 3 {
			ids = append(ids, a.post("/v1/product-lots", map[string]any{"product_id": flour, "lot_number": fmt.Sprintf("CC-%d", i), "quantity_base": 100}).want(201).ID())
		}
		type result struct {
			status int
			body   string
		}
		results := make(chan result, 200)
		var wg sync.WaitGroup
		for w := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range 12 {
					var r *response
					if i%4 == 3 {
						r = a.do("POST", "/v1/product-lots", a.key, map[string]any{"product_id": flour, "lot_number": fmt.Sprintf("CC-W%d-%d", w, i), "quantity_base": i})
					} else {
						r = a.do("PATCH", path("/v1/product-lots", ids[(w+i)%len(ids)]), a.key, map[string]any{"quantity_base": w*100 + i})
					}
					results <- result{r.Status, string(r.Body)}
				}
			}()
		}
		wg.Wait()
		close(results)
		for r := range results {
			if r.status >= 500 {
				t.Errorf("a concurrent write answered %d: %s", r.status, r.body)
			}
		}
		checkStockLedger(t, a)
	}, func(c *config.Config) { c.RateLimit = 1 << 20 })
}

// Spec "Product lots" sort product_name: lists sort by a copy of the
// product's name kept on the lot (so an index serves the sort); renaming the
// product moves its lots, in the same transaction, without lot events.
func TestLotsSortFollowsProductRenames(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		a = seeded(t, a)
		ctx := a.org.Ctx(policy.Test)
		flour := a.productID("RM-FLOUR")
		a.post("/v1/product-lots", map[string]any{"product_id": flour, "lot_number": "RENAME-1", "quantity_base": 1}).want(201)
		first := func() string {
			return a.get("/v1/product-lots?sort=product_name&limit=1").want(200).List()[0]["product_name"].(string)
		}
		last := func() string {
			return a.get("/v1/product-lots?sort=product_name:desc&limit=1").want(200).List()[0]["product_name"].(string)
		}
		if first() != "All-purpose wheat flour" {
			t.Fatalf("first by product_name: %q", first())
		}
		events := func() int {
			n, err := a.st.Client.Event.Query().Where(event.AccountID(a.org.Test.ID), event.TypeHasPrefix("product_lot.")).Count(policy.System(ctx))
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
		before := events()
		err := ent.RunInTx(ctx, a.st.Client, func(tx *ent.Tx) error {
			return tx.Product.UpdateOneID(flour).SetName("Zzz wheat flour").Exec(ctx)
		})
		if err != nil {
			t.Fatal(err)
		}
		if last() != "Zzz wheat flour" || first() == "Zzz wheat flour" {
			t.Fatalf("after the rename: first %q, last %q", first(), last())
		}
		if n := events(); n != before {
			t.Fatalf("the rename wrote %d lot events", n-before)
		}
		// A lot created after the rename sorts with the new name too.
		id := a.post("/v1/product-lots", map[string]any{"product_id": flour, "lot_number": "RENAME-2", "quantity_base": 1}).want(201).ID()
		got := a.get("/v1/product-lots?sort=product_name:desc&limit=200").want(200).List()
		found := false
		for _, r := range got {
			if r["product_name"] != "Zzz wheat flour" {
				break
			}
			found = found || int(r["id"].(float64)) == id
		}
		if !found {
			t.Fatal("a lot created after the rename does not sort with the new name")
		}
	})
}
