package console_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"larder.dev/larder/console"
	"larder.dev/larder/internal/identity/audit"
	"larder.dev/larder/internal/identity/people"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/dbtest"
)

// clock is the desk's time.
func (d *desk) clock() time.Time { return time.Unix(0, d.now.Load()) }

// withFactor gives p a second factor and returns its secret.
func (d *desk) withFactor(p people.Person) string {
	d.t.Helper()
	ctx := context.Background()
	e, err := d.people.BeginSecondFactor(ctx, p.OrganizationID, p.ID)
	if err != nil {
		d.t.Fatal(err)
	}
	if _, err := d.people.ConfirmSecondFactor(ctx, p.OrganizationID, p.ID, people.Code(e.Secret, d.clock())); err != nil {
		d.t.Fatal(err)
	}
	d.after(time.Minute)
	return e.Secret
}

// codeWrong is six digits that are no code of secret now.
func (d *desk) codeWrong(secret string) string {
	for n := 0; ; n++ {
		c := fmt.Sprintf("%06d", n)
		now := d.clock()
		if c != people.Code(secret, now) && c != people.Code(secret, now.Add(-30*time.Second)) && c != people.Code(secret, now.Add(30*time.Second)) {
			return c
		}
	}
}

// withCode signs p in with the password and the second factor in a new
// browser.
func (d *desk) withCode(p people.Person, secret string) *browser {
	d.t.Helper()
	b := d.browser()
	if res := b.post("/console/sign-in", url.Values{"email": {p.Email}, "password": {password}}); res.location() != "/console/sign-in/code" {
		d.t.Fatalf("sign in: %d to %s", res.status, res.location())
	}
	if res := b.post("/console/sign-in/code", url.Values{"code": {people.Code(secret, d.clock())}}); res.status != http.StatusSeeOther || strings.HasPrefix(res.location(), "/console/sign-in") {
		d.t.Fatalf("code: %d to %s %s", res.status, res.location(), res.body)
	}
	d.after(30 * time.Second)
	return b
}

// The code page gives the browser a new session cookie: the token set after
// the password signs in nobody once the code is given.
func TestCodeGivesNewSessionCookie(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		d := newDesk(t, st)
		org := dbtest.NewOrg(t, st, "")
		p := d.person(org.Org.ID, people.Developer)
		secret := d.withFactor(p)
		b := d.browser()
		b.post("/console/sign-in", url.Values{"email": {p.Email}, "password": {password}})
		before := b.cookie(console.SessionCookie)
		res := b.post("/console/sign-in/code", url.Values{"code": {people.Code(secret, d.clock())}})
		if res.status != http.StatusSeeOther {
			t.Fatalf("code: %d %s", res.status, res.body)
		}
		after := b.cookie(console.SessionCookie)
		if before == "" || after == "" || after == before {
			t.Fatalf("session cookie %q after the password, %q after the code: want a new one", before, after)
		}
		if _, err := d.people.Session(context.Background(), before); err != people.ErrNoSession {
			t.Errorf("the password step's token: %v, want ErrNoSession", err)
		}
		if got := b.get("/console/account"); got.status != http.StatusOK {
			t.Errorf("the account page with the new cookie: %d", got.status)
		}
	})
}

// The tenth wrong code in a row answers 423 and says the second factor is
// locked; the admin sees it on the People page and unlocks it there (a
// developer may not), after which the right code signs in.
func TestLockedSecondFactorUnlockedByAdmin(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		d := newDesk(t, st)
		org := dbtest.NewOrg(t, st, "")
		admin, _ := d.signedIn(org.Org.ID, people.Admin)
		dev, _ := d.signedIn(org.Org.ID, people.Developer)
		p := d.person(org.Org.ID, people.Operator)
		secret := d.withFactor(p)
		for n := 1; n <= 10; n++ {
			d.after(5 * time.Minute)
			b := d.browser()
			b.post("/console/sign-in", url.Values{"email": {p.Email}, "password": {password}})
			res := b.post("/console/sign-in/code", url.Values{"code": {d.codeWrong(secret)}})
			if n < 10 && res.status != http.StatusUnauthorized {
				t.Fatalf("wrong code %d: %d", n, res.status)
			}
			if n == 10 && (res.status != http.StatusLocked || !strings.Contains(res.body, "locked after 10 wrong codes")) {
				t.Fatalf("wrong code 10: %d %s", res.status, res.body)
			}
		}
		page := admin.get("/console/people")
		if !strings.Contains(page.body, `badge bad">locked`) || !strings.Contains(page.body, fmt.Sprintf("/console/people/%d/second-factor/unlock", p.ID)) {
			t.Fatalf("the People page shows no lock for %s:\n%s", p.Email, page.body)
		}
		if res := dev.post(fmt.Sprintf("/console/people/%d/second-factor/unlock", p.ID), nil); res.status != http.StatusForbidden {
			t.Errorf("a developer unlocks: %d, want 403", res.status)
		}
		if res := admin.post(fmt.Sprintf("/console/people/%d/second-factor/unlock", p.ID), nil); res.status != http.StatusSeeOther {
			t.Fatalf("unlock: %d %s", res.status, res.body)
		}
		if got, _ := d.people.Get(context.Background(), org.Org.ID, p.ID); got.SecondFactorLocked || got.FailedCodes != 0 {
			t.Fatalf("after the unlock: %+v", got)
		}
		d.after(time.Minute)
		d.withCode(p, secret)
	})
}

