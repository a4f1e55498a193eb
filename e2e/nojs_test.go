package e2e_test

import (
	"net/http"
	"testing"

	"larder.dev/larder/browsertest"
	"larder.dev/larder/dbtest"
	"larder.dev/larder/people"
	"larder.dev/larder/store"
)

// With JavaScript off, the forms alone carry a person through: setting a
// password by link, signing out and signing in again.
func TestWithoutJavaScript(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		s := newSite(t, st)
		org := dbtest.NewOrg(t, st, "")
		p, link := s.invite(org.Org.ID, people.Developer)
		ctx := tab(t, true)

		s.open(t, ctx, link, http.StatusOK)
		browsertest.Fill(t, ctx, "New password", password)
		browsertest.Fill(t, ctx, "New password again", password)
		submit(t, ctx, "Set password and sign in", http.StatusOK)
		if got := browsertest.Text(t, ctx, ".who a"); got != p.Email {
			t.Fatalf("after the welcome form, signed in as %q, want %s", got, p.Email)
		}
		submit(t, ctx, "Sign out", http.StatusOK)
		if got := s.path(t, ctx); got != "/console/sign-in" {
			t.Fatalf("signing out leads to %s", got)
		}
		s.signIn(t, ctx, p.Email)
		if got := browsertest.Text(t, ctx, ".who a"); got != p.Email {
			t.Fatalf("after the sign-in form, signed in as %q, want %s", got, p.Email)
		}
		check(t, ctx, "signed-in")
	})
}
