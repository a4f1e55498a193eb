package console_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/event"
	"larder.dev/larder/ent/production"
	"larder.dev/larder/ent/productionconsumedstep"
	"larder.dev/larder/ent/productionline"
	"larder.dev/larder/ent/productlot"
	"larder.dev/larder/ent/stockmovement"
	"larder.dev/larder/internal/identity/people"
	"larder.dev/larder/internal/modules/manufacturing"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

// floor is a seeded organization's test account, as the tests of the floor
// read it.
type floor struct {
	t   *testing.T
	st  *store.Store
	org *dbtest.Org
	ctx context.Context
}

func (f floor) lot(number string) *ent.ProductLot {
	f.t.Helper()
	l, err := f.st.Client.ProductLot.Query().Where(productlot.LotNumber(number)).Only(f.ctx)
	if err != nil {
		f.t.Fatalf("lot %s: %v", number, err)
	}
	return l
}

func (f floor) run(id int) *ent.Production {
	f.t.Helper()
	r, err := f.st.Client.Production.Query().Where(production.ID(id)).WithPlannedSteps().WithConsumedSteps().Only(f.ctx)
	if err != nil {
		f.t.Fatalf("run %d: %v", id, err)
	}
	return r
}

// written counts what a completion writes, to show a preview writes none.
func (f floor) written() string {
	f.t.Helper()
	mv, err := f.st.Client.StockMovement.Query().Count(f.ctx)
	if err != nil {
		f.t.Fatal(err)
	}
	steps, err := f.st.Client.ProductionConsumedStep.Query().Count(f.ctx)
	if err != nil {
		f.t.Fatal(err)
	}
	lots, err := f.st.Client.ProductLot.Query().Order(productlot.ByID()).All(f.ctx)
	if err != nil {
		f.t.Fatal(err)
	}
	evs, err := f.st.Client.Event.Query().Count(policy.System(context.Background()))
	if err != nil {
		f.t.Fatal(err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "movements %d, consumed steps %d, events %d\n", mv, steps, evs)
	for _, l := range lots {
		fmt.Fprintf(&b, "lot %d %s %s\n", l.ID, l.QuantityBase, l.QcStatus)
	}
	return b.String()
}

// lastEvent is the newest event of a run.
func (f floor) lastEvent(runID int) *ent.Event {
	f.t.Helper()
	evs, err := f.st.Client.Event.Query().Where(event.ResourceType("production"), event.ResourceID(runID)).
		Order(event.ByID()).All(policy.System(context.Background()))
	if err != nil || len(evs) == 0 {
		f.t.Fatalf("events of run %d: %v (%v)", runID, evs, err)
	}
	return evs[len(evs)-1]
}

// planForm is a plan of 10 boxes of cookies on the cookie line, from two
// components.
func planForm(f floor, lot string) url.Values {
	f.t.Helper()
	line, err := f.st.Client.ProductionLine.Query().Where(productionline.Name("Cookie line")).OnlyID(f.ctx)
	if err != nil {
		f.t.Fatal(err)
	}
	return url.Values{"env": {"test"}, "rows": {"5"}, "product": {"FG-COOKIE12"}, "line": {strconv.Itoa(line)}, "quantity": {"10"},
		"lot_number": {lot}, "expires": {"2027-06-01"},
		"step_product_0": {"RM-FLOUR"}, "step_qty_0": {"1000"}, "step_product_3": {"RM-SUGAR"}, "step_qty_3": {"500"}}
}

// runID reads the run a redirect goes to.
func runID(t *testing.T, res answer) int {
	t.Helper()
	m := regexp.MustCompile(`^/console/production/(\d+)\?env=test$`).FindStringSubmatch(res.location())
	if res.status != http.StatusSeeOther || m == nil {
		t.Fatalf("%d to %q, want 303 to a test run: %s", res.status, res.location(), res.body)
	}
	id, _ := strconv.Atoi(m[1])
	return id
}

// The plan form plans the run the CLI would: product, line and its
// warehouse, quantity, lot number, expiry and the steps of the rows filled
// in, PLANNED, recorded with the person in the audit history and the event.
// Bad input is named beside its field and writes nothing; other roles get 403.
func TestPlanRun(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		d := newDesk(t, st)
		org := dbtest.NewSeededOrg(t, st)
		f := floor{t, st, org, org.Ctx(policy.Test)}
		for _, role := range []people.Role{people.Viewer, people.Developer} {
			b, _ := d.signedIn(org.Org.ID, role)
			if res := b.get("/console/production/new?env=test"); res.status != http.StatusForbidden {
				t.Errorf("%s opens the plan form: %d, want 403", role, res.status)
			}
			if res := b.post("/console/production", planForm(f, "P-NO")); res.status != http.StatusForbidden {
				t.Errorf("%s plans: %d, want 403", role, res.status)
			}
			if res := b.get("/console/production?env=test"); strings.Contains(res.body, "Plan a run") {
				t.Errorf("%s is offered to plan a run", role)
			}
		}
		b, p := d.signedIn(org.Org.ID, people.Operator)
		res := b.get("/console/production/new?env=test")
		if res.status != http.StatusOK || strings.Count(res.body, `name="step_product_`) != 5 || !strings.Contains(res.body, ">Cookie line</option>") {
			t.Fatalf("plan form: %d %s", res.status, res.body)
		}
		more := b.get("/console/production/new?env=test&rows=5&more=1&product=FG-COOKIE12")
		if strings.Count(more.body, `name="step_product_`) != 10 || !strings.Contains(more.body, `value="FG-COOKIE12"`) {
			t.Errorf("more step rows: %d rows, product kept %v", strings.Count(more.body, `name="step_product_`), strings.Contains(more.body, `value="FG-COOKIE12"`))
		}

		before := f.written()
		runs, err := st.Client.Production.Query().Count(f.ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			name  string
			edit  func(url.Values)
			field string
			msg   string
		}{
			{"no product", func(v url.Values) { v.Del("product") }, "product", "Enter the code of the product the run makes."},
			{"an unknown product", func(v url.Values) { v.Set("product", "NOPE") }, "product", "NOPE: no such product in this account."},
			{"an unknown component", func(v url.Values) { v.Set("step_product_3", "NOPE") }, "step_product_3", "NOPE: no such product in this account."},
			{"a component without quantity", func(v url.Values) { v.Del("step_qty_3") }, "step_qty_3", "Enter the component&#39;s quantity in its base unit."},
			{"a quantity without component", func(v url.Values) { v.Set("step_qty_1", "4") }, "step_product_1", "Enter the component&#39;s product code, or clear its quantity."},
			{"a zero quantity", func(v url.Values) { v.Set("quantity", "0") }, "quantity", "The planned quantity must be a number greater than 0, such as 120 or 2.5."},
			{"a bad date", func(v url.Values) { v.Set("expires", "next week") }, "expires", "Enter a date such as 2027-01-31."},
			{"an unknown line", func(v url.Values) { v.Set("line", "999999999") }, "line", "999999999: no such production line in this account."},
			{"a long lot number", func(v url.Values) { v.Set("lot_number", strings.Repeat("L", 101)) }, "lot_number", "A lot number has at most 100 characters."},
		} {
			form := planForm(f, "P-BAD")
			c.edit(form)
			res := b.post("/console/production", form)
			want := fmt.Sprintf(`<p class="error" id="e-%s">%s</p>`, c.field, c.msg)
			if res.status != http.StatusBadRequest || !strings.Contains(res.body, want) {
				t.Errorf("%s: %d, want 400 with %s in %s", c.name, res.status, want, res.body)
			}
		}
		if after := f.written(); after != before {
			t.Errorf("refused plans wrote:\n%s\nwas\n%s", after, before)
		}
		if n, _ := st.Client.Production.Query().Count(f.ctx); n != runs {
			t.Errorf("%d runs after refusals, want %d", n, runs)
		}

		id := runID(t, b.post("/console/production", planForm(f, "P-1")))
		run := f.run(id)
		line, _ := st.Client.ProductionLine.Query().Where(productionline.Name("Cookie line")).Only(f.ctx)
		if run.Status != production.StatusPLANNED || run.ProductionLineID == nil || *run.ProductionLineID != line.ID ||
			run.LocationID == nil || line.WarehouseID == nil || *run.LocationID != *line.WarehouseID ||
			run.ProductionQtyDisplayUnits == nil || run.ProductionQtyDisplayUnits.String() != "10" || run.LotNumber == nil || *run.LotNumber != "P-1" ||
			run.ExpirationDate == nil || !run.ExpirationDate.Equal(time.Date(2027, 6, 1, 0, 0, 0, 0, time.UTC)) {
			t.Errorf("planned run %+v", run)
		}
		var steps []string
		for _, s := range run.Edges.PlannedSteps {
			steps = append(steps, s.QuantityBase.String())
		}
		if strings.Join(steps, ",") != "1000,500" {
			t.Errorf("planned steps %v, want 1000 flour and 500 sugar", steps)
		}
		page := b.get(fmt.Sprintf("/console/production/%d?env=test", id))
		if !strings.Contains(page.body, fmt.Sprintf("Production run No. %d is planned.", run.ProductionNo)) {
			t.Errorf("the run's page does not say it is planned: %s", page.body)
		}
		r := lastRecord(t, st, org.Org.ID)
		if r.Action != "production_planned" || r.Env == nil || *r.Env != "test" || r.UserID == nil || *r.UserID != p.ID ||
			r.Detail["production_id"] != float64(id) || r.Detail["product_code"] != "FG-COOKIE12" {
			t.Errorf("record %+v", r)
		}
		if e := f.lastEvent(id); e.Type != "production.created" || e.Source != event.SourceApp || e.UserID == nil || *e.UserID != p.ID {
			t.Errorf("event %s source %s user %v, want production.created by %d", e.Type, e.Source, e.UserID, p.ID)
		}
	})
}

