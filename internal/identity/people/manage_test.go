package people

import (
	"context"
	"encoding/base64"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"larder.dev/larder/ent/session"
	"larder.dev/larder/internal/identity/audit"
	"larder.dev/larder/internal/platform/secrets"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/dbtest"
)

// actions are the actions of an organization's history, oldest first.
func actions(t *testing.T, f *fixture, org int) []string {
	t.Helper()
	h, err := audit.History(f.ctx, f.st.Client, org)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(h))
	for i, r := range h {
		out[i] = r.Action
	}
	return out
}

// sessionsOf counts a person's sessions.
func sessionsOf(t *testing.T, f *fixture, userID int) int {
	t.Helper()
	n, err := f.st.Client.Session.Query().Where(session.UserID(userID)).Count(systemCtx(f.ctx))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// An invitation normalises the address, records who invited whom, and makes a
// link that works for 24 hours, once; the password must have 12 characters.
func TestInvitationLink(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		f := newFixture(t, st)
		addr := email("new")
		ctx := audit.WithActor(f.ctx, "boss@example.com")
		p, l, err := f.s.Invite(ctx, f.org, "  "+strings.ToUpper(addr)+"\t", Operator)
		if err != nil {
			t.Fatal(err)
		}
		if p.Email != addr || p.Role != Operator || p.Active || p.InvitedBy != "boss@example.com" || p.OrganizationID != f.org {
			t.Fatalf("invited %+v", p)
		}
		if l.Purpose != "invitation" || !l.ExpiresAt.Equal(f.clock.Now().Add(24*time.Hour)) || len(l.Token) != 43 {
			t.Fatalf("link %+v", l)
		}
		if LinkPath(l.Token) != "/console/welcome/"+l.Token {
			t.Fatal(LinkPath(l.Token))
		}
		if _, _, err := f.s.Invite(f.ctx, f.newOrg(), addr, Viewer); err != ErrEmailTaken {
			t.Fatalf("the address again, in another organization: %v", err)
		}
		for _, bad := range []string{"no-at", "two@@example.com", "@example.com", "a@", strings.Repeat("a", 250) + "@b.ca"} {
			if _, _, err := f.s.Invite(f.ctx, f.org, bad, Viewer); err == nil {
				t.Errorf("%q invited", bad)
			}
		}
		f.clock.Add(24*time.Hour - time.Second)
		if got, err := f.s.OpenLink(f.ctx, l.Token); err != nil || got.Person.ID != p.ID {
			t.Fatalf("24 h less a second: %+v %v", got, err)
		}
		// 11 characters (runes, not bytes) are too few; 12 are enough.
		if _, err := f.s.UseLink(f.ctx, l.Token, "ééééééééééé", Client{}); err != ErrWeakPassword {
			t.Fatalf("11 characters: %v", err)
		}
		if _, err := f.s.UseLink(f.ctx, l.Token, strings.Repeat("x", 257), Client{}); err != ErrWeakPassword {
			t.Fatalf("257 bytes: %v", err)
		}
		in, err := f.s.UseLink(f.ctx, l.Token, "éééééééééééé", Client{Address: "192.0.2.44"})
		if err != nil || in.Pending || !in.Person.Active || in.Token == "" {
			t.Fatalf("12 characters: %+v %v", in, err)
		}
		if _, err := f.s.OpenLink(f.ctx, l.Token); err != ErrLinkInvalid {
			t.Fatalf("used link opened: %v", err)
		}
		if _, err := f.s.UseLink(f.ctx, l.Token, password, Client{}); err != ErrLinkInvalid {
			t.Fatalf("used link used again: %v", err)
		}
		if _, err := f.s.SignIn(f.ctx, addr, "éééééééééééé", Client{Address: "192.0.2.45"}); err != nil {
			t.Fatalf("sign-in with the new password: %v", err)
		}
		h, err := audit.History(f.ctx, st.Client, f.org)
		if err != nil {
			t.Fatal(err)
		}
		// The link set the password and signed in; the password then signed in.
		last := h[len(h)-3]
		if last.Action != "password_set" || last.Actor != addr || last.Address != "192.0.2.44" || last.Detail["by"] != "invitation" {
			t.Fatalf("record %+v", last)
		}
		if in := h[len(h)-2]; in.Action != "signed_in" || in.Detail["by"] != "invitation" || h[len(h)-1].Action != "signed_in" || h[len(h)-1].Detail["by"] != "password" {
			t.Fatalf("records %+v", h[len(h)-2:])
		}
		if first := h[len(h)-4]; first.Action != "user_invited" || first.Actor != "boss@example.com" || first.Detail["email"] != addr || first.Detail["role"] != "operator" {
			t.Fatalf("record %+v", first)
		}

		// A link no longer works 24 h after it was made.
		_, l2, err := f.s.Invite(f.ctx, f.org, email("late"), Viewer)
		if err != nil {
			t.Fatal(err)
		}
		f.clock.Add(24 * time.Hour)
		if _, err := f.s.UseLink(f.ctx, l2.Token, password, Client{}); err != ErrLinkInvalid {
			t.Fatalf("24 h old link: %v", err)
		}
	})
}

