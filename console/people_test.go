package console_test

import (
	"context"
	"errors"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"larder.dev/larder/console"
	"larder.dev/larder/internal/identity/people"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/dbtest"
)

// linkIn is the one-time link a page shows, as a path, and the link as shown.
func linkIn(t *testing.T, body string) (path, shown string) {
	t.Helper()
	m := regexp.MustCompile(`value="([^"]*/console/welcome/[A-Za-z0-9_-]+)"`).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no one-time link on the page:\n%s", body)
	}
	shown = html.UnescapeString(m[1])
	u, err := url.Parse(shown)
	if err != nil {
		t.Fatal(err)
	}
	return u.Path, shown
}

// An invitation shows its absolute link once (and says it was not e-mailed:
// the desk has no mail server); following it sets a password and signs the
// person in, with the role they were invited with, invited by the admin.
func TestPeopleInviteLinkWorks(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		d := newDesk(t, st)
		org := dbtest.NewOrg(t, st, "")
		admin, me := d.signedIn(org.Org.ID, people.Admin)
		email := fmt.Sprintf("new-%d@example.com", time.Now().UnixNano())

		res := admin.post("/console/people", url.Values{"email": {"  " + strings.ToUpper(email) + " "}, "role": {"operator"}})
		if res.status != http.StatusOK {
			t.Fatalf("invite: %d %s %s", res.status, res.location(), res.body)
		}
		path, shown := linkIn(t, res.body)
		if !strings.HasPrefix(shown, d.srv.URL+"/console/welcome/") {
			t.Errorf("the link %q is not absolute under %s", shown, d.srv.URL)
		}
		if !strings.Contains(res.body, "It was not e-mailed") || !strings.Contains(res.body, "Shown once") {
			t.Errorf("the page does not say the link is shown once and was not e-mailed:\n%s", res.body)
		}
		p, err := d.people.ByEmail(context.Background(), org.Org.ID, email)
		if err != nil {
			t.Fatal(err)
		}
		if p.Active || p.Role != people.Operator || p.InvitedBy != me.Email {
			t.Errorf("invited person %+v, want inactive operator invited by %s", p, me.Email)
		}
		if !strings.Contains(res.body, "invited</span>") {
			t.Error("the list does not show the person as invited")
		}

		guest := d.browser()
		if got := guest.get(path); got.status != http.StatusOK || !strings.Contains(got.body, email) {
			t.Fatalf("open the link: %d %s", got.status, got.body)
		}
		pw := "a new password of mine"
		if got := guest.post(path, url.Values{"password": {pw}, "confirm": {pw}}); got.status != http.StatusSeeOther {
			t.Fatalf("set the password: %d %s", got.status, got.body)
		}
		if got := guest.get("/console/account"); got.status != http.StatusOK || !strings.Contains(got.body, email) {
			t.Errorf("after the link, the account page: %d", got.status)
		}
		if got := guest.get(path); got.status != http.StatusNotFound {
			t.Errorf("the link works twice: %d", got.status)
		}
		again := d.browser()
		if got := again.post("/console/sign-in", url.Values{"email": {email}, "password": {pw}}); got.status != http.StatusSeeOther || strings.HasPrefix(got.location(), "/console/sign-in") {
			t.Fatalf("sign in with the new password: %d to %s", got.status, got.location())
		}
		if got := again.get("/console/people"); got.status != http.StatusForbidden {
			t.Errorf("an operator opens the people page: %d, want 403", got.status)
		}
		p, _ = d.people.Get(context.Background(), org.Org.ID, p.ID)
		if !p.Active || p.LastSignInAt == nil {
			t.Errorf("after signing in: %+v", p)
		}
	})
}

