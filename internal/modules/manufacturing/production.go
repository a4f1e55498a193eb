// Package manufacturing holds the workflows of production runs, shared by
// the API (status changes) and the web application, which the admin CLI
// stands for (creating, starting, completing and signing runs on the floor).
package manufacturing

import (
	"context"
	"fmt"
	"time"

	"github.com/shopspring/decimal"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/production"
	"larder.dev/larder/ent/productlot"
	"larder.dev/larder/ent/recipestep"
	"larder.dev/larder/ent/stockmovement"
	"larder.dev/larder/hooks"
	"larder.dev/larder/internal/modules/inventory"
	"larder.dev/larder/internal/modules/units"
	"larder.dev/larder/internal/platform/problem"
)

// ProductionFlow is the production run's workflow: the generated handler of
// its status action calls it.
var ProductionFlow = ent.ProductionFlow{Status: ChangeStatus}

// ChangeStatus is the API's status change (spec States, Production run):
// the action admits PLANNED, ON_HOLD, QUARANTINE and CANCELLED, and the
// state machine refuses moves out of COMPLETED or CANCELLED and every move of
// a signed run. A cancellation is reported as production.cancelled, any other
// move as production.status_changed. The answer carries no steps.
func ChangeStatus(ctx context.Context, tx *ent.Tx, id int, status production.Status) (*ent.Production, error) {
	run, err := tx.Production.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	return move(ctx, tx, run, status, func(*ent.ProductionUpdateOne) {})
}

// move changes a run's status from the status read, with the state
// machine's guard: the condition is part of the update, so of two
// concurrent moves from the same state one wins and the other is refused.
func move(ctx context.Context, tx *ent.Tx, run *ent.Production, to production.Status, also func(*ent.ProductionUpdateOne)) (*ent.Production, error) {
	action := "status_changed"
	switch to {
	case production.StatusCANCELLED:
		action = "cancelled"
	case production.StatusCOMPLETED:
		action = "completed"
	}
	u := tx.Production.UpdateOneID(run.ID).
		Where(production.StatusEQ(run.Status)).
		SetStatus(to)
	also(u)
	out, err := u.Save(hooks.EmitAs(ctx, action))
	if ent.IsNotFound(err) {
		return nil, problem.Conflict(problem.InvalidState, "status", "The production run's status changed meanwhile; try again.")
	}
	return out, err
}

// Step is a component of a plan: a quantity of a product, in its base unit.
type Step struct {
	ProductID    int
	QuantityBase decimal.Decimal
}

// Plan is what a new run makes, where, from what.
type Plan struct {
	ProductID      int
	LineID         *int
	LocationID     *int
	Quantity       *decimal.Decimal
	LotNumber      *string
	ExpirationDate *time.Time
	Steps          []Step
}

// Create plans a run: PLANNED, numbered by the account's counter, with its
// planned steps and its recipe's routing (the operations and equipment the
// run uses). Without a location, the output goes to the line's warehouse.
func Create(ctx context.Context, tx *ent.Tx, p Plan) (*ent.Production, error) {
	loc := p.LocationID
	if loc == nil && p.LineID != nil {
		line, err := tx.ProductionLine.Get(ctx, *p.LineID)
		if err != nil {
			if ent.IsNotFound(err) {
				return nil, problem.Invalidf("production_line_id", "must name an existing production line (%d was not found)", *p.LineID)
			}
			return nil, err
		}
		loc = line.WarehouseID
	}
	if p.Quantity != nil && !p.Quantity.IsPositive() {
		return nil, problem.Invalid("production_qty_display_units", "must be greater than 0")
	}
	run, err := tx.Production.Create().
		SetProductID(p.ProductID).
		SetNillableProductionLineID(p.LineID).
		SetNillableLocationID(loc).
		SetNillableProductionQtyDisplayUnits(p.Quantity).
		SetNillableLotNumber(p.LotNumber).
		SetNillableExpirationDate(utc(p.ExpirationDate)).
		Save(ctx)
	if err != nil {
		return nil, err
	}
	if err := copyRouting(ctx, tx, run); err != nil {
		return nil, err
	}
	for i, s := range p.Steps {
		if !s.QuantityBase.IsPositive() {
			return nil, problem.Invalidf(fmt.Sprintf("planned_steps[%d].quantity_base", i), "must be greater than 0")
		}
		q := s.QuantityBase
		err := tx.ProductionPlannedStep.Create().
			SetAccountID(run.AccountID).
			SetProductionID(run.ID).
			SetProductID(s.ProductID).
			SetQuantityBase(q).
			Exec(ctx)
		if err != nil {
			return nil, fmt.Errorf("planned step %d: %w", i, err)
		}
	}
	return run, nil
}

