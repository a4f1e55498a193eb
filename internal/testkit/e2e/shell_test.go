package e2e_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"

	"larder.dev/larder/internal/identity/auth"
	"larder.dev/larder/internal/identity/people"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/browsertest"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

// Each role lands on the first page of its own desk after signing in and
// at /console/, and its navigation lists that desk first: an admin on
// People, a developer on Keys, an operator and a viewer on Quality.
func TestRoleLandingPages(t *testing.T) {
	dbtest.RunBoth(t, func(t *testing.T, st *store.Store) {
		s := newSite(t, st)
		org := dbtest.NewOrg(t, st, "")
		for _, c := range []struct {
			role        people.Role
			land, first string
			desks       []string
		}{
			{people.Admin, "/console/people", "Admin", []string{"Admin", "Developers", "Plant"}},
			{people.Developer, "/console/keys", "Developers", []string{"Developers", "Plant", "Admin"}},
			{people.Operator, "/console/quality", "Plant", []string{"Plant", "Developers"}},
			{people.Viewer, "/console/quality", "Plant", []string{"Plant", "Developers"}},
		} {
			t.Run(string(c.role), func(t *testing.T) {
				p := s.person(org.Org.ID, c.role)
				ctx := tab(t, false)
				s.signIn(t, ctx, p.Email)
				if got := s.path(t, ctx); got != c.land {
					t.Errorf("a %s lands on %s, want %s", c.role, got, c.land)
				}
				check(t, ctx, "landing")
				s.open(t, ctx, "/console/", http.StatusOK)
				if got := s.path(t, ctx); got != c.land {
					t.Errorf("/console/ sends a %s to %s, want %s", c.role, got, c.land)
				}
				desks, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('aside.side nav ul')].map(u => u.getAttribute('aria-label'))`))
				if err != nil {
					t.Fatal(err)
				}
				if strings.Join(desks, ",") != strings.Join(c.desks, ",") {
					t.Errorf("a %s's navigation lists the desks %v, want %v", c.role, desks, c.desks)
				}
			})
		}
	})
}

// envShown is the environment the page says it shows: the switch's
// pressed button (the visible one of the sidebar or the menu) and whether
// the test-mode band is there.
func envShown(t *testing.T, ctx context.Context) (pressed string, banner bool) {
	t.Helper()
	got, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[
		...[...document.querySelectorAll('form.envswitch button[aria-pressed=true]')].map(b => b.value),
		document.querySelector('.modebar') ? 'banner' : '',
	]`))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0] != got[1] {
		t.Fatalf("the page's switches disagree or are missing: %v", got)
	}
	return got[0], got[2] == "banner"
}

// The environment is one switch for the whole console, kept in the
// session: an organization without a live key opens on Test with the
// test-mode band on every page; Live chosen on one page is what the next
// pages show, through the navigation and after signing in again elsewhere
// it starts anew; an old link naming the environment chooses it; an
// organization with a live key opens on Live.
func TestEnvironmentSwitch(t *testing.T) {
	dbtest.RunBoth(t, func(t *testing.T, st *store.Store) {
		s := newSite(t, st)
		org := dbtest.NewOrg(t, st, "")
		dev := s.person(org.Org.ID, people.Developer)
		ctx := tab(t, false)
		s.signIn(t, ctx, dev.Email)

		// No live key: Test, on every page.
		for _, path := range []string{"/console/keys", "/console/events", "/console/lots"} {
			s.open(t, ctx, path, http.StatusOK)
			if env, banner := envShown(t, ctx); env != "test" || !banner {
				t.Fatalf("%s without a live key shows %q (band %v), want test with the band", path, env, banner)
			}
		}
		check(t, ctx, "test-mode")

		// Live chosen on the keys page.
		s.open(t, ctx, "/console/keys", http.StatusOK)
		submit(t, ctx, "Live", http.StatusOK) // the sidebar's; the menu's is hidden
		if got := s.path(t, ctx); got != "/console/keys" {
			t.Errorf("the switch returns to %s, want /console/keys", got)
		}
		if env, banner := envShown(t, ctx); env != "live" || banner {
			t.Fatalf("after choosing Live the keys page shows %q (band %v)", env, banner)
		}
		if got := mainText(t, ctx); !strings.Contains(got, "Live keys") || strings.Contains(got, "Test keys") {
			t.Errorf("the keys page after choosing Live:\n%s", got)
		}
		check(t, ctx, "live-mode")
		// Kept through the navigation.
		follow(t, ctx, "Events", http.StatusOK)
		if env, banner := envShown(t, ctx); env != "live" || banner {
			t.Errorf("the events page after choosing Live shows %q (band %v)", env, banner)
		}
		if got := mainText(t, ctx); !strings.Contains(got, "No live events yet.") {
			t.Errorf("the events page does not show the live events:\n%s", got)
		}
		follow(t, ctx, "Lots", http.StatusOK)
		if env, _ := envShown(t, ctx); env != "live" {
			t.Errorf("the lots page after choosing Live shows %q", env)
		}
		// An old link that names the environment chooses it.
		s.open(t, ctx, "/console/requests?env=test", http.StatusOK)
		if env, banner := envShown(t, ctx); env != "test" || !banner {
			t.Errorf("an ?env=test link shows %q (band %v)", env, banner)
		}
		s.open(t, ctx, "/console/webhooks", http.StatusOK)
		if env, _ := envShown(t, ctx); env != "test" {
			t.Errorf("after an ?env=test link the webhooks page shows %q", env)
		}
		// The switch at 390 px is in the menu, and works without opening
		// anything else.
		resize(t, ctx, 390)
		if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.querySelector('details.menu').open = true`)); err != nil {
			t.Fatal(err)
		}
		browsertest.Screenshot(t, ctx, t.Name()+"/menu-open-390")
		n := one(t, ctx, `//details[@class='menu']//button[@value='live']`)
		if resp, err := chromedp.RunResponse(ctx, chromedp.Click(chromedp.NodeIDs{n})); err != nil || resp.Status != http.StatusOK {
			t.Fatalf("choose Live in the menu: %v", err)
		}
		resize(t, ctx, 1366)
		if env, banner := envShown(t, ctx); env != "live" || banner {
			t.Errorf("after choosing Live in the menu the page shows %q (band %v)", env, banner)
		}

		// A new session of an organization with a live key opens on Live.
		if _, err := auth.CreateKey(context.Background(), st.Client, org.Org.ID, auth.Holder, policy.Live, policy.Known(), "shop"); err != nil {
			t.Fatal(err)
		}
		other := tab(t, false)
		s.signIn(t, other, s.person(org.Org.ID, people.Operator).Email)
		if env, banner := envShown(t, other); env != "live" || banner {
			t.Errorf("with a live key a new session shows %q (band %v), want live", env, banner)
		}
	})
}

// one is the node id of the single element the XPath matches.
func one(t *testing.T, ctx context.Context, xpath string) cdp.NodeID {
	t.Helper()
	nodes, err := chromedp.Run(ctx, chromedp.Nodes(chromedp.Search(xpath)))
	if err != nil || len(nodes) != 1 {
		t.Fatalf("find %s: %d found, %v", xpath, len(nodes), err)
	}
	return nodes[0].NodeID
}

// The search box in the header finds a request by its id, live or test,
// and says so plainly when there is none.
func TestHeaderRequestSearch(t *testing.T) {
	dbtest.RunBoth(t, func(t *testing.T, st *store.Store) {
		s := newSite(t, st)
		org := dbtest.NewOrg(t, st, "")
		k, err := auth.CreateKey(context.Background(), st.Client, org.Org.ID, auth.Holder, policy.Test, policy.Known(), "Shop")
		if err != nil {
			t.Fatal(err)
		}
		req := logRequest(t, st, org.Test.ID, k.Record.ID, "GET", "listTags", "/v1/tags", 200, "", "", `{"data":[]}`)
		ctx := tab(t, false)
		s.signIn(t, ctx, s.person(org.Org.ID, people.Operator).Email)
		typeInto(t, ctx, "#find-w", req.RequestID)
		n := one(t, ctx, `//form[@role='search' and .//input[@id='find-w']]//button`)
		if resp, err := chromedp.RunResponse(ctx, chromedp.Click(chromedp.NodeIDs{n})); err != nil || resp.Status != http.StatusOK {
			t.Fatalf("search for %s: %v", req.RequestID, err)
		}
		if got, want := s.path(t, ctx), fmt.Sprintf("/console/requests/%d?env=test", req.ID); got != want {
			t.Errorf("the search leads to %s, want %s", got, want)
		}
		if got := mainText(t, ctx); !strings.Contains(got, req.RequestID) {
			t.Errorf("the request's page does not show its id:\n%s", got)
		}
		typeInto(t, ctx, "#find-w", "req_nothing_here")
		n = one(t, ctx, `//form[@role='search' and .//input[@id='find-w']]//button`)
		if resp, err := chromedp.RunResponse(ctx, chromedp.Click(chromedp.NodeIDs{n})); err != nil || resp.Status != http.StatusNotFound {
			t.Fatalf("search for an unknown id: %v", err)
		}
		if got := mainText(t, ctx); !strings.Contains(got, "No request req_nothing_here is in this organization's log") {
			t.Errorf("an unknown id says:\n%s", got)
		}
		check(t, ctx, "request-not-found")
	})
}
