package console

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"larder.dev/larder/console/forms"
	"larder.dev/larder/ent"
	"larder.dev/larder/ent/production"
	"larder.dev/larder/internal/identity/audit"
	"larder.dev/larder/internal/identity/tenancy"
	"larder.dev/larder/internal/modules/manufacturing"
	apiproblem "larder.dev/larder/internal/platform/problem"
	"larder.dev/larder/policy"
)

// floorRoutes plan and complete production runs.
func (s *Server) floorRoutes() []Route {
	return []Route{
		{Method: "GET", Path: "/console/production/new", Roles: Operators, Summary: "read the form that plans a production run; changes nothing", serve: s.planPage},
		{Method: "POST", Path: "/console/production", Roles: Operators, Summary: "plan a production run (PLANNED) as `larder production create` does: product, line, quantity, lot number, expiry and planned steps; recorded in the audit history", serve: s.planRun},
		{Method: "GET", Path: "/console/production/{id}/complete", Roles: Operators, Summary: "read the form that completes a run in progress, with what the run's components can draw on and, asked for, a preview of what completing would consume and make (worked out in a transaction that is rolled back); changes nothing", serve: s.completePage},
		{Method: "POST", Path: "/console/production/{id}/complete", Roles: Operators, Summary: "complete a run in progress as `larder production complete` does: consume the named lots or the first-expiring sellable ones, make the output lot (ON_HOLD under positive release); recorded in the audit history", serve: s.completeRun},
	}
}

// Bounds of the floor's forms.
const (
	// planRows is how many step rows the plan form starts with; planRowsMax
	// how many it can grow to ("More step rows").
	planRows, planRowsMax = forms.PlanRows, forms.PlanRowsMax
	// componentLots is how many sellable lots of a component the completion
	// form lists to take from by name.
	componentLots = 20
	// codeMax bounds a product code as typed; lotNumberMax is the API's.
	codeMax, lotNumberMax = forms.CodeMax, forms.LotNumberMax
)

// planView is the plan form's own data.
type planView struct {
	Env   string
	Lines []choice
	// Rows are the step rows' indexes; More is the count after adding.
	Rows []int
	More int
	Back string
}

func (s *Server) planPage(w http.ResponseWriter, r *http.Request, c *caller) {
	f := newForm(r.URL.Query())
	s.showPlan(w, r, c, http.StatusOK, f)
}

// planEnv is the environment a floor form names: live unless test.
func planEnv(f *form) (string, bool) {
	switch env := f.Get("env"); env {
	case "", string(policy.Live):
		return string(policy.Live), true
	case string(policy.Test):
		return env, true
	}
	return "", false
}

// stepRows is how many step rows f shows (its rows field, within bounds).
func stepRows(f *form) int { return forms.StepRows(f.values) }

func (s *Server) showPlan(w http.ResponseWriter, r *http.Request, c *caller, status int, f *form) {
	env, ok := planEnv(f)
	if !ok {
		s.notFound(w, r)
		return
	}
	ctx, err := s.reading(c, env)
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	v := planView{Env: env, Back: Prefix + "production?" + url.Values{"env": {env}}.Encode()}
	if v.Lines, err = lineChoices(ctx, s.o.Client, "None"); err != nil {
		s.fail(w, r, c, err)
		return
	}
	n := stepRows(f)
	if f.Get("more") != "" {
		n = min(n+planRows, planRowsMax)
	}
	for i := range n {
		v.Rows = append(v.Rows, i)
	}
	v.More = min(n+planRows, planRowsMax)
	productionplanTemplate.render(s, w, r, c, status, "Plan a production run", f, v)
}

// lineChoices are the account's production lines as a select's choices,
// after none (the empty value).
func lineChoices(ctx context.Context, c *ent.Client, none string) ([]choice, error) {
	lines, err := manufacturing.Lines(ctx, c)
	if err != nil {
		return nil, err
	}
	out := []choice{{"", none}}
	for _, l := range lines {
		out = append(out, choice{strconv.Itoa(l.ID), l.Name})
	}
	return out, nil
}

// dayLayout is a date field's layout (input type=date).
const dayLayout = forms.DayLayout

// draftOf reads the plan form into a draft (forms.ParseDraft); rows maps
// the draft's steps to the form's rows.
func draftOf(f *form) (manufacturing.Draft, []int) {
	d, rows, errs := forms.ParseDraft(f.values)
	f.add(errs)
	return d, rows
}

// stepField finds a step's index in a workflow's field name such as
// planned_steps[2].product.
var stepField = regexp.MustCompile(`^planned_steps\[(\d+)\]\.(product|quantity_base)$`)

