package manufacturing

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"entgo.io/ent/dialect/sql"

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
	// Sort is one of RunSorts ("" is the first: newest first).
	Sort string
	// Offset skips that many runs (a later page); Limit is the number of
	// runs, 0 for all.
	Offset, Limit int
}

// RunSorts are the orders a list of runs can take: the API's sort fields
// (production_no, start_date, end_date, status, id), each way; ties go by
// id, newest first. Runs without the date sorted on come last.
var RunSorts = []string{"-id", "id", "-production_no", "production_no", "-start_date", "start_date", "-end_date", "end_date", "status"}

// ListRuns lists the runs of the viewer's account in ctx that match f,
// newest first, each with its product and production line.
func ListRuns(ctx context.Context, c *ent.Client, f RunFilter) ([]*ent.Production, error) {
	if f.Offset < 0 || f.Limit < 0 {
		return nil, fmt.Errorf("production runs: offset and limit must not be negative")
	}
	sort := f.Sort
	if sort == "" {
		sort = RunSorts[0]
	}
	if !slices.Contains(RunSorts, sort) {
		return nil, fmt.Errorf("production runs: no sort %q", f.Sort)
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
	if f.Offset > 0 {
		q.Offset(f.Offset)
	}
	if f.Limit > 0 {
		q.Limit(f.Limit)
	}
	field, desc := strings.CutPrefix(sort, "-")
	opts := []sql.OrderTermOption{sql.OrderNullsLast()}
	if desc {
		opts = append(opts, sql.OrderDesc())
	}
	if field == production.FieldID {
		q.Order(production.ByID(opts[1:]...))
	} else {
		q.Order(sql.OrderByField(field, opts...).ToFunc(), ent.Desc(production.FieldID))
	}
	return q.All(ctx)
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
