package purchasing

import (
	"context"
	"fmt"
	"time"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/bill"
	"larder.dev/larder/ent/billline"
)

// BillFilter narrows a list of bills.
type BillFilter struct {
	// Supplier is part of the supplier's company name, in any case.
	Supplier string
	// Number is a bill number (0 for any).
	Number int
	// From and To bound the bill date, both days included (nil for open).
	From, To *time.Time
	// Cancelled keeps the cancelled bills (true) or the others (false); nil
	// keeps both.
	Cancelled *bool
	// Oldest lists the oldest bill first instead of the newest.
	Oldest bool
	// Offset skips that many bills; Limit is their number (0 for all).
	Offset, Limit int
}

// ListBills lists the bills of the viewer's account in ctx that match f, by
// bill date and number, newest first unless f.Oldest.
func ListBills(ctx context.Context, c *ent.Client, f BillFilter) ([]*ent.Bill, error) {
	if f.Offset < 0 || f.Limit < 0 {
		return nil, fmt.Errorf("bills: offset and limit must not be negative")
	}
	q := c.Bill.Query()
	if f.Supplier != "" {
		q.Where(bill.CompanyContainsFold(f.Supplier))
	}
	if f.Number != 0 {
		q.Where(bill.BillNo(f.Number))
	}
	if f.From != nil {
		q.Where(bill.BillDateGTE(*f.From))
	}
	if f.To != nil {
		q.Where(bill.BillDateLT(f.To.AddDate(0, 0, 1)))
	}
	if f.Cancelled != nil {
		q.Where(bill.IsCancelled(*f.Cancelled))
	}
	order := ent.Desc
	if f.Oldest {
		order = ent.Asc
	}
	q.Order(order(bill.FieldBillDate), order(bill.FieldBillNo), order(bill.FieldID)).Offset(f.Offset)
	if f.Limit > 0 {
		q.Limit(f.Limit)
	}
	return q.All(ctx)
}

// BillOf is the bill id of the viewer's account in ctx with its lines in
// order, each with the lot it received into and its product's base unit;
// another account's is not found (ent's not-found error).
func BillOf(ctx context.Context, c *ent.Client, id int) (*ent.Bill, error) {
	return c.Bill.Query().Where(bill.ID(id)).
		WithLines(func(q *ent.BillLineQuery) {
			q.WithLot().WithProduct(func(q *ent.ProductQuery) { q.WithUomBase() }).Order(ent.Asc(billline.FieldID))
		}).
		Only(ctx)
}