func (s *Server) planRun(w http.ResponseWriter, r *http.Request, c *caller) {
	f := parseForm(w, r)
	env, ok := planEnv(f)
	if !ok {
		s.notFound(w, r)
		return
	}
	if !f.OK() {
		s.showPlan(w, r, c, http.StatusBadRequest, f)
		return
	}
	d, rows := draftOf(f)
	if !f.OK() {
		s.showPlan(w, r, c, http.StatusBadRequest, f)
		return
	}
	var run *ent.Production
	err := s.act(c, env, func(ctx context.Context, tx *ent.Tx) (audit.Entry, error) {
		var err error
		if run, err = manufacturing.CreateDraft(ctx, tx, d); err != nil {
			return audit.Entry{}, err
		}
		steps := make([]map[string]any, len(d.Steps))
		for i, st := range d.Steps {
			steps[i] = map[string]any{"product_code": st.Product, "quantity_base": st.Quantity.String()}
		}
		return audit.Entry{Action: audit.ProductionPlanned, Detail: map[string]any{"production_id": run.ID, "production_no": run.ProductionNo,
			"status": string(run.Status), "product_code": d.Product, "lot_number": run.LotNumber, "planned_steps": steps}}, nil
	})
	if p, isProblem := apiproblem.As(err); isProblem && p.Status() < 500 {
		for _, x := range p.Fields {
			name := map[string]string{"product": "product", "production_line": "line", "production_line_id": "line",
				"production_qty_display_units": "quantity", "lot_number": "lot_number", "expiration_date": "expires"}[x.Field]
			if m := stepField.FindStringSubmatch(x.Field); m != nil {
				if i, _ := strconv.Atoi(m[1]); i < len(rows) {
					name = map[string]string{"product": "step_product_", "quantity_base": "step_qty_"}[m[2]] + strconv.Itoa(rows[i])
				}
			}
			f.Fail(name, sentence(x.Message))
		}
		if len(p.Fields) == 0 {
			f.Fail("", p.Detail)
		}
		s.showPlan(w, r, c, p.Status(), f)
		return
	}
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	s.redirect(w, r, c, runPath(run.ID, env), fmt.Sprintf("Production run No. %d is planned.", run.ProductionNo))
}

// sentence makes a workflow's message a sentence of the page.
func sentence(msg string) string {
	if msg == "" {
		return msg
	}
	msg = strings.ToUpper(msg[:1]) + msg[1:]
	if !strings.HasSuffix(msg, ".") {
		msg += "."
	}
	return msg
}

// runPath is the page of run id in env.
func runPath(id int, env string) string {
	return Prefix + "production/" + strconv.Itoa(id) + "?" + url.Values{"env": {env}}.Encode()
}

// completeView is the completion form's own data.
type completeView struct {
	Env        string
	Run        *ent.Production
	Components []manufacturing.Component
	// Named reports whether the form names lots to take from.
	Named   bool
	Preview *manufacturing.Outcome
	// Refusal is the workflow's refusal of the completion as entered.
	Refusal string
	Back    string
	// Hidden are the form's values, carried from the preview to the
	// completion.
	Hidden url.Values
}

// completion reads the completion form (forms.ParseCompletion).
func completion(f *form) manufacturing.Completion {
	c, errs := forms.ParseCompletion(f.values)
	f.add(errs)
	return c
}

// completing reads a completion form's run and environment; not ok: 404.
func (s *Server) completing(r *http.Request) (id int, env string, ok bool) {
	id, err := strconv.Atoi(r.PathValue("id"))
	// The environment is in the page's address, or in the form.
	env, envOK := planEnv(newForm(url.Values{"env": {r.FormValue("env")}}))
	return id, env, err == nil && id > 0 && envOK
}

func (s *Server) completePage(w http.ResponseWriter, r *http.Request, c *caller) {
	f := newForm(r.URL.Query())
	id, env, ok := s.completing(r)
	if !ok {
		s.notFound(w, r)
		return
	}
	comp := completion(f)
	switch {
	case !f.OK():
		s.showCompletion(w, r, c, id, env, f, http.StatusBadRequest, nil)
	case f.Get("preview") != "":
		s.showCompletion(w, r, c, id, env, f, http.StatusOK, &comp)
	default:
		s.showCompletion(w, r, c, id, env, f, http.StatusOK, nil)
	}
}

