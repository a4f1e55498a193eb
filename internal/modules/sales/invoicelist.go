package sales

import (
	"context"
	"fmt"
	"time"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/invoice"
	"larder.dev/larder/ent/invoiceline"
)

// InvoiceFilter narrows a list of invoices.
type InvoiceFilter struct {
	// Customer is part of the customer's company name, in any case.
	Customer string
	// Number is an invoice number (0 for any).
	Number int
	// From and To bound the invoice date, both days included (nil for open).
	From, To *time.Time
	// Cancelled keeps the cancelled invoices (true) or the others (false);
	// nil keeps both.
	Cancelled *bool
	// Oldest lists the oldest invoice first instead of the newest.
	Oldest bool
	// Offset skips that many invoices; Limit is their number (0 for all).
	Offset, Limit int
}

// ListInvoices lists the invoices of the viewer's account in ctx that match
// f, by invoice date and number, newest first unless f.Oldest.
func ListInvoices(ctx context.Context, c *ent.Client, f InvoiceFilter) ([]*ent.Invoice, error) {
	if f.Offset < 0 || f.Limit < 0 {
		return nil, fmt.Errorf("invoices: offset and limit must not be negative")
	}
	q := c.Invoice.Query()
	if f.Customer != "" {
		q.Where(invoice.CompanyContainsFold(f.Customer))
	}
	if f.Number != 0 {
		q.Where(invoice.InvoiceNo(f.Number))
	}
	if f.From != nil {
		q.Where(invoice.InvoiceDateGTE(*f.From))
	}
	if f.To != nil {
		q.Where(invoice.InvoiceDateLT(f.To.AddDate(0, 0, 1)))
	}
	if f.Cancelled != nil {
		q.Where(invoice.IsCancelled(*f.Cancelled))
	}
	order := ent.Desc
	if f.Oldest {
		order = ent.Asc
	}
	q.Order(order(invoice.FieldInvoiceDate), order(invoice.FieldInvoiceNo), order(invoice.FieldID)).Offset(f.Offset)
	if f.Limit > 0 {
		q.Limit(f.Limit)
	}
	return q.All(ctx)
}

// InvoiceOf is the invoice id of the viewer's account in ctx with its lines
// in order; another account's is not found (ent's not-found error).
func InvoiceOf(ctx context.Context, c *ent.Client, id int) (*ent.Invoice, error) {
	return c.Invoice.Query().Where(invoice.ID(id)).
		WithLines(func(q *ent.InvoiceLineQuery) { q.Order(ent.Asc(invoiceline.FieldID)) }).
		Only(ctx)
}
