package people

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"larder.dev/larder/ent/session"
	"larder.dev/larder/ent/userlink"
	"larder.dev/larder/internal/identity/audit"
	"larder.dev/larder/internal/identity/ratelimit"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/dbtest"
)

// Hashes are argon2id in PHC form with the documented costs: 64 MiB, 3
// passes, 2 lanes; the right password verifies, another does not.
func TestPasswordHashParameters(t *testing.T) {
	h, err := hashPassword(context.Background(), DefaultParams, password)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(h, "$argon2id$v=19$m=65536,t=3,p=2$") {
		t.Fatalf("hash %q", h)
	}
	if ok, err := verifyPassword(context.Background(), password, h); err != nil || !ok {
		t.Fatalf("right password: %v %v", ok, err)
	}
	if ok, err := verifyPassword(context.Background(), password+"x", h); err != nil || ok {
		t.Fatalf("wrong password: %v %v", ok, err)
	}
}

// A service given no costs makes its hashes with DefaultParams; given some,
// with those.
func TestServiceHashesWithDefaultParams(t *testing.T) {
	if got := New(nil, Options{}).hash; got != DefaultParams {
		t.Errorf("costs without Options.Hash: %+v, want %+v", got, DefaultParams)
	}
	if got := New(nil, Options{Hash: cheap}).hash; got != cheap {
		t.Errorf("costs with Options.Hash: %+v, want %+v", got, cheap)
	}
}

// A sign-in with an unknown address, a wrong password, or the address of a
// person who has no password yet fails with the very same error after the
// same single argon2id derivation; the right password signs in.
func TestSignInFailuresLookAlike(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		f := newFixture(t, st)
		known := email("known")
		f.active(f.org, known, Admin)
		invited := email("invited")
		if _, _, err := f.s.Invite(f.ctx, f.org, invited, Viewer); err != nil {
			t.Fatal(err)
		}
		cases := []struct{ name, email, pw string }{
			{"unknown address", email("nobody"), password},
			{"wrong password", known, password + "!"},
			{"no password yet", invited, password},
			{"not an address", "nobody", password},
		}
		for i, c := range cases {
			before := hashes.Load()
			_, err := f.s.SignIn(f.ctx, c.email, c.pw, Client{Address: "198.51.100." + itoa(int64(i))})
			if err != ErrBadCredentials {
				t.Errorf("%s: error %v, want ErrBadCredentials itself", c.name, err)
			}
			if n := hashes.Load() - before; n != 1 {
				t.Errorf("%s: %d argon2id derivations, want 1", c.name, n)
			}
		}
		before := hashes.Load()
		in, err := f.s.SignIn(f.ctx, "  "+strings.ToUpper(known)+" ", password, Client{Address: "198.51.100.9"})
		if err != nil {
			t.Fatal(err)
		}
		if n := hashes.Load() - before; n != 1 {
			t.Errorf("right password: %d derivations, want 1", n)
		}
		if in.Pending || in.Person.Email != known || in.Person.LastSignInAt == nil {
			t.Errorf("signed in %+v", in)
		}
	})
}

// Sign-ins are throttled to 10 a minute per client address and 5 a minute
// per e-mail address, counting every attempt; the next minute counts afresh.
// The limiter is the database's, as the server's (shared counters on
// PostgreSQL).
func TestSignInThrottle(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		f := newFixture(t, st)
		lim, err := ratelimit.New(st.DB, st.Dialect, st.Prepare)
		if err != nil {
			t.Fatal(err)
		}
		f.s = New(st.Client, Options{Now: f.clock.Now, Limiter: lim, Hash: cheap})
		known := email("known")
		f.active(f.org, known, Admin)
		f.clock.Add(time.Minute - f.clock.Now().Sub(f.clock.Now().Truncate(time.Minute)))
		// One address, ten different e-mail addresses: the eleventh is refused.
		for i := 0; i < 10; i++ {
			_, err := f.s.SignIn(f.ctx, email("guess"), password, Client{Address: "203.0.113.1"})
			if err != ErrBadCredentials {
				t.Fatalf("attempt %d: %v", i+1, err)
			}
		}
		_, err = f.s.SignIn(f.ctx, known, password, Client{Address: "203.0.113.1"})
		var th *ThrottledError
		if !errors.As(err, &th) || th.RetryAfter <= 0 || th.RetryAfter > time.Minute {
			t.Fatalf("11th from one address: %v", err)
		}
		// One e-mail address from many client addresses: the sixth is
		// refused, the right password too.
		target := email("target")
		f.active(f.org, target, Viewer)
		for i := 0; i < 5; i++ {
			_, err := f.s.SignIn(f.ctx, target, "wrong password!", Client{Address: "203.0.114." + itoa(int64(i))})
			if err != ErrBadCredentials {
				t.Fatalf("attempt %d: %v", i+1, err)
			}
		}
		if _, err := f.s.SignIn(f.ctx, target, password, Client{Address: "203.0.115.1"}); !errors.As(err, &th) {
			t.Fatalf("6th for one e-mail address: %v", err)
		}
		f.clock.Add(time.Minute)
		if _, err := f.s.SignIn(f.ctx, target, password, Client{Address: "203.0.115.1"}); err != nil {
			t.Fatalf("a minute later: %v", err)
		}
		if _, err := f.s.SignIn(f.ctx, known, password, Client{Address: "203.0.113.1"}); err != nil {
			t.Fatalf("a minute later: %v", err)
		}
	})
}