// A one-time link followed in a browser where someone is signed in signs
// them out first; the password set is recorded as the link's person's.
func TestLinkSignsOutWhoeverIsSignedIn(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		d := newDesk(t, st)
		org := dbtest.NewOrg(t, st, "")
		admin, me := d.signedIn(org.Org.ID, people.Admin)
		mine := admin.cookie(console.SessionCookie)
		ctx := audit.WithActor(context.Background(), me.Email)
		p, l, err := d.people.Invite(ctx, org.Org.ID, fmt.Sprintf("linked-%d@example.com", time.Now().UnixNano()), people.Viewer)
		if err != nil {
			t.Fatal(err)
		}
		pw := "a new password of mine"
		if res := admin.post(people.LinkPath(l.Token), url.Values{"password": {pw}, "confirm": {pw}}); res.status != http.StatusSeeOther {
			t.Fatalf("follow the link: %d %s", res.status, res.body)
		}
		if _, err := d.people.Session(context.Background(), mine); err != people.ErrNoSession {
			t.Errorf("the admin's session after the link: %v, want ErrNoSession", err)
		}
		if got := admin.get("/console/account"); !strings.Contains(got.body, p.Email) || strings.Contains(got.body, me.Email) {
			t.Errorf("the browser after the link is not the link's person's:\n%s", got.body)
		}
		h, err := audit.History(context.Background(), st.Client, org.Org.ID)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, r := range h {
			if r.Action == "password_set" && r.Detail["email"] == p.Email {
				found = true
				if r.Actor != p.Email || r.UserID == nil || *r.UserID != p.ID {
					t.Errorf("password_set recorded as %s (user %v), want %s", r.Actor, r.UserID, p.Email)
				}
			}
		}
		if !found {
			t.Error("no password_set record")
		}
	})
}

// Turning one's second factor off asks for the password or a current code,
// and signs the person out of their other browsers; an admin turns off their
// own only there, not on the People page.
func TestTurningSecondFactorOffNeedsProof(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		d := newDesk(t, st)
		org := dbtest.NewOrg(t, st, "")
		p := d.person(org.Org.ID, people.Admin)
		secret := d.withFactor(p)
		b := d.withCode(p, secret)
		d.after(time.Minute)
		elsewhere := d.withCode(p, secret)
		for _, proof := range []string{"", "not my password"} {
			res := b.post("/console/account/second-factor/remove", url.Values{"proof": {proof}})
			if res.status != http.StatusBadRequest || !strings.Contains(res.body, `id="e-proof"`) {
				t.Errorf("remove with %q: %d, want 400 beside the field", proof, res.status)
			}
		}
		if res := b.post(fmt.Sprintf("/console/people/%d/second-factor/remove", p.ID), nil); res.status != http.StatusBadRequest {
			t.Errorf("an admin's own, on the People page: %d, want 400", res.status)
		}
		if got, _ := d.people.Get(context.Background(), org.Org.ID, p.ID); !got.SecondFactor {
			t.Fatal("the second factor went without proof")
		}
		if res := b.post("/console/account/second-factor/remove", url.Values{"proof": {password}}); res.status != http.StatusSeeOther {
			t.Fatalf("remove with the password: %d %s", res.status, res.body)
		}
		if got, _ := d.people.Get(context.Background(), org.Org.ID, p.ID); got.SecondFactor {
			t.Fatal("the second factor is still on")
		}
		if res := elsewhere.get("/console/account"); res.status != http.StatusSeeOther {
			t.Errorf("the other browser after the removal: %d, want 303 to sign in", res.status)
		}
		if res := b.get("/console/account"); res.status != http.StatusOK {
			t.Errorf("the remover's browser: %d", res.status)
		}
	})
}
