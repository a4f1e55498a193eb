package main

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/event"
	entproduct "larder.dev/larder/ent/product"
	"larder.dev/larder/ent/production"
	"larder.dev/larder/ent/productionconsumedstep"
	"larder.dev/larder/ent/productlot"
	"larder.dev/larder/ent/stockmovement"
	"larder.dev/larder/internal/modules/manufacturing"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/restapi"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

// prodFixture is a new seeded organization with its database open.
type prodFixture struct {
	db    string
	org   string
	st    *store.Store
	ctx   context.Context // the test account, as the web application
	sys   context.Context
	first int // production_no the next run gets
}

func newProdFixture(t *testing.T, b dbtest.Backend) *prodFixture {
	t.Helper()
	db := dbtest.MigratedURL(t, b)
	o := cli(t, db, "org", "create", "--name", "Floor bakery")
	test := int(o["accounts"].(map[string]any)["test"].(map[string]any)["id"].(float64))
	st, err := store.Open(context.Background(), db, store.Options{Snapshots: restapi.Snapshots{}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	f := &prodFixture{db: db, org: strconv.Itoa(int(o["id"].(float64))), st: st,
		ctx: policy.App(context.Background(), test, policy.Test), sys: policy.System(context.Background())}
	n, err := st.Client.Production.Query().Count(f.ctx)
	if err != nil {
		t.Fatal(err)
	}
	f.first = n + 1
	return f
}

func (f *prodFixture) args(cmd string, extra ...string) []string {
	return append([]string{"production", cmd, "--org", f.org, "--env", "test"}, extra...)
}

// lot is the seeded lot of a product with a number.
func (f *prodFixture) lot(t *testing.T, number string) *ent.ProductLot {
	t.Helper()
	l, err := f.st.Client.ProductLot.Query().Where(productlot.LotNumber(number)).Only(f.ctx)
	if err != nil {
		t.Fatalf("lot %s: %v", number, err)
	}
	return l
}

// docs/operators.md, "Commands": `larder production create|start|complete|sign` are
// floor actions with app events; completion consumes first-expiring sellable
// lots with PRODUCTION_CONSUMPTION movements and makes the output lot with a
// PRODUCTION_OUTPUT movement; refusals are clear and change nothing.
func TestProductionFloor(t *testing.T) {
	t.Parallel()
	for _, b := range dbtest.Backends(t) {
		t.Run(string(b), func(t *testing.T) {
			f := newProdFixture(t, b)
			flourBefore := f.lot(t, "FL-2611-01").QuantityBase
			flourLater := f.lot(t, "FL-2611-02").QuantityBase

			run := cli(t, f.db, f.args("create", "--product", "FG-COOKIE12", "--line", "Cookie line", "--qty", "10",
				"--lot-number", "CLI-1", "--expires", "2027-06-01T00:00:00Z", "--step", "RM-FLOUR:1000", "--step", "RM-SUGAR:500")...)
			id := strconv.Itoa(int(run["id"].(float64)))
			if run["status"] != "PLANNED" || int(run["production_no"].(float64)) != f.first || run["production_line_id"] == nil || run["location_id"] == nil {
				t.Fatalf("create: %v", run)
			}
			planned, err := f.st.Client.Production.Query().Where(production.ID(int(run["id"].(float64)))).QueryPlannedSteps().Count(f.ctx)
			if err != nil || planned != 2 {
				t.Fatalf("%d planned steps (%v), want 2", planned, err)
			}
			fails(t, f.db, "Only a run in progress can complete", f.args("complete", "--id", id)...)
			fails(t, f.db, "Only a COMPLETED run can be signed", f.args("sign", "--id", id)...)
			if got := cli(t, f.db, f.args("start", "--id", id)...); got["status"] != "IN_PROGRESS" || got["start_date"] == nil {
				t.Fatalf("start: %v", got)
			}
			fails(t, f.db, "cannot move from IN_PROGRESS to IN_PROGRESS", f.args("start", "--id", id)...)

			done := cli(t, f.db, f.args("complete", "--id", id, "--positive-release")...)
			if done["status"] != "COMPLETED" || done["end_date"] == nil || done["produced_qty_display_units"] != "10" {
				t.Fatalf("complete: %v", done)
			}
			rid := int(run["id"].(float64))
			t.Run("the first-expiring flour lot was consumed, the later one not", func(t *testing.T) {
				if got := f.lot(t, "FL-2611-01").QuantityBase; !got.Equal(flourBefore.Sub(decimal.NewFromInt(1000))) {
					t.Fatalf("FL-2611-01 holds %s, had %s", got, flourBefore)
				}
				if got := f.lot(t, "FL-2611-02").QuantityBase; !got.Equal(flourLater) {
					t.Fatalf("FL-2611-02 changed: %s", got)
				}
				mv, err := f.st.Client.StockMovement.Query().
					Where(stockmovement.DocumentType("production"), stockmovement.DocumentID(rid)).
					Order(stockmovement.ByID()).
					All(f.ctx)
				if err != nil || len(mv) != 3 {
					t.Fatalf("movements %v %v, want 2 consumptions and an output", mv, err)
				}
				for _, m := range mv[:2] {
					if m.Type != stockmovement.TypePRODUCTION_CONSUMPTION || !m.QuantityBase.IsNegative() || m.Source != stockmovement.SourceApp {
						t.Errorf("consumption %+v", m)
					}
				}
				if mv[2].Type != stockmovement.TypePRODUCTION_OUTPUT || !mv[2].QuantityBase.Equal(decimal.NewFromInt(120)) {
					t.Errorf("output %+v, want +120 (10 cases of 12)", mv[2])
				}
				steps, err := f.st.Client.ProductionConsumedStep.Query().Where(productionconsumedstep.ProductionID(rid)).All(f.ctx)
				if err != nil || len(steps) != 2 || steps[0].LotID == nil {
					t.Fatalf("consumed steps %v %v", steps, err)
				}
			})
			t.Run("the output lot is ON_HOLD under positive release", func(t *testing.T) {
				out := f.lot(t, "CLI-1")
				if out.QcStatus != productlot.QcStatusON_HOLD || !out.QuantityBase.Equal(decimal.NewFromInt(120)) ||
					out.LotOrigin == nil || *out.LotOrigin != productlot.LotOriginPRODUCTION || out.ExpirationDate == nil {
					t.Fatalf("output lot %+v", out)
				}
			})
			t.Run("app events", func(t *testing.T) {
				for _, kind := range []string{"production.created", "production.status_changed", "production.completed"} {
					n, err := f.st.Client.Event.Query().Where(event.Type(kind), event.ResourceID(rid), event.SourceEQ(event.SourceApp)).Count(f.sys)
					if err != nil || n != 1 {
						t.Errorf("%d %s app events (%v), want 1", n, kind, err)
					}
				}
			})

			signed := cli(t, f.db, f.args("sign", "--id", id)...)
			if signed["signed"] != true {
				t.Fatalf("sign: %v", signed)
			}
			fails(t, f.db, "signed already", f.args("sign", "--id", id)...)
			fails(t, f.db, "signed and can no longer change", f.args("start", "--id", id)...)
			fails(t, f.db, "signed and can no longer change", f.args("complete", "--id", id)...)

			t.Run("refusals change nothing", func(t *testing.T) {
				short := cli(t, f.db, f.args("create", "--product", "FG-COOKIE12", "--qty", "1", "--lot-number", "CLI-2",
					"--step", "RM-FLOUR:10", "--step", "RM-BUTTER:1")...)
				sid := strconv.Itoa(int(short["id"].(float64)))
				cli(t, f.db, f.args("start", "--id", sid)...)
				before := f.lot(t, "FL-2611-01").QuantityBase
				fails(t, f.db, "Not enough sellable stock of RM-BUTTER", f.args("complete", "--id", sid)...)
				butter := f.lot(t, "BU-2611-11")
				fails(t, f.db, "QUARANTINE and cannot be consumed", f.args("complete", "--id", sid, "--consume", fmt.Sprintf("%d:1", butter.ID))...)
				flour := f.lot(t, "FL-2611-02")
				fails(t, f.db, "holds", f.args("complete", "--id", sid, "--consume", fmt.Sprintf("%d:%s", flour.ID, flour.QuantityBase.Add(decimal.NewFromInt(1))))...)
				fails(t, f.db, "must be written LOT_ID:QTY", f.args("complete", "--id", sid, "--consume", "12")...)
				fails(t, f.db, "greater than 0", f.args("complete", "--id", sid, "--consume", "12:-1")...)
				if got := f.lot(t, "FL-2611-01").QuantityBase; !got.Equal(before) {
					t.Fatalf("a refused completion moved flour: %s -> %s", before, got)
				}
				r, err := f.st.Client.Production.Get(f.ctx, int(short["id"].(float64)))
				if err != nil || r.Status != production.StatusIN_PROGRESS {
					t.Fatalf("after refusals: %v %v", r, err)
				}
				if n, _ := f.st.Client.ProductionConsumedStep.Query().Where(productionconsumedstep.ProductionID(r.ID)).Count(f.ctx); n != 0 {
					t.Fatalf("%d consumed steps after refusals", n)
				}
				// Named lots: exactly what was named is consumed.
				cli(t, f.db, f.args("complete", "--id", sid, "--consume", fmt.Sprintf("%d:5", flour.ID), "--produced", "0.5")...)
				if got := f.lot(t, "FL-2611-02").QuantityBase; !got.Equal(flour.QuantityBase.Sub(decimal.NewFromInt(5))) {
					t.Fatalf("named consumption: %s", got)
				}
				if got := f.lot(t, "CLI-2"); !got.QuantityBase.Equal(decimal.NewFromInt(6)) || got.QcStatus != productlot.QcStatusAVAILABLE {
					t.Fatalf("output of 0.5 case: %+v", got)
				}
			})
			t.Run("bad input", func(t *testing.T) {
				fails(t, f.db, "needs --product", f.args("create")...)
				fails(t, f.db, "no such product", f.args("create", "--product", "NOPE")...)
				fails(t, f.db, "no such product", f.args("create", "--product", "FG-BAR6", "--step", "NOPE:1")...)
				fails(t, f.db, "must be written PRODUCT_CODE:QTY", f.args("create", "--product", "FG-BAR6", "--step", "RM-SUGAR")...)
				fails(t, f.db, "no such production line", f.args("create", "--product", "FG-BAR6", "--line", "Nowhere")...)
				fails(t, f.db, "--qty must be", f.args("create", "--product", "FG-BAR6", "--qty", "0")...)
				fails(t, f.db, "needs --id", f.args("start")...)
				fails(t, f.db, "no such production run", f.args("start", "--id", "999999999")...)
				fails(t, f.db, "no such production run", "production", "start", "--org", f.org, "--env", "live", "--id", id)
			})
			t.Run("a rolled-back creation gives its number back", func(t *testing.T) {
				n, err := f.st.Client.Production.Query().Count(f.ctx)
				if err != nil {
					t.Fatal(err)
				}
				product := f.lot(t, "CLI-1").ProductID
				err = ent.RunInTx(f.ctx, f.st.Client, func(tx *ent.Tx) error {
					if _, err := manufacturing.Create(f.ctx, tx, manufacturing.Plan{ProductID: product}); err != nil {
						return err
					}
					return errRollback
				})
				if err != errRollback {
					t.Fatalf("rolled-back creation: %v", err)
				}
				next := cli(t, f.db, f.args("create", "--product", "FG-BAR6")...)
				if int(next["production_no"].(float64)) != n+1 {
					t.Fatalf("production_no %v after %d runs and refused creations", next["production_no"], n)
				}
			})
			t.Run("every lot's quantity is its movements plus its corrections", func(t *testing.T) {
				checkLedger(t, f)
			})
		})
	}
}

// checkLedger fails unless every lot of the account holds what its
// movements and corrections add up to.
func checkLedger(t *testing.T, f *prodFixture) {
	t.Helper()
	lots, err := f.st.Client.ProductLot.Query().WithMovements().WithCorrections().All(f.ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range lots {
		sum := decimal.Zero
		for _, m := range l.Edges.Movements {
			sum = sum.Add(m.QuantityBase)
		}
		for _, c := range l.Edges.Corrections {
			sum = sum.Add(c.QuantityAfter.Sub(c.QuantityBefore))
		}
		if !sum.Equal(l.QuantityBase) {
			t.Errorf("lot %d holds %s; its movements and corrections add up to %s", l.ID, l.QuantityBase, sum)
		}
	}
}

// docs/api-behaviour.md, "Document numbers": production_no is per account, increasing
// and without gaps, even when runs are created concurrently and some
// creations roll back; and concurrent completions cannot take the same
// stock twice.
func TestProductionConcurrency(t *testing.T) {
	t.Parallel()
	for _, b := range dbtest.Backends(t) {
		t.Run(string(b), func(t *testing.T) {
			if b != dbtest.Postgres {
				t.Skip("concurrency is proven on PostgreSQL; SQLite serialises writers")
			}
			f := newProdFixture(t, b)
			product, err := f.st.Client.Product.Query().Where(entproduct.ProductCode("FG-BAR6")).OnlyID(f.ctx)
			if err != nil {
				t.Fatal(err)
			}
			const n = 24
			var wg sync.WaitGroup
			errs := make(chan error, n)
			for i := range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					err := ent.RunInTx(f.ctx, f.st.Client, func(tx *ent.Tx) error {
						if _, err := manufacturing.Create(f.ctx, tx, manufacturing.Plan{ProductID: product}); err != nil {
							return err
						}
						if i%3 == 0 {
							return errRollback
						}
						return nil
					})
					if err != nil && err != errRollback {
						errs <- err
					}
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Fatal(err)
			}
			runs, err := f.st.Client.Production.Query().All(f.ctx)
			if err != nil {
				t.Fatal(err)
			}
			var nos []int
			for _, r := range runs {
				nos = append(nos, r.ProductionNo)
			}
			sort.Ints(nos)
			if len(nos) != f.first-1+n-n/3 {
				t.Fatalf("%d runs, want %d", len(nos), f.first-1+n-n/3)
			}
			for i, no := range nos {
				if no != i+1 {
					t.Fatalf("numbers %v are not 1..%d", nos, len(nos))
				}
			}

			// Runs that each need more than half of one lot complete at
			// once: one succeeds, the others are refused for short stock.
			sugar := f.lot(t, "SU-2611-05")
			half := sugar.QuantityBase.Div(decimal.NewFromInt(2)).Add(decimal.NewFromInt(1))
			const racers = 8
			var ids []int
			for i := range racers {
				r := cli(t, f.db, f.args("create", "--product", "FG-BAR6", "--qty", "1", "--lot-number", fmt.Sprintf("RACE-%d", i),
					"--step", "RM-SUGAR:"+half.String())...)
				ids = append(ids, int(r["id"].(float64)))
				cli(t, f.db, f.args("start", "--id", strconv.Itoa(ids[i]))...)
			}
			results := make([]error, racers)
			start := make(chan struct{})
			for i := range racers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					results[i] = ent.RunInTx(f.ctx, f.st.Client, func(tx *ent.Tx) error {
						_, err := manufacturing.Complete(f.ctx, tx, ids[i], manufacturing.Completion{}, time.Now())
						return err
					})
				}()
			}
			close(start)
			wg.Wait()
			// SU-2611-05 is the only sellable sugar.
			ok := 0
			for _, err := range results {
				if err == nil {
					ok++
				} else if !strings.Contains(err.Error(), "Not enough sellable stock of RM-SUGAR") {
					t.Errorf("refused completion: %v", err)
				}
			}
			if ok != 1 {
				t.Fatalf("%d completions succeeded, want 1: %v", ok, results)
			}
			for _, l := range f.st.Client.ProductLot.Query().Where(productlot.QuantityBaseLT(decimal.Zero)).AllX(f.ctx) {
				t.Errorf("lot %d is negative: %s", l.ID, l.QuantityBase)
			}
			checkLedger(t, f)
		})
	}
}

type rollback struct{}

func (rollback) Error() string { return "rolled back on purpose" }

var errRollback error = rollback{}