// A password reset link stops the person's earlier unused links; using it
// sets the password and ends every session the person had.
func TestResetLink(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		f := newFixture(t, st)
		addr := email("reset")
		p, first := f.active(f.org, addr, Developer)
		old, err := f.s.IssueReset(f.ctx, f.org, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		fresh, err := f.s.IssueReset(f.ctx, f.org, p.ID)
		if err != nil || fresh.Purpose != "password_reset" {
			t.Fatalf("%+v %v", fresh, err)
		}
		if _, err := f.s.OpenLink(f.ctx, old.Token); err != ErrLinkInvalid {
			t.Fatalf("older reset link: %v", err)
		}
		in, err := f.s.UseLink(f.ctx, fresh.Token, "a whole new password", Client{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.s.Session(f.ctx, first.Token); err != ErrNoSession {
			t.Fatalf("session from before the reset: %v", err)
		}
		if _, err := f.s.Session(f.ctx, in.Token); err != nil {
			t.Fatal(err)
		}
		if _, err := f.s.SignIn(f.ctx, addr, password, Client{Address: "192.0.2.50"}); err != ErrBadCredentials {
			t.Fatalf("old password: %v", err)
		}
		got := actions(t, f, f.org)
		want := []string{"user_invited", "password_set", "signed_in", "password_reset_issued", "password_reset_issued", "password_set", "signed_in", "sign_in_failed"}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatal(diff)
		}
	})
}

// Changing the password needs the current one and ends every other session.
func TestChangePassword(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		f := newFixture(t, st)
		addr := email("change")
		p, a := f.active(f.org, addr, Viewer)
		b, err := f.s.SignIn(f.ctx, addr, password, Client{Address: "192.0.2.60"})
		if err != nil {
			t.Fatal(err)
		}
		if err := f.s.ChangePassword(f.ctx, f.org, p.ID, "not the password", "another good password", a.Token); err != ErrBadCredentials {
			t.Fatalf("wrong current: %v", err)
		}
		if err := f.s.ChangePassword(f.ctx, f.org, p.ID, password, "too short", a.Token); err != ErrWeakPassword {
			t.Fatalf("weak: %v", err)
		}
		if err := f.s.ChangePassword(f.ctx, f.newOrg(), p.ID, password, "another good password", a.Token); err != ErrNotFound {
			t.Fatalf("another organization: %v", err)
		}
		if n := sessionsOf(t, f, p.ID); n != 2 {
			t.Fatalf("%d sessions after refused changes", n)
		}
		if err := f.s.ChangePassword(f.ctx, f.org, p.ID, password, "another good password", a.Token); err != nil {
			t.Fatal(err)
		}
		if _, err := f.s.Session(f.ctx, a.Token); err != nil {
			t.Fatalf("kept session: %v", err)
		}
		if _, err := f.s.Session(f.ctx, b.Token); err != ErrNoSession {
			t.Fatalf("other session: %v", err)
		}
		if _, err := f.s.SignIn(f.ctx, addr, "another good password", Client{Address: "192.0.2.61"}); err != nil {
			t.Fatal(err)
		}
		// That was the fifth attempt of the minute on the address: the
		// sixth is refused before the current password is checked.
		before := hashes.Load()
		var th *ThrottledError
		if err := f.s.ChangePassword(f.ctx, f.org, p.ID, "another good password", "a third good password", a.Token); !errors.As(err, &th) {
			t.Fatalf("sixth attempt in a minute: %v", err)
		}
		if hashes.Load() != before {
			t.Fatal("a refused attempt hashed")
		}
	})
}