// A session ends 12 hours after its last use, however long it lived, and 7
// days after it began, however it is used; uses are recorded at most once a
// minute.
func TestSessionLifetimes(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		f := newFixture(t, st)
		if f.s.idle != 12*time.Hour || f.s.abs != 7*24*time.Hour {
			t.Fatalf("defaults %s %s", f.s.idle, f.s.abs)
		}
		addr := email("life")
		f.active(f.org, addr, Admin)
		idle, err := f.s.SignIn(f.ctx, addr, password, Client{Address: "192.0.2.7", UserAgent: "test"})
		if err != nil {
			t.Fatal(err)
		}
		if !idle.ExpiresAt.Equal(f.clock.Now().Add(7 * 24 * time.Hour)) {
			t.Errorf("expires at %s", idle.ExpiresAt)
		}
		// Used after 11 h 59 min: alive; its use moves the idle end.
		f.clock.Add(12*time.Hour - time.Minute)
		cur, err := f.s.Session(f.ctx, idle.Token)
		if err != nil || cur.Pending || cur.Person.Email != addr || cur.Token != idle.Token {
			t.Fatalf("after 11h59m: %+v %v", cur, err)
		}
		// A use 30 s later is not written: the idle end still counts from
		// the use before, to the second.
		f.clock.Add(30 * time.Second)
		if _, err := f.s.Session(f.ctx, idle.Token); err != nil {
			t.Fatal(err)
		}
		f.clock.Add(12*time.Hour - 30*time.Second - time.Second)
		f.clock.Add(time.Second)
		if _, err := f.s.Session(f.ctx, idle.Token); err != ErrNoSession {
			t.Fatalf("12 h after the last recorded use: %v", err)
		}

		abs, err := f.s.SignIn(f.ctx, addr, password, Client{Address: "192.0.2.7"})
		if err != nil {
			t.Fatal(err)
		}
		for elapsed := time.Duration(0); elapsed+11*time.Hour < 7*24*time.Hour; elapsed += 11 * time.Hour {
			f.clock.Add(11 * time.Hour)
			if _, err := f.s.Session(f.ctx, abs.Token); err != nil {
				t.Fatalf("used every 11 h, at %s: %v", elapsed+11*time.Hour, err)
			}
		}
		f.clock.Add(abs.ExpiresAt.Sub(f.clock.Now()) - time.Second)
		if _, err := f.s.Session(f.ctx, abs.Token); err != nil {
			t.Fatalf("7 days less a second: %v", err)
		}
		f.clock.Add(time.Second)
		if _, err := f.s.Session(f.ctx, abs.Token); err != ErrNoSession {
			t.Fatalf("7 days: %v", err)
		}
		live, err := f.s.SignIn(f.ctx, addr, password, Client{Address: "192.0.2.7"})
		if err != nil {
			t.Fatal(err)
		}
		// Prune takes the three ended sessions (the invitation's, and the
		// two above) and the invitation, which expired 24 h after it was
		// made (other tests' rows share the PostgreSQL database).
		n, err := f.s.Prune(f.ctx)
		if err != nil || n < 4 {
			t.Fatalf("pruned %d, %v; want at least 3 sessions and 1 link", n, err)
		}
		ctx := systemCtx(f.ctx)
		sessions, err := st.Client.Session.Query().Where(session.UserID(live.Person.ID)).All(ctx)
		if err != nil || len(sessions) != 1 || sessions[0].TokenHash != tokenHash(live.Token) {
			t.Fatalf("sessions left %v, %v; want the live one", sessions, err)
		}
		if links, err := st.Client.UserLink.Query().Where(userlink.UserID(live.Person.ID)).Count(ctx); err != nil || links != 0 {
			t.Fatalf("links left %d, %v", links, err)
		}
	})
}

