package console

import (
	"context"

	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/auditrecord"
	"larder.dev/larder/ent/invoiceline"
	"larder.dev/larder/internal/identity/audit"
	"larder.dev/larder/internal/modules/purchasing"
	"larder.dev/larder/internal/modules/sales"
	apiproblem "larder.dev/larder/internal/platform/problem"
	"larder.dev/larder/policy"
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

// docRow is a document as a list shows it.
type docRow struct {
	ID, Number  int
	Date        time.Time
	Party       string
	Subtotal    string
	Cancelled   bool
	CancelledAt *time.Time
	Link        string
}

// docView is one document and its lines.
type docView struct {
	docRow
	// Reference is the supplier's reference of a bill; Order the sales
	// order of an invoice (0 for none).
	Reference string
	Order     int
	ShipDate  *time.Time
	Lines     []docLine
}

// docLine is a line of a document. A bill's line names the lot it received
// (LotID 0 for none), its quantity received and what that lot holds now.
type docLine struct {
	Product, Quantity, Price string
	LotID                    int
	Lot, LotLink, OnHand     string
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
			dl := docLine{Product: productName(l.ProductCode, l.ProductName), Quantity: optQty(l.QuantityBase, ""), Price: money(l.Cost), Lot: l.LotNumber}
			if lot := l.Edges.Lot; lot != nil {
				dl.LotID = lot.ID
				dl.LotLink = lotPath(lot.ID, "", "", 0)
				dl.OnHand = lot.QuantityBase.String()
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

func invoiceRow(x *ent.Invoice) docRow {
	return docRow{ID: x.ID, Number: x.InvoiceNo, Date: x.InvoiceDate, Party: orDash(x.Company), Subtotal: money(x.Subtotal),
		Cancelled: x.IsCancelled, CancelledAt: x.CancelledAt}
}

func billRow(x *ent.Bill) docRow {
	return docRow{ID: x.ID, Number: x.BillNo, Date: x.BillDate, Party: orDash(x.Company), Subtotal: money(x.Subtotal),
		Cancelled: x.IsCancelled, CancelledAt: x.CancelledAt}
}

// uomWords say in which unit an invoice line counts what shipped.
var uomWords = map[invoiceline.UomType]string{
	invoiceline.UomTypeINVENTORY_UNIT: "inventory units",
	invoiceline.UomTypePACKAGING_SIZE: "packages",
	invoiceline.UomTypeBASE_UOM:       "base units",
}

// money is an amount, "—" for none.
func money(d *decimal.Decimal) string {
	if d == nil {
		return "—"
	}
	return d.StringFixed(2)
}

// optQty is a quantity in a unit, "—" for none.
func optQty(d *decimal.Decimal, unit string) string {
	if d == nil {
		return "—"
	}
	if unit == "" {
		return d.String()
	}
	return d.String() + " " + unit
}

// docsPage is the documents a page lists.
const docsPage = 50

// docFilters are a list's search fields, in the order its links carry them.
var docFilters = []string{"party", "number", "from", "to", "state", "sort"}

// docsView is a list page's own data.
type docsView struct {
	Kind *docKind
	Env  string
	// Costs shows the subtotals, which only the roles that see costs
	// read, as in the API.
	Costs             bool
	Rows              []docRow
	Filtered, Paged   bool
	First, Prev, Next string
	States, Sorts     []choice
}

var docStates = []choice{{"", "All"}, {"open", "Not cancelled"}, {"cancelled", "Cancelled"}}
var docSorts = []choice{{"", "Newest first"}, {"oldest", "Oldest first"}}

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

// envOf reads the env of a query: live when absent, ok false when neither.
func envOf(f *form) (string, bool) {
	switch env := f.Get("env"); env {
	case "", string(policy.Live):
		return string(policy.Live), true
	case string(policy.Test):
		return env, true
	}
	return string(policy.Live), false
}

// dateField reads a date field (YYYY-MM-DD) into f's errors.
func dateField(f *form, name string) *time.Time {
	x := f.Get(name)
	if x == "" {
		return nil
	}
	t, err := time.Parse(time.DateOnly, x)
	if err != nil {
		f.Fail(name, "Enter a date as YYYY-MM-DD, such as 2026-11-06.")
		return nil
	}
	return &t
}

func (s *Server) documents(k *docKind) func(http.ResponseWriter, *http.Request, *caller) {
	title := "Invoices"
	if k == bills {
		title = "Bills"
	}
	return func(w http.ResponseWriter, r *http.Request, c *caller) {
		f := newForm(r.URL.Query())
		v := docsView{Kind: k, States: docStates, Sorts: docSorts}
		var ok bool
		if v.Env, ok = envOf(f); !ok {
			f.Fail("", "Choose the live or the test environment.")
		}
		filter := docFilter{Party: f.Get("party"), Limit: docsPage + 1}
		if len(filter.Party) > 200 {
			f.Fail("party", fmt.Sprintf("Enter at most 200 characters of the %s's name.", k.Party))
		}
		if x := f.Get("number"); x != "" {
			n, err := strconv.Atoi(x)
			if err != nil || n <= 0 {
				f.Fail("number", fmt.Sprintf("Enter the %s's number, a whole number such as 1001.", k.One))
			}
			filter.Number = n
		}
		filter.From, filter.To = dateField(f, "from"), dateField(f, "to")
		if filter.From != nil && filter.To != nil && filter.To.Before(*filter.From) {
			f.Fail("to", "The last day comes on or after the first.")
		}
		switch f.Get("state") {
		case "":
		case "open":
			filter.Cancelled = new(bool)
		case "cancelled":
			yes := true
			filter.Cancelled = &yes
		default:
			f.Fail("state", "Choose all, not cancelled or cancelled.")
		}
		switch f.Get("sort") {
		case "":
		case "oldest":
			filter.Oldest = true
		default:
			f.Fail("sort", "Choose newest or oldest first.")
		}
		page := 1
		if x := f.Get("page"); x != "" {
			n, err := strconv.Atoi(x)
			if err != nil || n < 1 || n > 100000 {
				f.Fail("", "This page's link is damaged; start again from the first page.")
			} else {
				page = n
			}
		}
		filter.Offset = (page - 1) * docsPage
		v.Filtered = filter.Party != "" || filter.Number != 0 || filter.From != nil || filter.To != nil || filter.Cancelled != nil
		v.Paged = page > 1
		v.First = k.link(v.Env, f, 1)
		if !f.OK() {
			documentsTemplate.render(s, w, r, c, http.StatusBadRequest, title, f, v)
			return
		}
		ctx, err := s.reading(c, v.Env)
		if err != nil {
			s.fail(w, r, c, err)
			return
		}
		rows, err := k.list(ctx, s.o.Client, filter)
		if err != nil {
			s.fail(w, r, c, err)
			return
		}
		if len(rows) > docsPage {
			rows = rows[:docsPage]
			v.Next = k.link(v.Env, f, page+1)
		}
		if page > 1 {
			v.Prev = k.link(v.Env, f, page-1)
		}
		for i := range rows {
			rows[i].Link = k.path(rows[i].ID, v.Env, "")
		}
		v.Rows, v.Costs = rows, policy.SeesCost(ctx)
		documentsTemplate.render(s, w, r, c, http.StatusOK, title, f, v)
	}
}

// docPageView is a document's page and its cancellation's.
type docPageView struct {
	Kind *docKind
	Env  string
	// Costs shows the amounts (subtotal, prices, costs), which only the
	// roles that see costs read, as in the API.
	Costs bool
	Doc   *docView
	// Back is the list; Cancel the cancellation page (empty when the
	// person may not cancel or the document is cancelled).
	Back, Cancel string
	// Lots counts the lots a bill received, for the consequences.
	Lots int
	// Confirm shows the cancellation's consequences and its form.
	Confirm bool
}

// docRequest reads a document's path and env, loads it and answers 404
// when either is not one of the organization's.
func (s *Server) docRequest(w http.ResponseWriter, r *http.Request, c *caller, k *docKind) (*docPageView, bool) {
	id, err := strconv.Atoi(r.PathValue("id"))
	env, ok := envOf(newForm(r.URL.Query()))
	if err != nil || id <= 0 || !ok {
		s.notFound(w, r)
		return nil, false
	}
	ctx, err := s.reading(c, env)
	if err != nil {
		s.fail(w, r, c, err)
		return nil, false
	}
	d, err := k.get(ctx, s.o.Client, id)
	if ent.IsNotFound(err) {
		s.notFound(w, r)
		return nil, false
	}
	if err != nil {
		s.fail(w, r, c, err)
		return nil, false
	}
	v := &docPageView{Kind: k, Env: env, Doc: d, Costs: policy.SeesCost(ctx), Back: Prefix + k.Name + "?" + url.Values{"env": {env}}.Encode()}
	for i, l := range d.Lines {
		if l.LotID != 0 {
			d.Lines[i].LotLink = lotPath(l.LotID, env, "", 0)
			v.Lots++
		}
	}
	if !d.Cancelled && (Route{Roles: Operators}).Allows(c.Me.Person.Role) {
		v.Cancel = k.path(id, env, "/cancel")
	}
	return v, true
}

// docTitle is a document's page title.
func docTitle(k *docKind, d *docView) string {
	if k == bills {
		return "Bill " + strconv.Itoa(d.Number)
	}
	return "Invoice " + strconv.Itoa(d.Number)
}

func (s *Server) document(k *docKind) func(http.ResponseWriter, *http.Request, *caller) {
	return func(w http.ResponseWriter, r *http.Request, c *caller) {
		v, ok := s.docRequest(w, r, c, k)
		if !ok {
			return
		}
		documentTemplate.render(s, w, r, c, http.StatusOK, docTitle(k, v.Doc), nil, v)
	}
}

func (s *Server) cancelPage(k *docKind) func(http.ResponseWriter, *http.Request, *caller) {
	return func(w http.ResponseWriter, r *http.Request, c *caller) {
		v, ok := s.docRequest(w, r, c, k)
		if !ok {
			return
		}
		v.Confirm = true
		f := newForm(nil)
		status := http.StatusOK
		if v.Doc.Cancelled {
			f.Fail("", fmt.Sprintf("This %s is cancelled already; there is nothing to cancel.", k.One))
			status = http.StatusConflict
		}
		documentTemplate.render(s, w, r, c, status, "Cancel "+strings.ToLower(docTitle(k, v.Doc)), f, v)
	}
}

func (s *Server) cancel(k *docKind) func(http.ResponseWriter, *http.Request, *caller) {
	return func(w http.ResponseWriter, r *http.Request, c *caller) {
		f := parseForm(w, r)
		v, ok := s.docRequest(w, r, c, k)
		if !ok {
			return
		}
		title := "Cancel " + strings.ToLower(docTitle(k, v.Doc))
		v.Confirm = true
		if f.OK() && f.Get("understand") != "yes" {
			f.Fail("understand", fmt.Sprintf("Tick the box to confirm you have read what cancelling this %s does.", k.One))
		}
		if !f.OK() {
			documentTemplate.render(s, w, r, c, http.StatusBadRequest, title, f, v)
			return
		}
		id := v.Doc.ID
		err := s.act(c, v.Env, func(actx context.Context, tx *ent.Tx) (audit.Entry, error) {
			number, err := k.cancel(actx, tx, id)
			if err != nil {
				return audit.Entry{}, err
			}
			detail := map[string]any{"id": id, "number": number, "is_cancelled": true,
				"cancelled_at": time.Now().UTC().Format(time.DateOnly)}
			if k == bills {
				detail["lots_kept"] = v.Lots
			}
			return audit.Entry{Action: k.action, Detail: detail}, nil
		})
		if ent.IsNotFound(err) {
			s.notFound(w, r)
			return
		}
		if p, isProblem := apiproblem.As(err); isProblem {
			f.Fail("", p.Detail)
			documentTemplate.render(s, w, r, c, p.Status(), title, f, v)
			return
		}
		if err != nil {
			s.fail(w, r, c, err)
			return
		}
		s.redirect(w, r, c, k.path(id, v.Env, ""), fmt.Sprintf("%s is cancelled.", docTitle(k, v.Doc)))
	}
}
