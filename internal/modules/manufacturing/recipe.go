package manufacturing

import (
	"context"
	"fmt"

	"github.com/shopspring/decimal"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/production"
	"larder.dev/larder/ent/productionplannedstep"
)

// RecipeLine is a component of a product's recipe: Base of it (in its base
// unit) for Of display units of the product.
type RecipeLine struct {
	Product *ent.Product
	Base    decimal.Decimal
	Of      decimal.Decimal
}

// For is the line's quantity (the component's base unit) for q display
// units of the product, to the thousandth.
func (l RecipeLine) For(q decimal.Decimal) decimal.Decimal {
	return l.Base.Mul(q).Div(l.Of).Round(3)
}

// Recipe is a product's bill of materials as the floor last planned it: the
// components of its latest run that was planned with a quantity and
// components (From), not cancelled. The data holds no bill of materials of
// its own, so the last plan stands for it; nil when no run qualifies.
type Recipe struct {
	From  *ent.Production
	Lines []RecipeLine
}

// RecipeOf is product id's recipe in the viewer's account in ctx, its
// components in the order planned, each with its base and display units.
func RecipeOf(ctx context.Context, c *ent.Client, productID int) (*Recipe, error) {
	run, err := c.Production.Query().
		Where(production.ProductID(productID), production.ProductionQtyDisplayUnitsNotNil(),
			production.StatusNEQ(production.StatusCANCELLED), production.HasPlannedSteps()).
		Order(ent.Desc(production.FieldID)).
		WithPlannedSteps(func(q *ent.ProductionPlannedStepQuery) {
			q.Order(productionplannedstep.ByID()).WithProduct(func(p *ent.ProductQuery) { p.WithUomBase().WithUnitOfMeasure() })
		}).
		First(ctx)
	if ent.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("recipe of product %d: %w", productID, err)
	}
	of := *run.ProductionQtyDisplayUnits
	if !of.IsPositive() {
		return nil, nil
	}
	r := &Recipe{From: run}
	at := map[int]int{}
	for _, s := range run.Edges.PlannedSteps {
		if s.QuantityBase == nil || s.Edges.Product == nil {
			continue
		}
		if i, ok := at[s.ProductID]; ok {
			r.Lines[i].Base = r.Lines[i].Base.Add(*s.QuantityBase)
			continue
		}
		at[s.ProductID] = len(r.Lines)
		r.Lines = append(r.Lines, RecipeLine{Product: s.Edges.Product, Base: *s.QuantityBase, Of: of})
	}
	return r, nil
}
