package catalog

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/shopspring/decimal"

	"larder.dev/larder/ent/product"
	"larder.dev/larder/hooks"
)

// validate checks every record against the format's rules and the account's
// reference data, and returns every problem found.
func (x *refs) validate(lines []Line) []LineError {
	var errs []LineError
	seen := map[string]int{}
	inFile := map[string]bool{}
	for _, l := range lines {
		inFile[l.R.ProductCode] = true
	}
	for _, l := range lines {
		r := l.R
		bad := func(field, format string, args ...any) {
			errs = append(errs, LineError{Line: l.N, Field: field, Msg: fmt.Sprintf(format, args...)})
		}
		switch {
		case strings.TrimSpace(r.ProductCode) == "":
			bad("product_code", "is required")
		case r.ProductCode != strings.TrimSpace(r.ProductCode):
			bad("product_code", "must not start or end with spaces")
		case len([]rune(r.ProductCode)) > maxCode:
			bad("product_code", "must be at most %d characters", maxCode)
		case seen[r.ProductCode] > 0:
			bad("product_code", "%q is also on line %d", r.ProductCode, seen[r.ProductCode])
		default:
			seen[r.ProductCode] = l.N
		}
		maxLen := func(field string, v *string, n int) {
			if v != nil && len([]rune(*v)) > n {
				bad(field, "must be at most %d characters", n)
			}
		}
		maxLen("name", r.Name, maxName)
		maxLen("description", r.Description, maxDescription)
		maxLen("ingredients_en", r.IngredientsEn, maxIngredients)
		maxLen("ingredients_fr", r.IngredientsFr, maxIngredients)
		if product.ProductTypeValidator(product.ProductType(r.ProductType)) != nil {
			bad("product_type", "must be one of RAW_MATERIAL, PACKAGING, MISCELLANEOUS, RECIPE, SUB_RECIPE, FINISHED_GOOD")
		} else {
			material := hooks.KindOf(product.ProductType(r.ProductType)) == product.KindMaterial
			wrong := func(field string, set bool) {
				if set {
					if material {
						bad(field, "is a recipe field; %s is a material type", r.ProductType)
					} else {
						bad(field, "is a material field; %s is a recipe type", r.ProductType)
					}
				}
			}
			if material {
				wrong("ingredients_en", r.IngredientsEn != nil)
				wrong("ingredients_fr", r.IngredientsFr != nil)
				wrong("portion_in_grams", r.PortionInGrams != nil)
				wrong("recipe_grams_yield", r.RecipeGramsYield != nil)
				wrong("qc_checkpoints", len(r.QCCheckpoints) > 0)
				wrong("byproducts", len(r.Byproducts) > 0)
				wrong("routing", len(r.Routing) > 0)
			} else {
				wrong("food", r.Food != nil)
				wrong("banned_countries", len(r.BannedCountries) > 0)
				wrong("substitutes", len(r.Substitutes) > 0)
				wrong("suppliers", len(r.Suppliers) > 0)
			}
		}
		if r.ShelfLife != nil && *r.ShelfLife < 0 {
			bad("shelf_life", "must be 0 or more days")
		}
		money := func(field string, n *json.Number) {
			if n == nil {
				return
			}
			d, err := decimal.NewFromString(n.String())
			switch {
			case err != nil:
				bad(field, "%q is not a number", n.String())
			case d.IsNegative():
				bad(field, "must be 0 or more")
			case d.Exponent() < -6 && !d.Equal(d.Round(6)):
				bad(field, "has more than 6 decimals")
			case d.Abs().GreaterThanOrEqual(decimal.New(1, 14)):
				bad(field, "is too large")
			}
		}
		money("cost", r.Cost)
		money("operations_cost", r.OperationsCost)
		positive := func(field string, v *float64) {
			if v != nil && *v <= 0 {
				bad(field, "must be greater than 0")
			}
		}
		positive("uom_qty", r.UomQty)
		positive("uom_base_conversion", r.UomBaseConversion)
		positive("portion_in_grams", r.PortionInGrams)
		positive("recipe_grams_yield", r.RecipeGramsYield)
		ref := func(field string, v *string, m map[string]int, what string) {
			if v != nil {
				if _, ok := m[*v]; !ok {
					bad(field, "no %s %q", what, *v)
				}
			}
		}
		ref("unit_of_measure", r.UnitOfMeasure, x.units, "unit of measure with code")
		ref("uom_base", r.UomBase, x.units, "unit of measure with code")
		ref("food", r.Food, x.foods, "food named")
		if r.Food != nil && x.ambiguousFoods[*r.Food] {
			bad("food", "several foods are named %q", *r.Food)
		}
		refs := func(field string, vs []string, ok func(string) bool, what string) {
			dup := map[string]bool{}
			for i, v := range vs {
				name := fmt.Sprintf("%s[%d]", field, i)
				switch {
				case dup[v]:
					bad(name, "%q is listed twice", v)
				case !ok(v):
					bad(name, "no %s %q", what, v)
				}
				dup[v] = true
			}
		}
		in := func(m map[string]int) func(string) bool {
			return func(v string) bool { _, ok := m[v]; return ok }
		}
		refs("tags", r.Tags, in(x.tags), "PRODUCT tag named")
		refs("banned_countries", r.BannedCountries, func(v string) bool { _, ok := x.countries[strings.ToUpper(v)]; return ok }, "country with ISO code")
		refs("suppliers", r.Suppliers, in(x.suppliers), "supplier with supplier_code")
		refs("qc_checkpoints", r.QCCheckpoints, in(x.qcs), "QC checkpoint with code")
		product := func(v string) bool { _, ok := x.products[v]; return ok || inFile[v] }
		refs("substitutes", r.Substitutes, product, "product (in the file or the account) with product_code")
		refs("byproducts", r.Byproducts, product, "product (in the file or the account) with product_code")
		for i, v := range r.Substitutes {
			if v == r.ProductCode {
				bad(fmt.Sprintf("substitutes[%d]", i), "a product cannot substitute itself")
			}
		}
		for i, v := range r.Byproducts {
			if v == r.ProductCode {
				bad(fmt.Sprintf("byproducts[%d]", i), "a product cannot be its own byproduct")
			}
		}
		if len(r.Routing) > maxRouting {
			bad("routing", "must have at most %d steps", maxRouting)
		}
		for i, step := range r.Routing {
			op, eq, onEquipment := strings.Cut(step, "@")
			if _, ok := x.operations[op]; !ok {
				bad(fmt.Sprintf("routing[%d]", i), "no operation with code %q", op)
			}
			if _, ok := x.equipment[eq]; onEquipment && !ok {
				bad(fmt.Sprintf("routing[%d]", i), "no equipment with code %q", eq)
			}
		}
		names := make([]string, len(r.Allergens))
		for i, a := range r.Allergens {
			names[i] = a.Allergen
			if a.Source != "" && len(a.Source) > 100 {
				bad(fmt.Sprintf("allergens[%d].source", i), "must be at most 100 characters")
			}
		}
		refs("allergens", names, in(x.allergens), "allergen with code or name")
	}
	return errs
}
