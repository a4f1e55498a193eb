package handlers_test

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"entgo.io/ent/dialect"
	"github.com/google/go-cmp/cmp"

	"larder.dev/larder/ent"
	"larder.dev/larder/internal/platform/config"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

// costFields are the cost fields of the ent type name, as the generated
// access table lists them.
func costFields(t *testing.T, name string) []string {
	t.Helper()
	for _, s := range ent.Access {
		if s.Name == name {
			if len(s.Costs) == 0 {
				t.Fatalf("%s has no cost fields", name)
			}
			return s.Costs
		}
	}
	t.Fatalf("no schema %s", name)
	return nil
}

// A replay is the first answer as the replaying key may see it: a key without
// cost:read never receives the costs a key with it created, and a key with it
// receives the costs of a document created without it. Every cost field of
// the document and its lines, for purchase orders and bills.
func TestIdempotentReplayRedactsCosts(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		a = seeded(t, a)
		flour := a.productID("RM-FLOUR")
		sup := a.supplierFor("REDACT")
		blind, _ := a.newKey(policy.Test, "purchasing:read,purchasing:write")
		for _, c := range []struct {
			collection, doc, line string
			body                  func(lot string) map[string]any
		}{
			{"/v1/purchase-orders", "PurchaseOrder", "PurchaseOrderLine", func(string) map[string]any {
				return map[string]any{"supplier_id": sup, "lines": []any{line(flour, 2, "cost", 3.25, "discount_rate", 10)}}
			}},
			{"/v1/bills", "Bill", "BillLine", func(lot string) map[string]any {
				return map[string]any{"supplier_id": sup, "bill_date": "2026-11-24",
					"lines": []any{line(flour, 2, "cost", 3.25, "discount_rate", 10, "lot_number", lot)}}
			}},
		} {
			docCosts, lineCosts := costFields(t, c.doc), costFields(t, c.line)
			// costs lists the cost fields of data that are not null.
			costs := func(data map[string]any) []string {
				var shown []string
				for _, f := range docCosts {
					if data[f] != nil {
						shown = append(shown, f)
					}
				}
				for i, l := range data["lines"].([]any) {
					for _, f := range lineCosts {
						if l.(map[string]any)[f] != nil {
							shown = append(shown, fmt.Sprintf("lines[%d].%s", i, f))
						}
					}
				}
				return shown
			}
			// same fails unless the replay's data is what a read by key shows.
			same := func(replay *response, key string) {
				t.Helper()
				read := a.do("GET", path(c.collection, replay.ID()), key, nil).want(200).Data()
				if d := cmp.Diff(read, replay.Data()); d != "" {
					t.Errorf("%s: the replay differs from a read by the same key (-read +replay):\n%s", c.collection, d)
				}
			}

			a.run(t, c.doc+" created with cost:read, replayed without", func(t *testing.T, a *api) {
				body := c.body("RED-1")
				first := a.do("POST", c.collection, a.key, body, "Idempotency-Key", c.doc+"-costly").want(201)
				if shown := costs(first.Data()); !contains(shown, "subtotal") || !contains(shown, "lines[0].cost") || !contains(shown, "lines[0].discount_rate") {
					t.Fatalf("the creator with cost:read sees %v", shown)
				}
				replay := a.do("POST", c.collection, blind, body, "Idempotency-Key", c.doc+"-costly").want(200)
				if shown := costs(replay.Data()); len(shown) > 0 {
					t.Errorf("a replay without cost:read shows %v", shown)
				}
				same(replay, blind)
				// The creator's own replay is still its first answer, byte for byte.
				if again := a.do("POST", c.collection, a.key, body, "Idempotency-Key", c.doc+"-costly").want(200); string(again.Body) != string(first.Body) {
					t.Errorf("the replay with cost:read differs:\n%s\n%s", first.Body, again.Body)
				}
			})

			a.run(t, c.doc+" created without cost:read, replayed with it", func(t *testing.T, a *api) {
				body := c.body("RED-2")
				first := a.do("POST", c.collection, blind, body, "Idempotency-Key", c.doc+"-blind").want(201)
				if shown := costs(first.Data()); len(shown) > 0 {
					t.Fatalf("the creator without cost:read sees %v", shown)
				}
				replay := a.do("POST", c.collection, a.key, body, "Idempotency-Key", c.doc+"-blind").want(200)
				if shown := costs(replay.Data()); !contains(shown, "subtotal") || !contains(shown, "lines[0].cost") || !contains(shown, "lines[0].discount_rate") {
					t.Errorf("a replay with cost:read shows only %v", shown)
				}
				same(replay, a.key)
				if again := a.do("POST", c.collection, blind, body, "Idempotency-Key", c.doc+"-blind").want(200); string(again.Body) != string(first.Body) {
					t.Errorf("the replay without cost:read differs from the first answer:\n%s\n%s", first.Body, again.Body)
				}
			})
		}
	})
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// faults makes the database refuse, for one account, the insert of a
// purchase order ("work") or the delete of an Idempotency-Key record
// ("release"), as a database that restarts refuses them.
type faults struct {
	t       *testing.T
	db      *sql.DB
	dialect string
	account int
}

