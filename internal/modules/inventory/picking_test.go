package inventory_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"larder.dev/larder/ent/product"
	"larder.dev/larder/ent/productlot"
	"larder.dev/larder/internal/modules/inventory"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

var now = time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)

// lotSpec is a lot to make: quantity, days to expiry (0: none), QC status,
// days to the release's expiry (RELEASED; 0: none), archived.
type lotSpec struct {
	qty      string
	expires  int
	qc       productlot.QcStatus
	release  int
	archived bool
}

type fixture struct {
	st   *store.Store
	ctx  context.Context
	a, b int            // products
	lots map[string]int // name → id
}

func newFixture(t *testing.T, st *store.Store, specs map[string]lotSpec, productOf map[string]string) *fixture {
	t.Helper()
	o := dbtest.NewOrg(t, st, "")
	f := &fixture{st: st, ctx: o.Ctx(policy.Live), lots: map[string]int{}}
	tx, err := st.Client.Tx(f.ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	mk := func(code string) int {
		return tx.Product.Create().SetProductCode(code).SetName(code).SetProductType(product.ProductTypeFINISHED_GOOD).SaveX(f.ctx).ID
	}
	f.a, f.b = mk("A"), mk("B")
	for name, s := range specs {
		pid := f.a
		if productOf[name] == "B" {
			pid = f.b
		}
		c := tx.ProductLot.Create().SetProductID(pid).SetLotNumber(name).SetQuantityBase(decimal.RequireFromString(s.qty))
		if s.expires != 0 {
			c.SetExpirationDate(now.AddDate(0, 0, s.expires))
		}
		if s.qc != "" {
			c.SetQcStatus(s.qc)
			if s.release != 0 {
				c.SetQcReleaseExpiresAt(now.AddDate(0, 0, s.release))
			}
		}
		c.SetArchived(s.archived)
		f.lots[name] = c.SaveX(f.ctx).ID
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	return f
}

// pick runs inventory.Pick in a transaction it rolls back, and words the
// takes as "lot:qty" per draw, or the refusal.
func (f *fixture) pick(t *testing.T, draws ...inventory.Draw) string {
	t.Helper()
	tx, err := f.st.Client.Tx(f.ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	takes, err := inventory.Pick(f.ctx, tx, draws, nil, now)
	return f.words(takes, err)
}

func (f *fixture) words(takes [][]inventory.Take, err error) string {
	var r *inventory.Refusal
	if errors.As(err, &r) {
		return fmt.Sprintf("refused %d %s %s %s", r.Draw, r.Kind, r.Why, r.Left)
	}
	if err != nil {
		return "error " + err.Error()
	}
	names := map[int]string{}
	for n, id := range f.lots {
		names[id] = n
	}
	var out []string
	for _, ts := range takes {
		var w []string
		for _, x := range ts {
			w = append(w, names[x.Lot.ID]+":"+x.Quantity.String())
		}
		out = append(out, strings.Join(w, ","))
	}
	return strings.Join(out, " | ")
}

// docs/api-behaviour.md, "Lot picking", pinned lot by lot: first-expiring sellable lots
// (AVAILABLE, or RELEASED with no or a future release expiry; never
// expired, archived or empty; no expiry last; id breaks ties), draws in
// order sharing what is left, named lots checked, refusals that name the
// draw and what was left.
func TestPick(t *testing.T) {
	t.Parallel()
	for _, b := range dbtest.Backends(t) {
		t.Run(string(b), func(t *testing.T) {
			t.Parallel()
			st := dbtest.Open(t, b)
			f := newFixture(t, st, map[string]lotSpec{
				"expired":    {qty: "100", expires: -1},
				"quarantine": {qty: "100", expires: 1, qc: productlot.QcStatusQUARANTINE},
				"released":   {qty: "3", expires: 2, qc: productlot.QcStatusRELEASED, release: 5},
				"lapsed":     {qty: "100", expires: 2, qc: productlot.QcStatusRELEASED, release: -1},
				"archived":   {qty: "100", expires: 2, archived: true},
				"empty":      {qty: "0", expires: 2},
				"soon":       {qty: "2.5", expires: 3},
				"later":      {qty: "4", expires: 10},
				"never":      {qty: "50"},
				"other":      {qty: "7", expires: 1},
			}, map[string]string{"other": "B"})
			A := func(q string) inventory.Draw {
				return inventory.Draw{Product: f.a, Quantity: decimal.RequireFromString(q)}
			}
			named := func(lot, q string) inventory.Draw {
				return inventory.Draw{Lot: f.lots[lot], Product: f.a, Quantity: decimal.RequireFromString(q)}
			}
			for _, tc := range []struct {
				draws []inventory.Draw
				want  string
			}{
				{[]inventory.Draw{A("2")}, "released:2"},
				{[]inventory.Draw{A("9")}, "released:3,soon:2.5,later:3.5"},
				{[]inventory.Draw{A("3"), A("3")}, "released:3 | soon:2.5,later:0.5"},
				{[]inventory.Draw{A("59.5")}, "released:3,soon:2.5,later:4,never:50"},
				{[]inventory.Draw{A("1"), A("59")}, "refused 1 short  58.5"},
				{[]inventory.Draw{named("soon", "2"), A("4")}, "soon:2 | released:3,soon:0.5,later:0.5"},
				{[]inventory.Draw{A("5"), named("soon", "1")}, "refused 1 short  0.5"},
				{[]inventory.Draw{named("never", "50"), A("9.5")}, "never:50 | released:3,soon:2.5,later:4"},
				{[]inventory.Draw{named("expired", "1")}, "refused 0 not sellable expired 2026-11-23 0"},
				{[]inventory.Draw{named("quarantine", "1")}, "refused 0 not sellable QUARANTINE 0"},
				{[]inventory.Draw{named("lapsed", "1")}, "refused 0 not sellable RELEASED past its release 0"},
				{[]inventory.Draw{named("archived", "1")}, "refused 0 not sellable archived 0"},
				{[]inventory.Draw{named("other", "1")}, "refused 0 other  0"},
				{[]inventory.Draw{{Lot: f.lots["other"], Quantity: decimal.NewFromInt(7)}}, "other:7"},
				{[]inventory.Draw{{Product: f.b, Quantity: decimal.NewFromInt(8)}}, "refused 0 short  7"},
			} {
				if got := f.pick(t, tc.draws...); got != tc.want {
					t.Errorf("draws %v: %s, want %s", tc.draws, got, tc.want)
				}
			}
			// Another account's lot is not found.
			g := newFixture(t, st, map[string]lotSpec{"theirs": {qty: "5"}}, nil)
			if got := f.pick(t, inventory.Draw{Lot: g.lots["theirs"], Quantity: decimal.NewFromInt(1)}); got != "refused 0 missing  0" {
				t.Errorf("another account's lot: %s", got)
			}
		})
	}
}

// A product with more lots than one page: the pick reads further pages
// until the lots hold what is asked, in picking order (lots made in the
// reverse of it), and refuses only when all of them fall short.
func TestPickPages(t *testing.T) {
	t.Parallel()
	for _, b := range dbtest.Backends(t) {
		t.Run(string(b), func(t *testing.T) {
			t.Parallel()
			st := dbtest.Open(t, b)
			specs, of := map[string]lotSpec{}, map[string]string{}
			for i := 40; i >= 1; i-- {
				name := fmt.Sprintf("b%02d", i)
				specs[name], of[name] = lotSpec{qty: "1", expires: i}, "B"
			}
			specs["a"] = lotSpec{qty: "100", expires: 1}
			f := newFixture(t, st, specs, of)
			draw := func(p int, q int64) inventory.Draw {
				return inventory.Draw{Product: p, Quantity: decimal.NewFromInt(q)}
			}
			want := func(from, to int) string {
				var w []string
				for i := from; i <= to; i++ {
					w = append(w, fmt.Sprintf("b%02d:1", i))
				}
				return strings.Join(w, ",")
			}
			for _, tc := range []struct {
				draws []inventory.Draw
				want  string
			}{
				{[]inventory.Draw{draw(f.b, 3)}, want(1, 3)},
				{[]inventory.Draw{draw(f.a, 5), draw(f.b, 35)}, "a:5 | " + want(1, 35)},
				{[]inventory.Draw{draw(f.b, 30), draw(f.b, 10)}, want(1, 30) + " | " + want(31, 40)},
				{[]inventory.Draw{draw(f.b, 41)}, "refused 0 short  40"},
			} {
				if got := f.pick(t, tc.draws...); got != tc.want {
					t.Errorf("draws %v:\n%s, want\n%s", tc.draws, got, tc.want)
				}
			}
		})
	}
}

// On PostgreSQL a pick locks what it takes from and no more: the lots after
// the first that cover the draw stay free for other transactions, also when
// the pick read more than one page of lots to find them.
func TestPickLocksOnlyWhatItReaches(t *testing.T) {
	t.Parallel()
	st := postgres(t, "row locks are PostgreSQL's; SQLite serialises writers")
	specs := map[string]lotSpec{"never": {qty: "5"}}
	for i := 1; i <= 40; i++ {
		specs[fmt.Sprintf("l%02d", i)] = lotSpec{qty: "1", expires: i}
	}
	f := newFixture(t, st, specs, nil)
	for _, n := range []int{6, 20} {
		tx, err := st.Client.Tx(f.ctx)
		if err != nil {
			t.Fatal(err)
		}
		takes, err := inventory.Pick(f.ctx, tx, []inventory.Draw{{Product: f.a, Quantity: decimal.NewFromInt(int64(n))}}, nil, now)
		if err != nil || len(takes[0]) != n {
			t.Fatalf("picking %d: %s", n, f.words(takes, err))
		}
		for name, id := range f.lots {
			var i int
			fmt.Sscanf(name, "l%d", &i)
			locked := i >= 1 && i <= n
			_, err := st.DB.ExecContext(context.Background(), "SELECT id FROM product_lots WHERE id = $1 FOR UPDATE NOWAIT", id)
			if got := err != nil; got != locked {
				t.Errorf("picking %d, lot %s: locked %v, want %v (%v)", n, name, got, locked, err)
			}
		}
		tx.Rollback()
	}
}

// When the first lots are emptied by a transaction that commits while a
// pick waits for their locks, the pick goes on to the next lots instead of
// refusing for short stock.
func TestPickAfterConcurrentTake(t *testing.T) {
	t.Parallel()
	st := postgres(t, "concurrent writers are PostgreSQL's; SQLite serialises them")
	f := newFixture(t, st, map[string]lotSpec{"first": {qty: "5", expires: 1}, "second": {qty: "5", expires: 2}}, nil)
	draw := []inventory.Draw{{Product: f.a, Quantity: decimal.NewFromInt(5)}}
	a, err := st.Client.Tx(f.ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Rollback()
	if takes, err := inventory.Pick(f.ctx, a, draw, nil, now); f.words(takes, err) != "first:5" {
		t.Fatalf("first pick: %s", f.words(takes, err))
	}
	if _, err := a.ExecContext(f.ctx, "UPDATE product_lots SET quantity_base = 0 WHERE id = $1", f.lots["first"]); err != nil {
		t.Fatal(err)
	}
	done := make(chan string)
	go func() {
		b, err := st.Client.Tx(f.ctx)
		if err != nil {
			done <- err.Error()
			return
		}
		defer b.Rollback()
		takes, err := inventory.Pick(f.ctx, b, draw, nil, now)
		done <- f.words(takes, err)
	}()
	// Commit once the second pick waits for the first lot's lock.
	deadline := time.Now().Add(10 * time.Second)
	for {
		var waiting int
		err := st.DB.QueryRowContext(context.Background(),
			"SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%product_lots%'").Scan(&waiting)
		if err != nil {
			t.Fatal(err)
		}
		if waiting > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the second pick never waited for the first lot")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := a.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := <-done; got != "second:5" {
		t.Fatalf("the second pick: %s, want second:5", got)
	}
}

// postgres opens the package's PostgreSQL database, or skips the test,
// saying why, when this run has none.
func postgres(t *testing.T, why string) *store.Store {
	for _, b := range dbtest.Backends(t) {
		if b == dbtest.Postgres {
			return dbtest.Open(t, b)
		}
	}
	t.Skip("PostgreSQL only (" + why + "); set LARDER_TEST_POSTGRES_URL")
	return nil
}