// Completing from the console: the form lists each component's sellable
// lots first to expire first and any shortfall; the preview tells what
// would be consumed and made and writes nothing; completing consumes the
// first-expiring lots or the lots named, makes the output lot ON_HOLD under
// positive release, and records the person. Refusals are on the page.
func TestCompleteRun(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		d := newDesk(t, st)
		org := dbtest.NewSeededOrg(t, st)
		f := floor{t, st, org, org.Ctx(policy.Test)}
		b, p := d.signedIn(org.Org.ID, people.Operator)
		id := runID(t, b.post("/console/production", planForm(f, "C-1")))
		page := fmt.Sprintf("/console/production/%d/complete?env=test", id)
		if res := b.get(page); res.status != http.StatusOK || !strings.Contains(res.body, "Only a run in progress, not signed, can complete; this one is PLANNED.") {
			t.Errorf("completing a planned run: %d %s", res.status, res.body)
		}
		if res := b.post(fmt.Sprintf("/console/production/%d/start?env=test", id), nil); res.status != http.StatusSeeOther {
			t.Fatalf("start: %d %s", res.status, res.body)
		}
		if res := b.get(fmt.Sprintf("/console/production/%d?env=test", id)); !strings.Contains(res.body, `href="`+page+`"`) {
			t.Errorf("the run in progress does not link its completion")
		}
		for _, role := range []people.Role{people.Viewer, people.Developer} {
			o, _ := d.signedIn(org.Org.ID, role)
			if res := o.get(page); res.status != http.StatusForbidden {
				t.Errorf("%s opens the completion: %d, want 403", role, res.status)
			}
			if res := o.post(page, url.Values{"release": {"yes"}}); res.status != http.StatusForbidden {
				t.Errorf("%s completes: %d, want 403", role, res.status)
			}
		}

		first, later := f.lot("FL-2611-01"), f.lot("FL-2611-02")
		res := b.get(page)
		if res.status != http.StatusOK {
			t.Fatalf("completion form: %d %s", res.status, res.body)
		}
		if i, j := strings.Index(res.body, ">FL-2611-01<"), strings.Index(res.body, ">FL-2611-02<"); i < 0 || j < i {
			t.Errorf("the flour lots are not listed first to expire first (%d, %d)", i, j)
		}
		if strings.Contains(res.body, "Short by") {
			t.Errorf("a shortfall with stock enough: %s", res.body)
		}
		// Quantities in their units' names, their thousands separated.
		for _, want := range []string{
			"<dt>Planned quantity</dt><dd>10 Case</dd>", "<p>Needed 1,000 Gram, sellable ", "<p>Needed 500 Gram, sellable ",
			`<th scope="col">Take (Gram)</th>`, `<td class="num" data-label="Holds">` + grouped(first.QuantityBase) + ` Gram</td>`,
		} {
			if !strings.Contains(res.body, want) {
				t.Errorf("the completion form has no %s", want)
			}
		}
		noUnitWords(t, "the completion form", res.body)

		before := f.written()
		res = b.get(page + "&preview=1&release=yes")
		if res.status != http.StatusOK {
			t.Fatalf("preview: %d %s", res.status, res.body)
		}
		left := first.QuantityBase.Sub(decimal.NewFromInt(1000)).String()
		for _, want := range []string{
			`<td>FL-2611-01</td><td class="num">1,000 Gram</td><td class="num">` + grouped(first.QuantityBase.Sub(decimal.NewFromInt(1000))) + ` Gram</td>`,
			`<dd id="output-lot">C-1 (a new lot)</dd>`, `<span class="badge qc-ON_HOLD">ON_HOLD</span>`,
			`<dd>120 Each</dd>`, `<input type="hidden" name="release" value="yes">`,
		} {
			if !strings.Contains(res.body, want) {
				t.Errorf("the preview has no %s", want)
			}
		}
		noUnitWords(t, "the preview", res.body)
		if after := f.written(); after != before {
			t.Errorf("the preview wrote:\n%s\nwas\n%s", after, before)
		}

		// Named lots: more than the lot holds is refused, in the preview and
		// when completing; a number that is not one is named.
		take := fmt.Sprintf("take_%d", later.ID)
		res = b.get(page + "&preview=1&" + take + "=" + later.QuantityBase.Add(decimal.NewFromInt(1)).String())
		if res.status != http.StatusConflict || !strings.Contains(res.body, `id="refusal"`) ||
			!strings.Contains(res.body, fmt.Sprintf("Lot %d holds %s", later.ID, later.QuantityBase)) {
			t.Errorf("preview of too much: %d %s", res.status, res.body)
		}
		res = b.get(page + "&preview=1&" + take + "=lots")
		if res.status != http.StatusBadRequest || !strings.Contains(res.body, `id="e-`+take+`">The quantity taken must be a number greater than 0`) {
			t.Errorf("preview of a word: %d %s", res.status, res.body)
		}
		res = b.post(page, url.Values{take: {later.QuantityBase.Add(decimal.NewFromInt(1)).String()}})
		if res.status != http.StatusConflict || !strings.Contains(res.body, fmt.Sprintf("Lot %d holds %s", later.ID, later.QuantityBase)) {
			t.Errorf("completing with too much: %d %s", res.status, res.body)
		}
		if after := f.written(); after != before {
			t.Errorf("refusals wrote:\n%s\nwas\n%s", after, before)
		}

		res = b.post(page, url.Values{"release": {"yes"}})
		if res.status != http.StatusSeeOther {
			t.Fatalf("complete: %d %s", res.status, res.body)
		}
		run := f.run(id)
		if run.Status != production.StatusCOMPLETED || run.ProducedQtyDisplayUnits == nil || run.ProducedQtyDisplayUnits.String() != "10" || len(run.Edges.ConsumedSteps) != 2 {
			t.Fatalf("completed run %+v", run)
		}
		if got := f.lot("FL-2611-01").QuantityBase.String(); got != left {
			t.Errorf("FL-2611-01 holds %s, want %s", got, left)
		}
		if got := f.lot("FL-2611-02").QuantityBase; !got.Equal(later.QuantityBase) {
			t.Errorf("FL-2611-02 changed to %s", got)
		}
		out := f.lot("C-1")
		if out.QcStatus != productlot.QcStatusON_HOLD || out.QuantityBase.String() != "120" {
			t.Errorf("output lot %s %s, want ON_HOLD 120", out.QcStatus, out.QuantityBase)
		}
		r := lastRecord(t, st, org.Org.ID)
		if r.Action != "production_completed" || r.UserID == nil || *r.UserID != p.ID || r.Detail["positive_release"] != true || r.Detail["production_id"] != float64(id) {
			t.Errorf("record %+v", r)
		}
		if e := f.lastEvent(id); e.Type != "production.completed" || e.Source != event.SourceApp || e.UserID == nil || *e.UserID != p.ID {
			t.Errorf("event %s source %s user %v, want production.completed by %d", e.Type, e.Source, e.UserID, p.ID)
		}
		res = b.get(fmt.Sprintf("/console/production/%d?env=test", id))
		if !strings.Contains(res.body, "Its output lot is ON_HOLD until quality releases it.") {
			t.Errorf("the run's page does not say what happened: %s", res.body)
		}
		for _, want := range []string{"<dt>Produced quantity</dt><dd>10 Case</dd>", `<td class="num">1,000 Gram</td>`, `<td>FL-2611-01</a></td><td class="num">1,000 Gram</td>`} {
			if !strings.Contains(res.body, strings.Replace(want, "<td>FL", `<td><a href="/console/lots/`+strconv.Itoa(first.ID)+`?env=test">FL`, 1)) {
				t.Errorf("the run's page has no %s", want)
			}
		}
		noUnitWords(t, "the run's page", res.body)
		if res := b.post(page, nil); res.status != http.StatusConflict || !strings.Contains(res.body, "Only a run in progress, not signed, can complete; this one is COMPLETED.") {
			t.Errorf("completing again: %d %s", res.status, res.body)
		}

		// A second run takes from the lot named only, without positive
		// release.
		id2 := runID(t, b.post("/console/production", planForm(f, "C-2")))
		b.post(fmt.Sprintf("/console/production/%d/start?env=test", id2), nil)
		res = b.post(fmt.Sprintf("/console/production/%d/complete?env=test", id2), url.Values{take: {"300"}, "produced": {"2"}})
		if res.status != http.StatusSeeOther {
			t.Fatalf("complete from a named lot: %d %s", res.status, res.body)
		}
		steps, err := st.Client.ProductionConsumedStep.Query().Where(productionconsumedstep.ProductionID(id2)).All(f.ctx)
		if err != nil || len(steps) != 1 || steps[0].LotID == nil || *steps[0].LotID != later.ID || steps[0].QuantityBase.String() != "300" {
			t.Errorf("consumed %v (%v), want 300 of FL-2611-02 only", steps, err)
		}
		if out := f.lot("C-2"); out.QcStatus != productlot.QcStatusAVAILABLE || out.QuantityBase.String() != "24" {
			t.Errorf("second output %s %s, want AVAILABLE 24", out.QcStatus, out.QuantityBase)
		}
		mv, err := st.Client.StockMovement.Query().Where(stockmovement.DocumentType("production"), stockmovement.DocumentID(id2)).Count(f.ctx)
		if err != nil || mv != 2 {
			t.Errorf("%d movements of the second run (%v), want a consumption and an output", mv, err)
		}
	})
}

