package inventory

import (
	"context"
	"fmt"
	"slices"
	"time"

	"entgo.io/ent/dialect/sql"
	"github.com/shopspring/decimal"

	"larder.dev/larder/bulk"
	"larder.dev/larder/ent"
	"larder.dev/larder/ent/predicate"
	"larder.dev/larder/ent/productlot"
	"larder.dev/larder/policy"
)

// Unsellable says why a lot may not ship or be consumed at t, or "" when it
// may (DECISIONS "Lot picking": AVAILABLE, or RELEASED with no or a future
// release expiry; not archived, not expired).
func Unsellable(l *ent.ProductLot, t time.Time) string {
	switch {
	case l.Archived:
		return "archived"
	case l.ExpirationDate != nil && !l.ExpirationDate.After(t):
		return "expired " + l.ExpirationDate.UTC().Format(time.DateOnly)
	case l.QcStatus == productlot.QcStatusAVAILABLE:
		return ""
	case l.QcStatus == productlot.QcStatusRELEASED && (l.QcReleaseExpiresAt == nil || l.QcReleaseExpiresAt.After(t)):
		return ""
	case l.QcStatus == productlot.QcStatusRELEASED:
		return "RELEASED past its release"
	}
	return string(l.QcStatus)
}

// FirstExpiring is the picking order: by expiration date, none last, then id.
func FirstExpiring(a, b *ent.ProductLot) int {
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

// Draw asks for stock: from a named lot, or from a product's first-expiring
// sellable lots.
type Draw struct {
	// Lot names the lot; 0 picks from Product's lots.
	Lot int
	// Product is the product the stock is of: the lot's (a named lot of
	// another product is refused), or the one to pick from. 0 with a named
	// lot accepts any product.
	Product  int
	Quantity decimal.Decimal
}

// Take is stock a draw takes from one lot.
type Take struct {
	Lot      *ent.ProductLot
	Quantity decimal.Decimal
}

// Refusal kinds.
const (
	LotMissing     = "missing"      // the named lot does not exist (in this account)
	LotOfOther     = "other"        // the named lot is of another product
	LotNotSellable = "not sellable" // the named lot may not ship (Why says why)
	StockShort     = "short"        // the lot, or the product's sellable lots, hold less
)

// Refusal is why draw Draw cannot be met; nothing was taken.
type Refusal struct {
	Draw int
	Kind string
	// Lot is the named lot, when it exists.
	Lot *ent.ProductLot
	// Why says why Lot is not sellable.
	Why string
	// Left is what the named lot, or the product's sellable lots, still
	// hold for the draw after the draws before it.
	Left decimal.Decimal
}

func (r *Refusal) Error() string {
	return fmt.Sprintf("draw %d: %s (left %s)", r.Draw, r.Kind, r.Left)
}

// Pick decides, draw by draw in order, which lots each draw takes from; the
// lots it reads are locked (PostgreSQL; SQLite serialises writers) in id
// order, so concurrent picks never take the same stock twice and never
// deadlock on each other.
//
// It reads only the lots a pick can reach: the named ones and, per product,
// the first-expiring sellable lots until they hold what the draws ask (a
// running sum in the database). Should those fall short once locked (another
// transaction took from them meanwhile), it locks every sellable lot of the
// products and decides again, so a refusal for short stock is always made on
// all of it.
func Pick(ctx context.Context, tx *ent.Tx, draws []Draw, now time.Time) ([][]Take, error) {
	var named, products []int
	asked := decimal.Zero // what named draws take, which may come from a product's first lots
	need := map[int]decimal.Decimal{}
	for _, d := range draws {
		if d.Lot != 0 {
			named = append(named, d.Lot)
			asked = asked.Add(d.Quantity)
			continue
		}
		if _, ok := need[d.Product]; !ok {
			products = append(products, d.Product)
		}
		need[d.Product] = need[d.Product].Add(d.Quantity)
	}
	for p := range need {
		need[p] = need[p].Add(asked)
	}
	lots, err := lockLots(ctx, tx, named, products, now, firstLots(ctx, products, need, now))
	if err != nil {
		return nil, err
	}
	takes, err := decide(draws, lots, now)
	var r *Refusal
	if asRefusal(err, &r) && r.Kind == StockShort && draws[r.Draw].Lot == 0 {
		if lots, err = lockLots(ctx, tx, named, products, now, nil); err != nil {
			return nil, err
		}
		takes, err = decide(draws, lots, now)
	}
	return takes, err
}

func asRefusal(err error, r **Refusal) bool {
	x, ok := err.(*Refusal)
	*r = x
	return ok
}

// lockLots reads and locks, in id order, the named lots and the products'
// sellable lots (those first prefix admits, or all of them when prefix is
// nil).
func lockLots(ctx context.Context, tx *ent.Tx, named, products []int, now time.Time, prefix predicate.ProductLot) ([]*ent.ProductLot, error) {
	stock := []predicate.ProductLot{
		productlot.ProductIDIn(products...),
		productlot.QuantityBaseGT(decimal.Zero),
		productlot.Archived(false),
		productlot.QcStatusIn(productlot.QcStatusAVAILABLE, productlot.QcStatusRELEASED),
		productlot.Or(productlot.ExpirationDateIsNil(), productlot.ExpirationDateGT(now)),
	}
	if prefix != nil {
		stock = append(stock, prefix)
	}
	lots, err := tx.ProductLot.Query().
		Where(productlot.Or(productlot.IDIn(named...), productlot.And(stock...))).
		Order(productlot.ByID()).
		Modify(bulk.ForUpdate).
		All(ctx)
	if err != nil {
		return nil, fmt.Errorf("pick: lots: %w", err)
	}
	return lots, nil
}

// firstLots admits, per product, the sellable lots in picking order until
// the ones before hold need[product]: SUM() OVER the picking order, which
// both PostgreSQL and SQLite compute without sending the other lots.
func firstLots(ctx context.Context, products []int, need map[int]decimal.Decimal, now time.Time) predicate.ProductLot {
	if len(products) == 0 {
		return nil
	}
	account := 0
	if v := policy.FromContext(ctx); v != nil {
		account = v.AccountID
	}
	return func(s *sql.Selector) {
		s.Where(sql.P(func(b *sql.Builder) {
			b.Ident(s.C(productlot.FieldID)).WriteString(" IN (SELECT id FROM (SELECT id, product_id, SUM(quantity_base) OVER (" +
				"PARTITION BY product_id ORDER BY expiration_date IS NULL, expiration_date, id " +
				"ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS before FROM ").
				Ident(productlot.Table).WriteString(" WHERE ")
			if account != 0 {
				b.WriteString("account_id = ").Arg(account).WriteString(" AND ")
			}
			b.WriteString("product_id IN (")
			for i, p := range products {
				if i > 0 {
					b.Comma()
				}
				b.Arg(p)
			}
			b.WriteString(") AND quantity_base > 0 AND archived = ").Arg(false).
				WriteString(" AND (expiration_date IS NULL OR expiration_date > ").Arg(now).
				WriteString(") AND (qc_status = ").Arg(productlot.QcStatusAVAILABLE.String()).
				WriteString(" OR (qc_status = ").Arg(productlot.QcStatusRELEASED.String()).
				WriteString(" AND (qc_release_expires_at IS NULL OR qc_release_expires_at > ").Arg(now).
				WriteString(")))) first_lots WHERE before IS NULL OR before < CASE product_id")
			for _, p := range products {
				b.WriteString(" WHEN ").Arg(p).WriteString(" THEN CAST(").Arg(need[p].String()).WriteString(" AS NUMERIC)")
			}
			b.WriteString(" END)")
		}))
	}
}

// decide makes the picks from locked lots.
func decide(draws []Draw, lots []*ent.ProductLot, now time.Time) ([][]Take, error) {
	left := make(map[int]decimal.Decimal, len(lots))
	byID := make(map[int]*ent.ProductLot, len(lots))
	byProduct := map[int][]*ent.ProductLot{}
	for _, l := range lots {
		left[l.ID] = l.QuantityBase
		byID[l.ID] = l
		if Unsellable(l, now) == "" {
			byProduct[l.ProductID] = append(byProduct[l.ProductID], l)
		}
	}
	for _, ls := range byProduct {
		slices.SortFunc(ls, FirstExpiring)
	}
	out := make([][]Take, len(draws))
	for i, d := range draws {
		need := d.Quantity
		if d.Lot != 0 {
			l := byID[d.Lot]
			switch {
			case l == nil:
				return nil, &Refusal{Draw: i, Kind: LotMissing}
			case d.Product != 0 && l.ProductID != d.Product:
				return nil, &Refusal{Draw: i, Kind: LotOfOther, Lot: l}
			case Unsellable(l, now) != "":
				return nil, &Refusal{Draw: i, Kind: LotNotSellable, Lot: l, Why: Unsellable(l, now)}
			case left[l.ID].LessThan(need):
				return nil, &Refusal{Draw: i, Kind: StockShort, Lot: l, Left: left[l.ID]}
			}
			left[l.ID] = left[l.ID].Sub(need)
			out[i] = []Take{{Lot: l, Quantity: need}}
			continue
		}
		for _, l := range byProduct[d.Product] {
			if !need.IsPositive() {
				break
			}
			take := decimal.Min(need, left[l.ID])
			if !take.IsPositive() {
				continue
			}
			left[l.ID] = left[l.ID].Sub(take)
			need = need.Sub(take)
			out[i] = append(out[i], Take{Lot: l, Quantity: take})
		}
		if need.IsPositive() {
			return nil, &Refusal{Draw: i, Kind: StockShort, Left: d.Quantity.Sub(need)}
		}
	}
	return out, nil
}
