package e2e_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/bill"
	"larder.dev/larder/ent/production"
	"larder.dev/larder/ent/productlot"
	"larder.dev/larder/internal/identity/people"
	"larder.dev/larder/internal/platform/ids"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/reqlog"
	"larder.dev/larder/internal/seed"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

// dark makes the tab's pages see a system that prefers dark colours, and
// fails the test unless the console's pages then draw on its dark ground.
func dark(t *testing.T, ctx context.Context) {
	t.Helper()
	if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
		Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}}}); err != nil {
		t.Fatalf("emulate dark mode: %v", err)
	}
}

// background is the computed background colour of the page the tab shows.
func background(t *testing.T, ctx context.Context) string {
	t.Helper()
	bg, err := chromedp.Run(ctx, chromedp.Evaluate[string](`getComputedStyle(document.documentElement).backgroundColor`))
	if err != nil {
		t.Fatal(err)
	}
	return bg
}

// lightFields are the ids of the page's visible text fields, lists and
// text areas not drawn on the page's own background with its ink: the
// browser's defaults, which dark mode leaves light.
func lightFields(t *testing.T, ctx context.Context) []string {
	t.Helper()
	bad, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`(() => {
		const page = getComputedStyle(document.documentElement);
		return [...document.querySelectorAll('main :is(input:not([type=checkbox]):not([type=radio]):not([type=hidden]):not([type=submit]), select, textarea)')]
			.filter(e => e.getClientRects().length > 0)
			.filter(e => { const s = getComputedStyle(e); return s.backgroundColor !== page.backgroundColor || s.color !== page.color; })
			.map(e => e.id || e.name);
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	return bad
}

// In dark mode (the system's prefers-color-scheme) the console's busiest
// pages, a lot's trace and recall summary, the request charts and a logged
// request's bodies, the webhooks' health, the production board, the plan
// form and a run's completion, the quality queue and a bill, pass
// axe-core, colour contrast included, as they do in light mode; the
// screenshots are for looking at.
func TestDarkMode(t *testing.T) {
	dbtest.RunBoth(t, func(t *testing.T, st *store.Store) {
		s := newSite(t, st)
		org := dbtest.NewSeededOrg(t, st)
		ctx := org.Ctx(policy.Test)
		sys := policy.System(context.Background())
		flour, err := st.Client.ProductLot.Query().Where(productlot.LotNumber(seed.RecallLotNumber)).Only(ctx)
		if err != nil {
			t.Fatal(err)
		}
		b, err := st.Client.Bill.Query().Order(bill.ByID()).First(ctx)
		if err != nil {
			t.Fatal(err)
		}
		run, err := st.Client.Production.Query().Where(production.StatusEQ(production.StatusIN_PROGRESS)).Order(production.ByID()).First(ctx)
		if err != nil {
			t.Fatal(err)
		}
		// Requests an hour ago, one an error, for the charts; one with its
		// bodies, for the request's page.
		at := time.Now().UTC().Add(-time.Hour)
		for _, status := range []int{200, 200, 404, 503} {
			acct := org.Test.ID
			if _, err := reqlog.Insert(sys, st, &ent.APIRequest{CreatedAt: at, AccountID: acct, Method: "GET", Operation: "listTags",
				Path: "/v1/tags", Status: status, RequestID: ids.NewAt("req_", at), DurationUs: 900}); err != nil {
				t.Fatal(err)
			}
		}
		req := logRequest(t, st, org.Test.ID, 0, "POST", "createProduct", "/v1/products", 400, "VALIDATION_ERROR",
			`{"name":"","cost":"2.40"}`, `{"code":"VALIDATION_ERROR","errors":[{"field":"name","message":"required"}]}`)
		rc := newReceiver(t)
		if _, err := s.hooks.Create(context.Background(), org.Org.ID, policy.Test, rc.URL+"/larder", "", "Stock alerts", nil); err != nil {
			t.Fatal(err)
		}

		admin := s.person(org.Org.ID, people.Admin)
		tb := tab(t, false)
		dark(t, tb)
		s.signIn(t, tb, admin.Email)
		for _, p := range []struct{ name, path string }{
			{"lot-trace", fmt.Sprintf("/console/lots/%d?env=test", flour.ID)},
			{"requests", "/console/requests?env=test"},
			{"request", fmt.Sprintf("/console/requests/%d?env=test", req.ID)},
			{"webhooks", "/console/webhooks"},
			{"production", "/console/production?env=test"},
			{"production-plan", "/console/production/new?env=test"},
			{"production-complete", fmt.Sprintf("/console/production/%d/complete?env=test", run.ID)},
			{"quality", "/console/quality?env=test"},
			{"bill", fmt.Sprintf("/console/bills/%d?env=test", b.ID)},
		} {
			s.open(t, tb, p.path, http.StatusOK)
			if bg := background(t, tb); bg != "rgb(15, 20, 25)" {
				t.Errorf("%s: the page's background is %s, not the dark one", p.name, bg)
			}
			if bad := lightFields(t, tb); len(bad) > 0 {
				t.Errorf("%s: fields drawn in light colours on the dark page: %v", p.name, bad)
			}
			check(t, tb, "dark-"+p.name)
		}
	})
}
