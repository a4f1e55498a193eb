package seed

import (
	"context"
	"fmt"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/customer"
	"larder.dev/larder/ent/productlot"
	"larder.dev/larder/ent/salesorder"
	"larder.dev/larder/ent/salesorderline"
	"larder.dev/larder/internal/modules/sales"
)

// saleLine is a seeded sales order line: a quantity of a product in one of
// its units, at a price and discount; ship is what the order's shipment takes of it, in
// base units, from lot.
type saleLine struct {
	code, qty string
	unit      salesorderline.UomType
	price     string
	discount  string
	ship      string
}

// seededSales are sales orders in every status, with lines in every unit;
// the shipped ones ship from the released granola bar lot BR-2611-02 and are
// invoiced, and the invoice of the closed one is cancelled. Orders are dated
// days from the seeding day.
var seededSales = []struct {
	customer string
	date     int
	to       salesorder.Status
	lines    []saleLine
}{
	{"EPI-QC", -2, salesorder.StatusOPEN, []saleLine{
		{code: "FG-BAR6", qty: "2", unit: salesorderline.UomTypeINVENTORY_UNIT, price: "89.00"},
		{code: "FG-COOKIE12", qty: "24", unit: salesorderline.UomTypeBASE_UOM, price: "4.25"},
		{code: "FG-BAR6", qty: "6", unit: salesorderline.UomTypePACKAGING_SIZE, price: "4.10"},
	}},
	{"NORTHDIST", -3, salesorder.StatusPREPARING, []saleLine{
		{code: "FG-BAR6", qty: "10", unit: salesorderline.UomTypeINVENTORY_UNIT, price: "84.50"},
	}},
	{"CAFE-ALPHA", -8, salesorder.StatusBACK_ORDER, []saleLine{
		{code: "FG-BAR6", qty: "5", unit: salesorderline.UomTypeINVENTORY_UNIT, price: "89.00", ship: "48"},
	}},
	{"NORTHDIST", -15, salesorder.StatusSHIPPED, []saleLine{
		{code: "FG-BAR6", qty: "4", unit: salesorderline.UomTypeINVENTORY_UNIT, price: "84.50", discount: "5", ship: "96"},
	}},
	{"US-GOURMET", -23, salesorder.StatusCLOSE, []saleLine{
		{code: "FG-BAR6", qty: "48", unit: salesorderline.UomTypePACKAGING_SIZE, price: "3.95", ship: "48"},
	}},
	{"EPI-QC", -18, salesorder.StatusCANCELLED, []saleLine{
		{code: "FG-COOKIE12", qty: "12", unit: salesorderline.UomTypeBASE_UOM, price: "4.25"},
	}},
}

// seedSalesOrders records the orders above through the sales workflows: the
// order, its moves, its shipment with lots, movements and invoice.
func seedSalesOrders(ctx context.Context, tx *ent.Tx, cal calendar) error {
	lot, err := tx.ProductLot.Query().Where(productlot.LotNumber("BR-2611-02")).OnlyID(ctx)
	if err != nil {
		return fmt.Errorf("lot BR-2611-02: %w", err)
	}
	for _, s := range seededSales {
		cust, err := tx.Customer.Query().Where(customer.CustomerCode(s.customer)).OnlyID(ctx)
		if err != nil {
			return fmt.Errorf("customer %s: %w", s.customer, err)
		}
		if err := seedSale(ctx, tx, cal, cust, s.date, s.to, s.lines, lot); err != nil {
			return fmt.Errorf("order of %s to %s: %w", s.customer, s.to, err)
		}
	}
	return nil
}

