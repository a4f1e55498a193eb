// Package sales holds the workflows of sales orders, shipments and invoices
// that the generated handlers and the CLI call.
package sales

import (
	"context"
	"fmt"
	"time"

	"github.com/shopspring/decimal"

	"larder.dev/larder/client/bounds"
	"larder.dev/larder/ent"
	"larder.dev/larder/ent/customer"
	"larder.dev/larder/ent/product"
	"larder.dev/larder/ent/salesorder"
	"larder.dev/larder/ent/salesorderline"
	"larder.dev/larder/ent/taxrate"
	"larder.dev/larder/hooks"
	"larder.dev/larder/internal/identity/tenancy"
	"larder.dev/larder/internal/modules/units"
	"larder.dev/larder/internal/platform/problem"
)

// productsOf reads the products lines name, with one query.
func productsOf(ctx context.Context, tx *ent.Tx, ids []int) (map[int]*ent.Product, error) {
	ps, err := tx.Product.Query().
		Where(product.IDIn(ids...)).
		Select(hooks.ProductCopied...).
		All(ctx)
	if err != nil {
		return nil, err
	}
	out := make(map[int]*ent.Product, len(ps))
	for _, p := range ps {
		out[p.ID] = p
	}
	return out, nil
}

// SalesOrderFlow is the sales order's workflow: the generated handlers of
// /sales-orders call its steps.
var SalesOrderFlow = ent.SalesOrderFlow{Prepare: PrepareOrder, Cancel: CancelOrder, Status: ChangeOrderStatus}

// PrepareOrder completes a sales order before it is saved. On creation it
// copies the customer's name, its address as the billing address unless the
// body gives one (and the billing address as the shipping address unless
// the body gives one), and its tax rate's two rates. When lines are given it
// copies each product's code and name, converts order_qty to base units per
// uom_type, keeps what a kept line shipped (refusing to remove a line that
// shipped or to order less than it shipped), and computes the subtotal and
// whether each tax applies. products are the lines' products as their
// reference check read them, or nil to read them here.
func PrepareOrder(ctx context.Context, tx *ent.Tx, m *ent.SalesOrderMutation, lines []*ent.SalesOrderLineCreate, products map[int]*ent.Product) error {
	if m.Op().Is(ent.OpCreate) {
		if err := copyCustomer(ctx, tx, m); err != nil {
			return err
		}
	}
	if lines == nil {
		return nil
	}
	currency, err := tenancy.CurrencyOf(ctx, tx.Client())
	if err != nil {
		return err
	}
	if products == nil {
		var ids []int
		for _, b := range lines {
			id, _ := b.Mutation().ProductID()
			ids = append(ids, id)
		}
		if products, err = productsOf(ctx, tx, ids); err != nil {
			return err
		}
	}
	shipped := map[int]*ent.SalesOrderLine{}
	if id, ok := m.ID(); ok {
		if shipped, err = keptLines(ctx, tx, id, lines); err != nil {
			return err
		}
	}
	amounts := make([]units.PricedLine, len(lines))
	tax1, tax2 := false, false
	var conv units.Converter
	for i, b := range lines {
		l := b.Mutation()
		pid, _ := l.ProductID()
		p, ok := products[pid]
		if !ok { // the builder checked every reference
			return fmt.Errorf("sales: product %d vanished", pid)
		}
		if p.ProductCode != nil {
			l.SetProductCode(*p.ProductCode)
		}
		if p.Name != nil {
			l.SetProductName(*p.Name)
		}
		q, _ := l.OrderQty()
		unit, _ := l.UomType()
		if unit == "" {
			unit = salesorderline.DefaultUomType
		}
		qb, err := conv.ToBase(p, string(unit), q, i, "order_qty")
		if err != nil {
			return err
		}
		l.SetOrderQtyBase(qb)
		l.SetShippedQtyBase(decimal.Zero)
		if id, ok := l.ID(); ok {
			if old := shipped[id]; old != nil {
				if err := keepShipped(i, l, old, qb); err != nil {
					return err
				}
			}
		}
		price, hasPrice := l.Price()
		var pp *decimal.Decimal
		if hasPrice {
			pp = &price
		}
		disc, hasDisc := l.DiscountRate()
		var dp *decimal.Decimal
		if hasDisc {
			dp = &disc
		}
		amounts[i] = units.PricedLine{Quantity: q, Price: pp, DiscountRate: dp}
		if t, _ := l.Tax1(); t {
			tax1 = true
		}
		if t, _ := l.Tax2(); t {
			tax2 = true
		}
	}
	subtotal, err := units.Subtotal(currency, amounts)
	if err != nil {
		return err
	}
	if !bounds.Storable(subtotal) {
		return problem.Invalidf("lines", "add up to a subtotal of %s, beyond the largest amount kept (below 10^%d)", subtotal, bounds.MagnitudeExp)
	}
	m.SetSubtotal(subtotal)
	m.SetTax1(tax1)
	m.SetTax2(tax2)
	return nil
}

