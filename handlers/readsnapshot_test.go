package handlers_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"larder.dev/larder/dbtest"
	"larder.dev/larder/policy"
	"larder.dev/larder/store"
	"larder.dev/larder/testaccount"
)

// A GET with a test key reads in one snapshot: the test account reset
// between the first statement of a product list (the page) and the next (a
// list of its products' suppliers, substitutes, …), which the observed
// store's hook runs just before that second statement, changes nothing in
// the answer. It is the answer of before, every product with its lists, and
// the reset did land: the next list shows the fresh seed's ids.
func TestTestKeyReadsInOneSnapshot(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		var (
			armed atomic.Bool
			sent  atomic.Int32
			org   *dbtest.Org
			reset = make(chan error, 1)
		)
		see := func(statement string) {
			if !armed.Load() || !strings.Contains(statement, "query=") {
				return
			}
			if sent.Add(1) == 2 {
				_, err := testaccount.ResetTest(context.Background(), st.Client, org.Org.ID)
				reset <- err
			}
		}
		a := newAPI(t, st.Observed(see), limit(1<<30))
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
			t.Fatalf("the list sent %d statements: no second one to reset before", sent.Load())
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
