package sales

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/shopspring/decimal"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/invoice"
	"larder.dev/larder/ent/invoiceline"
	"larder.dev/larder/ent/productlot"
	"larder.dev/larder/ent/salesorder"
	"larder.dev/larder/ent/salesorderline"
	"larder.dev/larder/ent/stockmovement"
	"larder.dev/larder/hooks"
	"larder.dev/larder/internal/identity/tenancy"
	"larder.dev/larder/internal/modules/inventory"
	"larder.dev/larder/internal/modules/units"
	"larder.dev/larder/internal/platform/problem"
)

// shippable are the statuses an order ships from.
var shippable = []salesorder.Status{salesorder.StatusOPEN, salesorder.StatusPREPARING, salesorder.StatusBACK_ORDER}

// lockOrder reads a shipment's order and its lines, the order's row locked,
// so that two shipments of one order run one after the other. It is the one
// row a shipment locks before its lots: no writer locks a sales order while
// it holds a lot.
func lockOrder(ctx context.Context, tx *ent.Tx, id int) (*ent.SalesOrder, map[int]*ent.SalesOrderLine, error) {
	o, err := tx.SalesOrder.Query().Where(salesorder.ID(id)).Modify(hooks.ForUpdate).Only(ctx)
	if err != nil {
		return nil, nil, err
	}
	ls, err := tx.SalesOrderLine.Query().Where(salesorderline.SalesOrderID(id)).Order(salesorderline.ByID()).All(ctx)
	if err != nil {
		return nil, nil, err
	}
	byID := make(map[int]*ent.SalesOrderLine, len(ls))
	for _, l := range ls {
		byID[l.ID] = l
	}
	return o, byID, nil
}

func orZero(d *decimal.Decimal) decimal.Decimal {
	if d == nil {
		return decimal.Zero
	}
	return *d
}

// Shipping is what PrepareShipment read, locked and decided for Ship: the
// order and its lines, and the lots each shipment line takes from.
type Shipping struct {
	order *ent.SalesOrder
	lines map[int]*ent.SalesOrderLine
	picks [][]inventory.Take
}

// ShipmentFlow is the shipment's workflow: the generated handler of POST
// /sales-orders/{id}/shipments calls its steps, Ship with what
// PrepareShipment decided.
var ShipmentFlow = ent.ShipmentFlow[*Shipping]{Prepare: PrepareShipment, Record: Ship}

// PrepareShipment checks a shipment before it is saved: the order ships (it
// is OPEN, PREPARING or BACK_ORDER; 409 INVALID_STATE otherwise), each line
// names a line of this order (400), and no order line ships more than it has
// left to ship (400 naming the line that goes over). An omitted ship date is
// today. It then decides which lots each line takes from: its named lot, or
// its product's sellable lots, first-expiring first (409 LOT_NOT_SELLABLE for
// a named lot that cannot ship, 409 INSUFFICIENT_STOCK when stock is short).
// The lots are locked as they are read, in id order (inventory.Pick), before
// the shipment's lines reference them, so concurrent shipments never take
// the same stock twice and never deadlock; Ship takes what it decided.
func PrepareShipment(ctx context.Context, tx *ent.Tx, m *ent.ShipmentMutation, lines []*ent.ShipmentLineCreate) (*Shipping, error) {
	return PrepareShipmentAt(ctx, tx, m, lines, time.Now())
}

