package manufacturing

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/shopspring/decimal"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/product"
	"larder.dev/larder/ent/productionconsumedstep"
	"larder.dev/larder/ent/productionline"
	"larder.dev/larder/ent/productlot"
	"larder.dev/larder/internal/modules/inventory"
	"larder.dev/larder/internal/platform/problem"
)

// Draft is a plan as a person writes it on the floor: products by their
// code, the line by its name or id.
type Draft struct {
	Product        string
	Line           string
	Quantity       *decimal.Decimal
	LotNumber      *string
	ExpirationDate *time.Time
	Steps          []DraftStep
}

// DraftStep is a planned component by product code, in its base unit.
type DraftStep struct {
	Product  string
	Quantity decimal.Decimal
}

// CreateDraft resolves a draft's codes in the account and plans the run
// (Create). A code or line not found is refused naming its field: product,
// production_line, planned_steps[i].product.
func CreateDraft(ctx context.Context, tx *ent.Tx, d Draft) (*ent.Production, error) {
	codes := []string{d.Product}
	for _, s := range d.Steps {
		codes = append(codes, s.Product)
	}
	found, err := tx.Product.Query().Where(product.ProductCodeIn(codes...)).All(ctx)
	if err != nil {
		return nil, err
	}
	ids := map[string]int{}
	for _, p := range found {
		ids[*p.ProductCode] = p.ID
	}
	var missing []problem.FieldError
	plan := Plan{Quantity: d.Quantity, LotNumber: d.LotNumber, ExpirationDate: d.ExpirationDate}
	if plan.ProductID = ids[d.Product]; plan.ProductID == 0 {
		missing = append(missing, problem.FieldError{Field: "product", Message: d.Product + ": no such product in this account"})
	}
	for i, s := range d.Steps {
		if ids[s.Product] == 0 {
			missing = append(missing, problem.FieldError{Field: fmt.Sprintf("planned_steps[%d].product", i), Message: s.Product + ": no such product in this account"})
		}
		plan.Steps = append(plan.Steps, Step{ProductID: ids[s.Product], QuantityBase: s.Quantity})
	}
	if d.Line != "" {
		q := tx.ProductionLine.Query().Where(productionline.Name(d.Line))
		if id, err := strconv.Atoi(d.Line); err == nil {
			q = tx.ProductionLine.Query().Where(productionline.Or(productionline.Name(d.Line), productionline.ID(id)))
		}
		lines, err := q.IDs(ctx)
		if err != nil {
			return nil, err
		}
		if len(lines) == 1 {
			plan.LineID = &lines[0]
		} else {
			missing = append(missing, problem.FieldError{Field: "production_line", Message: d.Line + ": no such production line in this account"})
		}
	}
	if len(missing) > 0 {
		return nil, problem.InvalidFields(missing...)
	}
	return Create(ctx, tx, plan)
}

// Lines are the account's production lines, by name.
func Lines(ctx context.Context, c *ent.Client) ([]*ent.ProductionLine, error) {
	return c.ProductionLine.Query().Order(productionline.ByName(), productionline.ByID()).All(ctx)
}

// Component is what a run's planned steps ask of one product, beside the
// sellable stock of it that a completion could draw on now.
type Component struct {
	Product *ent.Product
	// Needed is what the planned steps of the product add up to (base unit).
	Needed decimal.Decimal
	// Sellable is what the product's sellable lots hold now (base unit).
	Sellable decimal.Decimal
	// Lots are the first sellable lots in picking order (first to expire
	// first), at most the limit asked; More counts the others.
	Lots []*ent.ProductLot
	More int
}

// Short is what the sellable lots lack of what is needed (zero when none).
func (c Component) Short() decimal.Decimal {
	if c.Sellable.GreaterThanOrEqual(c.Needed) {
		return decimal.Zero
	}
	return c.Needed.Sub(c.Sellable)
}

