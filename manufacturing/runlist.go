package manufacturing

import (
	"context"
	"fmt"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/product"
	"larder.dev/larder/ent/production"
	"larder.dev/larder/ent/productlot"
)

// RunFilter narrows a list of production runs.
type RunFilter struct {
	// Statuses are the runs' statuses; empty means every status.
	Statuses []production.Status
	// Lot is part of the run's lot number, in any case.
	Lot string
	// Product is part of the product's code or name, in any case.
	Product string
	// Line is the run's production line id; 0 means any line.
	Line int
	// Before lists the runs older than this run id (the next page).
	Before int
	// Limit is the number of runs; 0 means all.
	Limit int
}

// ListRuns lists the runs of the viewer's account in ctx that match f,
// newest first, each with its product and production line.
func ListRuns(ctx context.Context, c *ent.Client, f RunFilter) ([]*ent.Production, error) {
	if f.Before < 0 || f.Limit < 0 {
		return nil, fmt.Errorf("production runs: before and limit must not be negative")
	}
	q := c.Production.Query().WithProduct().WithProductionLine()
	if len(f.Statuses) > 0 {
		q.Where(production.StatusIn(f.Statuses...))
	}
	if f.Lot != "" {
		q.Where(production.LotNumberContainsFold(f.Lot))
	}
	if f.Product != "" {
		q.Where(production.HasProductWith(product.Or(product.ProductCodeContainsFold(f.Product), product.NameContainsFold(f.Product))))
	}
	if f.Line > 0 {
		q.Where(production.ProductionLineID(f.Line))
	}
	if f.Before > 0 {
		q.Where(production.IDLT(f.Before))
	}
	if f.Limit > 0 {
		q.Limit(f.Limit)
	}
	return q.Order(ent.Desc(production.FieldID)).All(ctx)
}

// RunOf reads run id of the viewer's account in ctx with its product, line,
// planned and consumed steps (with their products and lots); a run of
// another account is not found (ent's not-found error).
func RunOf(ctx context.Context, c *ent.Client, id int) (*ent.Production, error) {
	return c.Production.Query().Where(production.ID(id)).
		WithProduct().WithProductionLine().
		WithPlannedSteps(func(q *ent.ProductionPlannedStepQuery) { q.WithProduct() }).
		WithConsumedSteps(func(q *ent.ProductionConsumedStepQuery) { q.WithProduct().WithLot() }).
		Only(ctx)
}

// OutputLots are the ids of the lots of the viewer's account in ctx numbered
// number, of product productID: a run's output lot.
func OutputLots(ctx context.Context, c *ent.Client, number string, productID int) ([]int, error) {
	return c.ProductLot.Query().Where(productlot.LotNumber(number), productlot.ProductID(productID)).IDs(ctx)
}