// PrepareShipmentAt is PrepareShipment as of now: an omitted ship date is
// now's day, and the lots are sellable at now. The seed ships its orders on
// their own dates.
func PrepareShipmentAt(ctx context.Context, tx *ent.Tx, m *ent.ShipmentMutation, lines []*ent.ShipmentLineCreate, now time.Time) (*Shipping, error) {
	orderID, _ := m.SalesOrderID()
	o, orderLines, err := lockOrder(ctx, tx, orderID)
	if err != nil {
		return nil, err
	}
	if !slices.Contains(shippable, o.Status) {
		return nil, problem.Conflict(problem.InvalidState, "", fmt.Sprintf("A %s sales order does not ship; only OPEN, PREPARING and BACK_ORDER orders do.", o.Status))
	}
	asked := map[int]decimal.Decimal{}
	draws := make([]inventory.Draw, len(lines))
	of := make([]int, len(lines)) // line → its order line
	for i, b := range lines {
		l := b.Mutation()
		id, _ := l.SalesOrderLineID()
		ol, ok := orderLines[id]
		if !ok {
			return nil, problem.Invalidf(fmt.Sprintf("lines[%d].sales_order_line_id", i), "must name a line of this sales order (%d is not one)", id)
		}
		q, _ := l.QuantityBase()
		asked[id] = asked[id].Add(q)
		left := orZero(ol.OrderQtyBase).Sub(orZero(ol.ShippedQtyBase)).Sub(orZero(ol.CancelledQtyBase))
		if asked[id].GreaterThan(left) {
			return nil, problem.Invalidf(fmt.Sprintf("lines[%d].quantity_base", i), "ships more of line %d than it has left to ship (%s base units)", id, left)
		}
		draws[i] = inventory.Draw{Product: ol.ProductID, Quantity: q}
		if lot, ok := l.LotID(); ok {
			draws[i].Lot = lot
		}
		of[i] = id
	}
	if _, ok := m.ShipDate(); !ok {
		m.SetShipDate(dayOf(now))
	}
	picks, err := pickLots(ctx, tx, draws, of, now)
	if err != nil {
		return nil, err
	}
	return &Shipping{order: o, lines: orderLines, picks: picks}, nil
}

// Ship records a saved shipment with what PrepareShipment decided: it lowers
// the lots picked, with one SHIPPING movement per lot taken; adds the
// quantities to the order lines; makes the invoice; and moves the order to
// SHIPPED when every line is shipped or cancelled, else to BACK_ORDER.
func Ship(ctx context.Context, tx *ent.Tx, s *ent.Shipment, rows []*ent.ShipmentLine, p *Shipping) error {
	o, orderLines := p.order, p.lines
	if err := takeStock(ctx, tx, s, p.picks); err != nil {
		return err
	}
	shipped := map[int]decimal.Decimal{} // order line → what this shipment ships
	var order []int
	for _, r := range rows {
		if _, ok := shipped[r.SalesOrderLineID]; !ok {
			order = append(order, r.SalesOrderLineID)
		}
		shipped[r.SalesOrderLineID] = shipped[r.SalesOrderLineID].Add(orZero(r.QuantityBase))
	}
	slices.Sort(order)
	totals := make(map[int]decimal.Decimal, len(order))
	for _, id := range order {
		totals[id] = orZero(orderLines[id].ShippedQtyBase).Add(shipped[id])
	}
	err := tx.SalesOrderLine.Update().
		Where(salesorderline.IDIn(order...)).
		Modify(hooks.SetEach(salesorderline.FieldShippedQtyBase, order, totals)).
		Exec(hooks.WritingLines(ctx, ent.TypeSalesOrderLine))
	if err != nil {
		return fmt.Errorf("ship: order lines: %w", err)
	}
	inv, err := invoiceShipment(ctx, tx, o, s, orderLines, order, shipped)
	if err != nil {
		return err
	}
	if err := tx.Shipment.UpdateOneID(s.ID).SetInvoiceID(inv.ID).Exec(ctx); err != nil {
		return err
	}
	done := true
	for id, l := range orderLines {
		got := orZero(l.ShippedQtyBase).Add(shipped[id]).Add(orZero(l.CancelledQtyBase))
		if got.LessThan(orZero(l.OrderQtyBase)) {
			done = false
		}
	}
	u := tx.SalesOrder.UpdateOneID(o.ID).SetNillableShipDate(s.ShipDate).SetNillableTrackingNumber(s.TrackingNumber)
	action := "updated"
	switch {
	case done:
		u.SetStatus(salesorder.StatusSHIPPED)
		action = "shipped"
	case o.Status != salesorder.StatusBACK_ORDER:
		u.SetStatus(salesorder.StatusBACK_ORDER)
	}
	return u.Exec(hooks.EmitAs(ctx, action))
}

