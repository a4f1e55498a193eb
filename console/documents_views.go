// What the invoices' and bills' pages show: their data types and rows.

package console

import (
	"strconv"
	"time"

	"github.com/shopspring/decimal"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/invoiceline"
)

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

// optQty is a quantity in a unit (quantity), "—" for none.
func optQty(d *decimal.Decimal, unit string) string {
	if d == nil {
		return "—"
	}
	return quantity(*d, &unit)
}

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

// docTitle is a document's page title.
func docTitle(k *docKind, d *docView) string {
	if k == bills {
		return "Bill " + strconv.Itoa(d.Number)
	}
	return "Invoice " + strconv.Itoa(d.Number)
}