// A component the sellable stock cannot cover is shown short before
// anything is written, and the preview names the shortfall.
func TestCompleteShortfall(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		d := newDesk(t, st)
		org := dbtest.NewSeededOrg(t, st)
		f := floor{t, st, org, org.Ctx(policy.Test)}
		b, _ := d.signedIn(org.Org.ID, people.Admin)
		form := planForm(f, "S-1")
		form.Set("step_qty_0", "99999999")
		id := runID(t, b.post("/console/production", form))
		b.post(fmt.Sprintf("/console/production/%d/start?env=test", id), nil)
		page := fmt.Sprintf("/console/production/%d/complete?env=test", id)
		comps, err := manufacturing.Components(f.ctx, st.Client, mustRun(t, st, f.ctx, id), 20, time.Now())
		if err != nil || len(comps) != 2 || !comps[0].Short().IsPositive() || !comps[1].Short().IsZero() {
			t.Fatalf("components %+v (%v)", comps, err)
		}
		short := comps[0].Short().String()
		res := b.get(page)
		if !strings.Contains(res.body, `<span class="badge bad shortfall">Short by `+grouped(comps[0].Short())+` Gram</span>`) || strings.Count(res.body, "Short by") != 1 {
			t.Errorf("the form does not show flour short by %s: %s", short, res.body)
		}
		before := f.written()
		res = b.get(page + "&preview=1")
		if res.status != http.StatusConflict || !strings.Contains(res.body, "Not enough sellable stock of RM-FLOUR: "+short+" short of 99999999.") {
			t.Errorf("preview: %d %s", res.status, res.body)
		}
		if after := f.written(); after != before {
			t.Errorf("the preview wrote:\n%s\nwas\n%s", after, before)
		}
	})
}

