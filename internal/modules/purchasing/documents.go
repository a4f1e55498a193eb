package purchasing

import (
	"context"
	"fmt"
	"time"

	"entgo.io/ent/dialect/sql"
	"github.com/shopspring/decimal"

	"larder.dev/larder/client/bounds"
	"larder.dev/larder/ent"
	"larder.dev/larder/ent/bill"
	"larder.dev/larder/ent/product"
	"larder.dev/larder/ent/productlot"
	"larder.dev/larder/ent/purchaseorder"
	"larder.dev/larder/ent/stockmovement"
	"larder.dev/larder/hooks"
	"larder.dev/larder/internal/identity/tenancy"
	"larder.dev/larder/internal/modules/units"
	"larder.dev/larder/internal/platform/problem"
	"larder.dev/larder/policy"
)

// purchaseLine is what purchase order lines and bill lines share while they
// are written.
type purchaseLine interface {
	ProductID() (int, bool)
	Quantity() (decimal.Decimal, bool)
	Cost() (decimal.Decimal, bool)
	DiscountRate() (decimal.Decimal, bool)
	SetProductCode(string)
	SetProductName(string)
	SetQuantityBase(decimal.Decimal)
}

// completeLines copies each line's product code and name, converts its
// quantity from the purchase unit to base units (docs/api-behaviour.md,
// "Resources", Bills: quantity × uom_qty × uom_base_conversion), and returns the
// products and the document's subtotal. byID are the products the lines'
// reference check read (code, name, units, and for a bill the cost), or nil:
// then they are read here, with one query for every product.
func completeLines(ctx context.Context, tx *ent.Tx, currency string, lines []purchaseLine, byID map[int]*ent.Product) (map[int]*ent.Product, decimal.Decimal, error) {
	if byID == nil {
		var err error
		if byID, err = readProducts(ctx, tx, lines); err != nil {
			return nil, decimal.Zero, err
		}
	}
	amounts := make([]units.PricedLine, len(lines))
	var conv units.Converter
	for i, l := range lines {
		id, _ := l.ProductID()
		p, ok := byID[id]
		if !ok { // the builder checked every reference
			return nil, decimal.Zero, fmt.Errorf("purchasing: product %d vanished", id)
		}
		if p.ProductCode != nil {
			l.SetProductCode(*p.ProductCode)
		}
		if p.Name != nil {
			l.SetProductName(*p.Name)
		}
		q, _ := l.Quantity()
		qb, err := conv.ToBase(p, units.Inventory, q, i, "quantity")
		if err != nil {
			return nil, decimal.Zero, err
		}
		l.SetQuantityBase(qb)
		amounts[i] = units.PricedLine{Quantity: q, Price: opt(l.Cost()), DiscountRate: opt(l.DiscountRate())}
	}
	subtotal, err := units.Subtotal(currency, amounts)
	if err == nil && !bounds.Storable(subtotal) {
		err = problem.Invalidf("lines", "add up to a subtotal of %s, beyond the largest amount kept (below 10^%d)", subtotal, bounds.MagnitudeExp)
	}
	return byID, subtotal, err
}