func newFaults(t *testing.T, st *store.Store, account int) *faults {
	t.Helper()
	f := &faults{t: t, db: st.DB, dialect: st.Dialect, account: account}
	var stmts []string
	if st.Dialect == dialect.Postgres {
		stmts = []string{
			`CREATE TABLE IF NOT EXISTS test_faults (what text NOT NULL, account_id bigint NOT NULL)`,
			// On a Citus cluster the triggers run on the workers, beside the
			// shards of purchase_orders and idempotency_keys: there the
			// faults must be readable too, so the table is on every node.
			`DO $$ BEGIN
				IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') THEN
					IF NOT EXISTS (SELECT 1 FROM pg_dist_partition WHERE logicalrelid = 'test_faults'::regclass) THEN
						PERFORM create_reference_table('test_faults');
					END IF;
				END IF;
			END $$`,
			`CREATE OR REPLACE FUNCTION test_fault() RETURNS trigger LANGUAGE plpgsql AS $$
			BEGIN
				IF EXISTS (SELECT 1 FROM test_faults WHERE what = TG_ARGV[0] AND account_id = COALESCE(NEW.account_id, OLD.account_id)) THEN
					RAISE EXCEPTION 'test fault: %', TG_ARGV[0];
				END IF;
				RETURN COALESCE(NEW, OLD);
			END $$`,
			// Citus refuses a trigger on a distributed table unless told it
			// is wanted; PostgreSQL alone keeps the setting as a placeholder.
			`SET LOCAL citus.enable_unsafe_triggers = on`,
			`CREATE OR REPLACE TRIGGER test_fault_work BEFORE INSERT ON purchase_orders FOR EACH ROW EXECUTE FUNCTION test_fault('work')`,
			`CREATE OR REPLACE TRIGGER test_fault_release BEFORE DELETE ON idempotency_keys FOR EACH ROW EXECUTE FUNCTION test_fault('release')`,
		}
	} else {
		stmts = []string{
			`CREATE TABLE IF NOT EXISTS test_faults (what text NOT NULL, account_id integer NOT NULL)`,
			`CREATE TRIGGER IF NOT EXISTS test_fault_work BEFORE INSERT ON purchase_orders
			WHEN EXISTS (SELECT 1 FROM test_faults WHERE what = 'work' AND account_id = NEW.account_id)
			BEGIN SELECT RAISE(ABORT, 'test fault: work'); END`,
			`CREATE TRIGGER IF NOT EXISTS test_fault_release BEFORE DELETE ON idempotency_keys
			WHEN EXISTS (SELECT 1 FROM test_faults WHERE what = 'release' AND account_id = OLD.account_id)
			BEGIN SELECT RAISE(ABORT, 'test fault: release'); END`,
		}
	}
	tx, err := st.DB.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	for _, s := range stmts {
		if _, err := tx.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.set() })
	return f
}

// set makes the database refuse exactly what.
func (f *faults) set(what ...string) {
	f.t.Helper()
	if _, err := f.db.Exec(f.bind(`DELETE FROM test_faults WHERE account_id = $1`), f.account); err != nil {
		f.t.Fatal(err)
	}
	for _, w := range what {
		if _, err := f.db.Exec(f.bind(`INSERT INTO test_faults (what, account_id) VALUES ($1, $2)`), w, f.account); err != nil {
			f.t.Fatal(err)
		}
	}
}

func (f *faults) bind(q string) string {
	if f.dialect == dialect.SQLite {
		return strings.NewReplacer("$1", "?", "$2", "?").Replace(q)
	}
	return q
}

// A create whose work and then whose release failed (the database refused
// both) does not block a retry: once its request has ended, a retry with the
// same key and body does the work, long before the request's deadline; the
// release's failure is logged with the request's id.
func TestIdempotencyRetryAfterFailedRelease(t *testing.T) {
	t.Parallel()
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		var logs lockedBuffer
		a := seeded(t, newAPILogging(t, st, &logs))
		flour := a.productID("RM-FLOUR")
		sup := a.supplierFor("FAULT")
		body := map[string]any{"supplier_id": sup, "lines": []any{line(flour, 2, "cost", 3)}}
		f := newFaults(t, st, a.org.Test.ID)
		send := func() *response {
			return a.do("POST", "/v1/purchase-orders", a.key, body, "Idempotency-Key", "fault-1")
		}

		f.set("work", "release")
		failed := send()
		failed.problem(500, "INTERNAL_ERROR")
		// The release did fail: the claim is still recorded.
		held, err := a.st.Client.IdempotencyKey.Query().Count(a.org.Ctx(policy.Test))
		if err != nil || held != 1 {
			t.Fatalf("%d key records (%v), want the one whose release failed", held, err)
		}
		id := failed.Header.Get("X-Request-Id")
		if l := logs.String(); !strings.Contains(l, "idempotency key not released") || !strings.Contains(l, "request_id="+id) {
			t.Errorf("the failed release is not logged with request_id=%s:\n%s", id, l)
		}

		f.set()
		created := send().want(201)
		if r := send().want(200); r.ID() != created.ID() {
			t.Fatalf("the replay names order %d, the retry created %d", r.ID(), created.ID())
		}
		orders := a.get(fmt.Sprintf("/v1/purchase-orders?supplier_id=%d", sup)).want(200).List()
		if len(orders) != 1 {
			t.Fatalf("%d orders, want the retry's only", len(orders))
		}
	})
}