// copyRouting gives a new run its product's routing: each recipe step's
// operation and equipment, in order, in one multi-row insert.
func copyRouting(ctx context.Context, tx *ent.Tx, run *ent.Production) error {
	steps, err := tx.RecipeStep.Query().
		Where(recipestep.ProductID(run.ProductID)).
		Order(recipestep.ByPosition()).
		All(ctx)
	if err != nil {
		return fmt.Errorf("routing of product %d: %w", run.ProductID, err)
	}
	if len(steps) == 0 {
		return nil
	}
	rows := make([]*ent.ProductionOperationCreate, len(steps))
	for i, s := range steps {
		rows[i] = tx.ProductionOperation.Create().
			SetAccountID(run.AccountID).
			SetProductionID(run.ID).
			SetPosition(i + 1).
			SetOperationID(s.OperationID).
			SetNillableEquipmentID(s.EquipmentID)
	}
	if err := tx.ProductionOperation.CreateBulk(rows...).Exec(ctx); err != nil {
		return fmt.Errorf("routing of run %d: %w", run.ID, err)
	}
	return nil
}

// Start puts a run in production: IN_PROGRESS, from PLANNED, ON_HOLD or
// QUARANTINE; the first start sets start_date.
func Start(ctx context.Context, tx *ent.Tx, id int, now time.Time) (*ent.Production, error) {
	run, err := tx.Production.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	return move(ctx, tx, run, production.StatusIN_PROGRESS, func(u *ent.ProductionUpdateOne) {
		if run.StartDate == nil {
			u.SetStartDate(now.UTC().Truncate(time.Microsecond))
		}
	})
}

// Sign signs and locks a completed run: it never changes again.
func Sign(ctx context.Context, tx *ent.Tx, id int) (*ent.Production, error) {
	run, err := tx.Production.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if run.Signed {
		return nil, problem.Conflict(problem.InvalidState, "", "The production run is signed already.")
	}
	if run.Status != production.StatusCOMPLETED {
		return nil, problem.Conflict(problem.InvalidState, "status", fmt.Sprintf("Only a COMPLETED run can be signed; this one is %s.", run.Status))
	}
	return tx.Production.UpdateOneID(id).
		Where(production.Signed(false)).
		SetSigned(true).
		Save(ctx)
}

// Consumption is a quantity taken from a named lot.
type Consumption struct {
	LotID        int
	QuantityBase decimal.Decimal
}

// Completion is what the floor reports when a run completes.
type Completion struct {
	// Consume names the lots consumed; empty: each planned step is taken
	// from its product's first-expiring sellable lots.
	Consume []Consumption
	// Produced is the quantity made, in the product's display unit; nil:
	// the planned quantity.
	Produced *decimal.Decimal
	// PositiveRelease puts the output lot ON_HOLD until it is released.
	PositiveRelease bool
}

