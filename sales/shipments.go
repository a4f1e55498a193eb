package sales

import (
	"context"
	"fmt"
	"slices"
	"time"

	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql"
	"github.com/shopspring/decimal"

	"larder.dev/larder/bulk"
	"larder.dev/larder/ent"
	"larder.dev/larder/ent/invoice"
	"larder.dev/larder/ent/invoiceline"
	"larder.dev/larder/ent/productlot"
	"larder.dev/larder/ent/salesorder"
	"larder.dev/larder/ent/salesorderline"
	"larder.dev/larder/ent/stockmovement"
	"larder.dev/larder/hooks"
	"larder.dev/larder/money"
	"larder.dev/larder/problem"
	"larder.dev/larder/units"
)

// forUpdate locks the rows a query reads until the transaction ends
// (PostgreSQL; SQLite serialises writers already).
func forUpdate(s *sql.Selector) {
	if s.Dialect() == dialect.Postgres {
		s.ForUpdate()
	}
}

// shippable are the statuses an order ships from.
var shippable = []salesorder.Status{salesorder.StatusOPEN, salesorder.StatusPREPARING, salesorder.StatusBACK_ORDER}

// lockOrder reads a shipment's order and its lines, the order's row locked,
// so that two shipments of one order run one after the other.
func lockOrder(ctx context.Context, tx *ent.Tx, id int) (*ent.SalesOrder, map[int]*ent.SalesOrderLine, error) {
	o, err := tx.SalesOrder.Query().Where(salesorder.ID(id)).Modify(forUpdate).Only(ctx)
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

// PrepareShipment checks a shipment before it is saved: the order ships (it
// is OPEN, PREPARING or BACK_ORDER; 409 INVALID_STATE otherwise), each line
// names a line of this order (400), and no order line ships more than it has
// left to ship (400 naming the line that goes over). An omitted ship date is
// today.
func PrepareShipment(ctx context.Context, tx *ent.Tx, m *ent.ShipmentMutation, lines []*ent.ShipmentLineCreate) error {
	orderID, _ := m.SalesOrderID()
	o, orderLines, err := lockOrder(ctx, tx, orderID)
	if err != nil {
		return err
	}
	if !slices.Contains(shippable, o.Status) {
		return problem.Conflict(problem.InvalidState, "", fmt.Sprintf("A %s sales order does not ship; only OPEN, PREPARING and BACK_ORDER orders do.", o.Status))
	}
	asked := map[int]decimal.Decimal{}
	for i, b := range lines {
		l := b.Mutation()
		id, _ := l.SalesOrderLineID()
		ol, ok := orderLines[id]
		if !ok {
			return problem.Invalidf(fmt.Sprintf("lines[%d].sales_order_line_id", i), "must name a line of this sales order (%d is not one)", id)
		}
		q, _ := l.QuantityBase()
		asked[id] = asked[id].Add(q)
		left := orZero(ol.OrderQtyBase).Sub(orZero(ol.ShippedQtyBase)).Sub(orZero(ol.CancelledQtyBase))
		if asked[id].GreaterThan(left) {
			return problem.Invalidf(fmt.Sprintf("lines[%d].quantity_base", i), "ships more of line %d than it has left to ship (%s base units)", id, left)
		}
	}
	if _, ok := m.ShipDate(); !ok {
		m.SetShipDate(today())
	}
	return nil
}

// pick is a quantity taken from a lot for a shipment line.
type pick struct {
	lot      *ent.ProductLot
	quantity decimal.Decimal
}

// sellable reports whether a lot may ship at t (DECISIONS, lot picking):
// AVAILABLE, or RELEASED with no or a future release expiry; not archived,
// not expired.
func sellable(l *ent.ProductLot, t time.Time) bool {
	if l.Archived || (l.ExpirationDate != nil && !l.ExpirationDate.After(t)) {
		return false
	}
	switch l.QcStatus {
	case productlot.QcStatusAVAILABLE:
		return true
	case productlot.QcStatusRELEASED:
		return l.QcReleaseExpiresAt == nil || l.QcReleaseExpiresAt.After(t)
	}
	return false
}

// firstExpiring orders lots for picking: by expiration date, none last, then id.
func firstExpiring(a, b *ent.ProductLot) int {
	switch {
	case a.ExpirationDate == nil && b.ExpirationDate != nil:
		return 1
	case a.ExpirationDate != nil && b.ExpirationDate == nil:
		return -1
	case a.ExpirationDate != nil && !a.ExpirationDate.Equal(*b.ExpirationDate):
		return a.ExpirationDate.Compare(*b.ExpirationDate)
	}
	return a.ID - b.ID
}

// Ship records a saved shipment: it takes each line's quantity from its
// named lot or from its product's sellable lots, first-expiring first (409
// LOT_NOT_SELLABLE for a named lot that cannot ship, 409 INSUFFICIENT_STOCK
// when stock is short), with one SHIPPING movement per lot taken; adds the
// quantities to the order lines; makes the invoice; and moves the order to
// SHIPPED when every line is shipped or cancelled, else to BACK_ORDER. The
// lots are locked as they are read, in id order, so concurrent shipments
// never take the same stock twice.
func Ship(ctx context.Context, tx *ent.Tx, s *ent.Shipment, rows []*ent.ShipmentLine) error {
	o, orderLines, err := lockOrder(ctx, tx, s.SalesOrderID)
	if err != nil {
		return err
	}
	now := time.Now()
	picks, err := pickLots(ctx, tx, orderLines, rows, now)
	if err != nil {
		return err
	}
	if err := takeStock(ctx, tx, s, picks); err != nil {
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
	err = tx.SalesOrderLine.Update().
		Where(salesorderline.IDIn(order...)).
		Modify(bulk.SetEach(salesorderline.FieldShippedQtyBase, order, totals)).
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
// quantity comes from.
func pickLots(ctx context.Context, tx *ent.Tx, orderLines map[int]*ent.SalesOrderLine, rows []*ent.ShipmentLine, now time.Time) ([][]pick, error) {
	var named, products []int
	for _, r := range rows {
		if r.LotID != nil {
			named = append(named, *r.LotID)
		} else if p := orderLines[r.SalesOrderLineID].ProductID; !slices.Contains(products, p) {
			products = append(products, p)
		}
	}
	// The named lots, and the products' lots that may ship (sellable is
	// checked again below, with the release expiry).
	lots, err := tx.ProductLot.Query().
		Where(productlot.Or(
			productlot.IDIn(named...),
			productlot.And(
				productlot.ProductIDIn(products...),
				productlot.QuantityBaseGT(decimal.Zero),
				productlot.Archived(false),
				productlot.QcStatusIn(productlot.QcStatusAVAILABLE, productlot.QcStatusRELEASED),
				productlot.Or(productlot.ExpirationDateIsNil(), productlot.ExpirationDateGT(now)),
			),
		)).
		Order(productlot.ByID()).
		Modify(forUpdate).
		All(ctx)
	if err != nil {
		return nil, fmt.Errorf("ship: lots: %w", err)
	}
	left := make(map[int]decimal.Decimal, len(lots))
	byID := make(map[int]*ent.ProductLot, len(lots))
	byProduct := map[int][]*ent.ProductLot{}
	for _, l := range lots {
		left[l.ID] = l.QuantityBase
		byID[l.ID] = l
		if sellable(l, now) {
			byProduct[l.ProductID] = append(byProduct[l.ProductID], l)
		}
	}
	for _, ls := range byProduct {
		slices.SortFunc(ls, firstExpiring)
	}
	out := make([][]pick, len(rows))
	for i, r := range rows {
		need := orZero(r.QuantityBase)
		product := orderLines[r.SalesOrderLineID].ProductID
		if r.LotID != nil {
			l := byID[*r.LotID]
			at := fmt.Sprintf("lines[%d].lot_id", i)
			switch {
			case l == nil: // the builder checked it: gone meanwhile
				return nil, problem.Invalidf(at, "must name an existing product lot (%d was not found)", *r.LotID)
			case l.ProductID != product:
				return nil, problem.Invalidf(at, "is a lot of product %d; order line %d is product %d", l.ProductID, r.SalesOrderLineID, product)
			case !sellable(l, now):
				return nil, problem.Conflict(problem.LotNotSellable, at, fmt.Sprintf(
					"Lot %d cannot ship: it is %s%s.", l.ID, l.QcStatus, unsellableWhy(l, now)))
			case left[l.ID].LessThan(need):
				return nil, problem.Conflict(problem.InsufficientStock, fmt.Sprintf("lines[%d].quantity_base", i), fmt.Sprintf(
					"Lot %d holds %s base units; the line ships %s.", l.ID, left[l.ID], need))
			}
			left[l.ID] = left[l.ID].Sub(need)
			out[i] = []pick{{lot: l, quantity: need}}
			continue
		}
		for _, l := range byProduct[product] {
			if need.IsZero() {
				break
			}
			take := decimal.Min(need, left[l.ID])
			if !take.IsPositive() {
				continue
			}
			left[l.ID] = left[l.ID].Sub(take)
			need = need.Sub(take)
			out[i] = append(out[i], pick{lot: l, quantity: take})
		}
		if need.IsPositive() {
			return nil, problem.Conflict(problem.InsufficientStock, fmt.Sprintf("lines[%d].quantity_base", i), fmt.Sprintf(
				"Product %d's sellable lots are %s base units short of what the line ships (%s).", product, need, orZero(r.QuantityBase)))
		}
	}
	return out, nil
}

// unsellableWhy completes the refusal of a named lot.
func unsellableWhy(l *ent.ProductLot, now time.Time) string {
	switch {
	case l.Archived:
		return ", archived"
	case l.ExpirationDate != nil && !l.ExpirationDate.After(now):
		return ", expired " + l.ExpirationDate.UTC().Format(time.DateOnly)
	case l.QcStatus == productlot.QcStatusRELEASED:
		return ", its release expired"
	}
	return ""
}

// takeStock lowers the lots picked, in one statement, with one SHIPPING
// movement per lot and line, in one statement.
func takeStock(ctx context.Context, tx *ent.Tx, s *ent.Shipment, picks [][]pick) error {
	after := map[int]decimal.Decimal{}
	lots := map[int]*ent.ProductLot{}
	var ids []int
	mv := hooks.Movement{Type: stockmovement.TypeSHIPPING, DocumentType: "shipment", DocumentID: s.ID}
	var ms []*ent.StockMovementCreate
	for _, ps := range picks {
		for _, p := range ps {
			if _, ok := after[p.lot.ID]; !ok {
				after[p.lot.ID] = p.lot.QuantityBase
				lots[p.lot.ID] = p.lot
				ids = append(ids, p.lot.ID)
			}
			after[p.lot.ID] = after[p.lot.ID].Sub(p.quantity)
			ms = append(ms, hooks.NewMovement(ctx, tx.Client(), s.AccountID, p.lot.ID, p.lot.LocationID, mv, p.quantity.Neg()))
		}
	}
	slices.Sort(ids)
	err := tx.ProductLot.Update().
		Where(productlot.IDIn(ids...)).
		Modify(bulk.SetEach(productlot.FieldQuantityBase, ids, after)).
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
	currency, err := currencyOf(ctx, tx)
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
	amounts := make([]money.Line, len(ids))
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
		amounts[i] = money.Line{Quantity: q, Price: ol.Price, DiscountRate: ol.DiscountRate}
		tax1 = tax1 || (ol.Tax1 != nil && *ol.Tax1)
		tax2 = tax2 || (ol.Tax2 != nil && *ol.Tax2)
	}
	subtotal, err := money.Subtotal(currency, amounts)
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
	out, err := tx.Invoice.UpdateOneID(id).
		Where(invoice.IsCancelled(false)).
		SetIsCancelled(true).
		SetCancelledAt(today()).
		Save(hooks.EmitAs(ctx, "cancelled"))
	if ent.IsNotFound(err) {
		if _, gone := tx.Invoice.Get(ctx, id); gone != nil {
			return nil, gone
		}
		return nil, problem.Conflict(problem.InvalidState, "", fmt.Sprintf("Invoice %d is cancelled already.", id))
	}
	return out, err
}
