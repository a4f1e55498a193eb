// Planning a production run: the plan form, its page and its handler.

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
	"larder.dev/larder/internal/identity/audit"
	"larder.dev/larder/internal/modules/manufacturing"
	apiproblem "larder.dev/larder/internal/platform/problem"
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