// pickLots decides, line by line in body order, which lots each line's
// quantity comes from (inventory.Pick), and words a refusal for the line;
// of names each line's order line.
func pickLots(ctx context.Context, tx *ent.Tx, draws []inventory.Draw, of []int, now time.Time) ([][]inventory.Take, error) {
	takes, err := inventory.Pick(ctx, tx, draws, nil, now)
	r, ok := err.(*inventory.Refusal)
	if !ok {
		return takes, err
	}
	d := draws[r.Draw]
	at := fmt.Sprintf("lines[%d].lot_id", r.Draw)
	switch {
	case r.Kind == inventory.LotMissing: // the builder checked it: gone meanwhile
		return nil, problem.Invalidf(at, "must name an existing product lot (%d was not found)", d.Lot)
	case r.Kind == inventory.LotOfOther:
		return nil, problem.Invalidf(at, "is a lot of product %d; order line %d is product %d", r.Lot.ProductID, of[r.Draw], d.Product)
	case r.Kind == inventory.LotNotSellable:
		return nil, problem.Conflict(problem.LotNotSellable, at, fmt.Sprintf("Lot %d cannot ship: it is %s.", d.Lot, r.Why))
	case d.Lot != 0:
		return nil, problem.Conflict(problem.InsufficientStock, fmt.Sprintf("lines[%d].quantity_base", r.Draw), fmt.Sprintf(
			"Lot %d holds %s base units; the line ships %s.", d.Lot, r.Left, d.Quantity))
	}
	return nil, problem.Conflict(problem.InsufficientStock, fmt.Sprintf("lines[%d].quantity_base", r.Draw), fmt.Sprintf(
		"Product %d's sellable lots are %s base units short of what the line ships (%s).", d.Product, d.Quantity.Sub(r.Left), d.Quantity))
}

// takeStock lowers the lots picked, in one statement, with one SHIPPING
// movement per lot and line, in one statement.
func takeStock(ctx context.Context, tx *ent.Tx, s *ent.Shipment, picks [][]inventory.Take) error {
	after := map[int]decimal.Decimal{}
	lots := map[int]*ent.ProductLot{}
	var ids []int
	mv := hooks.Movement{Type: stockmovement.TypeSHIPPING, DocumentType: "shipment", DocumentID: s.ID}
	var ms []*ent.StockMovementCreate
	for _, ps := range picks {
		for _, p := range ps {
			if _, ok := after[p.Lot.ID]; !ok {
				after[p.Lot.ID] = p.Lot.QuantityBase
				lots[p.Lot.ID] = p.Lot
				ids = append(ids, p.Lot.ID)
			}
			after[p.Lot.ID] = after[p.Lot.ID].Sub(p.Quantity)
			ms = append(ms, hooks.NewMovement(ctx, tx.Client(), s.AccountID, p.Lot.ID, p.Lot.LocationID, mv, p.Quantity.Neg()))
		}
	}
	slices.Sort(ids)
	err := tx.ProductLot.Update().
		Where(productlot.IDIn(ids...)).
		Modify(hooks.SetEach(productlot.FieldQuantityBase, ids, after)).
		Exec(hooks.WithBulkStock(ctx))
	if err != nil {
		return fmt.Errorf("ship: lots: %w", err)
	}
	// The movements name the lots just locked and lowered.
	return tx.StockMovement.CreateBulk(ms...).Exec(hooks.CheckedReferences(ctx, ent.TypeStockMovement))
}