// readProducts reads the products of lines: what completeLines copies and
// converts with, and the cost (hooks.ProductCosted, as the lines' check reads
// them for a bill).
func readProducts(ctx context.Context, tx *ent.Tx, lines []purchaseLine) (map[int]*ent.Product, error) {
	var ids []int
	seen := map[int]bool{}
	for _, l := range lines {
		if id, ok := l.ProductID(); ok && !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	// Costs are read whatever the caller may see: the weighted average
	// needs them, and nothing read here is answered.
	ps, err := tx.Product.Query().
		Where(product.IDIn(ids...)).
		Select(hooks.ProductCosted...).
		All(policy.SeeingCost(ctx))
	if err != nil {
		return nil, err
	}
	byID := make(map[int]*ent.Product, len(ps))
	for _, p := range ps {
		byID[p.ID] = p
	}
	return byID, nil
}

// tooLarge refuses line i, whose quantity would make a lot it tops up hold
// more than a column keeps.
func tooLarge(i int, base decimal.Decimal) error {
	return units.TooLarge(fmt.Sprintf("lines[%d].quantity", i), base)
}

func opt(d decimal.Decimal, ok bool) *decimal.Decimal {
	if !ok {
		return nil
	}
	return &d
}

// PurchaseOrderFlow is the purchase order's workflow: the generated handlers
// of /purchase-orders call its steps.
var PurchaseOrderFlow = ent.PurchaseOrderFlow{Prepare: PrepareOrder, Status: ChangeOrderStatus}

// BillFlow is the bill's workflow: the generated handlers of /bills call its
// steps.
var BillFlow = ent.BillFlow{Prepare: PrepareBill, Record: ReceiveBill}

// PrepareOrder completes a purchase order's lines and computes its subtotal
// before the order is saved (created, or its lines replaced). An order is
// recorded without taxes. products are the lines' products as their
// reference check read them, or nil to read them here.
func PrepareOrder(ctx context.Context, tx *ent.Tx, m *ent.PurchaseOrderMutation, lines []*ent.PurchaseOrderLineCreate, products map[int]*ent.Product) error {
	currency, err := tenancy.CurrencyOf(ctx, tx.Client())
	if err != nil {
		return err
	}
	ls := make([]purchaseLine, len(lines))
	for i, b := range lines {
		ls[i] = b.Mutation()
	}
	_, subtotal, err := completeLines(ctx, tx, currency, ls, products)
	if err != nil {
		return err
	}
	m.SetSubtotal(subtotal)
	if m.Op().Is(ent.OpCreate) {
		m.SetTax1(false)
		m.SetTax2(false)
	}
	return nil
}

// ChangeOrderStatus moves a purchase order (docs/api-behaviour.md,
// "Resources", Purchase orders); the state machine refuses any other move with 409 INVALID_STATE.
// RECEIVED sets received_date. The move is reported as
// purchase_order.cancelled, .received or .closed, and .updated otherwise.
func ChangeOrderStatus(ctx context.Context, tx *ent.Tx, id int, to purchaseorder.Status) (*ent.PurchaseOrder, error) {
	return ChangeOrderStatusOn(ctx, tx, id, to, today())
}

// ChangeOrderStatusOn is ChangeOrderStatus on a given day: the received_date
// a move to RECEIVED records (seeding, imports).
func ChangeOrderStatusOn(ctx context.Context, tx *ent.Tx, id int, to purchaseorder.Status, day time.Time) (*ent.PurchaseOrder, error) {
	po, err := tx.PurchaseOrder.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	action := "updated"
	u := tx.PurchaseOrder.UpdateOneID(id).
		Where(purchaseorder.StatusEQ(po.Status)).
		SetStatus(to)
	switch to {
	case purchaseorder.StatusCANCELLED:
		action = "cancelled"
	case purchaseorder.StatusCLOSED:
		action = "closed"
	case purchaseorder.StatusRECEIVED:
		action = "received"
		u.SetReceivedDate(day)
	}
	out, err := u.Save(hooks.EmitAs(ctx, action))
	if ent.IsNotFound(err) {
		return nil, problem.Conflict(problem.InvalidState, "status", "The purchase order's status changed meanwhile; try again.")
	}
	return out, err
}

// today is the current UTC date, as date fields keep it (midnight UTC).
func today() time.Time {
	y, m, d := time.Now().UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// lotKey identifies a lot: a product's lot with a number at a location (0
// for none), as the unique index does.
type lotKey struct {
	product, location int
	number            string
}

// PrepareBill completes a bill's lines and computes its subtotal (a bill is
// recorded with no tax), then receives each line into a lot before the bill
// is saved: the product's lot with the line's number at the line's
// location, topped up, or a new lot (lot_origin INVOICE). A lot whose
// expiry differs from the line's is 409 LOT_EXPIRY_MISMATCH, and the whole
// bill is refused. Unless the organization costs manually, each product's
// cost becomes the weighted average over its on-hand stock (docs/api-behaviour.md,
// "Resources", Bills). The stock movements, one per line, are written by ReceiveBill
// once the bill has its id. products are the lines' products as their
// reference check read them, costs included, or nil to read them here.
func PrepareBill(ctx context.Context, tx *ent.Tx, m *ent.BillMutation, lines []*ent.BillLineCreate, products map[int]*ent.Product) error {
	org, err := tenancy.OrganizationOf(ctx, tx.Client())
	if err != nil {
		return err
	}
	ls := make([]purchaseLine, len(lines))
	for i, b := range lines {
		ls[i] = b.Mutation()
	}
	products, subtotal, err := completeLines(ctx, tx, org.Currency, ls, products)
	if err != nil {
		return err
	}
	m.SetSubtotal(subtotal)
	m.SetTax1(false)
	m.SetTax2(false)
	var before map[int]decimal.Decimal
	if !org.ManualCosting {
		if before, err = onHand(ctx, tx, products); err != nil {
			return err
		}
	}
	if err := receiveIntoLots(ctx, tx, lines); err != nil {
		return err
	}
	if org.ManualCosting {
		return nil
	}
	return recost(ctx, tx, products, before, lines)
}

// onHand is each product's stock, in base units: the sum of its lots'
// positive quantities.
func onHand(ctx context.Context, tx *ent.Tx, products map[int]*ent.Product) (map[int]decimal.Decimal, error) {
	ids := make([]int, 0, len(products))
	for id := range products {
		ids = append(ids, id)
	}
	var rows []struct {
		ProductID int             `json:"product_id"`
		Sum       decimal.Decimal `json:"sum"`
	}
	err := tx.ProductLot.Query().
		Where(productlot.ProductIDIn(ids...), productlot.QuantityBaseGT(decimal.Zero)).
		GroupBy(productlot.FieldProductID).
		Aggregate(ent.Sum(productlot.FieldQuantityBase)).
		Scan(ctx, &rows)
	if err != nil {
		return nil, fmt.Errorf("on-hand stock: %w", err)
	}
	out := make(map[int]decimal.Decimal, len(rows))
	for _, r := range rows {
		out[r.ProductID] = r.Sum
	}
	return out, nil
}

// receiveIntoLots sets each line's lot: existing lots (locked, then topped
// up by what their lines bring, without movements: ReceiveBill writes one
// per line) and new lots, created in one statement.
func receiveIntoLots(ctx context.Context, tx *ent.Tx, lines []*ent.BillLineCreate) error {
	keys := make([]lotKey, len(lines))
	for i, b := range lines {
		m := b.Mutation()
		pid, _ := m.ProductID()
		loc, _ := m.LocationID()
		num, _ := m.LotNumber()
		keys[i] = lotKey{pid, loc, num}
	}
	// Locked in id order before anything touches them, as every writer of
	// stock locks its lots (inventory.Pick); the top-ups below add to what
	// is read here, and the products' costs are written after.
	existing, err := tx.ProductLot.Query().
		Order(productlot.ByID()).
		Modify(func(s *sql.Selector) {
			s.Where(lotKeysIn(s, keys))
			hooks.ForUpdate(s)
		}).
		All(ctx)
	if err != nil {
		return fmt.Errorf("receive: lots: %w", err)
	}
	lots := map[lotKey]*ent.ProductLot{}
	for _, l := range existing {
		if l.LotNumber != nil {
			lots[lotKey{l.ProductID, l.LocationKey, *l.LotNumber}] = l
		}
	}
	topUp := map[int]decimal.Decimal{} // existing lot id → what it receives
	fresh := map[lotKey]int{}          // new lot → index in news
	var news []*ent.ProductLotCreate   // new lots, in the order of their first line
	var newsExpiry []*time.Time        // their expiry
	newLine := make([]int, len(lines)) // line → index in news, or -1
	warehouses := map[int]int{}        // location → its warehouse
	for i, b := range lines {
		m := b.Mutation()
		k := keys[i]
		q, _ := m.QuantityBase()
		exp := expiryOf(m)
		newLine[i] = -1
		if l, ok := lots[k]; ok {
			if !sameDate(l.ExpirationDate, exp) {
				return expiryMismatch(i, k.number, l.ExpirationDate)
			}
			topUp[l.ID] = topUp[l.ID].Add(q)
			if total := l.QuantityBase.Add(topUp[l.ID]); !bounds.Storable(total) {
				return tooLarge(i, total)
			}
			m.SetLotID(l.ID)
			continue
		}
		if j, ok := fresh[k]; ok {
			if !sameDate(newsExpiry[j], exp) {
				return expiryMismatch(i, k.number, newsExpiry[j])
			}
			total, _ := news[j].Mutation().QuantityBase()
			if total = total.Add(q); !bounds.Storable(total) {
				return tooLarge(i, total)
			}
			news[j].SetQuantityBase(total)
			newLine[i] = j
			continue
		}
		c := tx.ProductLot.Create().
			SetProductID(k.product).
			SetLotNumber(k.number).
			SetNillableExpirationDate(exp).
			SetQuantityBase(q).
			SetLotOrigin(productlot.LotOriginINVOICE).
			SetLocationKey(k.location)
		if name, ok := m.ProductName(); ok {
			c.SetProductName(name)
		}
		if k.location != 0 {
			w, ok := warehouses[k.location]
			if !ok {
				if w, err = hooks.WarehouseOf(ctx, tx.Client(), k.location); err != nil {
					return fmt.Errorf("receive: warehouse of %d: %w", k.location, err)
				}
				warehouses[k.location] = w
			}
			c.SetLocationID(k.location).SetWarehouseID(w)
		}
		fresh[k] = len(news)
		newLine[i] = len(news)
		news = append(news, c)
		newsExpiry = append(newsExpiry, exp)
	}
	// The lots name the products and locations the lines were checked for,
	// and warehouses read from those locations.
	bulk := hooks.CheckedReferences(hooks.WithBulkStock(ctx), ent.TypeProductLot)
	if err := topUpLots(bulk, tx, existing, topUp); err != nil {
		return err
	}
	if len(news) == 0 {
		return nil
	}
	created, err := tx.ProductLot.CreateBulk(news...).Save(bulk)
	if err != nil {
		return fmt.Errorf("receive: new lots: %w", err)
	}
	for i, b := range lines {
		if j := newLine[i]; j >= 0 {
			b.SetLotID(created[j].ID)
		}
	}
	return nil
}

// topUpLots adds to each locked lot what the bill's lines bring, in one
// statement for all of them (each lot's new quantity computed here, exactly,
// from the quantity read under the lock); each lot reports
// product_lot.updated.
func topUpLots(ctx context.Context, tx *ent.Tx, lots []*ent.ProductLot, add map[int]decimal.Decimal) error {
	var ids []int
	quantities := map[int]decimal.Decimal{}
	for _, l := range lots {
		if q, ok := add[l.ID]; ok {
			ids = append(ids, l.ID)
			quantities[l.ID] = l.QuantityBase.Add(q)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	err := tx.ProductLot.Update().
		Where(productlot.IDIn(ids...)).
		Modify(hooks.SetEach(productlot.FieldQuantityBase, ids, quantities)).
		Exec(ctx)
	if err != nil {
		return fmt.Errorf("receive: top up lots: %w", err)
	}
	return nil
}

// lotKeysIn matches the lots of keys exactly, one row value per distinct key
// on the columns of the unique index (product_id, location_key, lot_number):
// index lookups whatever the plan's estimates, where separate IN lists on
// product and number let a generic plan scan every lot of the products.
func lotKeysIn(s *sql.Selector, keys []lotKey) *sql.Predicate {
	return sql.P(func(b *sql.Builder) {
		b.WriteString("(" + s.C(productlot.FieldProductID) + ", " + s.C(productlot.FieldLocationKey) + ", " + s.C(productlot.FieldLotNumber) + ") IN (VALUES ")
		seen := make(map[lotKey]bool, len(keys))
		for _, k := range keys {
			if seen[k] {
				continue
			}
			if len(seen) > 0 {
				b.Comma()
			}
			seen[k] = true
			// Typed, so that PostgreSQL compares integers with integers.
			b.WriteString("(CAST(").Arg(k.product).WriteString(" AS BIGINT), CAST(").Arg(k.location).WriteString(" AS BIGINT), ").Arg(k.number).WriteString(")")
		}
		b.WriteString(")")
	})
}

// expiryOf is a line's expiry, if it gives one.
func expiryOf(m *ent.BillLineMutation) *time.Time {
	if t, ok := m.ExpirationDate(); ok {
		return &t
	}
	return nil
}

// sameDate reports whether two expiries are the same UTC date, or both none.
func sameDate(a, b *time.Time) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	ay, am, ad := a.UTC().Date()
	by, bm, bd := b.UTC().Date()
	return ay == by && am == bm && ad == bd
}

func expiryMismatch(i int, number string, has *time.Time) error {
	was := "none"
	if has != nil {
		was = has.UTC().Format(time.DateOnly)
	}
	return problem.Conflict(problem.LotExpiryMismatch, fmt.Sprintf("lines[%d].expiration_date", i), fmt.Sprintf(
		"Lot %q of this product at this location expires %s; a line with another expiry cannot top it up. Use another lot number, or the lot's expiry.",
		number, was))
}

// recost sets each product's cost to the weighted average, in inventory
// units, of its stock before the bill at its cost and of what the bill's
// lines with a cost bring at theirs (after their discounts). A product with
// no stock before, or no cost, takes the bill's average; lines without a
// cost leave it alone.
func recost(ctx context.Context, tx *ent.Tx, products map[int]*ent.Product, before map[int]decimal.Decimal, lines []*ent.BillLineCreate) error {
	type acc struct{ quantity, amount decimal.Decimal }
	sums := map[int]*acc{}
	var order []int
	for _, b := range lines {
		m := b.Mutation()
		cost, ok := m.Cost()
		if !ok {
			continue
		}
		pid, _ := m.ProductID()
		q, _ := m.Quantity()
		disc := opt(m.DiscountRate())
		a := sums[pid]
		if a == nil {
			a = &acc{}
			sums[pid] = a
			order = append(order, pid)
		}
		a.quantity = a.quantity.Add(q)
		a.amount = a.amount.Add(units.LineAmount(q, &cost, disc))
	}
	var ids []int
	costs := map[int]decimal.Decimal{}
	for _, pid := range order {
		p, a := products[pid], sums[pid]
		stock := before[pid].Div(units.PerInventoryUnit(p)) // inventory units on hand before
		value := decimal.Zero
		if p.Cost == nil || !stock.IsPositive() {
			stock = decimal.Zero
		} else {
			value = p.Cost.Mul(stock)
		}
		total := stock.Add(a.quantity)
		if !total.IsPositive() {
			continue
		}
		cost := units.RoundHalfUp(value.Add(a.amount).DivRound(total, 12), units.Places)
		if p.Cost != nil && p.Cost.Equal(cost) {
			continue
		}
		ids = append(ids, pid)
		costs[pid] = cost
	}
	if len(ids) == 0 {
		return nil
	}
	// One statement for every product the bill recosts.
	if err := tx.Product.Update().Where(product.IDIn(ids...)).Modify(hooks.SetEach(product.FieldCost, ids, costs)).Exec(ctx); err != nil {
		return fmt.Errorf("recost products: %w", err)
	}
	return nil
}

// ReceiveBill writes a recorded bill's stock movements: one PURCHASE_ENTRY
// per line, on the line's lot, in one statement.
func ReceiveBill(ctx context.Context, tx *ent.Tx, b *ent.Bill, lines []*ent.BillLine) error {
	mv := hooks.Movement{Type: stockmovement.TypePURCHASE_ENTRY, DocumentType: "bill", DocumentID: b.ID}
	ms := make([]*ent.StockMovementCreate, len(lines))
	for i, l := range lines {
		if l.LotID == nil || l.QuantityBase == nil {
			return fmt.Errorf("receive bill %d: line %d has no lot", b.ID, l.ID)
		}
		ms[i] = hooks.NewMovement(ctx, tx.Client(), b.AccountID, *l.LotID, l.LocationID, mv, *l.QuantityBase)
	}
	// The movements name the lots the bill just received into.
	return tx.StockMovement.CreateBulk(ms...).Exec(hooks.CheckedReferences(ctx, ent.TypeStockMovement))
}

// CancelBill cancels a bill in the web application: it is kept, with
// is_cancelled and cancelled_at, and reported as bill.cancelled. Its stock
// stays where it went. Cancelling a cancelled bill is 409 INVALID_STATE.
func CancelBill(ctx context.Context, tx *ent.Tx, id int) (*ent.Bill, error) {
	return CancelBillOn(ctx, tx, id, today())
}

// CancelBillOn is CancelBill with cancelled_at the date day.
func CancelBillOn(ctx context.Context, tx *ent.Tx, id int, day time.Time) (*ent.Bill, error) {
	out, err := tx.Bill.UpdateOneID(id).
		Where(bill.IsCancelled(false)).
		SetIsCancelled(true).
		SetCancelledAt(day).
		Save(hooks.EmitAs(ctx, "cancelled"))
	if ent.IsNotFound(err) {
		if _, gone := tx.Bill.Get(ctx, id); gone != nil {
			return nil, gone
		}
		return nil, problem.Conflict(problem.InvalidState, "", fmt.Sprintf("Bill %d is cancelled already.", id))
	}
	return out, err
}
