// Package manufacturing holds the workflows of production runs, shared by
// the API (status changes) and the web application, which the admin CLI
// stands for (creating, starting, completing and signing runs on the floor).
package manufacturing

import (
	"context"
	"fmt"
	"time"

	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql"
	"github.com/shopspring/decimal"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/production"
	"larder.dev/larder/ent/productlot"
	"larder.dev/larder/ent/recipestep"
	"larder.dev/larder/ent/stockmovement"
	"larder.dev/larder/hooks"
	"larder.dev/larder/problem"
	"larder.dev/larder/units"
)

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
// production.completed. Every lot is locked before its quantity is read, so
// concurrent completions cannot take the same stock twice; a shortage
// refuses the whole completion.
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
	takes, err := c.takes(ctx, tx, run, now)
	if err != nil {
		return nil, err
	}
	consume := hooks.WithMovement(ctx, hooks.Movement{Type: stockmovement.TypePRODUCTION_CONSUMPTION, DocumentType: "production", DocumentID: run.ID})
	for _, t := range takes {
		err := tx.ProductLot.UpdateOneID(t.lot.ID).
			SetQuantityBase(t.lot.QuantityBase.Sub(t.qty)).
			Exec(consume)
		if err != nil {
			return nil, fmt.Errorf("consume lot %d: %w", t.lot.ID, err)
		}
		err = tx.ProductionConsumedStep.Create().
			SetAccountID(run.AccountID).
			SetProductionID(run.ID).
			SetLotID(t.lot.ID).
			SetProductID(t.lot.ProductID).
			SetQuantityBase(t.qty).
			Exec(ctx)
		if err != nil {
			return nil, fmt.Errorf("consumed step of lot %d: %w", t.lot.ID, err)
		}
	}
	if err := output(ctx, tx, run, *produced, c.PositiveRelease, now); err != nil {
		return nil, err
	}
	return move(ctx, tx, run, production.StatusCOMPLETED, func(u *ent.ProductionUpdateOne) {
		u.SetEndDate(now).SetProducedQtyDisplayUnits(*produced)
		if run.StartDate == nil {
			u.SetStartDate(now)
		}
	})
}

// take is a quantity taken from a locked lot.
type take struct {
	lot *ent.ProductLot
	qty decimal.Decimal
}

// takes resolves what a completion consumes: the named lots, or the planned
// steps picked from sellable lots.
func (c Completion) takes(ctx context.Context, tx *ent.Tx, run *ent.Production, now time.Time) ([]take, error) {
	var out []take
	taken := map[int]decimal.Decimal{}
	if len(c.Consume) > 0 {
		for i, x := range c.Consume {
			field := fmt.Sprintf("consume[%d]", i)
			if !x.QuantityBase.IsPositive() {
				return nil, problem.Invalid(field, "quantity must be greater than 0")
			}
			lot, err := lockLot(ctx, tx, x.LotID)
			if ent.IsNotFound(err) {
				return nil, problem.Invalidf(field, "lot %d was not found", x.LotID)
			}
			if err != nil {
				return nil, err
			}
			if !sellable(lot, now) {
				return nil, problem.Conflict(problem.LotNotSellable, field, fmt.Sprintf("Lot %d is %s and cannot be consumed.", lot.ID, why(lot, now)))
			}
			left := lot.QuantityBase.Sub(taken[lot.ID])
			if left.LessThan(x.QuantityBase) {
				return nil, problem.Conflict(problem.InsufficientStock, field, fmt.Sprintf("Lot %d holds %s; %s cannot be consumed.", lot.ID, left, x.QuantityBase))
			}
			taken[lot.ID] = taken[lot.ID].Add(x.QuantityBase)
			out = append(out, take{lot: lot, qty: x.QuantityBase})
		}
		return merge(out), nil
	}
	steps, err := run.QueryPlannedSteps().Order(ent.Asc("id")).All(ctx)
	if err != nil {
		return nil, err
	}
	for i, s := range steps {
		need := decimal.Zero
		if s.QuantityBase != nil {
			need = *s.QuantityBase
		}
		candidates, err := tx.ProductLot.Query().
			Where(productlot.ProductID(s.ProductID), productlot.Archived(false), productlot.QuantityBaseGT(decimal.Zero)).
			Order(productlot.ByExpirationDate(sql.OrderNullsLast()), productlot.ByID()).
			IDs(ctx)
		if err != nil {
			return nil, err
		}
		for _, lotID := range candidates {
			if !need.IsPositive() {
				break
			}
			lot, err := lockLot(ctx, tx, lotID)
			if err != nil {
				return nil, err
			}
			if !sellable(lot, now) {
				continue
			}
			left := lot.QuantityBase.Sub(taken[lot.ID])
			if !left.IsPositive() {
				continue
			}
			q := decimal.Min(left, need)
			taken[lot.ID] = taken[lot.ID].Add(q)
			out = append(out, take{lot: lot, qty: q})
			need = need.Sub(q)
		}
		if need.IsPositive() {
			code := fmt.Sprint(s.ProductID)
			if p, err := tx.Product.Get(ctx, s.ProductID); err == nil && p.ProductCode != nil {
				code = *p.ProductCode
			}
			return nil, problem.Conflict(problem.InsufficientStock, fmt.Sprintf("planned_steps[%d]", i),
				fmt.Sprintf("Not enough sellable stock of %s: %s short of %s.", code, need, *s.QuantityBase))
		}
	}
	return merge(out), nil
}

