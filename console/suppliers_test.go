package console_test

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/auditrecord"
	"larder.dev/larder/ent/event"
	"larder.dev/larder/ent/supplier"
	"larder.dev/larder/internal/identity/audit"
	"larder.dev/larder/internal/identity/people"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

// newSupplier makes a supplier in org's env account, with set applied.
func newSupplier(t *testing.T, st *store.Store, org *dbtest.Org, env policy.Environment, code string, set func(*ent.SupplierCreate)) *ent.Supplier {
	t.Helper()
	ctx := org.Ctx(env)
	tx, err := st.Client.Tx(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	c := tx.Supplier.Create().SetSupplierCode(code).SetCompany(code + " Ltd.")
	if set != nil {
		set(c)
	}
	s, err := c.Save(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	return s
}

// supplierRow reads supplier id as stored (as the system: no expiry is
// computed away by a viewer's account, and any account's row is found).
func supplierRow(t *testing.T, st *store.Store, id int) *ent.Supplier {
	t.Helper()
	s, err := st.Client.Supplier.Get(policy.System(context.Background()), id)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// supplierState is what the console could change of a supplier.
func supplierState(s *ent.Supplier) string {
	return fmt.Sprintf("%s expiry=%v scheme=%v expires_on=%v", s.ApprovalStatus, fmtTime(s.ApprovalExpiry), s.CertificationScheme, fmtTime(s.CertificationExpiresOn))
}

func fmtTime(t *time.Time) string {
	if t == nil {
		return "none"
	}
	return t.UTC().Format(time.RFC3339)
}

// plantRecords are org's audit records of action.
func plantRecords(t *testing.T, st *store.Store, orgID int, action auditrecord.Action) []*ent.AuditRecord {
	t.Helper()
	recs, err := st.Client.AuditRecord.Query().Where(auditrecord.OrganizationID(orgID), auditrecord.ActionEQ(action)).
		Order(ent.Asc(auditrecord.FieldID)).All(policy.System(context.Background()))
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// supplierEvents are the events of supplier id of type typ, oldest first.
func supplierEvents(t *testing.T, st *store.Store, id int, typ string) []*ent.Event {
	t.Helper()
	evs, err := st.Client.Event.Query().Where(event.ResourceType("supplier"), event.ResourceID(id), event.Type(typ)).
		Order(ent.Asc(event.FieldID)).All(policy.System(context.Background()))
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

// recorded is an audit record as the tests compare it.
type recorded struct {
	Action auditrecord.Action
	Env    string
	Actor  string
	UserID int
	Detail map[string]any
}

func recordOf(r *ent.AuditRecord) recorded {
	out := recorded{Action: r.Action, Actor: r.Actor, Detail: r.Detail}
	if r.Environment != nil {
		out.Env = string(*r.Environment)
	}
	if r.UserID != nil {
		out.UserID = *r.UserID
	}
	// The detail as stored: JSON numbers read back as float64.
	b, _ := json.Marshal(r.Detail)
	_ = json.Unmarshal(b, &out.Detail)
	return out
}

// eventBy is an event's source and person.
func eventBy(e *ent.Event) string {
	u := 0
	if e.UserID != nil {
		u = *e.UserID
	}
	return fmt.Sprintf("%s user %d", e.Source, u)
}

// Every role reads the suppliers list and a supplier's page, in either
// environment; operators and admins see the decision forms, viewers and
// developers do not and are refused the actions (403) with nothing written;
// the settings page and its form are for admins alone.
func TestSupplierRoutesByRole(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		d := newDesk(t, st)
		org := dbtest.NewOrg(t, st, "")
		s := newSupplier(t, st, org, policy.Test, "ROLES", nil)
		for _, role := range people.Roles {
			t.Run(string(role), func(t *testing.T) {
				b, _ := d.signedIn(org.Org.ID, role)
				acts := role == people.Admin || role == people.Operator
				list := b.get("/console/suppliers?env=test")
				if list.status != http.StatusOK || !strings.Contains(list.body, fmt.Sprintf(`href="/console/suppliers/%d?env=test"`, s.ID)) {
					t.Fatalf("list: %d, links to the supplier: %v", list.status, strings.Contains(list.body, "ROLES"))
				}
				if live := b.get("/console/suppliers?env=live"); live.status != http.StatusOK || strings.Contains(live.body, "ROLES") {
					t.Errorf("the live list (%d) shows the test supplier", live.status)
				}
				page := b.get(fmt.Sprintf("/console/suppliers/%d?env=test", s.ID))
				if page.status != http.StatusOK || !strings.Contains(page.body, "ROLES Ltd.") {
					t.Fatalf("page: %d", page.status)
				}
				if got := strings.Contains(page.body, "/approval\""); got != acts {
					t.Errorf("the page shows the approval form: %v, want %v", got, acts)
				}
				if got := b.get(fmt.Sprintf("/console/suppliers/%d?env=live", s.ID)).status; got != http.StatusNotFound {
					t.Errorf("the test supplier in live: %d, want 404", got)
				}
				if !acts {
					for _, path := range []string{"/approval", "/certification"} {
						res := b.post(fmt.Sprintf("/console/suppliers/%d%s", s.ID, path), url.Values{"env": {"test"}, "status": {"APPROVED"}, "scheme": {"SQF"}})
						if res.status != http.StatusForbidden {
							t.Errorf("%s: %d, want 403", path, res.status)
						}
					}
					if got := supplierState(supplierRow(t, st, s.ID)); got != "PENDING expiry=none scheme=<nil> expires_on=none" {
						t.Errorf("a refused role changed the supplier: %s", got)
					}
				}
				admin := role == people.Admin
				settings := b.get("/console/settings")
				post := b.post("/console/settings", url.Values{"block_unapproved_suppliers": {"yes"}})
				if admin {
					if settings.status != http.StatusOK || post.status != http.StatusSeeOther {
						t.Errorf("settings as admin: %d, %d", settings.status, post.status)
					}
				} else if settings.status != http.StatusForbidden || post.status != http.StatusForbidden {
					t.Errorf("settings as %s: %d, %d, want 403", role, settings.status, post.status)
				}
				if got := strings.Contains(list.body, `href="/console/settings"`); got != admin {
					t.Errorf("the navigation lists the settings: %v, want %v", got, admin)
				}
			})
		}
		if n := len(plantRecords(t, st, org.Org.ID, audit.SettingsChanged)); n != 1 {
			t.Errorf("%d settings changes recorded, want 1 (the admin's)", n)
		}
		if n := len(plantRecords(t, st, org.Org.ID, audit.SupplierApprovalChanged)) + len(plantRecords(t, st, org.Org.ID, audit.SupplierCertificationChanged)); n != 0 {
			t.Errorf("%d supplier decisions recorded, want none", n)
		}
	})
}

// An operator approves a pending supplier until a date, suspends, rejects
// and resets it, and records its certification: each changes the row as the
// CLI's workflow does, records the decision with the person, the
// environment and the supplier's before and after, and emits the event
// naming the person (source app). A decision the workflow refuses (the
// supplier is APPROVED already) or a bad form is shown on the page with a
// 4xx and writes nothing.
func TestSupplierDecisions(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		d := newDesk(t, st)
		org := dbtest.NewOrg(t, st, "")
		s := newSupplier(t, st, org, policy.Live, "ACME", nil)
		b, op := d.signedIn(org.Org.ID, people.Operator)
		approval := fmt.Sprintf("/console/suppliers/%d/approval", s.ID)
		certification := fmt.Sprintf("/console/suppliers/%d/certification", s.ID)
		page := fmt.Sprintf("/console/suppliers/%d?env=live", s.ID)
		until := time.Now().UTC().AddDate(0, 2, 0).Truncate(24 * time.Hour)

		steps := []struct {
			path   string
			form   url.Values
			state  string
			action auditrecord.Action
			detail map[string]any
			event  string
		}{
			{approval, url.Values{"status": {"APPROVED"}, "expires": {until.Format(time.DateOnly)}},
				"APPROVED expiry=" + until.Format(time.RFC3339) + " scheme=<nil> expires_on=none", audit.SupplierApprovalChanged,
				map[string]any{"supplier_id": float64(s.ID), "supplier_code": "ACME", "from": "PENDING", "to": "APPROVED", "approval_expiry": until.Format(time.RFC3339)},
				"supplier.approval_changed"},
			{approval, url.Values{"status": {"SUSPENDED"}}, "SUSPENDED expiry=none scheme=<nil> expires_on=none", audit.SupplierApprovalChanged,
				map[string]any{"supplier_id": float64(s.ID), "supplier_code": "ACME", "from": "APPROVED", "to": "SUSPENDED", "approval_expiry": nil},
				"supplier.approval_changed"},
			{approval, url.Values{"status": {"REJECTED"}}, "REJECTED expiry=none scheme=<nil> expires_on=none", audit.SupplierApprovalChanged,
				map[string]any{"supplier_id": float64(s.ID), "supplier_code": "ACME", "from": "SUSPENDED", "to": "REJECTED", "approval_expiry": nil},
				"supplier.approval_changed"},
			{approval, url.Values{"status": {"PENDING"}}, "PENDING expiry=none scheme=<nil> expires_on=none", audit.SupplierApprovalChanged,
				map[string]any{"supplier_id": float64(s.ID), "supplier_code": "ACME", "from": "REJECTED", "to": "PENDING", "approval_expiry": nil},
				"supplier.approval_changed"},
			{certification, url.Values{"scheme": {"BRC"}, "expires_on": {"2027-03-31"}}, "PENDING expiry=none scheme=BRC expires_on=2027-03-31T00:00:00Z", audit.SupplierCertificationChanged,
				map[string]any{"supplier_id": float64(s.ID), "supplier_code": "ACME", "from": nil, "to": "BRC", "from_expires_on": nil, "expires_on": "2027-03-31"},
				"supplier.updated"},
			{certification, url.Values{"scheme": {"NONE"}}, "PENDING expiry=none scheme=NONE expires_on=none", audit.SupplierCertificationChanged,
				map[string]any{"supplier_id": float64(s.ID), "supplier_code": "ACME", "from": "BRC", "to": "NONE", "from_expires_on": "2027-03-31", "expires_on": nil},
				"supplier.updated"},
		}
		for i, x := range steps {
			x.form.Set("env", "live")
			before := len(supplierEvents(t, st, s.ID, x.event))
			res := b.post(x.path, x.form)
			if res.status != http.StatusSeeOther || res.location() != page {
				t.Fatalf("step %d: %d to %q: %s", i, res.status, res.location(), res.body)
			}
			if got := supplierState(supplierRow(t, st, s.ID)); got != x.state {
				t.Errorf("step %d: the supplier is %s, want %s", i, got, x.state)
			}
			recs := plantRecords(t, st, org.Org.ID, x.action)
			if len(recs) == 0 {
				t.Fatalf("step %d: no %s recorded", i, x.action)
			}
			want := recorded{Action: x.action, Env: "live", Actor: op.Email, UserID: op.ID, Detail: x.detail}
			if diff := cmp.Diff(want, recordOf(recs[len(recs)-1])); diff != "" {
				t.Errorf("step %d: the record (-want +got):\n%s", i, diff)
			}
			evs := supplierEvents(t, st, s.ID, x.event)
			if len(evs) != before+1 {
				t.Fatalf("step %d: %d new %s events, want 1", i, len(evs)-before, x.event)
			}
			if got, want := eventBy(evs[len(evs)-1]), fmt.Sprintf("app user %d", op.ID); got != want {
				t.Errorf("step %d: the event is by %s, want %s", i, got, want)
			}
			if shown := b.get(page); shown.status != http.StatusOK || !strings.Contains(shown.body, `class="flash"`) {
				t.Errorf("step %d: the page after the action: %d, flash shown %v", i, shown.status, strings.Contains(shown.body, `class="flash"`))
			}
		}

		// Refusals: nothing is written, the reason is on the page.
		written := func() string {
			n := len(plantRecords(t, st, org.Org.ID, audit.SupplierApprovalChanged)) + len(plantRecords(t, st, org.Org.ID, audit.SupplierCertificationChanged))
			m := len(supplierEvents(t, st, s.ID, "supplier.approval_changed")) + len(supplierEvents(t, st, s.ID, "supplier.updated"))
			return fmt.Sprintf("%s; %d records, %d events", supplierState(supplierRow(t, st, s.ID)), n, m)
		}
		before := written()
		for _, x := range []struct {
			path   string
			form   url.Values
			status int
			says   string
		}{
			{approval, url.Values{"status": {"PENDING"}}, http.StatusConflict, "The supplier is PENDING already."},
			{approval, url.Values{"status": {"SUSPENDED"}, "expires": {"2030-01-01"}}, http.StatusBadRequest, "Only an approval can have an expiry date."},
			{approval, url.Values{"status": {"APPROVED"}, "expires": {"2001-01-01"}}, http.StatusBadRequest, "The approval would end at once"},
			{approval, url.Values{"status": {"APPROVED"}, "expires": {"soon"}}, http.StatusBadRequest, "Enter a date such as 2027-01-31"},
			{approval, url.Values{"status": {"ARCHIVED"}}, http.StatusBadRequest, "Choose a decision"},
			{certification, url.Values{"scheme": {"NONE"}, "expires_on": {"2027-01-01"}}, http.StatusBadRequest, "Only a certification that is held can expire"},
			{certification, url.Values{"scheme": {"ISO"}}, http.StatusBadRequest, "Choose a scheme from the list."},
		} {
			x.form.Set("env", "live")
			res := b.post(x.path, x.form)
			if res.status != x.status || !strings.Contains(html.UnescapeString(res.body), x.says) {
				t.Errorf("%v: %d, want %d saying %q", x.form, res.status, x.status, x.says)
			}
		}
		if after := written(); after != before {
			t.Errorf("a refused decision wrote: %s, was %s", after, before)
		}
	})
}

// The list finds suppliers by part of the company or code and by approval
// status as read (an expired approval is PENDING), sorts as asked, pages by
// 50, and lists the approvals and certifications that end in the next 30
// days, soonest first, each linked to its supplier.
func TestSuppliersList(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		d := newDesk(t, st)
		org := dbtest.NewOrg(t, st, "")
		now := time.Now().UTC()
		day := func(n int) time.Time { return now.Truncate(24*time.Hour).AddDate(0, 0, n) }
		approved := func(at time.Time) func(*ent.SupplierCreate) {
			return func(c *ent.SupplierCreate) {
				c.SetApprovalStatus(supplier.ApprovalStatusAPPROVED).SetApprovalExpiry(at)
			}
		}
		certified := func(on time.Time) func(*ent.SupplierCreate) {
			return func(c *ent.SupplierCreate) {
				c.SetCertificationScheme(supplier.CertificationSchemeSQF).SetCertificationExpiresOn(on)
			}
		}
		soon := newSupplier(t, st, org, policy.Live, "SOON", approved(now.Add(20*24*time.Hour)))
		cert := newSupplier(t, st, org, policy.Live, "CERT", certified(day(3)))
		late := newSupplier(t, st, org, policy.Live, "LATE", certified(day(29)))
		newSupplier(t, st, org, policy.Live, "FAR", approved(now.Add(40*24*time.Hour)))
		newSupplier(t, st, org, policy.Live, "GONE", approved(now.Add(-time.Hour)))
		newSupplier(t, st, org, policy.Live, "PAST", certified(day(-1)))
		newSupplier(t, st, org, policy.Live, "NONE", func(c *ent.SupplierCreate) {
			c.SetCertificationScheme(supplier.CertificationSchemeNONE)
		})
		newSupplier(t, st, org, policy.Live, "HALT", func(c *ent.SupplierCreate) { c.SetApprovalStatus(supplier.ApprovalStatusSUSPENDED) })
		b, _ := d.signedIn(org.Org.ID, people.Viewer)

		res := b.get("/console/suppliers?env=live")
		if res.status != http.StatusOK {
			t.Fatalf("%d %s", res.status, res.body)
		}
		var expiring []string
		for _, m := range regexp.MustCompile(`(?s)<tr class="expiry">.*?<td>([^<]*)</td>\s*<td><a href="([^"]+)">([^<]+)</a>`).FindAllStringSubmatch(res.body, -1) {
			expiring = append(expiring, m[1]+" "+m[3]+" "+html.UnescapeString(m[2]))
		}
		link := func(s *ent.Supplier) string { return fmt.Sprintf("/console/suppliers/%d?env=live", s.ID) }
		want := []string{"Certification SQF CERT " + link(cert), "Approval SOON " + link(soon), "Certification SQF LATE " + link(late)}
		if diff := cmp.Diff(want, expiring); diff != "" {
			t.Errorf("expiring (-want +got):\n%s", diff)
		}

		codes := func(path string) []string {
			t.Helper()
			res := b.get(path)
			if res.status != http.StatusOK {
				t.Fatalf("%s: %d %s", path, res.status, res.body)
			}
			var out []string
			for _, m := range regexp.MustCompile(`<tr class="supplier">\s*<td><a href="[^"]+">([^<]+)</a>`).FindAllStringSubmatch(res.body, -1) {
				out = append(out, m[1])
			}
			return out
		}
		for path, want := range map[string][]string{
			"/console/suppliers?env=live":                          {"CERT", "FAR", "GONE", "HALT", "LATE", "NONE", "PAST", "SOON"},
			"/console/suppliers?env=live&sort=supplier_code:desc":  {"SOON", "PAST", "NONE", "LATE", "HALT", "GONE", "FAR", "CERT"},
			"/console/suppliers?env=live&status=APPROVED":          {"FAR", "SOON"},
			"/console/suppliers?env=live&status=PENDING":           {"CERT", "GONE", "LATE", "NONE", "PAST"},
			"/console/suppliers?env=live&status=SUSPENDED":         {"HALT"},
			"/console/suppliers?env=live&search=a":                 {"FAR", "HALT", "LATE", "PAST"},
			"/console/suppliers?env=live&search=gone+ltd":          {"GONE"},
			"/console/suppliers?env=test":                          nil,
			"/console/suppliers?env=live&search=o&status=APPROVED": {"SOON"},
		} {
			if diff := cmp.Diff(want, codes(path)); diff != "" {
				t.Errorf("%s (-want +got):\n%s", path, diff)
			}
		}
		for _, path := range []string{"/console/suppliers?env=staging", "/console/suppliers?status=OK", "/console/suppliers?sort=phone:asc", "/console/suppliers?offset=-1"} {
			if res := b.get(path); res.status != http.StatusBadRequest {
				t.Errorf("%s: %d, want 400", path, res.status)
			}
		}

		// Pages of 50: 58 suppliers make a second page of 8.
		for i := range 50 {
			newSupplier(t, st, org, policy.Live, fmt.Sprintf("ZZ%02d", i), nil)
		}
		first := b.get("/console/suppliers?env=live")
		next := regexp.MustCompile(`<a href="([^"]+)">Next suppliers</a>`).FindStringSubmatch(first.body)
		if len(codes("/console/suppliers?env=live")) != 50 || next == nil {
			t.Fatalf("the first page does not hold 50 suppliers and a link to the next")
		}
		second := codes(html.UnescapeString(next[1]))
		if diff := cmp.Diff([]string{"ZZ42", "ZZ43", "ZZ44", "ZZ45", "ZZ46", "ZZ47", "ZZ48", "ZZ49"}, second); diff != "" {
			t.Errorf("the second page (-want +got):\n%s", diff)
		}
	})
}