// invoiceShipment makes the invoice of what a shipment shipped: the order's
// customer, addresses, dates and tax rates, and per order line shipped its
// product, price, discount and taxes, the quantity in base units and in the
// line's unit.
func invoiceShipment(ctx context.Context, tx *ent.Tx, o *ent.SalesOrder, s *ent.Shipment, orderLines map[int]*ent.SalesOrderLine, ids []int, shipped map[int]decimal.Decimal) (*ent.Invoice, error) {
	currency, err := tenancy.CurrencyOf(ctx, tx.Client())
	if err != nil {
		return nil, err
	}
	var pids []int
	for _, id := range ids {
		pids = append(pids, orderLines[id].ProductID)
	}
	products, err := productsOf(ctx, tx, pids)
	if err != nil {
		return nil, err
	}
	lines := make([]*ent.InvoiceLineCreate, len(ids))
	amounts := make([]units.PricedLine, len(ids))
	tax1, tax2 := false, false
	for i, id := range ids {
		ol := orderLines[id]
		unit := string(ol.UomType)
		perUnit := units.Per(products[ol.ProductID], unit)
		q := shipped[id].DivRound(perUnit, units.Places)
		lines[i] = tx.InvoiceLine.Create().
			SetProductID(ol.ProductID).
			SetNillableProductCode(ol.ProductCode).
			SetNillableProductName(ol.ProductName).
			SetNillablePrice(ol.Price).
			SetNillableDiscountRate(ol.DiscountRate).
			SetNillableTax1(ol.Tax1).
			SetNillableTax2(ol.Tax2).
			SetShippedQtyBase(shipped[id]).
			SetShippedQty(q).
			SetUomType(invoiceUnit(ol.UomType))
		amounts[i] = units.PricedLine{Quantity: q, Price: ol.Price, DiscountRate: ol.DiscountRate}
		tax1 = tax1 || (ol.Tax1 != nil && *ol.Tax1)
		tax2 = tax2 || (ol.Tax2 != nil && *ol.Tax2)
	}
	subtotal, err := units.Subtotal(currency, amounts)
	if err != nil {
		return nil, err
	}
	inv, err := tx.Invoice.Create().
		SetCustomerID(o.CustomerID).
		SetSalesOrderID(o.ID).
		SetInvoiceDate(*s.ShipDate).
		SetNillableShipDate(s.ShipDate).
		SetNillableOrderDate(o.OrderDate).
		SetNillableCompany(o.Company).
		SetBillingAddress(o.BillingAddress).
		SetShippingAddress(o.ShippingAddress).
		SetSubtotal(subtotal).
		SetTax1(tax1).
		SetTax2(tax2).
		SetNillableTax1Rate(o.Tax1Rate).
		SetNillableTax2Rate(o.Tax2Rate).
		Save(ctx)
	if err != nil {
		return nil, fmt.Errorf("ship: invoice: %w", err)
	}
	for _, l := range lines {
		l.SetInvoiceID(inv.ID)
	}
	// The lines name the products of the order's lines.
	if err := tx.InvoiceLine.CreateBulk(lines...).Exec(hooks.CheckedReferences(ctx, ent.TypeInvoiceLine)); err != nil {
		return nil, fmt.Errorf("ship: invoice lines: %w", err)
	}
	return inv, nil
}

// invoiceUnit is an order line's unit as an invoice line keeps it.
func invoiceUnit(u salesorderline.UomType) invoiceline.UomType { return invoiceline.UomType(u) }

// CancelInvoice cancels an invoice in the web application: it is kept, with
// is_cancelled and cancelled_at, and reported as invoice.cancelled. What
// shipped stays shipped. Cancelling a cancelled invoice is 409 INVALID_STATE.
func CancelInvoice(ctx context.Context, tx *ent.Tx, id int) (*ent.Invoice, error) {
	return CancelInvoiceOn(ctx, tx, id, today())
}

// CancelInvoiceOn is CancelInvoice with cancelled_at the date day.
func CancelInvoiceOn(ctx context.Context, tx *ent.Tx, id int, day time.Time) (*ent.Invoice, error) {
	out, err := tx.Invoice.UpdateOneID(id).
		Where(invoice.IsCancelled(false)).
		SetIsCancelled(true).
		SetCancelledAt(day).
		Save(hooks.EmitAs(ctx, "cancelled"))
	if ent.IsNotFound(err) {
		if _, gone := tx.Invoice.Get(ctx, id); gone != nil {
			return nil, gone
		}
		return nil, problem.Conflict(problem.InvalidState, "", fmt.Sprintf("Invoice %d is cancelled already.", id))
	}
	return out, err
}
