// The products pages: the account's products found by code or name, and a
// product's page with its units, routing and recipe. They only read.

package console

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/shopspring/decimal"

	"larder.dev/larder/ent"
	"larder.dev/larder/internal/modules/catalog"
	"larder.dev/larder/internal/modules/manufacturing"
)

// productRoutes are the products of an environment and a product's page.
func (s *Server) productRoutes() []Route {
	return []Route{
		{Method: "GET", Path: "/console/products", Nav: "Products", Summary: "read the products of one environment (live or test), found by part of the code or name, by code, 50 a page; changes nothing", serve: s.products},
		{Method: "GET", Path: "/console/products/{id}", Summary: "read one of the organization's products: its type, units, shelf life, routing and recipe (its components as last planned, per display unit, in their base units); changes nothing", serve: s.productPage},
	}
}

// productsPage is the products a page shows.
const productsPage = 50

// productsView is the products page's own data.
type productsView struct {
	Env               string
	Rows              []productRow
	Filtered          bool
	First, Prev, Next string
	From, To          int
}

// productRow is a product as a list shows it.
type productRow struct {
	*ent.Product
	Link string
	// Display and Base name its units.
	Display, Base string
}

// productView is a product's page.
type productView struct {
	Env  string
	Back string
	productRow
	Recipe *recipeView
}

// recipeView is a recipe as a page shows it: its lines for Quantity display
// units of the product, and the run it comes from.
type recipeView struct {
	Quantity string
	Unit     string
	RunNo    int
	RunLink  string
	Lines    []recipeRow
}

// recipeRow is a component for the quantity shown.
type recipeRow struct {
	Product  *ent.Product
	Link     string
	Quantity string
	// Unit is the component's base unit.
	Unit string
}

// unitName is a unit's name (its code when unnamed), "" for none.
func unitName(u *ent.UnitOfMeasure) string {
	switch {
	case u == nil:
		return ""
	case u.Name != "":
		return u.Name
	}
	return u.Code
}

// productUnit is the name of a product's display unit (display) or base
// unit (unitName), "" for none or no product.
func productUnit(p *ent.Product, display bool) string {
	switch {
	case p == nil:
		return ""
	case display:
		return unitName(p.Edges.UnitOfMeasure)
	}
	return unitName(p.Edges.UomBase)
}

// productPath is the page of product id in env.
func productPath(id int, env string) string {
	return Prefix + "products/" + strconv.Itoa(id) + "?" + url.Values{"env": {env}}.Encode()
}

// productsLink is the list searching for search from offset.
func productsLink(env, search string, offset int) string {
	u := url.Values{"env": {env}}
	if search != "" {
		u.Set("search", search)
	}
	if offset > 0 {
		u.Set("offset", strconv.Itoa(offset))
	}
	return Prefix + "products?" + u.Encode()
}

// rowOf is a product as a row of env.
func rowOf(p *ent.Product, env string) productRow {
	return productRow{Product: p, Link: productPath(p.ID, env), Display: unitName(p.Edges.UnitOfMeasure), Base: unitName(p.Edges.UomBase)}
}

// productEnv is the environment a products page asks for (?env=), else the
// one the console shows.
func productEnv(f *form, c *caller) (string, bool) {
	if f.Get("env") == "" {
		return pageEnv(c.env)
	}
	return pageEnv(f.Get("env"))
}

func (s *Server) products(w http.ResponseWriter, r *http.Request, c *caller) {
	f := newForm(r.URL.Query())
	env, ok := productEnv(f, c)
	if !ok {
		f.Fail("", "Choose the live or the test environment.")
	}
	search := f.Get("search")
	v := productsView{Env: env, Filtered: search != "", First: productsLink(env, search, 0)}
	if len(search) > 100 {
		f.Fail("search", "Enter at most 100 characters of the code or name.")
	}
	filter := catalog.ProductFilter{Search: search, Limit: productsPage + 1}
	if x := f.Get("offset"); x != "" {
		n, err := strconv.Atoi(x)
		if err != nil || n < 0 || n > 10000 {
			f.Fail("", "This page's link is damaged; start again from the first products.")
		}
		filter.Offset = n
	}
	if !f.OK() {
		productsTemplate.render(s, w, r, c, http.StatusBadRequest, "Products", f, v)
		return
	}
	ctx, err := s.reading(c, env)
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	rows, err := catalog.ListProducts(ctx, s.o.Client, filter)
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	if len(rows) > productsPage {
		rows = rows[:productsPage]
		v.Next = productsLink(env, search, filter.Offset+productsPage)
	}
	if filter.Offset > 0 {
		v.Prev = productsLink(env, search, max(0, filter.Offset-productsPage))
	}
	v.From, v.To = filter.Offset+1, filter.Offset+len(rows)
	for _, p := range rows {
		v.Rows = append(v.Rows, rowOf(p, env))
	}
	productsTemplate.render(s, w, r, c, http.StatusOK, "Products", f, v)
}

func (s *Server) productPage(w http.ResponseWriter, r *http.Request, c *caller) {
	f := newForm(r.URL.Query())
	env, ok := productEnv(f, c)
	id, err := strconv.Atoi(r.PathValue("id"))
	if !ok || err != nil || id <= 0 {
		s.notFound(w, r)
		return
	}
	ctx, err := s.reading(c, env)
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	p, err := catalog.ProductOf(ctx, s.o.Client, id)
	if ent.IsNotFound(err) {
		s.notFound(w, r)
		return
	}
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	recipe, err := manufacturing.RecipeOf(ctx, s.o.Client, p.ID)
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	v := productView{Env: env, Back: productsLink(env, "", 0), productRow: rowOf(p, env)}
	if recipe != nil {
		v.Recipe = recipeFor(recipe, decimal.NewFromInt(1), v.Display, env)
	}
	productTemplate.render(s, w, r, c, http.StatusOK, "Product "+productName(p.ProductCode, p.Name), nil, v)
}

// recipeFor is recipe's lines for q display units (called unit) of its
// product, in env.
func recipeFor(recipe *manufacturing.Recipe, q decimal.Decimal, unit, env string) *recipeView {
	v := &recipeView{Quantity: grouped(q), Unit: unit, RunNo: recipe.From.ProductionNo, RunLink: runPath(recipe.From.ID, env)}
	for _, l := range recipe.Lines {
		v.Lines = append(v.Lines, recipeRow{Product: l.Product, Link: productPath(l.Product.ID, env),
			Quantity: grouped(l.For(q)), Unit: unitName(l.Product.Edges.UomBase)})
	}
	return v
}

// The products pages.
var (
	productsTemplate = newPage[productsView]("products")
	productTemplate  = newPage[productView]("product")
)
