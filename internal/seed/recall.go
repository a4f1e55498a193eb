package seed

import (
	"context"
	"fmt"
	"time"

	"github.com/shopspring/decimal"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/customer"
	entproduct "larder.dev/larder/ent/product"
	"larder.dev/larder/ent/productionline"
	"larder.dev/larder/ent/productlot"
	"larder.dev/larder/ent/salesorder"
	"larder.dev/larder/ent/salesorderline"
	"larder.dev/larder/ent/supplier"
	"larder.dev/larder/internal/modules/manufacturing"
)

// The recall scenario: a supplier's lot of flour, received on a bill, goes
// into two completed production runs, whose output lots ship to three
// customers, one of them in part. Tracing the flour lot forward finds every
// customer to call; tracing an output lot backward finds the supplier.

// RecallLotNumber is the supplier's flour lot the scenario traces. Like
// every seeded lot number it stays the same whatever the day seeded (the
// guides name it), though the scenario's dates follow that day.
const RecallLotNumber = "RC-FLOUR-2611"

var (
	// RecallOutputLots are the lot numbers of the two runs that consumed
	// the flour lot: a run of FG-COOKIE12, then one of RC-COOKIE.
	RecallOutputLots = []string{"RC-BOX12-2611", "RC-COOKIE-2611"}
	// RecallCustomers are the companies the output lots shipped to, in the
	// order they were created (of their ids).
	RecallCustomers = []string{"Épicerie du Marché", "Northern Food Distributors", "Café Alpha"}
	// RecallSupplier is the company that delivered the flour lot.
	RecallSupplier = "Prairie Mills Ltd."
)

// recallRuns consume part of the flour lot each (grams) and make their
// output lots: 40 cases of 12 boxes of FG-COOKIE12, 10 trays of 24
// RC-COOKIE. The output lots carry no expiry: shipping refuses an expired
// lot by the clock, and the scenario ships whenever an account is created.
var recallRuns = []struct{ product, lot, flour, qty string }{
	{"FG-COOKIE12", RecallOutputLots[0], "30000", "40"},
	{"RC-COOKIE", RecallOutputLots[1], "20000", "10"},
}

// recallSales ship the output lots (by index in RecallOutputLots) to the
// customers (by index in RecallCustomers): the second order ships 12 of its
// 20 cases and stays BACK_ORDER, the rest of its lot on hand. Orders are
// dated days from the seeding day.
var recallSales = []struct {
	customer, lot int
	date          int
	to            salesorder.Status
	lines         []saleLine
}{
	{0, 0, -12, salesorder.StatusSHIPPED, []saleLine{
		{code: "FG-COOKIE12", qty: "10", unit: salesorderline.UomTypeINVENTORY_UNIT, price: "51.00", ship: "120"},
	}},
	{1, 0, -12, salesorder.StatusBACK_ORDER, []saleLine{
		{code: "FG-COOKIE12", qty: "20", unit: salesorderline.UomTypeINVENTORY_UNIT, price: "48.50", ship: "144"},
	}},
	{2, 1, -11, salesorder.StatusSHIPPED, []saleLine{
		{code: "RC-COOKIE", qty: "5", unit: salesorderline.UomTypeINVENTORY_UNIT, price: "28.80", ship: "120"},
	}},
}

// seedRecall records the recall scenario through the purchasing,
// manufacturing and sales workflows, so its lots, movements and documents
// are the ones the API and the floor would have written.
func seedRecall(ctx context.Context, tx *ent.Tx, cal calendar) error {
	mill, err := tx.Supplier.Query().Where(supplier.Company(RecallSupplier)).Only(ctx)
	if err != nil {
		return fmt.Errorf("supplier %s: %w", RecallSupplier, err)
	}
	_, err = seedBill(ctx, tx, cal, *mill.SupplierCode, -14, "PM-77310", "", false, []orderLine{
		{code: "RM-FLOUR", qty: "12", cost: "21.75", lot: RecallLotNumber, site: "MAIN", area: "STORAGE", expires: 351},
	})
	if err != nil {
		return fmt.Errorf("bill of %s: %w", RecallLotNumber, err)
	}
	flour, err := tx.ProductLot.Query().Where(productlot.LotNumber(RecallLotNumber)).Only(ctx)
	if err != nil {
		return fmt.Errorf("lot %s: %w", RecallLotNumber, err)
	}
	line, err := tx.ProductionLine.Query().Where(productionline.Name("Cookie line")).OnlyID(ctx)
	if err != nil {
		return fmt.Errorf("cookie line: %w", err)
	}
	start := cal.at(-13, 6)
	outputs := make([]int, len(recallRuns))
	for i, r := range recallRuns {
		pid, err := tx.Product.Query().Where(entproduct.ProductCode(r.product)).OnlyID(ctx)
		if err != nil {
			return fmt.Errorf("%s: %w", r.product, err)
		}
		q, flourQty := decimal.RequireFromString(r.qty), decimal.RequireFromString(r.flour)
		run, err := manufacturing.Create(ctx, tx, manufacturing.Plan{
			ProductID: pid, LineID: &line, Quantity: &q, LotNumber: &r.lot,
			Steps: []manufacturing.Step{{ProductID: flour.ProductID, QuantityBase: flourQty}},
		})
		if err != nil {
			return fmt.Errorf("run %s: %w", r.lot, err)
		}
		at := start.Add(time.Duration(i) * 4 * time.Hour)
		if _, err := manufacturing.Start(ctx, tx, run.ID, at); err != nil {
			return fmt.Errorf("start run %s: %w", r.lot, err)
		}
		c := manufacturing.Completion{Consume: []manufacturing.Consumption{{LotID: flour.ID, QuantityBase: flourQty}}}
		if _, err := manufacturing.Complete(ctx, tx, run.ID, c, at.Add(3*time.Hour)); err != nil {
			return fmt.Errorf("complete run %s: %w", r.lot, err)
		}
		if outputs[i], err = tx.ProductLot.Query().Where(productlot.LotNumber(r.lot)).OnlyID(ctx); err != nil {
			return fmt.Errorf("lot %s: %w", r.lot, err)
		}
	}
	for _, s := range recallSales {
		name := RecallCustomers[s.customer]
		cust, err := tx.Customer.Query().Where(customer.Company(name)).OnlyID(ctx)
		if err != nil {
			return fmt.Errorf("customer %s: %w", name, err)
		}
		if err := seedSale(ctx, tx, cal, cust, s.date, s.to, s.lines, outputs[s.lot]); err != nil {
			return fmt.Errorf("order of %s: %w", name, err)
		}
	}
	return nil
}
