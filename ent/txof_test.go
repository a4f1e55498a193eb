package ent_test

import (
	"errors"
	"testing"

	"larder.dev/larder/dbtest"
	"larder.dev/larder/ent"
	"larder.dev/larder/policy"
	"larder.dev/larder/store"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

// TxOf gives every mutation of one transaction the same Tx, another
// transaction another, none outside one, and forgets a transaction once it
// commits or rolls back.
func TestTxOf(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		org := dbtest.NewOrg(t, st, "")
		ctx := org.Ctx(policy.Test)
		if _, ok := ent.TxOf(st.Client.Tag.Create().Mutation()); ok {
			t.Fatal("a mutation outside a transaction has a Tx")
		}
		before := ent.OpenTxs()
		var first *ent.Tx
		err := ent.RunInTx(ctx, st.Client, func(tx *ent.Tx) error {
			a, ok := ent.TxOf(tx.Tag.Create().Mutation())
			b, _ := ent.TxOf(tx.Product.Create().Mutation())
			if !ok || a != b || ent.ClientOf(tx.Tag.Create().Mutation()) != a.Client() {
				t.Errorf("two mutations of one transaction: %p and %p", a, b)
			}
			if ent.OpenTxs() != before+1 {
				t.Errorf("%d transactions held, want %d", ent.OpenTxs(), before+1)
			}
			first = a
			// A write through the Tx's client is in the transaction.
			return a.Client().Tag.Create().SetName("held").SetRefType("PRODUCT").Exec(ctx)
		})
		if err != nil {
			t.Fatal(err)
		}
		if n := ent.OpenTxs(); n != before {
			t.Errorf("after the commit %d transactions held, want %d", n, before)
		}
		errNo := errors.New("no")
		err = ent.RunInTx(ctx, st.Client, func(tx *ent.Tx) error {
			if a, _ := ent.TxOf(tx.Tag.Create().Mutation()); a == first {
				t.Error("a second transaction got the first one's Tx")
			}
			return errNo
		})
		if !errors.Is(err, errNo) {
			t.Fatal(err)
		}
		if n := ent.OpenTxs(); n != before {
			t.Errorf("after the rollback %d transactions held, want %d", n, before)
		}
		if n, err := st.Client.Tag.Query().Count(ctx); err != nil || n != 1 {
			t.Errorf("%d tags committed (%v), want the one", n, err)
		}
	})
}