// Signing out ends the session; an unknown token is no session.
func TestSignOut(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		f := newFixture(t, st)
		_, in := f.active(f.org, email("out"), Viewer)
		if _, err := f.s.Session(f.ctx, in.Token); err != nil {
			t.Fatal(err)
		}
		if err := f.s.SignOut(f.ctx, in.Token); err != nil {
			t.Fatal(err)
		}
		for _, tok := range []string{in.Token, "", "not-a-token"} {
			if _, err := f.s.Session(f.ctx, tok); err != ErrNoSession {
				t.Errorf("%q: %v", tok, err)
			}
		}
	})
}

// A person with a second factor signs in to a pending session that opens
// nothing but the code page; a code is accepted once, so the code that
// confirmed the factor, or one that signed in, is refused afterwards.
func TestSecondFactorCodeAcceptedOnce(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		f := newFixture(t, st)
		addr := email("totp")
		p, _ := f.active(f.org, addr, Developer)
		enr, err := f.s.BeginSecondFactor(f.ctx, f.org, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(enr.URL, "otpauth://totp/") || !strings.Contains(enr.URL, "issuer=Larder") ||
			len(enr.QRPNG) < 8 || string(enr.QRPNG[1:4]) != "PNG" {
			t.Fatalf("enrollment %q, %d bytes of image", enr.URL, len(enr.QRPNG))
		}
		if _, err := f.s.ConfirmSecondFactor(f.ctx, f.org, p.ID, "000000"); err != ErrBadCode && Code(enr.Secret, f.clock.Now()) != "000000" {
			t.Fatalf("wrong code: %v", err)
		}
		code := Code(enr.Secret, f.clock.Now())
		if len(code) != 6 {
			t.Fatalf("code %q", code)
		}
		if _, err := f.s.ConfirmSecondFactor(f.ctx, f.org, p.ID, code); err != nil {
			t.Fatal(err)
		}
		in, err := f.s.SignIn(f.ctx, addr, password, Client{Address: "192.0.2.8"})
		if err != nil || !in.Pending {
			t.Fatalf("sign-in %+v %v", in, err)
		}
		cur, err := f.s.Session(f.ctx, in.Token)
		if err != nil || !cur.Pending {
			t.Fatalf("pending session %+v %v", cur, err)
		}
		if _, err := f.s.VerifySecondFactor(f.ctx, in.Token, code, Client{}); err != ErrBadCode {
			t.Fatalf("the confirming code again: %v", err)
		}
		f.clock.Add(30 * time.Second)
		next := Code(enr.Secret, f.clock.Now())
		cur, err = f.s.VerifySecondFactor(f.ctx, in.Token, next, Client{})
		if err != nil || cur.Pending || cur.Person.LastSignInAt == nil || !cur.Person.SecondFactor {
			t.Fatalf("next code: %+v %v", cur, err)
		}
		if cur, err = f.s.Session(f.ctx, cur.Token); err != nil || cur.Pending {
			t.Fatalf("verified session %+v %v", cur, err)
		}
		again, err := f.s.SignIn(f.ctx, addr, password, Client{Address: "192.0.2.8"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.s.VerifySecondFactor(f.ctx, again.Token, next, Client{}); err != ErrBadCode {
			t.Fatalf("a used code on another session: %v", err)
		}
		// One step of skew: the code of the step after the current one
		// works (a second on: the used code counted as wrong).
		f.clock.Add(time.Second)
		if _, err := f.s.VerifySecondFactor(f.ctx, again.Token, Code(enr.Secret, f.clock.Now().Add(30*time.Second)), Client{}); err != nil {
			t.Fatalf("code of the next step: %v", err)
		}
	})
}

// The organization's requirement of a second factor shows on the sessions of
// people without one, and is recorded.
func TestRequireSecondFactor(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		f := newFixture(t, st)
		_, in := f.active(f.org, email("req"), Admin)
		if cur, err := f.s.Session(f.ctx, in.Token); err != nil || cur.MustEnroll {
			t.Fatalf("%+v %v", cur, err)
		}
		if err := f.s.RequireSecondFactor(f.ctx, f.org, true); err != nil {
			t.Fatal(err)
		}
		on, err := f.s.SecondFactorRequired(f.ctx, f.org)
		if err != nil || !on {
			t.Fatalf("required %v %v", on, err)
		}
		if err := f.s.RequireSecondFactor(f.ctx, f.org, true); err != nil {
			t.Fatal(err)
		}
		h, err := audit.History(f.ctx, st.Client, f.org)
		if err != nil {
			t.Fatal(err)
		}
		last := h[len(h)-1]
		if last.Action != "settings_changed" || last.Detail["require_second_factor"] != true || h[len(h)-2].Action == "settings_changed" {
			t.Fatalf("history %+v: want one record of the change", h)
		}
		if cur, err := f.s.Session(f.ctx, in.Token); err != nil || !cur.MustEnroll || cur.OrganizationName == "" {
			t.Fatalf("%+v %v", cur, err)
		}
		if _, err := f.s.SecondFactorRequired(f.ctx, -1); err != ErrNotFound {
			t.Fatalf("no organization: %v", err)
		}
	})
}