// The invitation form's errors are shown next to its fields with 400, and
// nobody is invited.
func TestPeopleInviteErrors(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		d := newDesk(t, st)
		org := dbtest.NewOrg(t, st, "")
		other := dbtest.NewOrg(t, st, "")
		admin, me := d.signedIn(org.Org.ID, people.Admin)
		elsewhere := d.person(other.Org.ID, people.Viewer)
		before, _ := d.people.List(context.Background(), org.Org.ID)
		for _, tc := range []struct {
			name  string
			form  url.Values
			field string
			msg   string
		}{
			{"not an address", url.Values{"email": {"nobody"}, "role": {"viewer"}}, "email", "This address cannot be invited."},
			{"a display name", url.Values{"email": {"Ana <ana@example.com>"}, "role": {"viewer"}}, "email", "This address cannot be invited."},
			{"taken here", url.Values{"email": {me.Email}, "role": {"viewer"}}, "email", "This address cannot be invited."},
			{"taken in another organization", url.Values{"email": {elsewhere.Email}, "role": {"viewer"}}, "email", "This address cannot be invited."},
			{"no role", url.Values{"email": {"someone@example.com"}, "role": {"owner"}}, "role", "Choose a role"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				res := admin.post("/console/people", tc.form)
				if res.status != http.StatusBadRequest {
					t.Fatalf("%d, want 400", res.status)
				}
				if !regexp.MustCompile(`id="e-` + tc.field + `">[^<]*` + regexp.QuoteMeta(tc.msg)).MatchString(res.body) {
					t.Errorf("no error %q next to %s:\n%s", tc.msg, tc.field, res.body)
				}
				if strings.Contains(res.body, "/console/welcome/") {
					t.Error("a link is shown for a refused invitation")
				}
			})
		}
		after, _ := d.people.List(context.Background(), org.Org.ID)
		if len(after) != len(before) {
			t.Errorf("%d people after refused invitations, want %d", len(after), len(before))
		}

		// An address of another organization is answered byte for byte as
		// a malformed one and one of this organization: an admin learns
		// nothing of other organizations' people.
		answers := map[string]string{}
		for name, email := range map[string]string{"malformed": "nobody@@example.com", "here": me.Email, "elsewhere": elsewhere.Email} {
			res := admin.post("/console/people", url.Values{"email": {email}, "role": {"viewer"}})
			answers[name] = fmt.Sprint(res.status) + "\n" + strings.ReplaceAll(res.body, `value="`+html.EscapeString(email)+`"`, `value="ADDRESS"`)
		}
		for _, other := range []string{"malformed", "here"} {
			if diff := cmp.Diff(answers[other], answers["elsewhere"]); diff != "" {
				t.Errorf("an address elsewhere is answered unlike a %s one (-%s +elsewhere):\n%s", other, other, diff)
			}
		}
	})
}

// Links are under the console's configured address, never a host the
// request names: neither a forged Host nor X-Forwarded-Host, from a trusted
// proxy or not, reaches a one-time link or a new key's example request.
func TestLinksNeverFromTheRequestHost(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		for _, trusted := range []bool{true, false} {
			d := newDeskTrusting(t, st, trusted)
			org := dbtest.NewOrg(t, st, "")
			admin, _ := d.signedIn(org.Org.ID, people.Admin)
			forged := func(path string, form url.Values) answer {
				req, _ := http.NewRequest("POST", d.srv.URL+path, strings.NewReader(form.Encode()))
				req.Host = "evil.example"
				// The browser's cookie jar keys by the forged host: send the session by hand.
				req.AddCookie(&http.Cookie{Name: console.SessionCookie, Value: admin.cookie(console.SessionCookie)})
				req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
				req.Header.Set("Sec-Fetch-Site", "same-origin")
				req.Header.Set("X-Forwarded-Host", "forwarded.example")
				return admin.do(req)
			}
			res := forged("/console/people", url.Values{"email": {fmt.Sprintf("fwd-%t-%d@example.com", trusted, time.Now().UnixNano())}, "role": {"viewer"}})
			if res.status != http.StatusOK {
				t.Fatalf("invite: %d %s %s", res.status, res.location(), res.body)
			}
			if _, shown := linkIn(t, res.body); !strings.HasPrefix(shown, d.srv.URL+"/console/welcome/") {
				t.Errorf("trusted %t: link %q, want under %s", trusted, shown, d.srv.URL)
			}
			res = forged("/console/keys", url.Values{"env": {"test"}, "preset": {"read-all"}})
			if res.status != http.StatusOK || !strings.Contains(res.body, "&#34; "+d.srv.URL+"/v1/organization") {
				t.Errorf("trusted %t: the key's example request is not against %s: %d %s", trusted, d.srv.URL, res.status, res.body)
			}
			for _, host := range []string{"evil.example", "forwarded.example"} {
				if strings.Contains(res.body, host) {
					t.Errorf("trusted %t: the page names %s", trusted, host)
				}
			}
		}
	})
}

