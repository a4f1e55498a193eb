package handlers_test

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"larder.dev/larder/internal/modules/testaccount"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

// A GET with a test key reads in one snapshot: the test account reset
// between the first statement of a product list's snapshot (the page) and
// the next (a list of its products' suppliers, substitutes, …), which the
// observed store's hook runs, on another pool, just before the database gets
// that second statement, changes nothing in the answer. It is the answer of
// before, every product with its lists, and the reset did land: the next
// list shows the fresh seed's ids. The snapshot is the transaction the
// request begins after authenticating; the stamp of the key's last use,
// written off the request's path, is no statement of it.
func TestTestKeyReadsInOneSnapshot(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		var (
			armed atomic.Bool
			mu    sync.Mutex
			began bool // the request's snapshot began
			sent  int  // statements sent to the snapshot
			org   *dbtest.Org
			reset = make(chan error, 1)
		)
		see := func(c store.Call) {
			if !armed.Load() || strings.Contains(c.SQL, "UPDATE api_keys SET last_used_at") {
				return
			}
			mu.Lock()
			switch {
			case c.Op == store.OpBegin:
				began = true
			case began && c.Statement():
				sent++
				if sent == 2 {
					_, err := testaccount.ResetTest(context.Background(), st.Client, org.Org.ID)
					reset <- err
				}
			}
			mu.Unlock()
		}
		a := newAPI(t, dbtest.Observed(t, st, see), limit(1<<30))
		org = dbtest.NewSeededOrg(t, st)
		a.key = org.Key(t, policy.Test, "all")
		const products = "/v1/products?limit=200"
		before := a.get(products).want(200).List()

		armed.Store(true)
		during := a.get(products).want(200).List()
		armed.Store(false)
		select {
		case err := <-reset:
			if err != nil {
				t.Fatal(err)
			}
		default:
			mu.Lock()
			defer mu.Unlock()
			t.Fatalf("the list began a snapshot (%v) and sent it %d statements: no second one to reset before", began, sent)
		}
		if diff := cmp.Diff(before, during); diff != "" {
			t.Errorf("a list with a reset between its statements differs from the list of before (-before +during):\n%s", diff)
		}
		after := a.get(products).want(200).List()
		if len(after) != len(before) || len(after) == 0 {
			t.Fatalf("after the reset: %d products, before: %d", len(after), len(before))
		}
		if after[0]["id"] == before[0]["id"] {
			t.Errorf("after the reset the first product is still %v: the reset did not land", after[0]["id"])
		}
	})
}
