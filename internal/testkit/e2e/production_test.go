package e2e_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"larder.dev/larder/ent/productionline"
	"larder.dev/larder/ent/productlot"
	"larder.dev/larder/internal/identity/people"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/browsertest"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

// An operator plans a run of cookies from the board, starts it, previews
// its completion under positive release, completes it, opens the output lot
// (on hold, not sellable), signs the run with the password (a wrong one
// first), releases the lot and sees it sellable: all without
// JavaScript, every page passing axe-core, a refused plan included.
func TestPlanCompleteRelease(t *testing.T) {
	dbtest.RunBoth(t, func(t *testing.T, st *store.Store) {
		s := newSite(t, st)
		org := dbtest.NewSeededOrg(t, st)
		ctx := org.Ctx(policy.Test)
		line, err := st.Client.ProductionLine.Query().Where(productionline.Name("Cookie line")).OnlyID(ctx)
		if err != nil {
			t.Fatal(err)
		}
		flour, err := st.Client.ProductLot.Query().Where(productlot.LotNumber("FL-2611-01")).Only(ctx)
		if err != nil {
			t.Fatal(err)
		}
		operator := s.person(org.Org.ID, people.Operator)
		tb := tab(t, true)
		s.signIn(t, tb, operator.Email)

		follow(t, tb, "Production", http.StatusOK)
		// Without a live key the console shows the test account.
		if env, _ := envShown(t, tb); env != "test" {
			t.Fatalf("the production board shows %q, want test", env)
		}
		follow(t, tb, "Plan a run", http.StatusOK)
		submit(t, tb, "Plan the run", http.StatusBadRequest)
		check(t, tb, "plan-refused")
		if got := browsertest.Text(t, tb, "#e-product"); got != "Enter the code of the product the run makes." {
			t.Errorf("the refused plan says %q", got)
		}
		browsertest.Fill(t, tb, "Product", "FG-COOKIE12")
		browsertest.Fill(t, tb, "Production line", strconv.Itoa(line))
		browsertest.Fill(t, tb, "Planned quantity", "10")
		browsertest.Fill(t, tb, "Lot number", "E2E-COOKIE-1")
		browsertest.Fill(t, tb, "Component 1", "RM-FLOUR")
		browsertest.Fill(t, tb, "Component 1: quantity", "1000")
		submit(t, tb, "Plan the run", http.StatusOK)
		check(t, tb, "run-planned")
		if got := mainText(t, tb); !strings.Contains(got, "is planned.") || !strings.Contains(got, "Cookie line") {
			t.Errorf("the planned run's page:\n%s", got)
		}

		submit(t, tb, "Start the run", http.StatusOK)
		follow(t, tb, "Complete the run…", http.StatusOK)
		check(t, tb, "completion")
		if got := browsertest.Text(t, tb, "table tbody"); !strings.HasPrefix(strings.TrimSpace(got), "FL-2611-01") {
			t.Errorf("the flour lots do not start with the first to expire:\n%s", got)
		}
		// At a phone's width each lot is a card: its number and the field
		// to take from it are both in sight, the box not scrolled sideways.
		resize(t, tb, 390)
		if got, err := chromedp.Run(tb, chromedp.Evaluate[[]float64](`(() => {
			const box = document.querySelector('table.takelots').parentElement, r = box.getBoundingClientRect();
			const lot = box.querySelector('tbody a').getBoundingClientRect(), take = box.querySelector('input.take').getBoundingClientRect();
			return [box.scrollWidth - box.clientWidth, lot.left - r.left, r.right - take.right, take.width / r.width];
		})()`)); err != nil {
			t.Fatal(err)
		} else if got[0] > 0 || got[1] < 0 || got[2] < 0 || got[3] < 0.6 {
			t.Errorf("at 390 px the lots box overflows by %.0f px, the lot starts %.0f px in, the field ends %.0f px before its right and is %.0f%% of its width", got[0], got[1], got[2], 100*got[3])
		}
		resize(t, tb, 1366)
		choose(t, tb, "", "Positive release")
		submit(t, tb, "Preview the completion", http.StatusOK)
		check(t, tb, "completion-preview")
		if got := browsertest.Text(t, tb, "#output-status"); got != "ON_HOLD" {
			t.Errorf("the preview's output status is %q", got)
		}
		consumed := browsertest.Text(t, tb, `table[aria-label="Lots the run consumes"] tbody`)
		if !strings.Contains(consumed, "FL-2611-01") || !strings.Contains(consumed, "1,000 Gram") {
			t.Errorf("the preview consumes:\n%s", consumed)
		}
		submit(t, tb, "Complete the run", http.StatusOK)
		if got := mainText(t, tb); !strings.Contains(got, "Its output lot is ON_HOLD until quality releases it.") || !strings.Contains(got, "COMPLETED") {
			t.Errorf("the completed run's page:\n%s", got)
		}
		// Signing the run asks for the password again: a wrong one is the
		// field's error and the run stays unsigned.
		browsertest.Fill(t, tb, "Your password", "not my password!")
		submit(t, tb, "Sign and lock the run", http.StatusBadRequest)
		check(t, tb, "run-sign-refused")
		if got := browsertest.Text(t, tb, "#e-signature_password"); !strings.Contains(got, "That is not your password") {
			t.Errorf("the wrong signature says %q", got)
		}
		browsertest.Fill(t, tb, "Your password", password)
		submit(t, tb, "Sign and lock the run", http.StatusOK)
		if got := mainText(t, tb); !strings.Contains(got, "COMPLETED, signed and locked") {
			t.Errorf("the signed run's page:\n%s", got)
		}
		check(t, tb, "run-signed")
		follow(t, tb, "Open the output lot and its trace", http.StatusOK)
		check(t, tb, "output-on-hold")
		if got := browsertest.Text(t, tb, "#sellable"); got != "No: ON_HOLD" {
			t.Errorf("the output lot's sellability reads %q", got)
		}
		browsertest.Fill(t, tb, "Status", "RELEASED")
		browsertest.Fill(t, tb, "Note", "Positive release: micro results within specification.")
		browsertest.Fill(t, tb, signLabel, password)
		submit(t, tb, "Record the decision", http.StatusOK)
		if got := browsertest.Text(t, tb, "#sellable"); got != "Yes" {
			t.Errorf("the released lot's sellability reads %q", got)
		}
		out, err := st.Client.ProductLot.Query().Where(productlot.LotNumber("E2E-COOKIE-1")).Only(ctx)
		if err != nil || out.QcStatus != productlot.QcStatusRELEASED || out.QuantityBase.String() != "120" {
			t.Errorf("the output lot %+v (%v), want RELEASED 120", out, err)
		}
		if after, err := st.Client.ProductLot.Get(ctx, flour.ID); err != nil || flour.QuantityBase.Sub(after.QuantityBase).String() != "1000" {
			t.Errorf("the flour lot went from %s to %v (%v), want 1000 less", flour.QuantityBase, after, err)
		}
	})
}