// A role change ends the person's sessions; giving the same role changes
// nothing.
func TestSetRoleEndsSessions(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		f := newFixture(t, st)
		f.active(f.org, email("admin"), Admin)
		p, in := f.active(f.org, email("dev"), Developer)
		if _, err := f.s.SetRole(f.ctx, f.org, p.ID, Developer); err != nil {
			t.Fatal(err)
		}
		if _, err := f.s.Session(f.ctx, in.Token); err != nil {
			t.Fatalf("same role ended the session: %v", err)
		}
		got, err := f.s.SetRole(f.ctx, f.org, p.ID, Viewer)
		if err != nil || got.Role != Viewer {
			t.Fatalf("%+v %v", got, err)
		}
		if _, err := f.s.Session(f.ctx, in.Token); err != ErrNoSession {
			t.Fatalf("session after the role change: %v", err)
		}
		if _, err := f.s.SetRole(f.ctx, f.org, p.ID, Role("owner")); err == nil {
			t.Fatal("unknown role given")
		}
		h, err := audit.History(f.ctx, st.Client, f.org)
		if err != nil {
			t.Fatal(err)
		}
		last := h[len(h)-1]
		if last.Action != "user_role_changed" || last.Detail["from"] != "developer" || last.Detail["to"] != "viewer" || last.Detail["email"] != p.Email {
			t.Fatalf("record %+v", last)
		}
	})
}

// An organization keeps an admin: the last one can be neither demoted nor
// removed, and an admin with a password cannot go while the other admins have
// only been invited. With a second admin the first can go.
func TestLastAdmin(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		f := newFixture(t, st)
		a, _ := f.active(f.org, email("a"), Admin)
		if _, err := f.s.SetRole(f.ctx, f.org, a.ID, Viewer); err != ErrLastAdmin {
			t.Fatalf("demote the only admin: %v", err)
		}
		if err := f.s.Remove(f.ctx, f.org, a.ID); err != ErrLastAdmin {
			t.Fatalf("remove the only admin: %v", err)
		}
		invited, _, err := f.s.Invite(f.ctx, f.org, email("b"), Admin)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.s.Remove(f.ctx, f.org, a.ID); err != ErrLastAdmin {
			t.Fatalf("remove the only admin with a password: %v", err)
		}
		// The invited admin may go: an admin with a password stays.
		if err := f.s.Remove(f.ctx, f.org, invited.ID); err != nil {
			t.Fatal(err)
		}
		b, _ := f.active(f.org, email("c"), Admin)
		if _, err := f.s.SetRole(f.ctx, f.org, a.ID, Operator); err != nil {
			t.Fatalf("demote with another admin: %v", err)
		}
		if err := f.s.Remove(f.ctx, f.org, b.ID); err != ErrLastAdmin {
			t.Fatalf("remove the last admin: %v", err)
		}
		if err := f.s.Remove(f.ctx, f.org, a.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := f.s.Get(f.ctx, f.org, a.ID); err != ErrNotFound {
			t.Fatalf("removed person: %v", err)
		}
		if n := sessionsOf(t, f, a.ID); n != 0 {
			t.Fatalf("%d sessions of a removed person", n)
		}
		people, err := f.s.List(f.ctx, f.org)
		if err != nil || len(people) != 1 || people[0].ID != b.ID || people[0].Role != Admin {
			t.Fatalf("left %+v %v", people, err)
		}
	})
}