// seedSale records one order of the customer cust, dated day (days from the
// seeding day), through the sales workflows and takes it to status to, its
// shipment taking from lot.
func seedSale(ctx context.Context, tx *ent.Tx, cal calendar, cust int, day int, to salesorder.Status, saleLines []saleLine, lot int) error {
	r := seedRefs{ctx, tx}
	lines := make([]*ent.SalesOrderLineCreate, len(saleLines))
	for i, l := range saleLines {
		pid, err := r.product(l.code)
		if err != nil {
			return fmt.Errorf("product %s: %w", l.code, err)
		}
		lines[i] = tx.SalesOrderLine.Create().SetProductID(pid).SetOrderQty(*dec(l.qty)).SetUomType(l.unit).SetNillablePrice(dec(l.price)).SetNillableDiscountRate(dec(l.discount))
	}
	b := tx.SalesOrder.Create().SetCustomerID(cust).SetOrderDate(cal.day(day))
	if err := sales.PrepareOrder(ctx, tx, b.Mutation(), lines, nil); err != nil {
		return err
	}
	o, err := b.Save(ctx)
	if err != nil {
		return err
	}
	for _, l := range lines {
		l.SetSalesOrderID(o.ID)
	}
	rows, err := tx.SalesOrderLine.CreateBulk(lines...).Save(ctx)
	if err != nil {
		return err
	}
	return seedMoves(ctx, tx, cal, o, to, rows, saleLines, lot)
}

// seedMoves takes an order where it is seeded: a shipment of what its lines
// ship, then the move left, if any: a closed order's invoice is cancelled on
// the seeding day.
func seedMoves(ctx context.Context, tx *ent.Tx, cal calendar, o *ent.SalesOrder, to salesorder.Status, rows []*ent.SalesOrderLine, lines []saleLine, lot int) error {
	var err error
	switch to {
	case salesorder.StatusPREPARING:
		_, err = sales.ChangeOrderStatus(ctx, tx, o.ID, to)
	case salesorder.StatusCANCELLED:
		_, err = sales.CancelOrder(ctx, tx, o.ID)
	case salesorder.StatusBACK_ORDER, salesorder.StatusSHIPPED, salesorder.StatusCLOSE:
		var inv int
		if inv, err = seedShipment(ctx, tx, o, rows, lines, lot); err != nil {
			return err
		}
		if to == salesorder.StatusCLOSE {
			if _, err = sales.ChangeOrderStatus(ctx, tx, o.ID, to); err == nil {
				_, err = sales.CancelInvoiceOn(ctx, tx, inv, cal.day(0))
			}
		}
	}
	return err
}

// shipAfter is the days between a seeded order and its shipment.
const shipAfter = 7

// seedShipment ships what the lines say from lot, a week after the order,
// picking the lots sellable on that day, and returns the invoice.
func seedShipment(ctx context.Context, tx *ent.Tx, o *ent.SalesOrder, rows []*ent.SalesOrderLine, lines []saleLine, lot int) (int, error) {
	shipped := o.OrderDate.AddDate(0, 0, shipAfter)
	var sl []*ent.ShipmentLineCreate
	for i, l := range lines {
		if l.ship != "" {
			sl = append(sl, tx.ShipmentLine.Create().SetSalesOrderLineID(rows[i].ID).SetQuantityBase(*dec(l.ship)).SetLotID(lot))
		}
	}
	b := tx.Shipment.Create().SetSalesOrderID(o.ID).SetShipDate(shipped)
	prepared, err := sales.PrepareShipmentAt(ctx, tx, b.Mutation(), sl, shipped)
	if err != nil {
		return 0, err
	}
	s, err := b.Save(ctx)
	if err != nil {
		return 0, err
	}
	for _, l := range sl {
		l.SetShipmentID(s.ID)
	}
	srows, err := tx.ShipmentLine.CreateBulk(sl...).Save(ctx)
	if err != nil {
		return 0, err
	}
	if err := sales.Ship(ctx, tx, s, srows, prepared); err != nil {
		return 0, err
	}
	s, err = tx.Shipment.Get(ctx, s.ID)
	if err != nil {
		return 0, err
	}
	return *s.InvoiceID, nil
}
