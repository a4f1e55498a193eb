package handlers_test

import (
	"sync"
	"testing"

	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

// With `--db-statements 0` (behind a pooler in transaction mode, where one
// server connection serves many clients in turn) the server prepares no
// statement at all: not its key lookups, not the rate limit's upsert, not
// the statement cache's. Each statement goes with its text. With the
// default, the key's lookup is prepared.
func TestNoStatementPreparedWhenTurnedOff(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		for _, c := range []struct {
			statements int
			prepares   bool
		}{{0, false}, {256, true}} {
			var (
				mu       sync.Mutex
				prepared []string
			)
			see := func(c store.Call) {
				if c.Op == store.OpPrepare || c.Prepared {
					mu.Lock()
					prepared = append(prepared, c.String())
					mu.Unlock()
				}
			}
			a := newAPI(t, dbtest.ObservedKeeping(t, st, c.statements, see), limit(1<<30))
			org := dbtest.NewSeededOrg(t, st)
			a.key = org.Key(t, policy.Test, "all")
			a.get("/v1/organization").want(200)
			a.get("/v1/products?limit=20").want(200)
			a.post("/v1/tags", map[string]any{"name": "Unprepared", "ref_type": "PRODUCT"}).want(201)
			a.get("/v1/organization").want(200)
			mu.Lock()
			got := len(prepared) > 0
			if got != c.prepares {
				t.Errorf("--db-statements %d: statements prepared or run prepared: %q; want any: %v", c.statements, prepared, c.prepares)
			}
			mu.Unlock()
		}
	})
}