// copyCustomer fills a new order from its customer.
func copyCustomer(ctx context.Context, tx *ent.Tx, m *ent.SalesOrderMutation) error {
	id, _ := m.CustomerID()
	// The reference check of customer_id read it (annotate.CheckReads),
	// unless it ran outside a transaction.
	c, ok := ent.CheckedRow[*ent.Customer](m, customer.Table, id)
	if !ok {
		var err error
		c, err = tx.Customer.Query().Where(customer.ID(id)).Select(hooks.CustomerCopied...).Only(ctx)
		if ent.IsNotFound(err) {
			return problem.Invalidf("customer_id", "must name an existing customer (%d was not found)", id)
		}
		if err != nil {
			return fmt.Errorf("sales: customer: %w", err)
		}
	}
	var rate *ent.TaxRate
	if c.TaxRateID != nil {
		var err error
		rate, err = tx.TaxRate.Query().Where(taxrate.ID(*c.TaxRateID)).Select(taxrate.FieldTaxRate1, taxrate.FieldTaxRate2).Only(ctx)
		if err != nil && !ent.IsNotFound(err) { // one the caller cannot see has no rates to copy
			return fmt.Errorf("sales: customer's tax rate: %w", err)
		}
	}
	if c.Company != nil {
		m.SetCompany(*c.Company)
	}
	billing, given := m.BillingAddress()
	if !given {
		billing = c.Address
		m.SetBillingAddress(billing)
	}
	if _, given := m.ShippingAddress(); !given {
		m.SetShippingAddress(billing)
	}
	if t := rate; t != nil {
		if t.TaxRate1 != nil {
			m.SetTax1Rate(*t.TaxRate1)
		}
		if t.TaxRate2 != nil {
			m.SetTax2Rate(*t.TaxRate2)
		}
	}
	return nil
}

// keptLines reads the order's lines that have shipped, refusing a body that
// leaves one of them out: a line that shipped stays on its order.
func keptLines(ctx context.Context, tx *ent.Tx, order int, lines []*ent.SalesOrderLineCreate) (map[int]*ent.SalesOrderLine, error) {
	old, err := tx.SalesOrderLine.Query().
		Where(salesorderline.SalesOrderID(order), salesorderline.ShippedQtyBaseGT(decimal.Zero)).
		All(ctx)
	if err != nil {
		return nil, err
	}
	byID := make(map[int]*ent.SalesOrderLine, len(old))
	for _, l := range old {
		byID[l.ID] = l
	}
	kept := map[int]bool{}
	for _, b := range lines {
		if id, ok := b.Mutation().ID(); ok {
			kept[id] = true
		}
	}
	for _, l := range old {
		if !kept[l.ID] {
			return nil, problem.Conflict(problem.InvalidState, "lines", fmt.Sprintf(
				"Line %d has shipped %s base units and cannot be removed; keep it by its id.", l.ID, l.ShippedQtyBase))
		}
	}
	return byID, nil
}