// The console has no address of its own to put in links without a base
// URL, and refuses to start rather than take one from requests.
func TestConsoleNeedsItsBaseURL(t *testing.T) {
	for _, base := range []string{"", "console.example.com", "ftp://console.example.com"} {
		if _, err := console.New(console.Options{BaseURL: base}); err == nil {
			t.Errorf("base URL %q accepted", base)
		}
	}
}

// A role change takes effect at once: it ends the person's sessions, and
// signed in again they have the new role's pages and only those.
func TestPeopleRoleChange(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		d := newDesk(t, st)
		org := dbtest.NewOrg(t, st, "")
		admin, _ := d.signedIn(org.Org.ID, people.Admin)
		dev, p := d.signedIn(org.Org.ID, people.Developer)
		if got := dev.get("/console/people"); got.status != http.StatusForbidden {
			t.Fatalf("a developer opens the people page: %d", got.status)
		}

		res := admin.post(fmt.Sprintf("/console/people/%d/role", p.ID), url.Values{"role": {"admin"}})
		if res.status != http.StatusSeeOther || res.location() != "/console/people" {
			t.Fatalf("make admin: %d to %s", res.status, res.location())
		}
		if got, _ := d.people.Get(context.Background(), org.Org.ID, p.ID); got.Role != people.Admin {
			t.Errorf("role %s, want admin", got.Role)
		}
		if got := dev.get("/console/people"); got.status != http.StatusSeeOther || !strings.HasPrefix(got.location(), "/console/sign-in") {
			t.Errorf("the old session after the change: %d to %s, want sent to sign in", got.status, got.location())
		}
		dev = signIn(t, d, p.Email)
		if got := dev.get("/console/people"); got.status != http.StatusOK {
			t.Errorf("signed in again as admin, the people page: %d", got.status)
		}

		if res := admin.post(fmt.Sprintf("/console/people/%d/role", p.ID), url.Values{"role": {"viewer"}}); res.status != http.StatusSeeOther {
			t.Fatalf("make viewer: %d %s", res.status, res.body)
		}
		if got := dev.get("/console/account"); got.status != http.StatusSeeOther || !strings.HasPrefix(got.location(), "/console/sign-in") {
			t.Errorf("the old session after the change: %d to %s", got.status, got.location())
		}
		dev = signIn(t, d, p.Email)
		if got := dev.get("/console/people"); got.status != http.StatusForbidden {
			t.Errorf("signed in again as viewer, the people page: %d, want 403", got.status)
		}
		if got := dev.post(fmt.Sprintf("/console/people/%d/role", p.ID), url.Values{"role": {"admin"}}); got.status != http.StatusForbidden {
			t.Errorf("a viewer makes themselves admin: %d, want 403", got.status)
		}
		if got, _ := d.people.Get(context.Background(), org.Org.ID, p.ID); got.Role != people.Viewer {
			t.Errorf("role %s, want viewer", got.Role)
		}
	})
}