// Components are the run's planned components (run read by RunOf), one per
// product in the order first planned, each with the product's sellable
// lots at now in picking order (inventory.Unsellable, FirstExpiring).
func Components(ctx context.Context, c *ent.Client, run *ent.Production, limit int, now time.Time) ([]Component, error) {
	var out []Component
	at := map[int]int{}
	for _, s := range run.Edges.PlannedSteps {
		q := decimal.Zero
		if s.QuantityBase != nil {
			q = *s.QuantityBase
		}
		if i, ok := at[s.ProductID]; ok {
			out[i].Needed = out[i].Needed.Add(q)
			continue
		}
		at[s.ProductID] = len(out)
		out = append(out, Component{Product: s.Edges.Product, Needed: q})
	}
	if len(out) == 0 {
		return nil, nil
	}
	lots, err := c.ProductLot.Query().
		Where(productlot.ProductIDIn(slices.Collect(maps.Keys(at))...), productlot.QuantityBaseGT(decimal.Zero), productlot.Archived(false),
			productlot.QcStatusIn(productlot.QcStatusAVAILABLE, productlot.QcStatusRELEASED)).
		WithLocation().
		All(ctx)
	if err != nil {
		return nil, fmt.Errorf("components of run %d: %w", run.ID, err)
	}
	slices.SortFunc(lots, inventory.FirstExpiring)
	for _, l := range lots {
		if inventory.Unsellable(l, now) != "" {
			continue
		}
		x := &out[at[l.ProductID]]
		x.Sellable = x.Sellable.Add(l.QuantityBase)
		if len(x.Lots) < limit {
			x.Lots = append(x.Lots, l)
		} else {
			x.More++
		}
	}
	return out, nil
}

// Outcome is what completing a run does: what it consumes, and its output
// lot as it would stand.
type Outcome struct {
	Run      *ent.Production
	Consumed []*ent.ProductionConsumedStep
	// Output is the output lot after the completion; Before is what it
	// held before (zero for a new lot).
	Output *ent.ProductLot
	Before decimal.Decimal
	New    bool
}

// Preview completes run id as Complete would, in a transaction it rolls
// back, and tells what the completion consumes and makes: the floor sees
// it before anything is written. A refusal is Complete's own. ctx carries
// a viewer that may complete runs.
func Preview(ctx context.Context, c *ent.Client, id int, comp Completion, now time.Time) (*Outcome, error) {
	tx, err := c.Tx(ctx)
	if err != nil {
		return nil, err
	}
	defer func() { _ = tx.Rollback() }()
	earlier, err := tx.ProductionConsumedStep.Query().Where(productionconsumedstep.ProductionID(id)).IDs(ctx)
	if err != nil {
		return nil, err
	}
	o := &Outcome{New: true}
	if run, err := tx.Production.Get(ctx, id); err != nil {
		return nil, err
	} else if run.LotNumber != nil {
		if out, err := outputLot(ctx, tx, run); err != nil {
			return nil, err
		} else if out != 0 {
			lot, err := tx.ProductLot.Get(ctx, out)
			if err != nil {
				return nil, err
			}
			o.Before, o.New = lot.QuantityBase, false
		}
	}
	if o.Run, err = Complete(ctx, tx, id, comp, now); err != nil {
		return nil, err
	}
	o.Consumed, err = tx.ProductionConsumedStep.Query().
		Where(productionconsumedstep.ProductionID(id), productionconsumedstep.IDNotIn(earlier...)).
		WithProduct(withUnits).WithLot().
		Order(productionconsumedstep.ByID()).
		All(ctx)
	if err != nil {
		return nil, err
	}
	out, err := outputLot(ctx, tx, o.Run)
	if err != nil {
		return nil, err
	}
	if o.Output, err = tx.ProductLot.Query().Where(productlot.ID(out)).WithLocation().Only(ctx); err != nil {
		return nil, err
	}
	return o, nil
}
