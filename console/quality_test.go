package console_test

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/event"
	"larder.dev/larder/ent/productlot"
	"larder.dev/larder/internal/identity/audit"
	"larder.dev/larder/internal/identity/people"
	"larder.dev/larder/internal/modules/inventory"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

// cellRows are the cells of the table rows of class on a page, as text.
func cellRows(body, class string) [][]string {
	var out [][]string
	tags := regexp.MustCompile(`<[^>]+>`)
	space := regexp.MustCompile(`\s+`)
	for _, tr := range regexp.MustCompile(`(?s)<tr class="`+class+`">(.*?)</tr>`).FindAllStringSubmatch(body, -1) {
		var row []string
		for _, td := range regexp.MustCompile(`(?s)<td[^>]*>(.*?)</td>`).FindAllStringSubmatch(tr[1], -1) {
			row = append(row, strings.TrimSpace(space.ReplaceAllString(html.UnescapeString(tags.ReplaceAllString(td[1], " ")), " ")))
		}
		out = append(out, row)
	}
	return out
}

// qcOf is a lot's quality decision as stored.
func qcOf(t *testing.T, st *store.Store, id int) string {
	t.Helper()
	l, err := st.Client.ProductLot.Get(policy.System(context.Background()), id)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%s at=%v note=%v release=%v", l.QcStatus, l.QcStatusAt, deref(l.QcStatusNote), l.QcReleaseExpiresAt)
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

// qcEvents are the lot's qc_status_changed events, oldest first.
func qcEvents(t *testing.T, st *store.Store, id int) []*ent.Event {
	t.Helper()
	evs, err := st.Client.Event.Query().Where(event.Type(inventory.QCStatusChanged), event.ResourceID(id)).
		Order(ent.Asc(event.FieldID)).All(policy.System(context.Background()))
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

// qcAudits are the organization's lot_qc_decided records, oldest first.
func qcAudits(t *testing.T, st *store.Store, org int) []audit.Listed {
	t.Helper()
	all, err := audit.History(context.Background(), st.Client, org)
	if err != nil {
		t.Fatal(err)
	}
	var out []audit.Listed
	for _, l := range all {
		if l.Action == string(audit.LotQCDecided) {
			out = append(out, l)
		}
	}
	return out
}

// A lot's page shows its quality decision to every role, and the decision
// form to operators and admins alone; a viewer's or developer's decision is
// refused (403) and writes nothing. An operator releases the test
// account's lot on hold with a note and an end: 303 back to the lot's page,
// which shows RELEASED and the decision in its history with the operator's
// address; the lot leaves the quality queue; the audit record names the
// operator, the environment and the change, and the event is the app's,
// with the operator's user id. An admin then quarantines it, and the
// command line's decision follows in the history.
func TestQualityDecision(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		d := newDesk(t, st)
		org := dbtest.NewSeededOrg(t, st)
		held, err := st.Client.ProductLot.Query().Where(productlot.LotNumber("OA-2610-03")).Only(org.Ctx(policy.Test))
		if err != nil {
			t.Fatal(err)
		}
		page := fmt.Sprintf("/console/lots/%d?env=test", held.ID)
		action := fmt.Sprintf("/console/lots/%d/qc?env=test", held.ID)
		release := url.Values{"status": {"RELEASED"}, "note": {"Certificate of analysis received."}, "release_expires": {"2099-03-01T12:30"},
			"signature_password": {password}}
		for _, role := range people.Roles {
			b, _ := d.signedIn(org.Org.ID, role)
			res := b.get(page)
			if res.status != http.StatusOK {
				t.Fatalf("%s: the lot's page: %d", role, res.status)
			}
			// The seed dates the decision 19 days before the day it seeds, at 09:00.
			for _, s := range []string{`<span class="badge qc-ON_HOLD">ON_HOLD</span> since ` + held.QcStatusAt.UTC().Format("2006-01-02") + ` 09:00 UTC`, "<dd>Awaiting the mill&#39;s certificate of analysis.</dd>"} {
				if !strings.Contains(res.body, s) {
					t.Errorf("%s: the page lacks %s", role, s)
				}
			}
			form := strings.Contains(res.body, `action="`+html.EscapeString(action)+`"`)
			if decides := role == people.Operator || role == people.Admin; form != decides {
				t.Errorf("%s: the decision form shown: %v", role, form)
			}
			if role == people.Viewer || role == people.Developer {
				if res := b.post(action, release); res.status != http.StatusForbidden {
					t.Errorf("%s: POST %d, want 403", role, res.status)
				}
			}
		}
		if n := len(qcEvents(t, st, held.ID)); n != 0 || len(qcAudits(t, st, org.Org.ID)) != 0 || !strings.HasPrefix(qcOf(t, st, held.ID), "ON_HOLD") {
			t.Fatalf("a refused decision wrote: %d events, %v", n, qcOf(t, st, held.ID))
		}

		op, opPerson := d.signedIn(org.Org.ID, people.Operator)
		if q := op.get("/console/quality?env=test"); !strings.Contains(q.body, ">OA-2610-03</a>") {
			t.Fatalf("the lot on hold is not in the queue:\n%s", q.body)
		}
		res := op.post(action, release)
		if res.status != http.StatusSeeOther || res.location() != page {
			t.Fatalf("release: %d to %q: %s", res.status, res.location(), res.body)
		}
		at := time.Unix(0, d.now.Load()).UTC().Truncate(time.Microsecond)
		if got, want := qcOf(t, st, held.ID), fmt.Sprintf("RELEASED at=%v note=Certificate of analysis received. release=2099-03-01 12:30:00 +0000 UTC", at); got != want {
			t.Errorf("the lot is %s, want %s", got, want)
		}
		res = op.get(page)
		for _, s := range []string{"Lot OA-2610-03 is now RELEASED.", `<span class="badge qc-RELEASED">RELEASED</span> since ` + at.Format("2006-01-02 15:04 UTC"),
			"<dt>Release ends</dt><dd>2099-03-01 12:30 UTC</dd>",
			// The next decision starts without the last one's note.
			`aria-describedby="h-note">` + "</textarea>"} {
			if !strings.Contains(res.body, s) {
				t.Errorf("after the release the page lacks %s", s)
			}
		}
		want := [][]string{{at.Format("2006-01-02 15:04 UTC"), "RELEASED", "ON_HOLD", "Certificate of analysis received.", "2099-03-01 12:30 UTC", opPerson.Email}}
		if diff := cmp.Diff(want, cellRows(res.body, "qcdecision")); diff != "" {
			t.Errorf("the history (-want +got):\n%s", diff)
		}
		if q := op.get("/console/quality?env=test"); strings.Contains(q.body, "OA-2610-03") || !strings.Contains(q.body, ">BU-2611-11</a>") {
			t.Errorf("the released lot is still in the queue, or the quarantined one left it")
		}

		admin, adminPerson := d.signedIn(org.Org.ID, people.Admin)
		d.after(time.Hour)
		if res := admin.post(action, url.Values{"status": {"QUARANTINE"}}); res.status != http.StatusSeeOther {
			t.Fatalf("quarantine: %d %s", res.status, res.body)
		}
		later := at.Add(time.Hour)
		res = admin.get(page)
		want = append([][]string{{later.Format("2006-01-02 15:04 UTC"), "QUARANTINE", "RELEASED", "—", "—", adminPerson.Email}}, want...)
		if diff := cmp.Diff(want, cellRows(res.body, "qcdecision")); diff != "" {
			t.Errorf("the history after the quarantine (-want +got):\n%s", diff)
		}

		// A decision made as `larder lot set-qc` makes it (an app viewer of
		// the account, no person) is in the history too.
		cli := org.Ctx(policy.Test)
		cliAt := later.Add(time.Hour)
		note := "Mould found on retest."
		if err := ent.RunInTx(cli, st.Client, func(tx *ent.Tx) error {
			_, err := inventory.SetLotQC(cli, tx, held.ID, inventory.QCDecision{Status: productlot.QcStatusREJECTED, Note: &note}, cliAt)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		res = op.get(page)
		want = append([][]string{{cliAt.Format("2006-01-02 15:04 UTC"), "REJECTED", "QUARANTINE", note, "—", "larder lot set-qc (command line)"}}, want...)
		if diff := cmp.Diff(want, cellRows(res.body, "qcdecision")); diff != "" {
			t.Errorf("the history after the command line's decision (-want +got):\n%s", diff)
		}

		evs := qcEvents(t, st, held.ID)[:2]
		var got []string
		for _, e := range evs {
			got = append(got, fmt.Sprintf("%s user=%d env=%s", e.Source, *e.UserID, e.Environment))
		}
		if diff := cmp.Diff([]string{fmt.Sprintf("app user=%d env=test", opPerson.ID), fmt.Sprintf("app user=%d env=test", adminPerson.ID)}, got); diff != "" {
			t.Errorf("the events (-want +got):\n%s", diff)
		}
		test := "test"
		wantAudit := []audit.Listed{
			{At: at, Actor: opPerson.Email, Address: "127.0.0.1", Action: "lot_qc_decided", Env: &test, UserID: &opPerson.ID, Detail: map[string]any{
				"lot_id": float64(held.ID), "lot_number": "OA-2610-03", "from": "ON_HOLD", "to": "RELEASED",
				"note": "Certificate of analysis received.", "release_expires_at": "2099-03-01T12:30:00Z",
				"signature": map[string]any{"by": opPerson.Email, "user_id": float64(opPerson.ID), "with": "password"}}},
			{At: later, Actor: adminPerson.Email, Address: "127.0.0.1", Action: "lot_qc_decided", Env: &test, UserID: &adminPerson.ID, Detail: map[string]any{
				"lot_id": float64(held.ID), "lot_number": "OA-2610-03", "from": "RELEASED", "to": "QUARANTINE",
				"note": nil, "release_expires_at": nil}},
		}
		if diff := cmp.Diff(wantAudit, qcAudits(t, st, org.Org.ID), cmpopts.IgnoreFields(audit.Listed{}, "ID"),
			cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) })); diff != "" {
			t.Errorf("the audit records (-want +got):\n%s", diff)
		}
	})
}