// Complete completes a run in progress: it consumes component lots with
// PRODUCTION_CONSUMPTION movements and records them as consumed steps,
// creates or tops up the output lot (the run's lot number, product and
// location) with a PRODUCTION_OUTPUT movement, and emits
// production.completed. Every lot, the output lot included, is locked before
// its quantity is read, all at once in id order (inventory.Pick), so
// concurrent completions cannot take the same stock twice nor deadlock with
// other writers of those lots; a shortage refuses the whole completion.
func Complete(ctx context.Context, tx *ent.Tx, id int, c Completion, now time.Time) (*ent.Production, error) {
	run, err := tx.Production.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if run.Signed {
		return nil, problem.Conflict(problem.InvalidState, "", "The production run is signed and can no longer change.")
	}
	if run.Status != production.StatusIN_PROGRESS && run.Status != production.StatusIN_PROGRESS_TRANSFORMATION {
		return nil, problem.Conflict(problem.InvalidState, "status", fmt.Sprintf("Only a run in progress can complete; this one is %s.", run.Status))
	}
	if run.LotNumber == nil {
		return nil, problem.Invalid("lot_number", "the run has no lot number for its output")
	}
	produced := run.ProductionQtyDisplayUnits
	if c.Produced != nil {
		produced = c.Produced
	}
	if produced == nil {
		return nil, problem.Invalid("produced_qty_display_units", "the run has no planned quantity; give the produced quantity")
	}
	if !produced.IsPositive() {
		return nil, problem.Invalid("produced_qty_display_units", "must be greater than 0")
	}
	now = now.UTC().Truncate(time.Microsecond)
	// The output lot, when it exists, is locked with the lots consumed, in
	// one id order (inventory.Pick).
	out, err := outputLot(ctx, tx, run)
	if err != nil {
		return nil, err
	}
	takes, err := c.takes(ctx, tx, run, out, now)
	if err != nil {
		return nil, err
	}
	consume := hooks.WithMovement(ctx, hooks.Movement{Type: stockmovement.TypePRODUCTION_CONSUMPTION, DocumentType: "production", DocumentID: run.ID})
	for _, t := range takes {
		err := tx.ProductLot.UpdateOneID(t.Lot.ID).
			SetQuantityBase(t.Lot.QuantityBase.Sub(t.Quantity)).
			Exec(consume)
		if err != nil {
			return nil, fmt.Errorf("consume lot %d: %w", t.Lot.ID, err)
		}
		err = tx.ProductionConsumedStep.Create().
			SetAccountID(run.AccountID).
			SetProductionID(run.ID).
			SetLotID(t.Lot.ID).
			SetProductID(t.Lot.ProductID).
			SetQuantityBase(t.Quantity).
			Exec(ctx)
		if err != nil {
			return nil, fmt.Errorf("consumed step of lot %d: %w", t.Lot.ID, err)
		}
	}
	if err := output(ctx, tx, run, out, *produced, c.PositiveRelease, now); err != nil {
		return nil, err
	}
	return move(ctx, tx, run, production.StatusCOMPLETED, func(u *ent.ProductionUpdateOne) {
		u.SetEndDate(now).SetProducedQtyDisplayUnits(*produced)
		if run.StartDate == nil {
			u.SetStartDate(now)
		}
	})
}

// takes resolves what a completion consumes: the named lots, or the planned
// steps picked from sellable lots (inventory.Pick, which locks them, and the
// output lot out unless it is 0).
func (c Completion) takes(ctx context.Context, tx *ent.Tx, run *ent.Production, out int, now time.Time) ([]inventory.Take, error) {
	var draws []inventory.Draw
	field := "consume[%d]"
	for i, x := range c.Consume {
		if !x.QuantityBase.IsPositive() {
			return nil, problem.Invalid(fmt.Sprintf(field, i), "quantity must be greater than 0")
		}
		draws = append(draws, inventory.Draw{Lot: x.LotID, Quantity: x.QuantityBase})
	}
	if len(c.Consume) == 0 {
		field = "planned_steps[%d]"
		steps, err := run.QueryPlannedSteps().Order(ent.Asc("id")).All(ctx)
		if err != nil {
			return nil, err
		}
		for _, s := range steps {
			d := inventory.Draw{Product: s.ProductID}
			if s.QuantityBase != nil {
				d.Quantity = *s.QuantityBase
			}
			draws = append(draws, d)
		}
	}
	var hold []int
	if out != 0 {
		hold = []int{out}
	}
	picked, err := inventory.Pick(ctx, tx, draws, hold, now)
	r, ok := err.(*inventory.Refusal)
	if !ok {
		return merge(picked), err
	}
	d, at := draws[r.Draw], fmt.Sprintf(field, r.Draw)
	switch {
	case r.Kind == inventory.LotMissing:
		return nil, problem.Invalidf(at, "lot %d was not found", d.Lot)
	case r.Kind == inventory.LotNotSellable:
		return nil, problem.Conflict(problem.LotNotSellable, at, fmt.Sprintf("Lot %d is %s and cannot be consumed.", d.Lot, r.Why))
	case d.Lot != 0:
		return nil, problem.Conflict(problem.InsufficientStock, at, fmt.Sprintf("Lot %d holds %s; %s cannot be consumed.", d.Lot, r.Left, d.Quantity))
	}
	code := fmt.Sprint(d.Product)
	if p, err := tx.Product.Get(ctx, d.Product); err == nil && p.ProductCode != nil {
		code = *p.ProductCode
	}
	return nil, problem.Conflict(problem.InsufficientStock, at,
		fmt.Sprintf("Not enough sellable stock of %s: %s short of %s.", code, d.Quantity.Sub(r.Left), d.Quantity))
}

