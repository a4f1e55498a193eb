package e2e_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"larder.dev/larder/internal/identity/people"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/browsertest"
	"larder.dev/larder/internal/testkit/dbtest"
)

// A person invited by link sets a password on the welcome page, sets up a
// second factor on the account page with the key the page shows, signs out,
// and signs in again with the password and a code: the code that turned the
// factor on is refused as used, the next one lets them in where they were
// going.
func TestSignInWithSecondFactor(t *testing.T) {
	dbtest.RunBoth(t, func(t *testing.T, st *store.Store) {
		s := newSite(t, st)
		org := dbtest.NewOrg(t, st, "")
		p, link := s.invite(org.Org.ID, people.Developer)
		ctx := tab(t, false)

		s.open(t, ctx, link, http.StatusOK)
		check(t, ctx, "welcome")
		if got := mainText(t, ctx); !strings.Contains(got, p.Email) || !strings.Contains(got, "developer") {
			t.Errorf("the welcome page does not name %s and the role:\n%s", p.Email, got)
		}
		browsertest.Fill(t, ctx, "New password", password)
		browsertest.Fill(t, ctx, "New password again", password+"!")
		submit(t, ctx, "Set password and sign in", http.StatusBadRequest)
		if got := browsertest.Text(t, ctx, "#e-confirm"); got != "The two passwords differ." {
			t.Errorf("error next to the confirmation %q", got)
		}
		check(t, ctx, "welcome-error")
		browsertest.Fill(t, ctx, "New password", password)
		browsertest.Fill(t, ctx, "New password again", password)
		submit(t, ctx, "Set password and sign in", http.StatusOK)
		if got := browsertest.Text(t, ctx, ".flash"); got != "Your password is set; you are signed in." {
			t.Errorf("flash %q", got)
		}
		if got := browsertest.Text(t, ctx, ".who a"); got != p.Email {
			t.Errorf("signed in as %q, want %s", got, p.Email)
		}

		s.open(t, ctx, "/console/account", http.StatusOK)
		check(t, ctx, "account")
		submit(t, ctx, "Set up a second factor", http.StatusOK)
		check(t, ctx, "second-factor")
		secret := browsertest.Text(t, ctx, "main code.mono")
		if len(secret) < 16 {
			t.Fatalf("the page shows the key %q", secret)
		}
		// A wrong code keeps the same key on the page, with the error
		// next to the field.
		at := time.Now()
		browsertest.Fill(t, ctx, "One-time code", wrongCode(secret, at))
		submit(t, ctx, "Turn on", http.StatusBadRequest)
		if got := browsertest.Text(t, ctx, "#e-code"); !strings.Contains(got, "not right") {
			t.Errorf("error next to the code %q", got)
		}
		if got := browsertest.Text(t, ctx, "main code.mono"); got != secret {
			t.Errorf("after a wrong code the key is %q, want %q", got, secret)
		}
		check(t, ctx, "second-factor-error")
		at = time.Now()
		used := people.Code(secret, at)
		browsertest.Fill(t, ctx, "One-time code", used)
		submit(t, ctx, "Turn on", http.StatusOK)
		// The answer is the recovery codes, shown this once.
		if got := browsertest.Text(t, ctx, "main .notice"); !strings.Contains(got, "The second factor is on") {
			t.Errorf("notice %q", got)
		}
		codes := strings.Fields(browsertest.Text(t, ctx, "ol.codes"))
		if len(codes) != 10 {
			t.Fatalf("the page shows %d recovery codes, want 10: %q", len(codes), codes)
		}
		if got := value(t, ctx, "#secret-codes"); got != strings.Join(codes, "\n") {
			t.Errorf("the box to copy holds %q", got)
		}
		check(t, ctx, "recovery-codes")
		follow(t, ctx, "I have saved them: back to your account", http.StatusOK)
		if got := mainText(t, ctx); !strings.Contains(got, "On (authenticator app)") || !strings.Contains(got, "10 of 10 recovery codes left.") {
			t.Errorf("the account page does not show the second factor on with 10 codes:\n%s", got)
		}
		check(t, ctx, "account-second-factor")
		if got, err := s.people.Get(context.Background(), org.Org.ID, p.ID); err != nil || !got.SecondFactor {
			t.Fatalf("stored person %+v, %v: want the second factor on", got, err)
		}

		submit(t, ctx, "Sign out", http.StatusOK)
		if got := s.path(t, ctx); got != "/console/sign-in" {
			t.Errorf("after signing out the tab shows %s", got)
		}
		check(t, ctx, "sign-in")
		// Signed out for real: the account page sends to the sign-in
		// form, which comes back to it.
		s.open(t, ctx, "/console/account", http.StatusOK)
		if got := s.path(t, ctx); got != "/console/sign-in?next=%2Fconsole%2Faccount" {
			t.Fatalf("the account page signed out leads to %s", got)
		}
		browsertest.Fill(t, ctx, "E-mail address", p.Email)
		browsertest.Fill(t, ctx, "Password", password)
		submit(t, ctx, "Sign in", http.StatusOK)
		if got := s.path(t, ctx); got != "/console/sign-in/code?next=/console/account" {
			t.Fatalf("the password alone leads to %s, want the code page", got)
		}
		check(t, ctx, "code")
		// Before the code, the session opens nothing else.
		s.open(t, ctx, "/console/account", http.StatusOK)
		if got := s.path(t, ctx); got != "/console/sign-in/code" {
			t.Fatalf("a session waiting for its code opens %s", got)
		}
		browsertest.Fill(t, ctx, "One-time code", used)
		submit(t, ctx, "Continue", http.StatusUnauthorized)
		wrongAt := time.Now()
		if got := browsertest.Text(t, ctx, "#e-code"); !strings.Contains(got, "used already") {
			t.Errorf("the code that turned the factor on: error %q", got)
		}
		check(t, ctx, "code-error")
		// A wrong code makes the next one wait a second (the backoff
		// before a lockout); this server runs on the wall clock.
		time.Sleep(time.Until(wrongAt.Add(1100 * time.Millisecond)))
		browsertest.Fill(t, ctx, "One-time code", people.Code(secret, at.Add(30*time.Second)))
		submit(t, ctx, "Continue", http.StatusOK)
		if got := browsertest.Text(t, ctx, ".who a"); got != p.Email {
			t.Errorf("after the code, signed in as %q, want %s", got, p.Email)
		}
		if got, err := s.people.Get(context.Background(), org.Org.ID, p.ID); err != nil || got.LastSignInAt == nil || time.Since(*got.LastSignInAt) > time.Minute {
			t.Errorf("stored person %+v, %v: want a sign-in just now", got, err)
		}
		var session bool
		for _, c := range browsertest.Cookies(t, ctx) {
			if c.Name == "larder-session" {
				session = c.HTTPOnly && c.SameSite == "Lax"
			}
		}
		if !session {
			t.Errorf("no HttpOnly, SameSite=Lax session cookie in %+v", browsertest.Cookies(t, ctx))
		}

		// Without the app, a recovery code signs in, once.
		submit(t, ctx, "Sign out", http.StatusOK)
		s.signIn(t, ctx, p.Email)
		browsertest.Fill(t, ctx, "One-time code", strings.ToUpper(codes[4]))
		submit(t, ctx, "Continue", http.StatusOK)
		if got := browsertest.Text(t, ctx, ".who a"); got != p.Email {
			t.Fatalf("after a recovery code, signed in as %q, want %s", got, p.Email)
		}
		s.open(t, ctx, "/console/account", http.StatusOK)
		if got := browsertest.Text(t, ctx, "#codes-left"); !strings.Contains(got, "9 of 10 recovery codes left.") {
			t.Errorf("after one use the account page says %q", got)
		}
		// New codes ask for proof, and void the old ones.
		browsertest.Fill(t, ctx, "Your password or a code from your app, for new codes", "not my password!")
		submit(t, ctx, "Make new recovery codes", http.StatusBadRequest)
		if got := browsertest.Text(t, ctx, "#e-renew_proof"); !strings.Contains(got, "neither your password") {
			t.Errorf("a wrong proof says %q", got)
		}
		check(t, ctx, "recovery-codes-refused")
		browsertest.Fill(t, ctx, "Your password or a code from your app, for new codes", password)
		submit(t, ctx, "Make new recovery codes", http.StatusOK)
		fresh := strings.Fields(browsertest.Text(t, ctx, "ol.codes"))
		if len(fresh) != 10 || fresh[0] == codes[0] {
			t.Errorf("new codes %q", fresh)
		}
		submit(t, ctx, "Sign out", http.StatusOK)
		s.signIn(t, ctx, p.Email)
		browsertest.Fill(t, ctx, "One-time code", codes[5])
		submit(t, ctx, "Continue", http.StatusUnauthorized)
	})
}

// wrongCode is a six-digit code that none of the steps the server accepts
// around at gives for secret.
func wrongCode(secret string, at time.Time) string {
	taken := map[string]bool{}
	for _, d := range []time.Duration{-30 * time.Second, 0, 30 * time.Second, 60 * time.Second} {
		taken[people.Code(secret, at.Add(d))] = true
	}
	for _, c := range []string{"000000", "111111", "222222", "333333", "444444"} {
		if !taken[c] {
			return c
		}
	}
	return "555555"
}
