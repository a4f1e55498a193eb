package handlers_test

import (
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/lotcorrection"
	"larder.dev/larder/ent/productlot"
	"larder.dev/larder/ent/stockmovement"
	"larder.dev/larder/internal/modules/manufacturing"
	"larder.dev/larder/internal/modules/units"
	"larder.dev/larder/policy"
)

// Every writer of stock takes its locks in one order (the lots by id first),
// so shipments naming lots or picking them, bills topping the same lots up
// (and costing their products), lot corrections, production completions that
// consume some lots and top another up, and renames of a product (copied onto
// its lots), all at once on the same lots, never deadlock: each write is
// answered 2xx, and the lots hold exactly what the acknowledged writes moved.
func TestStockWritersOnSharedLots(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		a = seeded(t, a)
		ctx := a.org.Ctx(policy.Test)
		almond, cookies := a.productID("RM-ALMOND"), a.productID("FG-COOKIE12")
		// The lots expire before the seeded ones, so picking takes them first;
		// the cookies' lot is the oldest, so a completion's output lot has a
		// lower id than the lots it consumes.
		exp := time.Now().UTC().AddDate(0, 0, 10).Format(time.DateOnly)
		const initial = 100000
		f1 := a.lot(cookies, "SHARED-F1", initial, exp+"T00:00:00Z")
		a1 := a.lot(almond, "SHARED-A1", initial, exp+"T00:00:00Z")
		a2 := a.lot(almond, "SHARED-A2", initial, exp+"T00:00:00Z")
		shared := []int{f1, a1, a2}

		const shipments, bills, corrections, completions, renames = 24, 8, 8, 8, 4
		cust, sup := a.customerFor("SHARE"), a.supplierFor("SHARE")
		type order struct{ id, almondLine, cookieLine int }
		orders := make([]order, shipments)
		for i := range orders {
			d := a.post("/v1/sales-orders", map[string]any{"customer_id": cust,
				"lines": []any{sold(almond, 10, "uom_type", "BASE_UOM"), sold(cookies, 10, "uom_type", "BASE_UOM")}}).want(201).Data()
			ls := d["lines"].([]any)
			orders[i] = order{int(d["id"].(float64)), int(ls[0].(map[string]any)["id"].(float64)), int(ls[1].(map[string]any)["id"].(float64))}
		}
		runs := make([]int, completions)
		for i := range runs {
			err := ent.RunInTx(ctx, a.st.Client, func(tx *ent.Tx) error {
				q, lot := decimal.NewFromInt(1), "SHARED-F1"
				r, err := manufacturing.Create(ctx, tx, manufacturing.Plan{ProductID: cookies, Quantity: &q, LotNumber: &lot})
				if err != nil {
					return err
				}
				runs[i] = r.ID
				_, err = manufacturing.Start(ctx, tx, r.ID, time.Now())
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		lastMovement, err := a.st.Client.StockMovement.Query().Aggregate(ent.Max(stockmovement.FieldID)).Int(policy.System(ctx))
		if err != nil {
			t.Fatal(err)
		}

		// Every writer starts at once.
		var (
			wg       sync.WaitGroup
			start    = make(chan struct{})
			mu       sync.Mutex
			failures []string
			shipped  = make([]*response, shipments)
			billed   = make([]*response, bills)
			patched  = make([]*response, corrections)
			finished = make([]error, completions)
			renamed  = make([]error, renames)
		)
		async := func(f func()) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				f()
			}()
		}
		for i, o := range orders {
			async(func() {
				var lines []any
				switch i % 3 {
				case 0: // named lots, the higher id first
					lines = []any{shipLine(o.almondLine, 1, "lot_id", shared[1+i%2]), shipLine(o.cookieLine, 1, "lot_id", f1)}
				case 1: // named lots, the lower id first
					lines = []any{shipLine(o.cookieLine, 1, "lot_id", f1), shipLine(o.almondLine, 1, "lot_id", shared[1+i%2])}
				default: // picked: the first-expiring lots, ours
					lines = []any{shipLine(o.almondLine, 1), shipLine(o.cookieLine, 1)}
				}
				shipped[i] = a.post(fmt.Sprintf("/v1/sales-orders/%d/shipments", o.id), map[string]any{"lines": lines})
			})
		}
		for i := range bills {
			async(func() {
				ls := []any{
					line(almond, 1, "cost", 15, "lot_number", "SHARED-A2", "expiration_date", exp),
					line(cookies, 1, "cost", 5, "lot_number", "SHARED-F1", "expiration_date", exp),
					line(almond, 1, "cost", 14, "lot_number", "SHARED-A1", "expiration_date", exp),
				}
				if i%2 == 1 {
					ls[0], ls[2] = ls[2], ls[0]
				}
				billed[i] = a.post("/v1/bills", map[string]any{"supplier_id": sup, "bill_date": "2026-11-20", "lines": ls})
			})
		}
		for i := range corrections {
			async(func() {
				patched[i] = a.patch(path("/v1/product-lots", shared[i%3]), map[string]any{"quantity_base": initial + i})
			})
		}
		for i, id := range runs {
			async(func() {
				// As `larder production complete --consume` does.
				finished[i] = ent.RunInTx(ctx, a.st.Client, func(tx *ent.Tx) error {
					_, err := manufacturing.Complete(ctx, tx, id, manufacturing.Completion{Consume: []manufacturing.Consumption{
						{LotID: a2, QuantityBase: decimal.NewFromInt(1)}, {LotID: a1, QuantityBase: decimal.NewFromInt(1)},
					}}, time.Now())
					return err
				})
			})
		}
		for i := range renames {
			async(func() {
				// As a catalog import does; the product's name is copied onto
				// its lots, so a rename writes them.
				renamed[i] = ent.RunInTx(ctx, a.st.Client, func(tx *ent.Tx) error {
					return tx.Product.UpdateOneID(almond).SetName(fmt.Sprint("Almonds, sliced ", i)).Exec(ctx)
				})
			})
		}
		began := time.Now()
		close(start)
		wg.Wait()
		t.Logf("%d writes in %v", shipments+bills+corrections+completions+renames, time.Since(began).Round(time.Millisecond))

		fail := func(format string, args ...any) {
			mu.Lock()
			defer mu.Unlock()
			failures = append(failures, fmt.Sprintf(format, args...))
		}
		for i, r := range shipped {
			if r.Status != http.StatusCreated {
				fail("shipment %d: %d %s", i, r.Status, r.Body)
			}
		}
		for i, r := range billed {
			if r.Status != http.StatusCreated {
				fail("bill %d: %d %s", i, r.Status, r.Body)
			}
		}
		for i, r := range patched {
			if r.Status != http.StatusOK {
				fail("correction %d: %d %s", i, r.Status, r.Body)
			}
		}
		for i, err := range renamed {
			if err != nil {
				fail("rename %d: %v", i, err)
			}
		}
		for i, err := range finished {
			if err != nil {
				fail("completion %d: %v", i, err)
			}
		}
		if len(failures) > 0 {
			t.Fatalf("%d of %d writes failed:\n%v", len(failures), shipments+bills+corrections+completions+renames, failures)
		}

		// What the acknowledged writes moved: per document, per lot (per
		// product for a picked shipment line).
		type key struct {
			doc     string
			id, lot int
		}
		want := map[key]decimal.Decimal{}
		one := decimal.NewFromInt(1)
		for i, r := range shipped {
			id := r.ID()
			if i%3 == 2 {
				want[key{"shipment", id, -almond}] = one.Neg()
				want[key{"shipment", id, -cookies}] = one.Neg()
				continue
			}
			want[key{"shipment", id, shared[1+i%2]}] = one.Neg()
			want[key{"shipment", id, f1}] = one.Neg()
		}
		for _, r := range billed {
			d := r.Data()
			for _, l := range d["lines"].([]any) {
				l := l.(map[string]any)
				k := key{"bill", int(d["id"].(float64)), int(l["lot_id"].(float64))}
				want[k] = want[k].Add(decimal.NewFromFloat(l["quantity_base"].(float64)))
			}
		}
		p, err := a.st.Client.Product.Get(ctx, cookies)
		if err != nil {
			t.Fatal(err)
		}
		output := one.Mul(units.PerInventoryUnit(p))
		for _, id := range runs {
			want[key{"production", id, a1}] = one.Neg()
			want[key{"production", id, a2}] = one.Neg()
			want[key{"production", id, f1}] = output
		}
		ms, err := a.st.Client.StockMovement.Query().Where(stockmovement.IDGT(lastMovement)).All(ctx)
		if err != nil {
			t.Fatal(err)
		}
		lots, err := a.st.Client.ProductLot.Query().All(ctx)
		if err != nil {
			t.Fatal(err)
		}
		productOf := map[int]int{}
		for _, l := range lots {
			productOf[l.ID] = l.ProductID
		}
		got := map[key]decimal.Decimal{}
		for _, m := range ms {
			k := key{*m.DocumentType, *m.DocumentID, m.LotID}
			if _, named := want[k]; !named && m.Type == stockmovement.TypeSHIPPING {
				k.lot = -productOf[m.LotID]
			}
			got[k] = got[k].Add(m.QuantityBase)
		}
		for k, q := range want {
			if !got[k].Equal(q) {
				t.Errorf("%s %d moved %s on %d, want %s", k.doc, k.id, got[k], k.lot, q)
			}
		}
		for k, q := range got {
			if _, ok := want[k]; !ok {
				t.Errorf("%s %d moved %s on %d, which no acknowledged write did", k.doc, k.id, q, k.lot)
			}
		}
		// Each acknowledged correction is one record, of the value it set.
		cs, err := a.st.Client.LotCorrection.Query().Where(lotcorrection.LotIDIn(shared...)).All(ctx)
		if err != nil {
			t.Fatal(err)
		}
		set := map[int]bool{}
		for _, c := range cs {
			set[int(c.QuantityAfter.IntPart())] = true
		}
		if len(cs) != corrections || len(set) != corrections {
			t.Errorf("%d corrections recorded (%d values), want %d", len(cs), len(set), corrections)
		}
		// And every lot holds what its movements and corrections add up to.
		checkStockLedger(t, a)
		if n, err := a.st.Client.ProductLot.Query().Where(productlot.IDIn(shared...), productlot.QuantityBaseLT(decimal.Zero)).Count(ctx); err != nil || n > 0 {
			t.Errorf("%d shared lots below zero (%v)", n, err)
		}
	})
}
