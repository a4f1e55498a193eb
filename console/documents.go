// The invoices' and bills' routes and their kinds; documents_views.go builds
// what their pages show, documents_handlers.go answers them.

package console

import (
	"context"

	"net/url"
	"strconv"
	"time"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/auditrecord"
	"larder.dev/larder/internal/identity/audit"
	"larder.dev/larder/internal/modules/purchasing"
	"larder.dev/larder/internal/modules/sales"
)

// documentRoutes are the invoices and bills of an environment, each with its
// lines, and their cancellation by an operator.
func (s *Server) documentRoutes() []Route {
	return []Route{
		{Method: "GET", Path: "/console/invoices", Nav: "Invoices", Summary: "read the invoices of one environment (live or test), by date, found by customer, number, dates and whether cancelled; changes nothing", serve: s.documents(invoices)},
		{Method: "GET", Path: "/console/invoices/{id}", Summary: "read one of the organization's invoices and its lines; changes nothing", serve: s.document(invoices)},
		{Method: "GET", Path: "/console/invoices/{id}/cancel", Roles: Operators, Summary: "read what cancelling an invoice does before confirming it; changes nothing", serve: s.cancelPage(invoices)},
		{Method: "POST", Path: "/console/invoices/{id}/cancel", Roles: Operators, Summary: "cancel an invoice as `larder invoice cancel` does (kept, marked cancelled, invoice.cancelled sent; what shipped stays shipped), recorded in the audit history", serve: s.cancel(invoices)},
		{Method: "GET", Path: "/console/bills", Nav: "Bills", Summary: "read the bills of one environment (live or test), by date, found by supplier, number, dates and whether cancelled; changes nothing", serve: s.documents(bills)},
		{Method: "GET", Path: "/console/bills/{id}", Summary: "read one of the organization's bills and its lines, linked to the lots they received; changes nothing", serve: s.document(bills)},
		{Method: "GET", Path: "/console/bills/{id}/cancel", Roles: Operators, Summary: "read what cancelling a bill does before confirming it; changes nothing", serve: s.cancelPage(bills)},
		{Method: "POST", Path: "/console/bills/{id}/cancel", Roles: Operators, Summary: "cancel a bill as `larder bill cancel` does (kept, marked cancelled, bill.cancelled sent; its lots keep their stock), recorded in the audit history", serve: s.cancel(bills)},
	}
}

// docKind is invoices or bills: what their pages say and the module
// functions they call.
type docKind struct {
	// Name is the path segment (invoices); One and Party name a document
	// and whom it is with.
	Name, One, Party string
	// PartyLabel heads the party's column.
	PartyLabel string
	list       func(context.Context, *ent.Client, docFilter) ([]docRow, error)
	get        func(context.Context, *ent.Client, int) (*docView, error)
	cancel     func(context.Context, *ent.Tx, int) (number int, err error)
	action     auditrecord.Action
}

// docFilter is a list's search, as both kinds take it.
type docFilter struct {
	Party         string
	Number        int
	From, To      *time.Time
	Cancelled     *bool
	Oldest        bool
	Offset, Limit int
}

var invoices = &docKind{Name: "invoices", One: "invoice", Party: "customer", PartyLabel: "Customer", action: audit.InvoiceCancelled,
	list: func(ctx context.Context, c *ent.Client, f docFilter) ([]docRow, error) {
		got, err := sales.ListInvoices(ctx, c, sales.InvoiceFilter{Customer: f.Party, Number: f.Number, From: f.From, To: f.To,
			Cancelled: f.Cancelled, Oldest: f.Oldest, Offset: f.Offset, Limit: f.Limit})
		if err != nil {
			return nil, err
		}
		out := make([]docRow, len(got))
		for i, x := range got {
			out[i] = invoiceRow(x)
		}
		return out, nil
	},
	get: func(ctx context.Context, c *ent.Client, id int) (*docView, error) {
		x, err := sales.InvoiceOf(ctx, c, id)
		if err != nil {
			return nil, err
		}
		v := &docView{docRow: invoiceRow(x), Order: x.SalesOrderID, ShipDate: x.ShipDate}
		for _, l := range x.Edges.Lines {
			unit := ""
			if l.UomType != nil {
				unit = uomWords[*l.UomType]
			}
			v.Lines = append(v.Lines, docLine{Product: productName(l.ProductCode, l.ProductName),
				Quantity: optQty(l.ShippedQty, unit), Price: money(l.Price)})
		}
		return v, nil
	},
	cancel: func(ctx context.Context, tx *ent.Tx, id int) (int, error) {
		x, err := sales.CancelInvoice(ctx, tx, id)
		if err != nil {
			return 0, err
		}
		return x.InvoiceNo, nil
	},
}

var bills = &docKind{Name: "bills", One: "bill", Party: "supplier", PartyLabel: "Supplier", action: audit.BillCancelled,
	list: func(ctx context.Context, c *ent.Client, f docFilter) ([]docRow, error) {
		got, err := purchasing.ListBills(ctx, c, purchasing.BillFilter{Supplier: f.Party, Number: f.Number, From: f.From, To: f.To,
			Cancelled: f.Cancelled, Oldest: f.Oldest, Offset: f.Offset, Limit: f.Limit})
		if err != nil {
			return nil, err
		}
		out := make([]docRow, len(got))
		for i, x := range got {
			out[i] = billRow(x)
		}
		return out, nil
	},
	get: func(ctx context.Context, c *ent.Client, id int) (*docView, error) {
		x, err := purchasing.BillOf(ctx, c, id)
		if err != nil {
			return nil, err
		}
		v := &docView{docRow: billRow(x), Reference: orDash(x.SupplierReference)}
		for _, l := range x.Edges.Lines {
			unit := ""
			if p := l.Edges.Product; p != nil {
				unit = unitName(p.Edges.UomBase)
			}
			dl := docLine{Product: productName(l.ProductCode, l.ProductName), Quantity: optQty(l.QuantityBase, unit), Price: money(l.Cost), Lot: l.LotNumber}
			if lot := l.Edges.Lot; lot != nil {
				dl.LotID = lot.ID
				dl.LotLink = lotPath(lot.ID, "", "", 0)
				dl.OnHand = quantity(lot.QuantityBase, &unit)
			}
			v.Lines = append(v.Lines, dl)
		}
		return v, nil
	},
	cancel: func(ctx context.Context, tx *ent.Tx, id int) (int, error) {
		x, err := purchasing.CancelBill(ctx, tx, id)
		if err != nil {
			return 0, err
		}
		return x.BillNo, nil
	},
}

// docsPage is the documents a page lists.
const docsPage = 50

// docFilters are a list's search fields, in the order its links carry them.
var docFilters = []string{"party", "number", "from", "to", "state", "sort"}

// docPath is the page of document id in env, with a tail (/cancel).
func (k *docKind) path(id int, env, tail string) string {
	return Prefix + k.Name + "/" + strconv.Itoa(id) + tail + "?" + url.Values{"env": {env}}.Encode()
}

// link is the list with f's search at page (1 is the first).
func (k *docKind) link(env string, f *form, page int) string {
	u := url.Values{"env": {env}}
	for _, x := range docFilters {
		if v := f.Get(x); v != "" {
			u.Set(x, v)
		}
	}
	if page > 1 {
		u.Set("page", strconv.Itoa(page))
	}
	return Prefix + k.Name + "?" + u.Encode()
}