// A decision the workflow or the form refuses is shown beside its field
// with a 4xx status, on the lot's page, and writes nothing: the same
// decision again, an end of release without RELEASED, a status not in the
// list, a date that is none, a note too long. A lot of the other
// environment is not found.
func TestQualityDecisionRefused(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		d := newDesk(t, st)
		org := dbtest.NewSeededOrg(t, st)
		lot, err := st.Client.ProductLot.Query().Where(productlot.LotNumber("BU-2611-11")).Only(org.Ctx(policy.Test))
		if err != nil {
			t.Fatal(err)
		}
		action := fmt.Sprintf("/console/lots/%d/qc?env=test", lot.ID)
		op, _ := d.signedIn(org.Org.ID, people.Operator)
		before := qcOf(t, st, lot.ID)
		for _, tc := range []struct {
			name   string
			form   url.Values
			status int
			field  string
			msg    string
		}{
			{"unchanged", url.Values{"status": {"QUARANTINE"}, "note": {"Temperature excursion on receipt; under review."}}, http.StatusConflict, "status", "The lot is QUARANTINE already"},
			{"expiry without release", url.Values{"status": {"ON_HOLD"}, "release_expires": {"2027-01-01T00:00"}}, http.StatusBadRequest, "release_expires", "A release expiry applies to RELEASED only"},
			{"unknown status", url.Values{"status": {"SOLD"}}, http.StatusBadRequest, "status", "Choose a status from the list."},
			{"no status", url.Values{}, http.StatusBadRequest, "status", "Choose a status from the list."},
			{"bad date", url.Values{"status": {"RELEASED"}, "release_expires": {"next week"}}, http.StatusBadRequest, "release_expires", "Enter a date and time such as"},
			{"long note", url.Values{"status": {"RELEASED"}, "note": {strings.Repeat("x", 1001)}}, http.StatusBadRequest, "note", "A note has at most 1000 characters."},
			{"release unsigned", url.Values{"status": {"RELEASED"}}, http.StatusBadRequest, "signature_password", "Enter your password to sign"},
			{"release with a wrong password", url.Values{"status": {"RELEASED"}, "signature_password": {"not my password!"}}, http.StatusBadRequest, "signature_password", "That is not your password: nothing was signed or changed."},
		} {
			t.Run(tc.name, func(t *testing.T) {
				res := op.post(action, tc.form)
				if res.status != tc.status {
					t.Fatalf("%d, want %d: %s", res.status, tc.status, res.body)
				}
				if !strings.Contains(res.body, `<p class="error" id="e-`+tc.field+`">`+html.EscapeString(tc.msg)) {
					t.Errorf("no error beside %s:\n%s", tc.field, res.body)
				}
				if !strings.Contains(res.body, "<h1>Lot BU-2611-11</h1>") {
					t.Error("the refusal is not on the lot's page")
				}
			})
		}
		if got := qcOf(t, st, lot.ID); got != before || len(qcEvents(t, st, lot.ID)) != 0 || len(qcAudits(t, st, org.Org.ID)) != 0 {
			t.Errorf("a refusal wrote: %s (was %s)", got, before)
		}
		if res := op.post(fmt.Sprintf("/console/lots/%d/qc?env=live", lot.ID), url.Values{"status": {"REJECTED"}}); res.status != http.StatusNotFound {
			t.Errorf("the lot in the live account: %d, want 404", res.status)
		}
		if got := qcOf(t, st, lot.ID); got != before {
			t.Errorf("the other environment's decision wrote: %s", got)
		}
	})
}