// signIn opens a browser signed in as email (with the desk's password).
func signIn(t *testing.T, d *desk, email string) *browser {
	t.Helper()
	b := d.browser()
	if res := b.post("/console/sign-in", url.Values{"email": {email}, "password": {password}}); res.status != http.StatusSeeOther || strings.HasPrefix(res.location(), "/console/sign-in") {
		t.Fatalf("sign in as %s: %d to %s", email, res.status, res.location())
	}
	return b
}

// The last admin can neither be demoted nor removed: the page says why
// (400) and nothing changes. With a second admin, an admin may step down,
// and is sent to sign in again.
func TestPeopleLastAdmin(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		d := newDesk(t, st)
		org := dbtest.NewOrg(t, st, "")
		admin, me := d.signedIn(org.Org.ID, people.Admin)
		ctx := context.Background()

		res := admin.post(fmt.Sprintf("/console/people/%d/role", me.ID), url.Values{"role": {"developer"}})
		if res.status != http.StatusBadRequest || !strings.Contains(res.body, "An organization keeps at least one admin") {
			t.Errorf("demote the last admin: %d\n%s", res.status, res.body)
		}
		res = admin.post(fmt.Sprintf("/console/people/%d/remove", me.ID), url.Values{"confirm": {"yes"}})
		if res.status != http.StatusBadRequest || !strings.Contains(res.body, "An organization keeps at least one admin") {
			t.Errorf("remove the last admin: %d\n%s", res.status, res.body)
		}
		if got, err := d.people.Get(ctx, org.Org.ID, me.ID); err != nil || got.Role != people.Admin {
			t.Errorf("the last admin after refusals: %+v %v", got, err)
		}
		if got := admin.get("/console/people"); got.status != http.StatusOK {
			t.Errorf("the admin's session after refusals: %d", got.status)
		}

		// An invited admin without a password does not count: they cannot
		// sign in to give the role back.
		if _, _, err := d.people.Invite(ctx, org.Org.ID, fmt.Sprintf("later-%d@example.com", time.Now().UnixNano()), people.Admin); err != nil {
			t.Fatal(err)
		}
		res = admin.post(fmt.Sprintf("/console/people/%d/role", me.ID), url.Values{"role": {"viewer"}})
		if res.status != http.StatusBadRequest || !strings.Contains(res.body, "An organization keeps at least one admin") {
			t.Errorf("demote the last admin with a password: %d", res.status)
		}

		d.person(org.Org.ID, people.Admin)
		res = admin.post(fmt.Sprintf("/console/people/%d/role", me.ID), url.Values{"role": {"developer"}})
		if res.status != http.StatusSeeOther || !strings.HasPrefix(res.location(), "/console/sign-in") {
			t.Fatalf("step down with another admin: %d to %s", res.status, res.location())
		}
		if got, _ := d.people.Get(ctx, org.Org.ID, me.ID); got.Role != people.Developer {
			t.Errorf("role %s after stepping down, want developer", got.Role)
		}
		if got := admin.get("/console/account"); got.status != http.StatusSeeOther || !strings.HasPrefix(got.location(), "/console/sign-in") {
			t.Errorf("the session after stepping down: %d", got.status)
		}
	})
}

