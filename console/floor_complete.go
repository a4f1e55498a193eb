// Completing a production run: the completion form, its preview and its
// handler.

package console

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
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