func mustRun(t *testing.T, st *store.Store, ctx context.Context, id int) *ent.Production {
	t.Helper()
	run, err := manufacturing.RunOf(ctx, st.Client, id)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// The board filters by production line and pages each column: the older
// runs are a link away, none twice, none lost.
func TestProductionBoardPages(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		d := newDesk(t, st)
		org := dbtest.NewSeededOrg(t, st)
		ctx := org.Ctx(policy.Test)
		line, err := st.Client.ProductionLine.Query().Where(productionline.Name("Cookie line")).OnlyID(ctx)
		if err != nil {
			t.Fatal(err)
		}
		product, err := st.Client.Product.Query().FirstID(ctx)
		if err != nil {
			t.Fatal(err)
		}
		tx, err := st.Client.Tx(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 53 {
			plan := manufacturing.Plan{ProductID: product}
			if i%2 == 0 {
				plan.LineID = &line
			}
			if _, err := manufacturing.Create(ctx, tx, plan); err != nil {
				t.Fatal(err)
			}
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		planned, err := st.Client.Production.Query().Where(production.StatusEQ(production.StatusPLANNED)).IDs(ctx)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := d.signedIn(org.Org.ID, people.Viewer)
		link := regexp.MustCompile(`<a href="/console/production/(\d+)\?env=test">`)
		seen := map[int]bool{}
		page := "/console/production?env=test"
		for pages := 0; page != ""; pages++ {
			if pages > 3 {
				t.Fatal("more pages than the runs fill")
			}
			res := b.get(page)
			if res.status != http.StatusOK {
				t.Fatalf("%s: %d %s", page, res.status, res.body)
			}
			body := res.body
			if pages == 0 {
				// The board: the planned column is its first section.
				body = body[:strings.Index(body, `aria-label="In progress"`)]
			}
			for _, m := range link.FindAllStringSubmatch(body, -1) {
				id, _ := strconv.Atoi(m[1])
				if seen[id] {
					t.Errorf("run %d listed twice", id)
				}
				seen[id] = true
			}
			page = ""
			if m := regexp.MustCompile(`<a href="([^"]+)" rel="next">Next runs</a>`).FindStringSubmatch(body); m != nil {
				page = strings.ReplaceAll(m[1], "&amp;", "&")
			}
		}
		if len(seen) != len(planned) {
			t.Errorf("the pages list %d planned runs, want %d", len(seen), len(planned))
		}
		res := b.get(fmt.Sprintf("/console/production?env=test&column=planned&line=%d", line))
		ids := link.FindAllStringSubmatch(res.body, -1)
		for _, m := range ids {
			id, _ := strconv.Atoi(m[1])
			r, err := st.Client.Production.Get(ctx, id)
			if err != nil || r.ProductionLineID == nil || *r.ProductionLineID != line {
				t.Errorf("run %d on another line in the line's list", id)
			}
		}
		if len(ids) < 27 {
			t.Errorf("the cookie line lists %d planned runs, want the 27 made on it at least", len(ids))
		}
		// The API's sorts: by run number, lowest first.
		res = b.get("/console/production?env=test&column=planned&sort=production_no")
		var nos []int
		for _, m := range regexp.MustCompile(`">No\. (\d+)</a>`).FindAllStringSubmatch(res.body, -1) {
			n, _ := strconv.Atoi(m[1])
			nos = append(nos, n)
		}
		if len(nos) != 50 || !slices.IsSorted(nos) || nos[0] >= nos[49] {
			t.Errorf("planned runs by number: %v", nos)
		}
		for _, bad := range []string{"line=cookies", "column=someday", "column=planned&cursor=0", "sort=price"} {
			if res := b.get("/console/production?env=test&" + bad); res.status != http.StatusBadRequest {
				t.Errorf("%s: %d, want 400", bad, res.status)
			}
		}
	})
}

// noUnitWords fails when page says "(base unit)" or "(display unit)" where
// a unit's name belongs.
func noUnitWords(t *testing.T, page, body string) {
	t.Helper()
	for _, w := range []string{"(base unit)", "(display unit)", "base units)"} {
		if strings.Contains(body, w) {
			t.Errorf("%s says %q rather than the unit's name", page, w)
		}
	}
}

// grouped is q with a comma between its thousands, as the pages write it.
func grouped(q decimal.Decimal) string {
	whole, frac, ok := strings.Cut(q.String(), ".")
	for i := len(whole) - 3; i > 0; i -= 3 {
		whole = whole[:i] + "," + whole[i:]
	}
	if ok {
		return whole + "." + frac
	}
	return whole
}
