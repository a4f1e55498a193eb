package console_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/product"
	"larder.dev/larder/ent/productionplannedstep"
	"larder.dev/larder/internal/identity/people"
	"larder.dev/larder/internal/modules/manufacturing"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

// productByCode is code's product in ctx's account, with its units.
func productByCode(t *testing.T, st *store.Store, ctx context.Context, code string) *ent.Product {
	t.Helper()
	p, err := st.Client.Product.Query().Where(product.ProductCode(code)).WithUomBase().WithUnitOfMeasure().Only(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// The products page lists an account's products by code, finds them by
// part of the code or the name, pages by 50, and links each to its page,
// which shows its units and its recipe: the components of its latest run
// planned with components, for one display unit, with unit names.
func TestProductsPages(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		d := newDesk(t, st)
		org := dbtest.NewSeededOrg(t, st)
		ctx := org.Ctx(policy.Test)
		b, _ := d.signedIn(org.Org.ID, people.Viewer)

		all := b.get("/console/products?env=test")
		if all.status != http.StatusOK || !strings.Contains(all.body, ">FG-COOKIE12</a>") || !strings.Contains(all.body, ">RM-FLOUR</a>") {
			t.Fatalf("the list: %d\n%s", all.status, all.body)
		}
		if strings.Index(all.body, ">FG-COOKIE12</a>") > strings.Index(all.body, ">RM-FLOUR</a>") {
			t.Error("the list is not by code")
		}
		flour := productByCode(t, st, ctx, "RM-FLOUR")
		found := b.get("/console/products?env=test&search=" + url.QueryEscape(strings.ToLower(*flour.Name)))
		if !strings.Contains(found.body, ">RM-FLOUR</a>") || strings.Contains(found.body, ">FG-COOKIE12</a>") {
			t.Errorf("searching by name %q does not find RM-FLOUR alone:\n%s", *flour.Name, found.body)
		}
		if byCode := b.get("/console/products?env=test&search=cookie12"); !strings.Contains(byCode.body, ">FG-COOKIE12</a>") || strings.Contains(byCode.body, ">RM-FLOUR</a>") {
			t.Error("searching by part of the code does not find FG-COOKIE12 alone")
		}

		// Paging: 50 a page, the next page from the 51st.
		tx, err := st.Client.Tx(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 60 {
			if _, err := tx.Product.Create().SetName(fmt.Sprintf("Paged %02d", i)).SetProductCode(fmt.Sprintf("ZZ-PAGED-%02d", i)).
				SetKind(product.KindMaterial).SetProductType(product.ProductTypeRAW_MATERIAL).Save(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		first := b.get("/console/products?env=test&search=ZZ-PAGED")
		second := b.get("/console/products?env=test&search=ZZ-PAGED&offset=50")
		if strings.Count(first.body, `<tr class="product">`) != 50 || !strings.Contains(first.body, "offset=50") || !strings.Contains(first.body, ">ZZ-PAGED-49</a>") {
			t.Errorf("the first page: %d rows", strings.Count(first.body, `<tr class="product">`))
		}
		if strings.Count(second.body, `<tr class="product">`) != 10 || !strings.Contains(second.body, ">ZZ-PAGED-50</a>") || strings.Contains(second.body, ">ZZ-PAGED-49</a>") {
			t.Errorf("the second page: %d rows", strings.Count(second.body, `<tr class="product">`))
		}
		if bad := b.get("/console/products?env=test&offset=-4"); bad.status != http.StatusBadRequest {
			t.Errorf("a damaged offset: %d", bad.status)
		}

		// A run of 10 planned with 1,000 of flour and 500 of sugar is the
		// recipe: 100 and 50 per unit.
		cookie := productByCode(t, st, ctx, "FG-COOKIE12")
		sugar := productByCode(t, st, ctx, "RM-SUGAR")
		plan(t, st, ctx, cookie.ID, 10, map[int]int64{flour.ID: 1000, sugar.ID: 500})
		page := b.get("/console/products/" + strconv.Itoa(cookie.ID) + "?env=test")
		for _, want := range []string{
			`<td class="num">100</td>`, `<td class="num">50</td>`,
			"<td>" + flour.Edges.UomBase.Name + "</td>",
			"Quantity for 1 " + cookie.Edges.UnitOfMeasure.Name,
		} {
			if !strings.Contains(page.body, want) {
				t.Errorf("the product's page lacks %q:\n%s", want, page.body)
			}
		}
		if strings.Contains(page.body, "(base unit)") || strings.Contains(page.body, "(display unit)") {
			t.Error("the product's page names no unit")
		}
	})
}

// plan plans a run of q of productID in ctx's account with steps (product
// id: base quantity).
func plan(t *testing.T, st *store.Store, ctx context.Context, productID int, q int64, steps map[int]int64) *ent.Production {
	t.Helper()
	tx, err := st.Client.Tx(ctx)
	if err != nil {
		t.Fatal(err)
	}
	p := manufacturing.Plan{ProductID: productID, Quantity: ptr(decimal.NewFromInt(q))}
	for id, x := range steps {
		p.Steps = append(p.Steps, manufacturing.Step{ProductID: id, QuantityBase: decimal.NewFromInt(x)})
	}
	run, err := manufacturing.Create(ctx, tx, p)
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	return run
}

func ptr[T any](v T) *T { return &v }

// Another organization's products are out of reach: its product's page is
// 404 and its products are not listed, both ways.
func TestProductsOfAnotherOrganization(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		d := newDesk(t, st)
		a, b := dbtest.NewSeededOrg(t, st), dbtest.NewSeededOrg(t, st)
		for _, dir := range []struct {
			name          string
			caller, owner *dbtest.Org
		}{{"A on B", a, b}, {"B on A", b, a}} {
			ctx := dir.owner.Ctx(policy.Test)
			tx, err := st.Client.Tx(ctx)
			if err != nil {
				t.Fatal(err)
			}
			code := "ONLY-" + strings.ReplaceAll(dir.name, " ", "")
			theirs, err := tx.Product.Create().SetName("Theirs").SetProductCode(code).SetKind(product.KindMaterial).SetProductType(product.ProductTypeRAW_MATERIAL).Save(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
			br, _ := d.signedIn(dir.caller.Org.ID, people.Admin)
			owner, _ := d.signedIn(dir.owner.Org.ID, people.Viewer)
			path := "/console/products/" + strconv.Itoa(theirs.ID)
			for _, env := range []string{"test", "live"} {
				if res := br.get(path + "?env=" + env); res.status != http.StatusNotFound {
					t.Errorf("%s: %s %s: %d, want 404", dir.name, env, path, res.status)
				}
			}
			if res := br.get("/console/products?env=test&search=" + code); res.status != http.StatusOK || strings.Contains(res.body, ">"+code+"</a>") {
				t.Errorf("%s: the list shows the other organization's %s", dir.name, code)
			}
			if res := owner.get(path + "?env=test"); res.status != http.StatusOK || !strings.Contains(res.body, code) {
				t.Errorf("%s: the owner reads its product: %d", dir.name, res.status)
			}
		}
	})
}

// Planning from the picker: the product chosen by its code offers its
// recipe scaled to the planned quantity, with thousands separated and
// units named, and fills the component rows with it; the run planned from
// those rows has the scaled quantities.
func TestPlanOffersTheRecipeScaled(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		d := newDesk(t, st)
		org := dbtest.NewSeededOrg(t, st)
		ctx := org.Ctx(policy.Test)
		b, _ := d.signedIn(org.Org.ID, people.Operator)
		cookie, flour, sugar := productByCode(t, st, ctx, "FG-COOKIE12"), productByCode(t, st, ctx, "RM-FLOUR"), productByCode(t, st, ctx, "RM-SUGAR")
		plan(t, st, ctx, cookie.ID, 10, map[int]int64{flour.ID: 1000, sugar.ID: 500})

		empty := b.get("/console/production/new?env=test")
		if !strings.Contains(empty.body, `<datalist id="plan-products">`) || !strings.Contains(empty.body, `<option value="FG-COOKIE12">`) || !strings.Contains(empty.body, `list="plan-products"`) {
			t.Fatalf("the plan form offers no product to pick:\n%s", empty.body)
		}
		res := b.get("/console/production/new?env=test&product=FG-COOKIE12&quantity=1%2C200")
		body := res.body
		rows := map[string]string{}
		for i := range 5 {
			rows[valueOf(body, fmt.Sprintf("step_product_%d", i))] = valueOf(body, fmt.Sprintf("step_qty_%d", i))
		}
		if rows["RM-FLOUR"] != "120,000" || rows["RM-SUGAR"] != "60,000" {
			t.Errorf("the rows hold %v, want 120,000 of flour and 60,000 of sugar", rows)
		}
		for _, want := range []string{"Recipe for 1,200 " + cookie.Edges.UnitOfMeasure.Name, `<td class="num">120,000</td>`, "<td>" + flour.Edges.UomBase.Name + "</td>",
			"Planned quantity, in " + cookie.Edges.UnitOfMeasure.Name} {
			if !strings.Contains(body, want) {
				t.Errorf("the plan lacks %q", want)
			}
		}
		if strings.Contains(body, "(base unit)") || strings.Contains(body, "(display unit)") {
			t.Error("the plan names no unit")
		}
		// A person's own rows stay unless they ask for the recipe.
		own := b.get("/console/production/new?env=test&product=FG-COOKIE12&quantity=5&step_product_0=RM-SUGAR&step_qty_0=7")
		if valueOf(own.body, "step_product_0") != "RM-SUGAR" || valueOf(own.body, "step_qty_0") != "7" {
			t.Error("the recipe replaced rows written by hand")
		}

		form := planForm(floor{t, st, org, ctx}, "LOT-SCALED")
		form.Set("quantity", "1,200")
		form.Set("step_qty_0", "120,000")
		id := runID(t, b.post("/console/production", form))
		steps, err := st.Client.ProductionPlannedStep.Query().Where(productionplannedstep.ProductionID(id), productionplannedstep.ProductID(flour.ID)).All(ctx)
		if err != nil || len(steps) != 1 || !steps[0].QuantityBase.Equal(decimal.NewFromInt(120000)) {
			t.Errorf("the run planned %v (%v), want 120000 of flour", steps, err)
		}
		run, err := st.Client.Production.Get(ctx, id)
		if err != nil || !run.ProductionQtyDisplayUnits.Equal(decimal.NewFromInt(1200)) {
			t.Errorf("the run's planned quantity: %v (%v), want 1200", run, err)
		}
	})
}

// valueOf is the value of input name in a page, "" when absent.
func valueOf(body, name string) string {
	i := strings.Index(body, `name="`+name+`"`)
	if i < 0 {
		return ""
	}
	rest := body[i:]
	end := strings.Index(rest, ">")
	tag := rest[:end]
	j := strings.Index(tag, `value="`)
	if j < 0 {
		return ""
	}
	v := tag[j+len(`value="`):]
	return v[:strings.Index(v, `"`)]
}
