package console_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"larder.dev/larder/ent"
	"larder.dev/larder/internal/identity/audit"
	"larder.dev/larder/internal/identity/auth"
	"larder.dev/larder/internal/identity/people"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

// rows counts the history's table rows on a page.
func rows(body string) int { return strings.Count(body, "<tr>\n  <td class=\"nowrap\">") }

// The history lists a key made from the CLI with its actor and no address,
// and a console invitation with the admin and the client address, newest
// first; another organization's records never show.
func TestAuditPageListsThisOrganization(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		d := newDesk(t, st)
		a, b := dbtest.NewOrg(t, st, ""), dbtest.NewOrg(t, st, "")
		admin, me := d.signedIn(a.Org.ID, people.Admin)
		adminB, meB := d.signedIn(b.Org.ID, people.Admin)
		ctx := context.Background()

		k, err := auth.CreateKey(audit.WithActor(ctx, "ops-cli"), st.Client, a.Org.ID, auth.Holder, policy.Live, policy.Known(), "ci")
		if err != nil {
			t.Fatal(err)
		}
		kb, err := auth.CreateKey(audit.WithActor(ctx, "other-cli"), st.Client, b.Org.ID, auth.Holder, policy.Test, policy.Known(), "b")
		if err != nil {
			t.Fatal(err)
		}
		invited := fmt.Sprintf("audited-%d@example.com", time.Now().UnixNano())
		if res := admin.post("/console/people", url.Values{"email": {invited}, "role": {"viewer"}}); res.status != http.StatusOK {
			t.Fatalf("invite: %d", res.status)
		}

		res := admin.get("/console/audit")
		if res.status != http.StatusOK {
			t.Fatalf("audit page: %d %s", res.status, res.body)
		}
		key := regexp.MustCompile(`<td>ops-cli</td>\s*<td><span class="muted">CLI</span></td>\s*<td>Created an API key</td>\s*<td class="wrap">key ` + fmt.Sprint(k.Record.ID) + ` \(live\)`)
		if !key.MatchString(res.body) {
			t.Errorf("the CLI's key is not listed with its actor:\n%s", res.body)
		}
		inv := regexp.MustCompile(`<td>` + regexp.QuoteMeta(me.Email) + `</td>\s*<td><span class="mono">127\.0\.0\.1</span></td>\s*<td>Invited a person</td>\s*<td class="wrap">[^<]*email: ` + regexp.QuoteMeta(invited))
		if !inv.MatchString(res.body) {
			t.Errorf("the console's invitation is not listed with the admin and address:\n%s", res.body)
		}
		if strings.Index(res.body, "<td>Invited a person</td>") > strings.Index(res.body, "<td>Created an API key</td>") {
			t.Error("not newest first")
		}
		for _, theirs := range []string{"other-cli", meB.Email, fmt.Sprintf("key %d ", kb.Record.ID)} {
			if strings.Contains(res.body, theirs) {
				t.Errorf("A's history shows B's %q", theirs)
			}
		}
		resB := adminB.get("/console/audit")
		if !strings.Contains(resB.body, "other-cli") || strings.Contains(resB.body, "ops-cli") || strings.Contains(resB.body, invited) {
			t.Errorf("B's history:\n%s", resB.body)
		}
	})
}

// The filters choose by action and by actor; an action that is not one is
// an error next to the field.
func TestAuditPageFilters(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		d := newDesk(t, st)
		org := dbtest.NewOrg(t, st, "")
		admin, me := d.signedIn(org.Org.ID, people.Admin)
		ctx := context.Background()
		for i := 0; i < 2; i++ {
			if _, err := auth.CreateKey(audit.WithActor(ctx, "ops-cli"), st.Client, org.Org.ID, auth.Holder, policy.Test, policy.Known(), ""); err != nil {
				t.Fatal(err)
			}
		}
		if _, _, err := d.people.Invite(audit.WithActor(ctx, "ops-cli"), org.Org.ID, fmt.Sprintf("f-%d@example.com", time.Now().UnixNano()), people.Viewer); err != nil {
			t.Fatal(err)
		}

		if res := admin.post("/console/people", url.Values{"email": {fmt.Sprintf("g-%d@example.com", time.Now().UnixNano())}, "role": {"viewer"}}); res.status != http.StatusOK {
			t.Fatalf("invite: %d", res.status)
		}

		res := admin.get("/console/audit?action=key_created")
		if res.status != http.StatusOK || rows(res.body) != 2 || strings.Contains(res.body, "<td>Invited a person</td>") {
			t.Errorf("key_created: %d, %d rows\n%s", res.status, rows(res.body), res.body)
		}
		if !strings.Contains(res.body, `<option value="key_created" selected>`) {
			t.Error("the chosen action is not selected")
		}
		res = admin.get("/console/audit?actor=ops-cli")
		if rows(res.body) != 3 || strings.Contains(res.body, "<td>"+me.Email+"</td>") {
			t.Errorf("ops-cli: %d rows", rows(res.body))
		}
		res = admin.get("/console/audit?action=user_invited&actor=" + url.QueryEscape(me.Email))
		if rows(res.body) != 1 || !strings.Contains(res.body, "<td>Invited a person</td>") {
			t.Errorf("the admin's invitations: %d rows\n%s", rows(res.body), res.body)
		}
		res = admin.get("/console/audit?actor=nobody")
		if rows(res.body) != 0 || !strings.Contains(res.body, "No change matches") {
			t.Errorf("no match: %d rows", rows(res.body))
		}
		res = admin.get("/console/audit?action=drop_table")
		if res.status != http.StatusBadRequest || !strings.Contains(res.body, `id="e-action">Choose an action from the list.`) {
			t.Errorf("an unknown action: %d\n%s", res.status, res.body)
		}
	})
}

// The history is paged 50 records at a time, newest first, with a link to
// the older ones that keeps the filter.
func TestAuditPagePages(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		d := newDesk(t, st)
		org := dbtest.NewOrg(t, st, "")
		admin, _ := d.signedIn(org.Org.ID, people.Admin)
		ctx := audit.WithActor(policy.System(context.Background()), "bulk-cli")
		for i := 0; i < 60; i++ {
			err := ent.RunInTx(ctx, st.Client, func(tx *ent.Tx) error {
				return audit.Record(ctx, tx, audit.Entry{OrganizationID: org.Org.ID, Action: audit.PlanChanged, At: time.Now(), Detail: map[string]any{"n": i}})
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		res := admin.get("/console/audit?actor=bulk-cli")
		if rows(res.body) != 50 || !strings.Contains(res.body, "n: 59") || strings.Contains(res.body, "n: 9<") {
			t.Fatalf("first page: %d rows", rows(res.body))
		}
		m := regexp.MustCompile(`<a href="(/console/audit\?[^"]*before=\d+[^"]*)">Older changes</a>`).FindStringSubmatch(res.body)
		if m == nil {
			t.Fatalf("no link to older changes:\n%s", res.body)
		}
		older := strings.ReplaceAll(m[1], "&amp;", "&")
		if !strings.Contains(older, "actor=bulk-cli") {
			t.Errorf("the link %q drops the filter", older)
		}
		res = admin.get(older)
		if rows(res.body) != 10 || !strings.Contains(res.body, "n: 9<") || !strings.Contains(res.body, "n: 0<") || strings.Contains(res.body, "n: 10<") {
			t.Errorf("second page: %d rows\n%s", rows(res.body), res.body)
		}
		if strings.Contains(res.body, "Older changes") || !strings.Contains(res.body, "Newest changes") {
			t.Error("the last page links on, or not back")
		}
	})
}
