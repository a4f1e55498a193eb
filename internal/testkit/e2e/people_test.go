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

// An admin invites a developer on the people page, who follows the link
// shown there in another browser; the admin then requires a second factor
// of everyone, and the developer's next page is setting one up; the admin
// makes the developer a viewer, which signs them out, and after signing in
// again with password and code they may no longer open the test-data page.
func TestPeopleAndRoles(t *testing.T) {
	dbtest.RunBoth(t, func(t *testing.T, st *store.Store) {
		s := newSite(t, st)
		org := dbtest.NewOrg(t, st, "")
		bg := context.Background()
		admin := s.person(org.Org.ID, people.Admin)
		e, err := s.people.BeginSecondFactor(bg, org.Org.ID, admin.ID)
		if err != nil {
			t.Fatal(err)
		}
		at := time.Now()
		if _, err := s.people.ConfirmSecondFactor(bg, org.Org.ID, admin.ID, people.Code(e.Secret, at)); err != nil {
			t.Fatal(err)
		}
		adm := tab(t, false)
		asked := confirmations(t, adm)
		s.signIn(t, adm, admin.Email)
		browsertest.Fill(t, adm, "One-time code", people.Code(e.Secret, at.Add(30*time.Second)))
		submit(t, adm, "Continue", http.StatusOK)

		devEmail := email("developer")
		s.open(t, adm, "/console/people", http.StatusOK)
		unfold(t, adm, "Invite a person")
		browsertest.Fill(t, adm, "E-mail address", devEmail)
		browsertest.Fill(t, adm, "Role", string(people.Developer))
		submit(t, adm, "Invite", http.StatusOK)
		link := value(t, adm, "#secret-link")

		dev := tab(t, false)
		browsertest.Open(t, dev, link)
		browsertest.Fill(t, dev, "New password", password)
		browsertest.Fill(t, dev, "New password again", password)
		submit(t, dev, "Set password and sign in", http.StatusOK)
		s.open(t, dev, "/console/test-data", http.StatusOK)

		s.open(t, adm, "/console/people", http.StatusOK)
		choose(t, adm, "", "Require a second factor for everyone")
		submit(t, adm, "Save the setting", http.StatusOK)
		if req, err := s.people.SecondFactorRequired(bg, org.Org.ID); err != nil || !req {
			t.Fatalf("after saving the setting, required is %v (%v)", req, err)
		}

		// The developer's session goes on, but only to set one up.
		s.open(t, dev, "/console/keys", http.StatusOK)
		if got := s.path(t, dev); got != "/console/account/second-factor" {
			t.Fatalf("with a second factor required, the keys page leads to %s", got)
		}
		check(t, dev, "second-factor-required")
		submit(t, dev, "Set up a second factor", http.StatusOK)
		secret := browsertest.Text(t, dev, "main code.mono")
		enrolled := time.Now()
		browsertest.Fill(t, dev, "One-time code", people.Code(secret, enrolled))
		submit(t, dev, "Turn on", http.StatusOK)
		s.open(t, dev, "/console/test-data", http.StatusOK)

		s.open(t, adm, "/console/people", http.StatusOK)
		browsertest.Fill(t, adm, "Role of "+devEmail, string(people.Viewer))
		submit(t, adm, "Change role of "+devEmail, http.StatusOK)
		if got := browsertest.Text(t, adm, ".flash"); !strings.Contains(got, "signed out") {
			t.Errorf("flash %q", got)
		}
		check(t, adm, "people-role-changed")
		p, err := s.people.ByEmail(bg, org.Org.ID, devEmail)
		if err != nil || p.Role != people.Viewer || !p.SecondFactor {
			t.Fatalf("stored person %+v (%v): want a viewer with a second factor", p, err)
		}
		if got := asked(); len(got) != 0 {
			t.Errorf("the browser asked %q for a role change", got)
		}

		// Signed out by the change: back through password and code,
		// then refused the writers' page.
		s.open(t, dev, "/console/test-data", http.StatusOK)
		if got := s.path(t, dev); got != "/console/sign-in?next=%2Fconsole%2Ftest-data" {
			t.Fatalf("after the role change the test-data page leads to %s", got)
		}
		browsertest.Fill(t, dev, "E-mail address", devEmail)
		browsertest.Fill(t, dev, "Password", password)
		submit(t, dev, "Sign in", http.StatusOK)
		browsertest.Fill(t, dev, "One-time code", people.Code(secret, enrolled.Add(30*time.Second)))
		submit(t, dev, "Continue", http.StatusForbidden)
		if got := s.path(t, dev); got != "/console/test-data" {
			t.Errorf("after the code the tab shows %s", got)
		}
		check(t, dev, "forbidden-viewer")
	})
}
