package e2e_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"larder.dev/larder/ent/productlot"
	"larder.dev/larder/internal/identity/people"
	"larder.dev/larder/internal/modules/inventory"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/seed"
	"larder.dev/larder/internal/testkit/browsertest"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

// download fetches the link the CSS selector matches from the page, with
// the page's session, and returns its status, headers and body.
type download struct {
	Status      int    `json:"status"`
	Type        string `json:"type"`
	Disposition string `json:"disposition"`
	Body        string `json:"body"`
}

func fetchLink(t *testing.T, ctx context.Context, css string) download {
	t.Helper()
	js := fmt.Sprintf(`fetch(document.querySelector(%q).href).then(async r => ({
		status: r.status, type: r.headers.get('content-type') || '', disposition: r.headers.get('content-disposition') || '', body: await r.text(),
	}))`, css)
	d, err := chromedp.Run(ctx, chromedp.Evaluate[download](js, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("fetch %s: %v", css, err)
	}
	return d
}

// A viewer finds the recall scenario's flour lot among the test lots,
// opens it, traces it forward and reads every customer its cookies reached,
// in the drawing and the recall summary; from the drawing they open an
// output lot, and the trace downloads as CSV. The lot's pages pass axe-core.
func TestLotTrace(t *testing.T) {
	dbtest.RunBoth(t, func(t *testing.T, st *store.Store) {
		s := newSite(t, st)
		org := dbtest.NewSeededOrg(t, st)
		ctx := org.Ctx(policy.Test)
		flour, err := st.Client.ProductLot.Query().Where(productlot.LotNumber(seed.RecallLotNumber)).Only(ctx)
		if err != nil {
			t.Fatal(err)
		}
		output, err := st.Client.ProductLot.Query().Where(productlot.LotNumber(seed.RecallOutputLots[0])).Only(ctx)
		if err != nil {
			t.Fatal(err)
		}
		viewer := s.person(org.Org.ID, people.Viewer)
		tb := tab(t, false)
		s.signIn(t, tb, viewer.Email)

		s.open(t, tb, "/console/lots?env=live", http.StatusOK)
		check(t, tb, "lots-live")
		submit(t, tb, "Test", http.StatusOK) // the environment switch
		check(t, tb, "lots-test")
		browsertest.Fill(t, tb, "Lot number", strings.ToLower(seed.RecallLotNumber[:8]))
		submit(t, tb, "Find lots", http.StatusOK)
		if p := s.path(t, tb); !strings.Contains(p, "env=test") || !strings.Contains(p, "number=") {
			t.Errorf("the search leads to %s", p)
		}
		if got := browsertest.Text(t, tb, "table tbody"); !strings.Contains(got, seed.RecallLotNumber) || strings.Contains(got, "FL-2611-01") {
			t.Errorf("the search finds:\n%s", got)
		}
		follow(t, tb, seed.RecallLotNumber, http.StatusOK)
		if p, want := s.path(t, tb), fmt.Sprintf("/console/lots/%d?env=test", flour.ID); p != want {
			t.Errorf("the lot's link leads to %s, want %s", p, want)
		}
		check(t, tb, "lot")

		browsertest.Fill(t, tb, "Direction", string(inventory.Forward))
		browsertest.Fill(t, tb, "Depth", "5")
		submit(t, tb, "Trace", http.StatusOK)
		check(t, tb, "lot-forward")
		// The drawing fits its box: the customers' column (the shipments, on
		// the right) is inside the box and the window at both widths.
		for _, w := range widths {
			resize(t, tb, w)
			fit, err := chromedp.Run(tb, chromedp.Evaluate[[]float64](`(() => {
				const box = document.querySelector('.tracebox').getBoundingClientRect();
				const boxes = [...document.querySelectorAll('svg.trace g.node.shipment rect')];
				const right = Math.max(...boxes.map(e => e.getBoundingClientRect().right));
				return [right, box.right, window.innerWidth, boxes.length];
			})()`))
			if err != nil {
				t.Fatal(err)
			}
			if fit[3] == 0 {
				t.Fatal("the drawing has no shipment box to measure")
			}
			if fit[0] > fit[1]+1 || fit[0] > fit[2] {
				t.Errorf("at %d px the customers' column ends at %.0f px, the box at %.0f, the window at %.0f", w, fit[0], fit[1], fit[2])
			}
		}
		resize(t, tb, 1366)
		if p := s.path(t, tb); !strings.Contains(p, "direction=forward") || !strings.Contains(p, "depth=5") {
			t.Errorf("the trace form leads to %s", p)
		}
		// The drawing's words (an SVG has no innerText).
		drawn, err := chromedp.Run(tb, chromedp.Evaluate[string](`[...document.querySelectorAll('svg.trace text')].map(e => e.textContent).join('\\n')`))
		if err != nil {
			t.Fatal(err)
		}
		// The trace and its recall summary: what follows the trace's heading
		// (the lot's stock movements above it name the bill it came in on).
		page, err := chromedp.Run(tb, chromedp.Evaluate[string](`[...document.querySelectorAll('#trace ~ *')].map(e => e.innerText).join('\\n')`))
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range seed.RecallCustomers {
			if !strings.Contains(drawn, name) {
				t.Errorf("the drawing does not name the customer %s:\n%s", name, drawn)
			}
			if !strings.Contains(browsertest.Text(t, tb, `table[aria-labelledby="recall-customers"]`), name) {
				t.Errorf("the recall summary does not name the customer %s", name)
			}
		}
		for _, lot := range append([]string{seed.RecallLotNumber}, seed.RecallOutputLots...) {
			if !strings.Contains(drawn, lot) {
				t.Errorf("the drawing does not show the lot %s", lot)
			}
		}
		if strings.Contains(page, seed.RecallSupplier) {
			t.Errorf("a forward trace names the supplier %s", seed.RecallSupplier)
		}
		if !strings.Contains(page, "It is complete") {
			t.Errorf("the page does not say the trace is complete:\n%s", page)
		}

		csv := fetchLink(t, tb, `a[download]`)
		if csv.Status != http.StatusOK || csv.Type != "text/csv; charset=utf-8" ||
			csv.Disposition != fmt.Sprintf("attachment; filename=lot-%d-%s-trace-forward.csv", flour.ID, seed.RecallLotNumber) ||
			!strings.HasPrefix(csv.Body, strings.Join(inventory.TraceCSVHeader, ",")+"\n") {
			t.Errorf("the CSV link answers %d %q %q:\n%s", csv.Status, csv.Type, csv.Disposition, csv.Body)
		}

		// An output lot's box in the drawing is a link to its page, with the
		// same direction and depth.
		link := fmt.Sprintf(`svg.trace a.nodelink[href="/console/lots/%d?depth=5&direction=forward&env=test"]`, output.ID)
		fctx, cancel := context.WithTimeout(tb, 10*time.Second)
		resp, err := chromedp.RunResponse(fctx, chromedp.Click(chromedp.CSS(link)))
		cancel()
		if err != nil || resp.Status != http.StatusOK {
			t.Fatalf("click the output lot in the drawing: %v %v", resp, err)
		}
		if got := browsertest.Text(t, tb, "h1"); got != "Lot "+seed.RecallOutputLots[0] {
			t.Errorf("the drawing's link opens %q", got)
		}
		check(t, tb, "lot-output")
	})
}