// An admin's settings change goes through the organization's settings
// function: the organization's row changes, and the record of the change
// names the admin (actor and user id) with what changed from what.
func TestSettingsPage(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		d := newDesk(t, st)
		org := dbtest.NewOrg(t, st, "")
		b, admin := d.signedIn(org.Org.ID, people.Admin)
		res := b.get("/console/settings")
		if res.status != http.StatusOK || strings.Contains(res.body, "checked") {
			t.Fatalf("%d; a box is checked on a new organization", res.status)
		}
		for i, x := range []struct {
			form   url.Values
			block  bool
			manual bool
			detail map[string]any
		}{
			{url.Values{"block_unapproved_suppliers": {"yes"}}, true, false,
				map[string]any{"block_unapproved_suppliers": map[string]any{"from": false, "to": true}}},
			{url.Values{"manual_costing": {"yes"}}, false, true, map[string]any{
				"block_unapproved_suppliers": map[string]any{"from": true, "to": false},
				"manual_costing":             map[string]any{"from": false, "to": true}}},
			{url.Values{"manual_costing": {"yes"}}, false, true, nil},
		} {
			before := len(plantRecords(t, st, org.Org.ID, audit.SettingsChanged))
			res := b.post("/console/settings", x.form)
			if res.status != http.StatusSeeOther || res.location() != "/console/settings" {
				t.Fatalf("step %d: %d %s", i, res.status, res.body)
			}
			o, err := st.Client.Organization.Get(policy.System(context.Background()), org.Org.ID)
			if err != nil {
				t.Fatal(err)
			}
			if o.BlockUnapprovedSuppliers != x.block || o.ManualCosting != x.manual {
				t.Errorf("step %d: block %v manual %v, want %v %v", i, o.BlockUnapprovedSuppliers, o.ManualCosting, x.block, x.manual)
			}
			recs := plantRecords(t, st, org.Org.ID, audit.SettingsChanged)
			if x.detail == nil {
				if len(recs) != before {
					t.Errorf("step %d: an unchanged setting was recorded", i)
				}
				continue
			}
			if len(recs) != before+1 {
				t.Fatalf("step %d: %d records, want %d", i, len(recs), before+1)
			}
			want := recorded{Action: audit.SettingsChanged, Actor: admin.Email, UserID: admin.ID, Detail: x.detail}
			if diff := cmp.Diff(want, recordOf(recs[len(recs)-1])); diff != "" {
				t.Errorf("step %d: the record (-want +got):\n%s", i, diff)
			}
			shown := b.get("/console/settings")
			if got := strings.Count(shown.body, " checked"); got != 1 {
				t.Errorf("step %d: %d boxes checked, want 1", i, got)
			}
		}
	})
}