// A lot's page lists its stock movements, newest first, each with its type,
// quantity, document, the lots on the other side (linked) and its source:
// the cookies of the traced chain came out of a run that consumed the flour,
// were shipped, and went into the tray's run.
func TestLotMovements(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		d := newDesk(t, st)
		org := dbtest.NewSeededOrg(t, st)
		c := traceChain(t, st, org)
		b, _ := d.signedIn(org.Org.ID, people.Viewer)
		res := b.get(fmt.Sprintf("/console/lots/%d?env=test", c.cookies.ID))
		var got [][]string
		for _, r := range cellRows(res.body, "movement") {
			got = append(got, r[1:]) // the time is the commit's
		}
		want := [][]string{
			{"PRODUCTION_CONSUMPTION", "-12 each", "Production run " + strconv.Itoa(c.rework.ProductionNo), "TR-TRAY-1 (RC-COOKIE Chocolate chip cookies, baked (batch))", "app"},
			{"SHIPPING", "-60 each", fmt.Sprintf("Shipment of order %d, invoice %d to %s", orderNo(t, st, org, c), c.invoiceNo, c.customerName), "—", "app"},
			{"PRODUCTION_OUTPUT", "120 each", "Production run " + strconv.Itoa(c.run.ProductionNo), "TR-FLOUR-1 (RM-FLOUR All-purpose wheat flour)", "app"},
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("the movements (-want +got):\n%s", diff)
		}
		for _, s := range []string{
			fmt.Sprintf(`<a href="/console/lots/%d?env=test">TR-TRAY-1`, c.tray.ID),
			fmt.Sprintf(`<a href="/console/lots/%d?env=test">TR-FLOUR-1`, c.flour.ID),
			"Showing the newest 3 of 3 movements.",
		} {
			if !strings.Contains(res.body, s) {
				t.Errorf("the page lacks %s", s)
			}
		}
		res = b.get(fmt.Sprintf("/console/lots/%d?env=test", c.flour.ID))
		if diff := cmp.Diff([]string{"PRODUCTION_CONSUMPTION", "PURCHASE_ENTRY"}, column(cellRows(res.body, "movement"), 1)); diff != "" {
			t.Errorf("the flour's movements (-want +got):\n%s", diff)
		}
		if !strings.Contains(res.body, fmt.Sprintf("Bill %d from %s", c.bill.BillNo, html.EscapeString(c.supplierName))) {
			t.Error("the flour's receipt does not name its bill")
		}
	})
}

