package console_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/event"
	"larder.dev/larder/internal/identity/audit"
	"larder.dev/larder/internal/identity/people"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

// documentState is what a cancellation could change: the documents' flags,
// every lot's quantity, the audit records and the events of the account.
func documentState(t *testing.T, st *store.Store, org *dbtest.Org) string {
	t.Helper()
	sys := policy.System(context.Background())
	var b strings.Builder
	invs, err := st.Client.Invoice.Query().Order(ent.Asc("id")).All(sys)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range invs {
		fmt.Fprintf(&b, "invoice %d cancelled=%v at=%v\n", x.ID, x.IsCancelled, x.CancelledAt)
	}
	bs, err := st.Client.Bill.Query().Order(ent.Asc("id")).All(sys)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range bs {
		fmt.Fprintf(&b, "bill %d cancelled=%v at=%v\n", x.ID, x.IsCancelled, x.CancelledAt)
	}
	fmt.Fprint(&b, lotQuantities(t, st))
	h, err := audit.History(context.Background(), st.Client, org.Org.ID)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&b, "audit records %d\n", len(h))
	n, err := st.Client.Event.Query().Count(sys)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&b, "events %d\n", n)
	return b.String()
}

// lotQuantities is every lot's quantity on hand.
func lotQuantities(t *testing.T, st *store.Store) string {
	t.Helper()
	lots, err := st.Client.ProductLot.Query().Order(ent.Asc("id")).All(policy.System(context.Background()))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, l := range lots {
		fmt.Fprintf(&b, "lot %d %s\n", l.ID, l.QuantityBase)
	}
	return b.String()
}

// Every role reads the invoices and bills, finds them by number and status,
// and reads their lines, a bill's linked to the lot it received; only
// operators and admins are offered the cancellation, and a viewer's or a
// developer's cancellation is refused with 403, nothing written.
func TestDocumentPages(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		d := newDesk(t, st)
		org := dbtest.NewSeededOrg(t, st)
		c := traceChain(t, st, org)
		inv := *c.shipment.InvoiceID
		invPage := fmt.Sprintf("/console/invoices/%d?env=test", inv)
		billPage := fmt.Sprintf("/console/bills/%d?env=test", c.bill.ID)
		lotLink := fmt.Sprintf(`<a href="/console/lots/%d?env=test">TR-FLOUR-1</a>`, c.flour.ID)
		for _, role := range people.Roles {
			t.Run(string(role), func(t *testing.T) {
				b, _ := d.signedIn(org.Org.ID, role)
				operator := role == people.Admin || role == people.Operator
				res := b.get("/console/invoices?env=test&number=" + strconv.Itoa(c.invoiceNo))
				if res.status != http.StatusOK || strings.Count(res.body, `<tr class="doc">`) != 1 ||
					!strings.Contains(res.body, fmt.Sprintf(`<a href="/console/invoices/%d?env=test">invoice %d</a>`, inv, c.invoiceNo)) ||
					!strings.Contains(res.body, c.customerName) {
					t.Fatalf("invoices by number: %d %s", res.status, res.body)
				}
				res = b.get("/console/bills?env=test&party=prairie&state=open")
				if res.status != http.StatusOK || !strings.Contains(res.body, fmt.Sprintf(`<a href="/console/bills/%d?env=test">bill %d</a>`, c.bill.ID, c.bill.BillNo)) {
					t.Fatalf("bills of the supplier: %d %s", res.status, res.body)
				}
				if res := b.get("/console/bills?env=test&state=cancelled"); res.status != http.StatusOK || strings.Contains(res.body, fmt.Sprintf("/console/bills/%d?", c.bill.ID)) || !strings.Contains(res.body, "Cancelled</span>") {
					t.Fatalf("cancelled bills: %d %s", res.status, res.body)
				}
				if res := b.get("/console/bills?env=test&from=2026-13-01"); res.status != http.StatusBadRequest || !strings.Contains(res.body, "Enter a date as YYYY-MM-DD") {
					t.Fatalf("a bad date: %d %s", res.status, res.body)
				}
				res = b.get(billPage)
				if res.status != http.StatusOK || !strings.Contains(res.body, lotLink) || !strings.Contains(res.body, c.supplierName) ||
					strings.Contains(res.body, "Cancel this bill") == !operator {
					t.Fatalf("bill page: %d %s", res.status, res.body)
				}
				// Two bags of 25 kg received, 30 kg left: in the unit's name,
				// their thousands separated.
				if !strings.Contains(res.body, `<td class="num nowrap">50,000 Gram</td>`) || !strings.Contains(res.body, `TR-FLOUR-1</a></td><td class="num nowrap">30,000 Gram</td>`) {
					t.Errorf("bill page's line does not read 50,000 Gram received, 30,000 Gram on hand")
				}
				// Amounts are costs: the admin alone reads them, as in the API.
				if got := strings.Contains(res.body, "<dt>Subtotal</dt>") && strings.Contains(res.body, ">21.75<"); got != (role == people.Admin) {
					t.Errorf("bill page shows its costs: %v", got)
				}
				res = b.get(invPage)
				if res.status != http.StatusOK || !strings.Contains(res.body, "FG-COOKIE12") || strings.Contains(res.body, "Cancel this invoice") == !operator {
					t.Fatalf("invoice page: %d %s", res.status, res.body)
				}
				if operator {
					return
				}
				before := documentState(t, st, org)
				for _, p := range []string{fmt.Sprintf("/console/invoices/%d/cancel?env=test", inv), fmt.Sprintf("/console/bills/%d/cancel?env=test", c.bill.ID)} {
					if res := b.get(p); res.status != http.StatusForbidden {
						t.Errorf("GET %s: %d", p, res.status)
					}
					if res := b.post(p, url.Values{"understand": {"yes"}}); res.status != http.StatusForbidden {
						t.Errorf("POST %s: %d", p, res.status)
					}
				}
				if diff := cmp.Diff(before, documentState(t, st, org)); diff != "" {
					t.Errorf("a refused cancellation wrote (-before +after):\n%s", diff)
				}
			})
		}
	})
}

