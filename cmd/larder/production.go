package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"larder.dev/larder/ent"
	"larder.dev/larder/internal/modules/manufacturing"
	"larder.dev/larder/internal/platform/store"
)

// repeated is a flag given any number of times.
type repeated []string

func (r *repeated) String() string     { return strings.Join(*r, ",") }
func (r *repeated) Set(v string) error { *r = append(*r, v); return nil }

// pair splits "A:QTY" into A and a positive decimal quantity.
func pair(flag, v string) (string, decimal.Decimal, error) {
	i := strings.LastIndex(v, ":")
	if i <= 0 {
		return "", decimal.Decimal{}, fmt.Errorf("--%s %q must be written %s", flag, v, map[string]string{"step": "PRODUCT_CODE:QTY", "consume": "LOT_ID:QTY"}[flag])
	}
	q, err := decimal.NewFromString(v[i+1:])
	if err != nil || !q.IsPositive() {
		return "", decimal.Decimal{}, fmt.Errorf("--%s %q: the quantity must be a number greater than 0", flag, v)
	}
	return v[:i], q, nil
}

// runOutput is what every production command prints.
func runOutput(r *ent.Production) map[string]any {
	return map[string]any{"id": r.ID, "production_no": r.ProductionNo, "status": r.Status, "signed": r.Signed,
		"product_id": r.ProductID, "production_line_id": r.ProductionLineID, "location_id": r.LocationID,
		"lot_number": r.LotNumber, "start_date": r.StartDate, "end_date": r.EndDate,
		"production_qty_display_units": r.ProductionQtyDisplayUnits, "produced_qty_display_units": r.ProducedQtyDisplayUnits}
}

// productionTx runs fn in one transaction of the account of ctx; a missing
// or foreign run is named as such.
func productionTx(ctx context.Context, st *store.Store, id int, fn func(ctx context.Context, tx *ent.Tx) (*ent.Production, error)) (*ent.Production, error) {
	var run *ent.Production
	err := ent.RunInTx(ctx, st.Client, func(tx *ent.Tx) (err error) {
		run, err = fn(ctx, tx)
		return err
	})
	if ent.IsNotFound(err) && id != 0 {
		return nil, fmt.Errorf("production %d: no such production run in this account", id)
	}
	return run, err
}

func productionCreate(ctx context.Context, e *env, args []string) error {
	c := e.command("production create", needs{org: inAccount, required: []string{"product"}})
	product := c.String("product", "", "product code of what the run makes (required)")
	line := c.String("line", "", "production line, by name or id")
	qty := c.String("qty", "", "planned quantity, in the product's display unit")
	lotNumber := c.String("lot-number", "", "number of the output lot")
	expires := c.String("expires", "", "RFC 3339 time the output expires")
	var steps repeated
	c.Var(&steps, "step", "planned component PRODUCT_CODE:QTY (base unit); repeatable")
	var draft manufacturing.Draft
	return c.run(ctx, args, func() error {
		draft = manufacturing.Draft{Product: *product, Line: *line}
		if *qty != "" {
			q, err := decimal.NewFromString(*qty)
			if err != nil || !q.IsPositive() {
				return fmt.Errorf("--qty must be a number greater than 0")
			}
			draft.Quantity = &q
		}
		if *lotNumber != "" {
			draft.LotNumber = lotNumber
		}
		if *expires != "" {
			t, err := time.Parse(time.RFC3339, *expires)
			if err != nil {
				return fmt.Errorf("--expires must be an RFC 3339 time such as 2027-01-31T00:00:00Z: %w", err)
			}
			draft.ExpirationDate = &t
		}
		for _, s := range steps {
			code, q, err := pair("step", s)
			if err != nil {
				return err
			}
			draft.Steps = append(draft.Steps, manufacturing.DraftStep{Product: code, Quantity: q})
		}
		return nil
	}, func(ctx context.Context, st *store.Store) error {
		run, err := productionTx(ctx, st, 0, func(ctx context.Context, tx *ent.Tx) (*ent.Production, error) {
			return manufacturing.CreateDraft(ctx, tx, draft)
		})
		if err != nil {
			return err
		}
		return e.print(runOutput(run), fmt.Sprintf("production %d (no. %d) is PLANNED", run.ID, run.ProductionNo))
	})
}

func productionStart(ctx context.Context, e *env, args []string) error {
	return productionStep(ctx, e, args, "production start", func(ctx context.Context, tx *ent.Tx, id int) (*ent.Production, error) {
		return manufacturing.Start(ctx, tx, id, time.Now())
	})
}

func productionSign(ctx context.Context, e *env, args []string) error {
	return productionStep(ctx, e, args, "production sign", manufacturing.Sign)
}

// productionStep runs a floor action that takes only the run.
func productionStep(ctx context.Context, e *env, args []string, command string, fn func(context.Context, *ent.Tx, int) (*ent.Production, error)) error {
	c := e.command(command, needs{org: inAccount, required: []string{"id"}})
	id := c.Int("id", 0, "production run id (required)")
	return c.run(ctx, args, nil, func(ctx context.Context, st *store.Store) error {
		run, err := productionTx(ctx, st, *id, func(ctx context.Context, tx *ent.Tx) (*ent.Production, error) {
			return fn(ctx, tx, *id)
		})
		if err != nil {
			return err
		}
		state := string(run.Status)
		if run.Signed {
			state += ", signed and locked"
		}
		return e.print(runOutput(run), fmt.Sprintf("production %d is %s", run.ID, state))
	})
}

func productionComplete(ctx context.Context, e *env, args []string) error {
	c := e.command("production complete", needs{org: inAccount, required: []string{"id"}})
	id := c.Int("id", 0, "production run id (required)")
	produced := c.String("produced", "", "produced quantity, in the product's display unit (default: the planned quantity)")
	release := c.Bool("positive-release", false, "put the output lot ON_HOLD until it is released")
	var consume repeated
	c.Var(&consume, "consume", "consumed lot LOT_ID:QTY (base unit); repeatable; default: the planned steps from first-expiring sellable lots")
	var comp manufacturing.Completion
	return c.run(ctx, args, func() error {
		comp = manufacturing.Completion{PositiveRelease: *release}
		if *produced != "" {
			q, err := decimal.NewFromString(*produced)
			if err != nil || !q.IsPositive() {
				return fmt.Errorf("--produced must be a number greater than 0")
			}
			comp.Produced = &q
		}
		for _, s := range consume {
			lot, q, err := pair("consume", s)
			if err != nil {
				return err
			}
			n, err := strconv.Atoi(lot)
			if err != nil || n <= 0 {
				return fmt.Errorf("--consume %q: the lot must be a lot id", s)
			}
			comp.Consume = append(comp.Consume, manufacturing.Consumption{LotID: n, QuantityBase: q})
		}
		return nil
	}, func(ctx context.Context, st *store.Store) error {
		run, err := productionTx(ctx, st, *id, func(ctx context.Context, tx *ent.Tx) (*ent.Production, error) {
			return manufacturing.Complete(ctx, tx, *id, comp, time.Now())
		})
		if err != nil {
			return err
		}
		return e.print(runOutput(run), fmt.Sprintf("production %d is COMPLETED", run.ID))
	})
}