// On PostgreSQL, a request whose key's row another transaction holds answers
// within a second of its timeout, with a problem document, though neither
// its work nor its release can touch the row; while it runs a duplicate is
// told 409 IDEMPOTENCY_KEY_IN_USE with Retry-After, and once it has answered
// a retry does the work.
func TestIdempotencyKeyRowHeld(t *testing.T) {
	t.Parallel()
	if dbtest.AdminURL() == "" {
		t.Skipf("needs PostgreSQL (%s): row locks held by another transaction", dbtest.EnvPostgres)
	}
	st := dbtest.Open(t, dbtest.Postgres)
	const timeout = time.Second
	var logs lockedBuffer
	a := seeded(t, newAPILogging(t, st, &logs, func(c *config.Config) { c.RequestTimeout = timeout }))
	flour := a.productID("RM-FLOUR")
	sup := a.supplierFor("HELD")
	body := map[string]any{"supplier_id": sup, "lines": []any{line(flour, 2, "cost", 3)}}
	account := a.org.Test.ID
	ctx := context.Background()
	send := func() *response {
		return a.do("POST", "/v1/purchase-orders", a.key, body, "Idempotency-Key", "held-1")
	}

	// Hold the work before it reaches the key: the account's document
	// counters, which numbering the order takes.
	counters, err := st.DB.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer counters.Rollback()
	if res, err := counters.Exec(`SELECT 1 FROM document_counters WHERE account_id = $1 FOR UPDATE`, account); err != nil {
		t.Fatal(err)
	} else if n, _ := res.RowsAffected(); n == 0 {
		t.Fatal("the seeded account has no document counters to hold")
	}

	type answer struct {
		r    *response
		took time.Duration
	}
	done := make(chan answer, 1)
	start := time.Now()
	go func() {
		r := send()
		done <- answer{r, time.Since(start)}
	}()

	// Once the key is claimed, hold its row too, then let the work go on to
	// the key, where it waits.
	var key int
	for deadline := time.Now().Add(10 * time.Second); ; {
		err := st.DB.QueryRow(`SELECT id FROM idempotency_keys WHERE account_id = $1 AND key = 'held-1'`, account).Scan(&key)
		if err == nil {
			break
		}
		if err != sql.ErrNoRows || time.Now().After(deadline) {
			t.Fatalf("the key was not claimed: %v", err)
		}
		time.Sleep(5 * time.Millisecond)
	}
	row, err := st.DB.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer row.Rollback()
	// By account and id: on a cluster a row lock is taken on one shard only.
	if res, err := row.Exec(`SELECT 1 FROM idempotency_keys WHERE account_id = $1 AND id = $2 FOR UPDATE`, account, key); err != nil {
		t.Fatal(err)
	} else if n, _ := res.RowsAffected(); n != 1 {
		t.Fatalf("held %d key rows, want the claimed one", n)
	}

	// The first request is still running: a duplicate is refused, and told
	// when to come back, within the first's timeout plus a second.
	dup := send()
	dup.problem(409, "IDEMPOTENCY_KEY_IN_USE")
	if s, err := strconv.Atoi(dup.Header.Get("Retry-After")); err != nil || s < 1 || s > 2 {
		t.Errorf("Retry-After %q, want 1 or 2 seconds", dup.Header.Get("Retry-After"))
	}
	if err := counters.Rollback(); err != nil {
		t.Fatal(err)
	}

	var first answer
	select {
	case first = <-done:
	case <-time.After(timeout + 3*time.Second):
		row.Rollback() // let it go, so the test ends
		t.Fatalf("no answer %v after the request started (timeout %v)", time.Since(start), timeout)
	}
	t.Logf("answered after %v", first.took)
	if first.took > timeout+time.Second {
		t.Errorf("answered after %v; the timeout is %v", first.took, timeout)
	}
	first.r.problem(500, "INTERNAL_ERROR")
	id := first.r.Header.Get("X-Request-Id")
	if l := logs.String(); !strings.Contains(l, "idempotency key not released") || !strings.Contains(l, "request_id="+id) {
		t.Errorf("the failed release is not logged with request_id=%s:\n%s", id, l)
	}

	// The first request has ended; the row is free again: a retry works.
	if err := row.Rollback(); err != nil {
		t.Fatal(err)
	}
	created := send().want(201)
	if r := send().want(200); r.ID() != created.ID() {
		t.Fatalf("the replay names order %d, the retry created %d", r.ID(), created.ID())
	}
	if orders := a.get(fmt.Sprintf("/v1/purchase-orders?supplier_id=%d", sup)).want(200).List(); len(orders) != 1 {
		t.Fatalf("%d orders, want the retry's only", len(orders))
	}
}