// merge adds up what the draws take from the same lot, in first-taken
// order, so each lot moves once.
func merge(picked [][]inventory.Take) []inventory.Take {
	var out []inventory.Take
	at := map[int]int{}
	for _, ts := range picked {
		for _, t := range ts {
			if i, ok := at[t.Lot.ID]; ok {
				out[i].Quantity = out[i].Quantity.Add(t.Quantity)
				continue
			}
			at[t.Lot.ID] = len(out)
			out = append(out, t)
		}
	}
	return out
}

// outputLot is the id of the lot a run's output tops up (its lot number,
// product and location), or 0 when there is none yet.
func outputLot(ctx context.Context, tx *ent.Tx, run *ent.Production) (int, error) {
	key := 0
	if run.LocationID != nil {
		key = *run.LocationID
	}
	ids, err := tx.ProductLot.Query().
		Where(productlot.ProductID(run.ProductID), productlot.LocationKey(key), productlot.LotNumber(*run.LotNumber)).
		IDs(ctx)
	if err != nil || len(ids) == 0 {
		return 0, err
	}
	return ids[0], nil
}

// output tops up the run's output lot existing (locked with the lots
// consumed), or creates it when existing is 0, with a PRODUCTION_OUTPUT
// movement of the produced quantity in the product's base unit.
func output(ctx context.Context, tx *ent.Tx, run *ent.Production, existing int, produced decimal.Decimal, positiveRelease bool, now time.Time) error {
	p, err := tx.Product.Get(ctx, run.ProductID)
	if err != nil {
		return err
	}
	q := produced.Mul(units.PerInventoryUnit(p)).Round(units.Places)
	ctx = hooks.WithMovement(ctx, hooks.Movement{Type: stockmovement.TypePRODUCTION_OUTPUT, DocumentType: "production", DocumentID: run.ID})
	if existing == 0 {
		b := tx.ProductLot.Create().
			SetProductID(run.ProductID).
			SetNillableLocationID(run.LocationID).
			SetLotNumber(*run.LotNumber).
			SetNillableExpirationDate(run.ExpirationDate).
			SetLotOrigin(productlot.LotOriginPRODUCTION).
			SetQuantityBase(q)
		if positiveRelease {
			b.SetQcStatus(productlot.QcStatusON_HOLD).SetQcStatusAt(now).SetQcStatusNote("Positive release: on hold until released.")
		}
		return b.Exec(ctx)
	}
	// Locked already: this reads it as it stands.
	lot, err := tx.ProductLot.Query().Where(productlot.ID(existing)).Modify(hooks.ForUpdate).Only(ctx)
	if err != nil {
		return err
	}
	if lot.Archived {
		return problem.Conflict(problem.InvalidState, "lot_number", fmt.Sprintf("The output lot %s (%d) is archived.", *run.LotNumber, lot.ID))
	}
	u := tx.ProductLot.UpdateOneID(lot.ID).SetQuantityBase(lot.QuantityBase.Add(q))
	if positiveRelease && lot.QcStatus != productlot.QcStatusON_HOLD {
		u.SetQcStatus(productlot.QcStatusON_HOLD).SetQcStatusAt(now).SetQcStatusNote("Positive release: on hold until released.")
	}
	return u.Exec(ctx)
}

func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC().Truncate(time.Microsecond)
	return &u
}