// Removing a person asks once, on its own page; then they are gone and
// their session ends.
func TestPeopleRemoveEndsSession(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		d := newDesk(t, st)
		org := dbtest.NewOrg(t, st, "")
		admin, _ := d.signedIn(org.Org.ID, people.Admin)
		dev, p := d.signedIn(org.Org.ID, people.Developer)
		ctx := context.Background()

		ask := admin.get(fmt.Sprintf("/console/people/%d/remove", p.ID))
		if ask.status != http.StatusOK || !strings.Contains(ask.body, "Remove "+p.Email) {
			t.Errorf("the removal's page: %d\n%s", ask.status, ask.body)
		}
		if _, err := d.people.Get(ctx, org.Org.ID, p.ID); err != nil {
			t.Fatalf("removed by opening the removal's page: %v", err)
		}
		if got := dev.get("/console/account"); got.status != http.StatusOK {
			t.Fatalf("the person's session before removal: %d", got.status)
		}

		res := admin.post(fmt.Sprintf("/console/people/%d/remove", p.ID), url.Values{})
		if res.status != http.StatusSeeOther || res.location() != "/console/people" {
			t.Fatalf("remove: %d to %s", res.status, res.location())
		}
		if _, err := d.people.Get(ctx, org.Org.ID, p.ID); !errors.Is(err, people.ErrNotFound) {
			t.Errorf("after removal: %v", err)
		}
		if got := dev.get("/console/account"); got.status != http.StatusSeeOther || !strings.HasPrefix(got.location(), "/console/sign-in") {
			t.Errorf("the removed person's session: %d to %s", got.status, got.location())
		}
		if got := admin.get("/console/people"); !strings.Contains(got.body, p.Email+" is removed") || strings.Contains(got.body, "<td>"+p.Email) {
			t.Errorf("after removal, the page:\n%s", got.body)
		}
	})
}

// A password reset link is shown once and works; the old password then does
// not. An admin turns off a person's second factor, who then signs in with
// the password alone.
func TestPeopleResetAndSecondFactor(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		d := newDesk(t, st)
		org := dbtest.NewOrg(t, st, "")
		admin, _ := d.signedIn(org.Org.ID, people.Admin)
		p := d.person(org.Org.ID, people.Developer)
		ctx := context.Background()

		res := admin.post(fmt.Sprintf("/console/people/%d/reset", p.ID), url.Values{})
		if res.status != http.StatusOK || !strings.Contains(res.body, "Password reset link for "+p.Email) {
			t.Fatalf("reset: %d\n%s", res.status, res.body)
		}
		path, _ := linkIn(t, res.body)
		pw := "another long password"
		if got := d.browser().post(path, url.Values{"password": {pw}, "confirm": {pw}}); got.status != http.StatusSeeOther {
			t.Fatalf("use the reset link: %d %s", got.status, got.body)
		}
		if got := d.browser().post("/console/sign-in", url.Values{"email": {p.Email}, "password": {password}}); got.status != http.StatusUnauthorized {
			t.Errorf("the old password after a reset: %d, want 401", got.status)
		}

		e, err := d.people.BeginSecondFactor(ctx, org.Org.ID, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := d.people.ConfirmSecondFactor(ctx, org.Org.ID, p.ID, people.Code(e.Secret, time.Unix(0, d.now.Load()))); err != nil {
			t.Fatal(err)
		}
		if got := d.browser().post("/console/sign-in", url.Values{"email": {p.Email}, "password": {pw}}); got.location() != "/console/sign-in/code" {
			t.Fatalf("with a second factor, sign-in goes to %s", got.location())
		}
		if got := admin.get("/console/people"); !strings.Contains(got.body, `Turn off second factor…<span class="vh"> of `+p.Email) {
			t.Error("no button to turn off the person's second factor")
		}
		if got := admin.get(fmt.Sprintf("/console/people/%d/second-factor/remove", p.ID)); got.status != http.StatusOK || !strings.Contains(got.body, "password alone") {
			t.Errorf("the page that asks before turning it off: %d", got.status)
		}
		res = admin.post(fmt.Sprintf("/console/people/%d/second-factor/remove", p.ID), url.Values{})
		if res.status != http.StatusSeeOther {
			t.Fatalf("turn off: %d %s", res.status, res.body)
		}
		if got, _ := d.people.Get(ctx, org.Org.ID, p.ID); got.SecondFactor {
			t.Error("the second factor is still on")
		}
		if got := d.browser().post("/console/sign-in", url.Values{"email": {p.Email}, "password": {pw}}); got.status != http.StatusSeeOther || got.location() == "/console/sign-in/code" {
			t.Errorf("without the second factor, sign-in goes to %s", got.location())
		}
	})
}