// A certification past its last day is flagged "Expired" on the list and on
// the supplier's page; one ending today is not.
func TestExpiredCertificationFlagged(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		d := newDesk(t, st)
		org := dbtest.NewOrg(t, st, "")
		today := time.Unix(0, d.now.Load()).UTC().Truncate(24 * time.Hour)
		certified := func(on time.Time) func(*ent.SupplierCreate) {
			return func(c *ent.SupplierCreate) {
				c.SetCertificationScheme(supplier.CertificationSchemeSQF).SetCertificationExpiresOn(on)
			}
		}
		past := newSupplier(t, st, org, policy.Live, "PAST", certified(today.AddDate(0, 0, -1)))
		still := newSupplier(t, st, org, policy.Live, "TODAY", certified(today))
		b, _ := d.signedIn(org.Org.ID, people.Viewer)
		const badge = `<span class="badge bad">Expired</span>`
		list := b.get("/console/suppliers?env=live")
		rows := map[string]string{}
		for _, r := range cellRows(list.body, "supplier") {
			rows[r[0]] = strings.Join(r, " | ")
		}
		if !strings.Contains(rows["PAST"], "Expired") || strings.Contains(rows["TODAY"], "Expired") {
			t.Errorf("the list's rows: %q", rows)
		}
		if res := b.get(fmt.Sprintf("/console/suppliers/%d?env=live", past.ID)); !strings.Contains(res.body, badge) {
			t.Errorf("the expired supplier's page has no badge")
		}
		if res := b.get(fmt.Sprintf("/console/suppliers/%d?env=live", still.ID)); strings.Contains(res.body, badge) {
			t.Errorf("a certification ending today is flagged expired")
		}
	})
}