// Two admins demoting each other at once: one demotion wins, the other is
// ErrLastAdmin, and the organization keeps exactly one admin.
func TestConcurrentDemotionsKeepAnAdmin(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		f := newFixture(t, st)
		for round := 0; round < 5; round++ {
			org := f.newOrg()
			a, _ := f.active(org, email("a"), Admin)
			b, _ := f.active(org, email("b"), Admin)
			var wg sync.WaitGroup
			errs := make([]error, 2)
			for i, id := range []int{a.ID, b.ID} {
				wg.Add(1)
				go func() {
					defer wg.Done()
					_, errs[i] = f.s.SetRole(context.Background(), org, id, Viewer)
				}()
			}
			wg.Wait()
			ok, last := 0, 0
			for _, err := range errs {
				switch {
				case err == nil:
					ok++
				case errors.Is(err, ErrLastAdmin):
					last++
				default:
					t.Fatalf("round %d: %v", round, err)
				}
			}
			if ok != 1 || last != 1 {
				t.Fatalf("round %d: %v", round, errs)
			}
			people, err := f.s.List(f.ctx, org)
			if err != nil {
				t.Fatal(err)
			}
			admins := 0
			for _, p := range people {
				if p.Role == Admin {
					admins++
				}
			}
			if admins != 1 {
				t.Fatalf("round %d: %d admins", round, admins)
			}
		}
	})
}

// Given one organization, no function finds a person of another: each is
// ErrNotFound and changes nothing, both ways; with the person's own
// organization the same call works.
func TestOtherOrganizationsPeopleAreNotFound(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		f := newFixture(t, st)
		orgs := []int{f.org, f.newOrg()}
		type side struct {
			admin, target Person
			token         string
		}
		sides := make([]side, 2)
		for i, org := range orgs {
			sides[i].admin, _ = f.active(org, email("admin"), Admin)
			var in SignedIn
			sides[i].target, in = f.active(org, email("target"), Developer)
			sides[i].token = in.Token
		}
		calls := []struct {
			name string
			call func(org int, p Person) error
		}{
			{"Get", func(org int, p Person) error { _, err := f.s.Get(f.ctx, org, p.ID); return err }},
			{"ByEmail", func(org int, p Person) error { _, err := f.s.ByEmail(f.ctx, org, p.Email); return err }},
			{"SetRole", func(org int, p Person) error { _, err := f.s.SetRole(f.ctx, org, p.ID, Viewer); return err }},
			{"IssueReset", func(org int, p Person) error { _, err := f.s.IssueReset(f.ctx, org, p.ID); return err }},
			{"BeginSecondFactor", func(org int, p Person) error { _, err := f.s.BeginSecondFactor(f.ctx, org, p.ID); return err }},
			{"ConfirmSecondFactor", func(org int, p Person) error {
				_, err := f.s.ConfirmSecondFactor(f.ctx, org, p.ID, "123456")
				return err
			}},
			{"RemoveSecondFactor", func(org int, p Person) error { return f.s.RemoveSecondFactor(f.ctx, org, p.ID) }},
			{"ChangePassword", func(org int, p Person) error {
				return f.s.ChangePassword(f.ctx, org, p.ID, password, "a changed password", "")
			}},
			{"Remove", func(org int, p Person) error { return f.s.Remove(f.ctx, org, p.ID) }},
		}
		for i := range sides {
			me, other := orgs[i], sides[1-i]
			before := actions(t, f, orgs[1-i])
			for _, c := range calls {
				if err := c.call(me, other.target); err != ErrNotFound {
					t.Errorf("%s of organization %d's person with %d: %v", c.name, orgs[1-i], me, err)
				}
			}
			if diff := cmp.Diff(before, actions(t, f, orgs[1-i])); diff != "" {
				t.Errorf("history changed: %s", diff)
			}
			got, err := f.s.Get(f.ctx, orgs[1-i], other.target.ID)
			if err != nil || got.Role != Developer || got.SecondFactor {
				t.Fatalf("changed: %+v %v", got, err)
			}
			if _, err := f.s.Session(f.ctx, other.token); err != nil {
				t.Fatalf("session ended: %v", err)
			}
			list, err := f.s.List(f.ctx, me)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range list {
				if p.OrganizationID != me {
					t.Errorf("List of %d shows %+v", me, p)
				}
			}
			if len(list) != 2 {
				t.Errorf("List of %d: %d people", me, len(list))
			}
		}
		// With its own organization each call works.
		for _, c := range calls {
			if c.name == "ConfirmSecondFactor" || c.name == "ChangePassword" {
				continue
			}
			if err := c.call(orgs[0], sides[0].target); err != nil {
				t.Errorf("%s in its own organization: %v", c.name, err)
			}
		}
		if o, err := UserOrganization(f.ctx, st.Client, sides[1].target.ID); err != nil || o != orgs[1] {
			t.Fatalf("UserOrganization %d %v", o, err)
		}
		if _, err := UserOrganization(f.ctx, st.Client, sides[0].target.ID); err != ErrNotFound {
			t.Fatalf("removed person's organization: %v", err)
		}
	})
}