// The organization's setting is a checkbox: ticked requires a second factor
// of everyone, unticked stops requiring it.
func TestPeopleRequireSecondFactor(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		d := newDesk(t, st)
		org := dbtest.NewOrg(t, st, "")
		admin, _ := d.signedIn(org.Org.ID, people.Admin)
		ctx := context.Background()
		if res := admin.post("/console/people/second-factor", url.Values{"required": {"yes"}}); res.status != http.StatusSeeOther {
			t.Fatalf("require: %d %s", res.status, res.body)
		}
		if on, _ := d.people.SecondFactorRequired(ctx, org.Org.ID); !on {
			t.Error("not required after ticking")
		}
		// The admin has none: the console sends them to set one up first.
		if got := admin.get("/console/people"); got.status != http.StatusSeeOther || got.location() != "/console/account/second-factor" {
			t.Errorf("an admin without a second factor: %d to %s", got.status, got.location())
		}
		if err := d.people.RequireSecondFactor(ctx, org.Org.ID, true); err != nil {
			t.Fatal(err)
		}
		other, _ := d.signedIn(dbtest.NewOrg(t, st, "").Org.ID, people.Admin)
		if res := other.post("/console/people/second-factor", url.Values{}); res.status != http.StatusSeeOther {
			t.Fatalf("unticked: %d", res.status)
		}
		if on, _ := d.people.SecondFactorRequired(ctx, org.Org.ID); !on {
			t.Error("another organization's admin changed this organization's setting")
		}
		if got := other.get("/console/people"); !strings.Contains(got.body, `name="required" value="yes">`) {
			t.Errorf("the other organization's box is not unticked:\n%s", got.body)
		}
	})
}

// Every route that names a person finds only the caller's organization's:
// another organization's id is 404 both ways, and nothing changes.
func TestPeopleOtherOrganization(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		d := newDesk(t, st)
		ctx := context.Background()
		a, b := dbtest.NewOrg(t, st, ""), dbtest.NewOrg(t, st, "")
		adminA, _ := d.signedIn(a.Org.ID, people.Admin)
		adminB, _ := d.signedIn(b.Org.ID, people.Admin)
		devA, devB := d.person(a.Org.ID, people.Developer), d.person(b.Org.ID, people.Developer)
		for _, side := range []struct {
			name   string
			admin  *browser
			target people.Person
			orgID  int
		}{{"A on B", adminA, devB, b.Org.ID}, {"B on A", adminB, devA, a.Org.ID}} {
			for _, action := range []struct {
				path string
				form url.Values
			}{
				{"/role", url.Values{"role": {"viewer"}}},
				{"/reset", url.Values{}},
				{"/second-factor/remove", url.Values{}},
				{"/remove", url.Values{"confirm": {"yes"}}},
			} {
				res := side.admin.post(fmt.Sprintf("/console/people/%d%s", side.target.ID, action.path), action.form)
				if res.status != http.StatusNotFound {
					t.Errorf("%s %s: %d, want 404", side.name, action.path, res.status)
				}
				if strings.Contains(res.body, "/console/welcome/") {
					t.Errorf("%s %s: a link is shown", side.name, action.path)
				}
			}
			got, err := d.people.Get(ctx, side.orgID, side.target.ID)
			if err != nil || got.Role != people.Developer {
				t.Errorf("%s: the person after the attempts: %+v %v", side.name, got, err)
			}
			if strings.Contains(side.admin.get("/console/people").body, side.target.Email) {
				t.Errorf("%s: the other organization's person is listed", side.name)
			}
		}
		if res := adminA.post("/console/people/not-a-number/role", url.Values{"role": {"viewer"}}); res.status != http.StatusNotFound {
			t.Errorf("a malformed id: %d, want 404", res.status)
		}
	})
}