// keepShipped carries what a kept line shipped over to its new values: the
// product cannot change, and the order cannot fall below what shipped.
func keepShipped(i int, l *ent.SalesOrderLineMutation, old *ent.SalesOrderLine, orderBase decimal.Decimal) error {
	if pid, _ := l.ProductID(); pid != old.ProductID {
		return problem.Conflict(problem.InvalidState, fmt.Sprintf("lines[%d].product_id", i),
			fmt.Sprintf("Line %d has shipped product %d; its product cannot change.", old.ID, old.ProductID))
	}
	if old.ShippedQtyBase != nil {
		if orderBase.LessThan(*old.ShippedQtyBase) {
			return problem.Conflict(problem.InvalidState, fmt.Sprintf("lines[%d].order_qty", i),
				fmt.Sprintf("Line %d has shipped %s base units; it cannot order fewer (%s).", old.ID, old.ShippedQtyBase, orderBase))
		}
		l.SetShippedQtyBase(*old.ShippedQtyBase)
	}
	if old.CancelledQtyBase != nil {
		l.SetCancelledQtyBase(*old.CancelledQtyBase)
	}
	return nil
}

// today is the current UTC date, as date fields keep it (midnight UTC).
func today() time.Time { return dayOf(time.Now()) }

// dayOf is t's UTC date, as date fields keep it (midnight UTC).
func dayOf(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// CancelOrder cancels an OPEN, BACK_ORDER or PREPARING order (the state
// machine refuses the others with 409 INVALID_STATE): what each line has not
// shipped is written off as its cancelled_qty_base. Reported as
// sales_order.cancelled.
func CancelOrder(ctx context.Context, tx *ent.Tx, id int) (*ent.SalesOrder, error) {
	o, err := tx.SalesOrder.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	out, err := tx.SalesOrder.UpdateOneID(id).
		Where(salesorder.StatusEQ(o.Status)).
		SetStatus(salesorder.StatusCANCELLED).
		Save(hooks.EmitAs(ctx, "cancelled"))
	if ent.IsNotFound(err) {
		return nil, problem.Conflict(problem.InvalidState, "status", "The sales order's status changed meanwhile; try again.")
	}
	if err != nil {
		return nil, err
	}
	lines, err := tx.SalesOrderLine.Query().Where(salesorderline.SalesOrderID(id)).All(ctx)
	if err != nil {
		return nil, err
	}
	ids := make([]int, len(lines))
	off := make(map[int]decimal.Decimal, len(lines))
	for i, l := range lines {
		ids[i] = l.ID
		left := decimal.Zero
		if l.OrderQtyBase != nil {
			left = *l.OrderQtyBase
		}
		if l.ShippedQtyBase != nil {
			left = left.Sub(*l.ShippedQtyBase)
		}
		if left.IsNegative() {
			left = decimal.Zero
		}
		off[l.ID] = left
	}
	if len(ids) > 0 {
		err := tx.SalesOrderLine.Update().
			Where(salesorderline.IDIn(ids...)).
			Modify(hooks.SetEach(salesorderline.FieldCancelledQtyBase, ids, off)).
			Exec(hooks.WritingLines(ctx, ent.TypeSalesOrderLine))
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// ChangeOrderStatus moves an order (docs/api-behaviour.md, "Resources", Sales orders):
// OPEN and PREPARING to each other or to BACK_ORDER, SHIPPED to CLOSE; the
// action refuses any other request and the state machine any other move,
// with 409 INVALID_STATE. CLOSE is reported as sales_order.closed, the
// others as .updated.
func ChangeOrderStatus(ctx context.Context, tx *ent.Tx, id int, to salesorder.Status) (*ent.SalesOrder, error) {
	o, err := tx.SalesOrder.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	action := "updated"
	if to == salesorder.StatusCLOSE {
		action = "closed"
	}
	out, err := tx.SalesOrder.UpdateOneID(id).
		Where(salesorder.StatusEQ(o.Status)).
		SetStatus(to).
		Save(hooks.EmitAs(ctx, action))
	if ent.IsNotFound(err) {
		return nil, problem.Conflict(problem.InvalidState, "status", "The sales order's status changed meanwhile; try again.")
	}
	return out, err
}
