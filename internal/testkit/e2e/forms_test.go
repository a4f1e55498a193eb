package e2e_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/shopspring/decimal"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/product"
	"larder.dev/larder/ent/productionline"
	"larder.dev/larder/ent/productionplannedstep"
	"larder.dev/larder/internal/identity/people"
	"larder.dev/larder/internal/modules/manufacturing"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/browsertest"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

// A create form sent back with two errors opens with a summary at the top
// that has the focus when the page loads (no script: the autofocus
// attribute), lists both errors in the page's order, each linking to a
// field of the page; the form stays open.
func TestErrorSummaryTakesTheFocus(t *testing.T) {
	dbtest.RunBoth(t, func(t *testing.T, st *store.Store) {
		s := newSite(t, st)
		org := dbtest.NewOrg(t, st, "")
		dev := s.person(org.Org.ID, people.Developer)
		ctx := tab(t, true)
		s.signIn(t, ctx, dev.Email)
		s.open(t, ctx, "/console/webhooks", http.StatusOK)
		unfold(t, ctx, "Register an endpoint")
		typeInto(t, ctx, "#f-url", "ftp://example.com/hooks")
		typeInto(t, ctx, "#f-email", "not an address")
		submit(t, ctx, "Register endpoint", http.StatusBadRequest)
		// The browser moves the focus to an autofocus element at its next
		// rendering after the load, which may come after the load event.
		if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.activeElement.className === "problems"`,
			chromedp.WithPollingTimeout(5*time.Second))); err != nil {
			focused, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.activeElement.className`))
			t.Errorf("the focus is on %q (%v), want the error summary", focused, err)
		}
		check(t, ctx, "webhooks-summary")
		links, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('.problems a')].map(a => a.getAttribute('href'))`))
		if err != nil || strings.Join(links, " ") != "#f-url #f-email" {
			t.Errorf("the summary links %v (%v), want the URL's and the e-mail's fields", links, err)
		}
		open, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.querySelector('details.disclosure').open`))
		if err != nil || !open {
			t.Errorf("the form sent back is folded (%v)", err)
		}
		for _, href := range links {
			if ok, _ := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.querySelector('`+href+`') !== null`)); !ok {
				t.Errorf("the summary links %s, which is not on the page", href)
			}
		}
	})
}

// Planning from the picker, without script: the operator types the
// product's code from the list the field offers, a quantity with its
// thousands separated, and asks for the recipe; the components of the
// product's last plan fill the rows, scaled, in their units; the run
// planned has those quantities.
func TestPlanFromTheRecipe(t *testing.T) {
	dbtest.RunBoth(t, func(t *testing.T, st *store.Store) {
		s := newSite(t, st)
		org := dbtest.NewSeededOrg(t, st)
		ctx := org.Ctx(policy.Test)
		line, err := st.Client.ProductionLine.Query().Where(productionline.Name("Cookie line")).OnlyID(ctx)
		if err != nil {
			t.Fatal(err)
		}
		byCode := func(code string) *ent.Product {
			p, err := st.Client.Product.Query().Where(product.ProductCode(code)).WithUomBase().WithUnitOfMeasure().Only(ctx)
			if err != nil {
				t.Fatal(err)
			}
			return p
		}
		cookie, flour, sugar := byCode("FG-COOKIE12"), byCode("RM-FLOUR"), byCode("RM-SUGAR")
		q := decimal.NewFromInt(10)
		if err := ent.RunInTx(ctx, st.Client, func(tx *ent.Tx) error {
			_, err := manufacturing.Create(ctx, tx, manufacturing.Plan{ProductID: cookie.ID, Quantity: &q, Steps: []manufacturing.Step{
				{ProductID: flour.ID, QuantityBase: decimal.NewFromInt(1000)}, {ProductID: sugar.ID, QuantityBase: decimal.NewFromInt(500)}}})
			return err
		}); err != nil {
			t.Fatal(err)
		}
		operator := s.person(org.Org.ID, people.Operator)
		tb := tab(t, true)
		s.signIn(t, tb, operator.Email)
		s.open(t, tb, "/console/production/new?env=test", http.StatusOK)
		typeInto(t, tb, "#f-product", "FG-COOKIE12")
		typeInto(t, tb, "#f-quantity", "1,200")
		submit(t, tb, "Use the product's recipe for this quantity", http.StatusOK)
		check(t, tb, "plan-recipe")
		// At a phone's width each component row is the form's width: a
		// code and a quantity are whole in their fields, under labels
		// one reads.
		resize(t, tb, 390)
		if w, err := chromedp.Run(tb, chromedp.Evaluate[[]float64](`['#f-step_product_0', '#f-step_qty_0', 'label[for=f-step_qty_0]', 'main']
			.map(s => document.querySelector(s).getBoundingClientRect().width)`)); err != nil {
			t.Fatal(err)
		} else if w[0] < 0.7*w[3] || w[1] < 0.5*w[3] || w[2] < 50 {
			t.Errorf("at 390 px the component field is %.0f px, the quantity %.0f px and its label %.0f px wide, in a page of %.0f px", w[0], w[1], w[2], w[3])
		}
		resize(t, tb, 1366)
		for i, want := range [][2]string{{"RM-FLOUR", "120,000"}, {"RM-SUGAR", "60,000"}} {
			n := strconv.Itoa(i)
			if got := [2]string{value(t, tb, "#f-step_product_"+n), value(t, tb, "#f-step_qty_"+n)}; got != want {
				t.Errorf("component %d is %v, want %v", i+1, got, want)
			}
		}
		if got := mainText(t, tb); !strings.Contains(got, "Recipe for 1,200 "+cookie.Edges.UnitOfMeasure.Name) || !strings.Contains(got, flour.Edges.UomBase.Name) {
			t.Errorf("the recipe is not shown scaled with its units:\n%s", got)
		}
		browsertest.Fill(t, tb, "Production line", strconv.Itoa(line))
		typeInto(t, tb, "#f-lot_number", "E2E-RECIPE-1")
		submit(t, tb, "Plan the run", http.StatusOK)
		steps, err := st.Client.ProductionPlannedStep.Query().Where(productionplannedstep.ProductID(flour.ID)).All(ctx)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, x := range steps {
			found = found || x.QuantityBase.Equal(decimal.NewFromInt(120000))
		}
		if !found {
			t.Errorf("no planned step of 120000 of flour among %d", len(steps))
		}
	})
}