// checkCancelled asserts the newest audit record and the document's event:
// the action by the operator in the test environment with its detail, and
// the event of source app naming the operator.
func checkCancelled(t *testing.T, st *store.Store, org *dbtest.Org, op people.Person, action, eventType string, id int, detail map[string]any) {
	t.Helper()
	r := lastRecord(t, st, org.Org.ID)
	env := "test"
	want := audit.Listed{ID: r.ID, At: r.At, Actor: op.Email, Address: "127.0.0.1", Action: action, Env: &env, UserID: &op.ID, Detail: detail}
	if diff := cmp.Diff(want, r); diff != "" {
		t.Errorf("audit record (-want +got):\n%s", diff)
	}
	evs, err := st.Client.Event.Query().Where(event.Type(eventType), event.ResourceID(id), event.AccountID(org.Test.ID)).All(policy.System(context.Background()))
	if err != nil || len(evs) != 1 {
		t.Fatalf("events %s of %d: %v (%v)", eventType, id, evs, err)
	}
	if e := evs[0]; e.Source != event.SourceApp || e.UserID == nil || *e.UserID != op.ID || e.APIKeyID != nil {
		t.Errorf("event %s: source %s user %v key %v, want app, %d, none", eventType, e.Source, e.UserID, e.APIKeyID, op.ID)
	}
}

// An operator reads what cancelling a bill and an invoice does (the lots
// keep their stock, named with what they hold), confirms, and the document
// is cancelled in the test account alone: every lot keeps its quantity, the
// audit history names the operator with the document's id and number, and
// the event names them as its user. Without the box ticked, and cancelling
// again, nothing is written.
func TestCancelDocuments(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		d := newDesk(t, st)
		org := dbtest.NewSeededOrg(t, st)
		c := traceChain(t, st, org)
		b, op := d.signedIn(org.Org.ID, people.Operator)
		today := time.Now().UTC().Format(time.DateOnly)
		inv := *c.shipment.InvoiceID
		for _, x := range []struct {
			kind, action, event string
			id, number          int
			consequence         string
			detail              map[string]any
		}{
			{"bills", "bill_cancelled", "bill.cancelled", c.bill.ID, c.bill.BillNo,
				"each of the 1 lot this bill received keeps what it holds now",
				map[string]any{"id": float64(c.bill.ID), "number": float64(c.bill.BillNo), "is_cancelled": true, "cancelled_at": today, "lots_kept": float64(1)}},
			{"invoices", "invoice_cancelled", "invoice.cancelled", inv, c.invoiceNo,
				"what shipped stays shipped, and no lot gets anything back",
				map[string]any{"id": float64(inv), "number": float64(c.invoiceNo), "is_cancelled": true, "cancelled_at": today}},
		} {
			t.Run(x.kind, func(t *testing.T) {
				path := fmt.Sprintf("/console/%s/%d/cancel?env=test", x.kind, x.id)
				page := b.get(path)
				if page.status != http.StatusOK || !strings.Contains(page.body, x.consequence) || strings.Contains(page.body, `type="checkbox"`) {
					t.Fatalf("confirmation %d: %s", page.status, page.body)
				}
				if x.kind == "bills" && !strings.Contains(page.body, fmt.Sprintf(`<a href="/console/lots/%d?env=test">TR-FLOUR-1</a>`, c.flour.ID)) {
					t.Fatalf("the confirmation does not name the flour lot: %s", page.body)
				}
				lots := lotQuantities(t, st)
				// The page is the one confirmation: its button cancels.
				res := b.post(path, url.Values{})
				want := fmt.Sprintf("/console/%s/%d?env=test", x.kind, x.id)
				if res.status != http.StatusSeeOther || res.location() != want {
					t.Fatalf("cancel: %d %s %s", res.status, res.location(), res.body)
				}
				shown := b.get(want)
				if !strings.Contains(shown.body, "is cancelled.") || !strings.Contains(shown.body, "Cancelled</span> on "+today) {
					t.Fatalf("after: %s", shown.body)
				}
				if diff := cmp.Diff(lots, lotQuantities(t, st)); diff != "" {
					t.Errorf("a cancellation moved stock (-before +after):\n%s", diff)
				}
				checkCancelled(t, st, org, op, x.action, x.event, x.id, x.detail)
				// Cancelling again is refused, and writes nothing.
				after := documentState(t, st, org)
				again := b.post(path, url.Values{"understand": {"yes"}})
				if again.status != http.StatusConflict || !strings.Contains(again.body, "is cancelled already") {
					t.Fatalf("again: %d %s", again.status, again.body)
				}
				if res := b.get(path); res.status != http.StatusConflict || !strings.Contains(res.body, "is cancelled already") {
					t.Fatalf("confirmation again: %d %s", res.status, res.body)
				}
				if diff := cmp.Diff(after, documentState(t, st, org)); diff != "" {
					t.Errorf("a refused cancellation wrote (-before +after):\n%s", diff)
				}
				// The live account has no such document.
				if res := b.post(fmt.Sprintf("/console/%s/%d/cancel?env=live", x.kind, x.id), url.Values{"understand": {"yes"}}); res.status != http.StatusNotFound {
					t.Errorf("live: %d", res.status)
				}
			})
		}
	})
}