// With a key, second-factor secrets are stored sealed; ReencryptSecrets moves
// plain and old-key secrets under the current key, changes nothing when run
// again, and the second factor keeps working.
func TestSecondFactorSecretsReencrypted(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		f := newFixture(t, st)
		p, _ := f.active(f.org, email("plain"), Viewer)
		enr, err := f.s.BeginSecondFactor(f.ctx, f.org, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.s.ConfirmSecondFactor(f.ctx, f.org, p.ID, Code(enr.Secret, f.clock.Now())); err != nil {
			t.Fatal(err)
		}
		raw := func() string {
			u, err := st.Client.User.Get(systemCtx(f.ctx), p.ID)
			if err != nil || u.TotpSecret == nil {
				t.Fatalf("%v %v", u, err)
			}
			return *u.TotpSecret
		}
		if raw() != enr.Secret {
			t.Fatal("without a key the secret is stored as it is")
		}
		keys, err := secrets.NewKeyring(base64.StdEncoding.EncodeToString(make([]byte, 32)), "")
		if err != nil {
			t.Fatal(err)
		}
		res, err := ReencryptSecrets(f.ctx, st.Client, keys)
		if err != nil || res.Reencrypted < 1 || res.FromPlainText < 1 {
			t.Fatalf("%+v %v", res, err)
		}
		sealed := raw()
		if !strings.HasPrefix(sealed, "enc:v1:") || strings.Contains(sealed, enr.Secret) {
			t.Fatalf("stored %q", sealed)
		}
		again, err := ReencryptSecrets(f.ctx, st.Client, keys)
		if err != nil || again.Reencrypted != 0 || raw() != sealed {
			t.Fatalf("again %+v %v", again, err)
		}
		f.s = New(st.Client, Options{Now: f.clock.Now, Keys: keys, Hash: cheap})
		in, err := f.s.SignIn(f.ctx, p.Email, password, Client{Address: "192.0.2.90"})
		if err != nil || !in.Pending {
			t.Fatalf("%+v %v", in, err)
		}
		f.clock.Add(30 * time.Second)
		if _, err := f.s.VerifySecondFactor(f.ctx, in.Token, Code(enr.Secret, f.clock.Now()), Client{}); err != nil {
			t.Fatalf("code after re-encryption: %v", err)
		}
		// A new setup under the key is sealed from the start.
		if _, err := f.s.BeginSecondFactor(f.ctx, f.org, p.ID); err != nil {
			t.Fatal(err)
		}
		u, err := st.Client.User.Get(systemCtx(f.ctx), p.ID)
		if err != nil || u.TotpPendingSecret == nil || !strings.HasPrefix(*u.TotpPendingSecret, "enc:v1:") {
			t.Fatalf("pending %v %v", u, err)
		}
	})
}

// Only admins read cost fields in the console.
func TestSeesCosts(t *testing.T) {
	for _, r := range Roles {
		if got, want := r.SeesCosts(), r == Admin; got != want {
			t.Errorf("%s sees costs: %v, want %v", r, got, want)
		}
	}
}
