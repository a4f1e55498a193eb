package e2e_test

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"larder.dev/larder/internal/identity/people"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/browsertest"
	"larder.dev/larder/internal/testkit/dbtest"
)

// With JavaScript off, the forms alone carry a person through: setting a
// password by link, signing out and signing in again, creating a live key
// with scopes ticked one by one (which the API then holds it to) and
// revoking it. A table that scrolls sideways is a stop of the keyboard's.
func TestWithoutJavaScript(t *testing.T) {
	dbtest.RunBoth(t, func(t *testing.T, st *store.Store) {
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

		// A live key with two scopes chosen by checkbox; none chosen is
		// refused next to the scopes.
		s.open(t, ctx, "/console/keys?env=live", http.StatusOK)
		unfold(t, ctx, "Create a live key")
		typeInto(t, ctx, "#live-name", "Reporting")
		choose(t, ctx, liveForm, "Choose scopes")
		submit(t, ctx, "Create live key", http.StatusBadRequest)
		if got := browsertest.Text(t, ctx, "#live-scope-e"); got == "" {
			t.Error("no error next to the scopes")
		}
		check(t, ctx, "keys-error")
		tick(t, ctx, liveForm, "scope", "catalog:read")
		tick(t, ctx, liveForm, "scope", "sales:read")
		submit(t, ctx, "Create live key", http.StatusOK)
		check(t, ctx, "key-created")
		key := value(t, ctx, "#secret-key")
		if !strings.HasPrefix(key, "key_live_") {
			t.Fatalf("the page shows the key %q", key)
		}
		// The copy button is the script's: without it, it stays hidden
		// and the key is in a field to select.
		if hidden, err := chromedp.Run(ctx, chromedp.JavascriptAttribute[bool](chromedp.CSS("button.copy"), "hidden")); err != nil || !hidden {
			t.Errorf("the copy button shows without JavaScript (%v)", err)
		}
		if r := s.call(t, "GET", "/v1/products", key, nil); r.status != http.StatusOK {
			t.Errorf("a catalog read with the key: %d %s", r.status, r.body)
		}
		if r := s.call(t, "POST", "/v1/tags", key, map[string]any{"name": "Not allowed", "ref_type": "PRODUCT"}); r.status != http.StatusForbidden {
			t.Errorf("a catalog write with a read key: %d, want 403 %s", r.status, r.body)
		}

		// Revoking asks once, on its own page.
		s.open(t, ctx, "/console/keys", http.StatusOK)
		follow(t, ctx, "Revoke "+display(key), http.StatusOK)
		submit(t, ctx, "Revoke "+display(key), http.StatusOK)
		if r := s.call(t, "GET", "/v1/products", key, nil); r.status != http.StatusUnauthorized {
			t.Errorf("the revoked key: %d, want 401", r.status)
		}

		// At a phone's width a lot's movements, no link among them, scroll
		// inside their box, a stop of the keyboard's, each cell a line: no
		// word is cut.
		lot := newLot(t, st, org)
		s.open(t, ctx, fmt.Sprintf("/console/lots/%d?env=test", lot), http.StatusOK)
		resize(t, ctx, 390)
		if lines, err := chromedp.Run(ctx, chromedp.Evaluate[[]int](`[...document.querySelectorAll('tr.movement > td')].map(td => {
			const r = document.createRange(); r.selectNodeContents(td);
			return new Set([...r.getClientRects()].map(x => Math.round(x.top))).size;
		})`)); err != nil {
			t.Fatal(err)
		} else if len(lines) == 0 || slices.Max(lines) != 1 {
			t.Errorf("at 390 px the movements' cells take %v lines", lines)
		}
		if stop, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.querySelector('tr.movement').closest('.tablebox').tabIndex === 0`)); err != nil || !stop {
			t.Errorf("the movements' box is not a stop of the keyboard's (%v)", err)
		}
		check(t, ctx, "lot")
	})
}

// liveForm is the XPath of the keys page's form for live keys.
const liveForm = `//form[.//input[@name='env' and @value='live']]`