// A session that waits for its second factor ends 10 minutes after the
// password was given: the code must come within them. The set-up key a
// person is shown stays the same until confirmed, so a page that asks for
// the code again shows the key already scanned.
func TestPendingSessionsEndSoon(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		f := newFixture(t, st)
		addr := email("pending")
		p, _ := f.active(f.org, addr, Developer)
		enr, err := f.s.BeginSecondFactor(f.ctx, f.org, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		again, err := f.s.PendingSecondFactor(f.ctx, f.org, p.ID)
		if err != nil || again.Secret != enr.Secret || again.URL != enr.URL {
			t.Fatalf("pending key %q %q, want %q %q (%v)", again.Secret, again.URL, enr.Secret, enr.URL, err)
		}
		if _, err := f.s.ConfirmSecondFactor(f.ctx, f.org, p.ID, Code(enr.Secret, f.clock.Now())); err != nil {
			t.Fatal(err)
		}
		if _, err := f.s.PendingSecondFactor(f.ctx, f.org, p.ID); !errors.Is(err, ErrNotFound) {
			t.Errorf("pending key after confirming: %v", err)
		}
		f.clock.Add(time.Minute)
		in, err := f.s.SignIn(f.ctx, addr, password, Client{Address: "192.0.2.9"})
		if err != nil || !in.Pending {
			t.Fatalf("sign-in %+v %v", in, err)
		}
		f.clock.Add(9*time.Minute + 50*time.Second)
		if _, err := f.s.Session(f.ctx, in.Token); err != nil {
			t.Fatalf("pending after 9 min 50 s: %v", err)
		}
		f.clock.Add(10 * time.Second)
		if _, err := f.s.Session(f.ctx, in.Token); !errors.Is(err, ErrNoSession) {
			t.Errorf("pending after 10 min: %v, want ErrNoSession", err)
		}
		if _, err := f.s.VerifySecondFactor(f.ctx, in.Token, Code(enr.Secret, f.clock.Now()), Client{}); err == nil {
			t.Error("a code was taken on an ended session")
		}
	})
}

// The environment a person chooses is the session's: empty until chosen,
// kept for that session alone, never an unknown one.
func TestSessionEnv(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		f := newFixture(t, st)
		addr := email("env")
		f.active(f.org, addr, Developer)
		a, err := f.s.SignIn(f.ctx, addr, password, Client{Address: "192.0.2.7"})
		if err != nil {
			t.Fatal(err)
		}
		b, err := f.s.SignIn(f.ctx, addr, password, Client{Address: "192.0.2.8"})
		if err != nil {
			t.Fatal(err)
		}
		ca, err := f.s.Session(f.ctx, a.Token)
		if err != nil {
			t.Fatal(err)
		}
		if ca.Env != "" {
			t.Fatalf("a new session has chosen %q", ca.Env)
		}
		if err := f.s.SetSessionEnv(f.ctx, ca.SessionID, "live"); err != nil {
			t.Fatal(err)
		}
		if err := f.s.SetSessionEnv(f.ctx, ca.SessionID, "staging"); err == nil {
			t.Error("an unknown environment was recorded")
		}
		if cur, err := f.s.Session(f.ctx, a.Token); err != nil || cur.Env != "live" {
			t.Errorf("the session that chose live reads %q (%v)", cur.Env, err)
		}
		if cur, err := f.s.Session(f.ctx, b.Token); err != nil || cur.Env != "" {
			t.Errorf("the other session reads %q (%v)", cur.Env, err)
		}
		if err := f.s.SignOut(f.ctx, a.Token); err != nil {
			t.Fatal(err)
		}
		if err := f.s.SetSessionEnv(f.ctx, ca.SessionID, "test"); err != ErrNoSession {
			t.Errorf("an ended session: %v, want ErrNoSession", err)
		}
	})
}