// merge adds up takes from the same lot, in first-taken order, so each lot
// moves once.
func merge(ts []take) []take {
	var out []take
	at := map[int]int{}
	for _, t := range ts {
		if i, ok := at[t.lot.ID]; ok {
			out[i].qty = out[i].qty.Add(t.qty)
			continue
		}
		at[t.lot.ID] = len(out)
		out = append(out, t)
	}
	return out
}

// sellable is DECISIONS "Lot picking": AVAILABLE, or RELEASED with no or a
// future release expiry, not archived and not expired.
func sellable(l *ent.ProductLot, now time.Time) bool { return why(l, now) == "" }

// why says why a lot is not sellable, or "".
func why(l *ent.ProductLot, now time.Time) string {
	switch {
	case l.Archived:
		return "archived"
	case l.ExpirationDate != nil && !l.ExpirationDate.After(now):
		return "expired"
	case l.QcStatus == productlot.QcStatusAVAILABLE:
		return ""
	case l.QcStatus == productlot.QcStatusRELEASED && (l.QcReleaseExpiresAt == nil || l.QcReleaseExpiresAt.After(now)):
		return ""
	case l.QcStatus == productlot.QcStatusRELEASED:
		return "past its release"
	}
	return string(l.QcStatus)
}

// lockLot reads a lot, locking its row until the transaction ends
// (PostgreSQL; SQLite serialises writers already), so its quantity cannot
// change under the completion.
func lockLot(ctx context.Context, tx *ent.Tx, id int) (*ent.ProductLot, error) {
	return tx.ProductLot.Query().
		Where(productlot.ID(id)).
		Modify(func(s *sql.Selector) {
			if s.Dialect() == dialect.Postgres {
				s.ForUpdate()
			}
		}).
		Only(ctx)
}

// output creates the run's output lot, or tops up the lot of the same
// number, product and location, with a PRODUCTION_OUTPUT movement of the
// produced quantity in the product's base unit.
func output(ctx context.Context, tx *ent.Tx, run *ent.Production, produced decimal.Decimal, positiveRelease bool, now time.Time) error {
	p, err := tx.Product.Get(ctx, run.ProductID)
	if err != nil {
		return err
	}
	q := produced.Mul(units.PerInventoryUnit(p)).Round(units.Places)
	ctx = hooks.WithMovement(ctx, hooks.Movement{Type: stockmovement.TypePRODUCTION_OUTPUT, DocumentType: "production", DocumentID: run.ID})
	key := 0
	if run.LocationID != nil {
		key = *run.LocationID
	}
	existing, err := tx.ProductLot.Query().
		Where(productlot.ProductID(run.ProductID), productlot.LocationKey(key), productlot.LotNumber(*run.LotNumber)).
		IDs(ctx)
	if err != nil {
		return err
	}
	if len(existing) == 0 {
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
	lot, err := lockLot(ctx, tx, existing[0])
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