// orderNo is the number of the chain's sales order.
func orderNo(t *testing.T, st *store.Store, org *dbtest.Org, c traced) int {
	t.Helper()
	o, err := st.Client.SalesOrder.Get(org.Ctx(policy.Test), c.shipment.SalesOrderID)
	if err != nil {
		t.Fatal(err)
	}
	return o.SalesOrderNo
}

// column is the i-th cell of each row.
func column(rows [][]string, i int) []string {
	var out []string
	for _, r := range rows {
		out = append(out, r[i])
	}
	return out
}

// The quality queue lists the lots ON_HOLD or in QUARANTINE and those
// RELEASED whose release has ended or ends within 7 days (marked so),
// oldest decision first, 50 a page; a release ending later, a release
// without end, REJECTED and AVAILABLE lots are not in it. Every role reads
// it, each environment its own, and it is in the navigation.
func TestQualityQueue(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		d := newDesk(t, st)
		org := dbtest.NewOrg(t, st, "")
		now := time.Unix(0, d.now.Load()).UTC()
		t0 := now.Add(-240 * time.Hour).Truncate(time.Second)
		lots := newLots(t, st, org, "RM-QC", "QC", 8)
		many := newLots(t, st, org, "RM-HOLD", "HOLD", 52)
		ctx := org.Ctx(policy.Live)
		days := func(n int) *time.Time { x := now.AddDate(0, 0, n); return &x }
		decide := func(l *ent.ProductLot, s productlot.QcStatus, at time.Time, ends *time.Time) {
			t.Helper()
			err := ent.RunInTx(ctx, st.Client, func(tx *ent.Tx) error {
				_, err := inventory.SetLotQC(ctx, tx, l.ID, inventory.QCDecision{Status: s, ReleaseExpiresAt: ends}, at)
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		decide(lots[0], productlot.QcStatusON_HOLD, t0.Add(2*time.Hour), nil)
		decide(lots[1], productlot.QcStatusQUARANTINE, t0.Add(time.Hour), nil)
		decide(lots[2], productlot.QcStatusRELEASED, t0.Add(3*time.Hour), days(3))
		decide(lots[3], productlot.QcStatusRELEASED, t0, days(-1))
		beyond := now.Add(7*24*time.Hour + time.Minute)
		decide(lots[4], productlot.QcStatusRELEASED, t0, &beyond)
		decide(lots[5], productlot.QcStatusREJECTED, t0, nil)
		decide(lots[6], productlot.QcStatusRELEASED, t0, nil)
		for _, l := range many {
			decide(l, productlot.QcStatusON_HOLD, t0.Add(4*time.Hour), nil)
		}
		var wantNumbers []string
		for _, l := range append([]*ent.ProductLot{lots[3], lots[1], lots[0], lots[2]}, many...) {
			wantNumbers = append(wantNumbers, *l.LotNumber)
		}
		for _, role := range people.Roles {
			t.Run(string(role), func(t *testing.T) {
				b, _ := d.signedIn(org.Org.ID, role)
				res := b.get("/console/quality?env=live")
				if res.status != http.StatusOK {
					t.Fatalf("%d %s", res.status, res.body)
				}
				first := cellRows(res.body, "queued")
				if diff := cmp.Diff(wantNumbers[:50], column(first, 0)); diff != "" {
					t.Errorf("the first page (-want +got):\n%s", diff)
				}
				stamp := func(x time.Time) string { return x.Format("2006-01-02 15:04 UTC") }
				want := [][]string{
					{"QC-004", "RM-QC RM-QC product", "RELEASED Release ended " + stamp(*days(-1)), stamp(t0), "—", "4", "—"},
					{"QC-002", "RM-QC RM-QC product", "QUARANTINE", stamp(t0.Add(time.Hour)), "—", "2", "—"},
					{"QC-001", "RM-QC RM-QC product", "ON_HOLD", stamp(t0.Add(2 * time.Hour)), "—", "1", "—"},
					{"QC-003", "RM-QC RM-QC product", "RELEASED Release ends " + stamp(*days(3)), stamp(t0.Add(3 * time.Hour)), "—", "3", "—"},
				}
				if diff := cmp.Diff(want, first[:4]); diff != "" {
					t.Errorf("the first rows (-want +got):\n%s", diff)
				}
				if link := fmt.Sprintf(`<a href="/console/lots/%d?env=live">QC-004</a>`, lots[3].ID); !strings.Contains(res.body, link) {
					t.Errorf("no link %s", link)
				}
				next := regexp.MustCompile(`<a href="([^"]+)">Next lots</a>`).FindStringSubmatch(res.body)
				if next == nil {
					t.Fatal("no link to the next page")
				}
				res = b.get(html.UnescapeString(next[1]))
				if diff := cmp.Diff(wantNumbers[50:], column(cellRows(res.body, "queued"), 0)); diff != "" {
					t.Errorf("the second page (-want +got):\n%s", diff)
				}
				if strings.Contains(res.body, "Next lots") || !strings.Contains(res.body, "First lots") {
					t.Error("the last page links to a next page, or not to the first")
				}
				if res := b.get("/console/quality?env=test"); len(cellRows(res.body, "queued")) != 0 || !strings.Contains(res.body, "No test lot waits for a quality decision.") {
					t.Error("the test queue shows the live lots")
				}
				for _, q := range []string{"env=prod", "after=x", "after=2026-01-01T00:00:00Z_x"} {
					if res := b.get("/console/quality?" + q); res.status != http.StatusBadRequest {
						t.Errorf("%s: %d, want 400", q, res.status)
					}
				}
				if !strings.Contains(b.get("/console/account").body, `<li><a href="/console/quality">Quality</a></li>`) {
					t.Error("the navigation does not list the quality queue")
				}
			})
		}
	})
}