// showCompletion answers with the completion form of run id of env as f
// holds it, with status; with preview, the preview of that completion and
// its status instead.
func (s *Server) showCompletion(w http.ResponseWriter, r *http.Request, c *caller, id int, env string, f *form, status int, preview *manufacturing.Completion) {
	v, err := s.completeViewOf(c, id, env, f)
	if ent.IsNotFound(err) {
		s.notFound(w, r)
		return
	}
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	if preview != nil {
		if status = s.preview(c, env, id, *preview, v); status >= 500 {
			s.fail(w, r, c, fmt.Errorf("preview of run %d: %s", id, v.Refusal))
			return
		}
	}
	productioncompleteTemplate.render(s, w, r, c, status, fmt.Sprintf("Complete production run %d", v.Run.ProductionNo), f, v)
}

// preview works out the completion in a transaction rolled back, as the
// person, into v; it returns the page's status (the refusal's, if any).
func (s *Server) preview(c *caller, env string, id int, comp manufacturing.Completion, v *completeView) int {
	ctx, err := tenancy.Actor(c.Context(), s.o.Client, c.orgID(), policy.Environment(env), c.Me.Person.ID)
	if err == nil {
		v.Preview, err = manufacturing.Preview(ctx, s.o.Client, id, comp, s.o.Now())
	}
	if p, ok := apiproblem.As(err); ok && p.Status() < 500 {
		v.Refusal = p.Detail
		return p.Status()
	}
	if err != nil {
		v.Refusal = err.Error()
		return http.StatusInternalServerError
	}
	return http.StatusOK
}

// completeViewOf reads run id of env with its components for the form f.
func (s *Server) completeViewOf(c *caller, id int, env string, f *form) (*completeView, error) {
	ctx, err := s.reading(c, env)
	if err != nil {
		return nil, err
	}
	run, err := manufacturing.RunOf(ctx, s.o.Client, id)
	if err != nil {
		return nil, err
	}
	v := &completeView{Env: env, Run: run, Back: runPath(id, env), Hidden: url.Values{}}
	if v.Components, err = manufacturing.Components(ctx, s.o.Client, run, componentLots, s.o.Now()); err != nil {
		return nil, err
	}
	for name, xs := range f.values {
		if name == "produced" || name == "release" || strings.HasPrefix(name, "take_") {
			if x := strings.TrimSpace(xs[0]); x != "" {
				v.Hidden.Set(name, x)
				v.Named = v.Named || strings.HasPrefix(name, "take_")
			}
		}
	}
	return v, nil
}

func (s *Server) completeRun(w http.ResponseWriter, r *http.Request, c *caller) {
	f := parseForm(w, r)
	id, env, ok := s.completing(r)
	if !ok {
		s.notFound(w, r)
		return
	}
	comp := completion(f)
	status := http.StatusBadRequest
	var run *ent.Production
	if f.OK() {
		err := s.act(c, env, func(ctx context.Context, tx *ent.Tx) (audit.Entry, error) {
			var err error
			if run, err = manufacturing.Complete(ctx, tx, id, comp, s.o.Now()); err != nil {
				return audit.Entry{}, err
			}
			consumed := make([]map[string]any, len(comp.Consume))
			for i, x := range comp.Consume {
				consumed[i] = map[string]any{"lot_id": x.LotID, "quantity_base": x.QuantityBase.String()}
			}
			return audit.Entry{Action: audit.ProductionCompleted, Detail: map[string]any{"production_id": run.ID, "production_no": run.ProductionNo,
				"status": string(run.Status), "produced_qty_display_units": run.ProducedQtyDisplayUnits.String(),
				"positive_release": comp.PositiveRelease, "named_lots": consumed}}, nil
		})
		if ent.IsNotFound(err) {
			s.notFound(w, r)
			return
		}
		p, isProblem := apiproblem.As(err)
		switch {
		case isProblem && p.Status() < 500:
			f.Fail("", p.Detail)
			status = p.Status()
		case err != nil:
			s.fail(w, r, c, err)
			return
		default:
			msg := fmt.Sprintf("Production run No. %d is complete.", run.ProductionNo)
			if comp.PositiveRelease {
				msg += " Its output lot is ON_HOLD until quality releases it."
			}
			s.redirect(w, r, c, runPath(id, env), msg)
			return
		}
	}
	s.showCompletion(w, r, c, id, env, f, status, nil)
}

// canComplete reports whether a run's page offers completing it.
func canComplete(run *ent.Production) bool {
	return !run.Signed && (run.Status == production.StatusIN_PROGRESS || run.Status == production.StatusIN_PROGRESS_TRANSFORMATION)
}
