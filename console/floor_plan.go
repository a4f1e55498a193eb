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

	"github.com/shopspring/decimal"

	"larder.dev/larder/console/forms"
	"larder.dev/larder/ent"
	"larder.dev/larder/internal/identity/audit"
	"larder.dev/larder/internal/modules/catalog"
	"larder.dev/larder/internal/modules/manufacturing"
	apiproblem "larder.dev/larder/internal/platform/problem"
)

// planView is the plan form's own data.
type planView struct {
	Env   string
	Lines []choice
	// Rows are the step rows; More is the count after adding.
	Rows []stepRow
	More int
	Back string
	// Products are the account's products, offered by code and name as
	// the product and component fields are typed.
	Products []choice
	// Product is the product chosen (nil until its code is one of them),
	// and Recipe its recipe for the planned quantity.
	Product *productRow
	Recipe  *recipeView
	// QuantityLabel names the planned quantity's unit once known.
	QuantityLabel string
}

// stepRow is a component row: its index and, once its product is chosen,
// the unit its quantity is in.
type stepRow struct {
	Index int
	Unit  string
}

// planProducts is the most products the plan form offers.
const planProducts = 2000

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
	v := planView{Env: env, Back: Prefix + "production?" + url.Values{"env": {env}}.Encode(), QuantityLabel: "Planned quantity"}
	if v.Lines, err = lineChoices(ctx, s.o.Client, "None"); err != nil {
		s.fail(w, r, c, err)
		return
	}
	products, err := catalog.ListProducts(ctx, s.o.Client, catalog.ProductFilter{Limit: planProducts})
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	byCode := map[string]*ent.Product{}
	for _, p := range products {
		if p.ProductCode == nil {
			continue
		}
		byCode[*p.ProductCode] = p
		v.Products = append(v.Products, choice{*p.ProductCode, orDash(p.Name)})
	}
	n := stepRows(f)
	if f.Get("more") != "" {
		n = min(n+planRows, planRowsMax)
	}
	if p, ok := byCode[f.Get("product")]; ok {
		row := rowOf(p, env)
		v.Product = &row
		if row.Display != "" {
			v.QuantityLabel = "Planned quantity, in " + row.Display
		}
		recipe, err := manufacturing.RecipeOf(ctx, s.o.Client, p.ID)
		if err != nil {
			s.fail(w, r, c, err)
			return
		}
		q, planned := forms.Quantity(f.Get("quantity"))
		if !planned {
			q = decimal.NewFromInt(1)
		}
		if recipe != nil && len(recipe.Lines) > 0 {
			v.Recipe = recipeFor(recipe, q, row.Display, env)
			// Asked for, or a first look at a planned quantity with no
			// component written yet: the recipe fills the rows.
			if r.Method == http.MethodGet && planned && (f.Get("recipe") != "" || noSteps(f, n)) {
				n = fillSteps(f, n, recipe, q)
			}
		}
	}
	for i := range n {
		row := stepRow{Index: i}
		if p, ok := byCode[f.Get(fmt.Sprintf("step_product_%d", i))]; ok {
			row.Unit = unitName(p.Edges.UomBase)
		}
		v.Rows = append(v.Rows, row)
	}
	v.More = min(n+planRows, planRowsMax)
	productionplanTemplate.render(s, w, r, c, status, "Plan a production run", f, v)
}

// noSteps reports whether f's first n step rows are all empty.
func noSteps(f *form, n int) bool {
	for i := range n {
		if f.Get(fmt.Sprintf("step_product_%d", i)) != "" || f.Get(fmt.Sprintf("step_qty_%d", i)) != "" {
			return false
		}
	}
	return true
}

// fillSteps writes recipe's components for q into f's step rows, in place
// of theirs, and returns the rows the form then has (at least n).
func fillSteps(f *form, n int, recipe *manufacturing.Recipe, q decimal.Decimal) int {
	n = min(max(n, len(recipe.Lines)), planRowsMax)
	for i := range n {
		code, qty := fmt.Sprintf("step_product_%d", i), fmt.Sprintf("step_qty_%d", i)
		f.values.Del(code)
		f.values.Del(qty)
		if i < len(recipe.Lines) && recipe.Lines[i].Product.ProductCode != nil {
			f.values.Set(code, *recipe.Lines[i].Product.ProductCode)
			f.values.Set(qty, grouped(recipe.Lines[i].For(q)))
		}
	}
	f.values.Set("rows", strconv.Itoa(n))
	return n
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
