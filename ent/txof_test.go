package ent_test

import (
	"context"
	"errors"
	"testing"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/supplier"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
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

// A reference check that reads the row for the hooks (annotate.CheckReads:
// a purchase order's supplier) keeps it for its transaction only, and only
// the caller's: another account's supplier is refused and kept by no one.
func TestCheckedRow(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		org, other := dbtest.NewOrg(t, st, ""), dbtest.NewOrg(t, st, "")
		ctx := org.Ctx(policy.Test)
		supplierOf := func(ctx context.Context, code string) (s *ent.Supplier) {
			t.Helper()
			err := ent.RunInTx(ctx, st.Client, func(tx *ent.Tx) (err error) {
				s, err = tx.Supplier.Create().SetSupplierCode(code).SetCompany(code + " Ltd.").Save(ctx)
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
		sup, foreign := supplierOf(ctx, "KEPT"), supplierOf(other.Ctx(policy.Test), "FOREIGN")
		before := ent.CheckedTxs()
		err := ent.RunInTx(ctx, st.Client, func(tx *ent.Tx) error {
			m := tx.PurchaseOrder.Create().SetSupplierID(sup.ID).Mutation()
			if _, ok := ent.CheckedRow[*ent.Supplier](m, supplier.Table, sup.ID); ok {
				t.Error("a row before any check")
			}
			if err := ent.CheckReferences(ctx, m); err != nil {
				return err
			}
			// Another mutation of the same transaction sees it.
			s, ok := ent.CheckedRow[*ent.Supplier](tx.Bill.Create().Mutation(), supplier.Table, sup.ID)
			if !ok || s.Company == nil || *s.Company != "KEPT Ltd." || s.AccountID != sup.AccountID {
				t.Errorf("checked supplier %+v, %v", s, ok)
			}
			if _, ok := ent.CheckedRow[*ent.Supplier](m, supplier.Table, sup.ID+1); ok {
				t.Error("a row under another id")
			}
			bad := tx.PurchaseOrder.Create().SetSupplierID(foreign.ID).Mutation()
			if err := ent.CheckReferences(ctx, bad); err == nil {
				t.Error("another account's supplier passed the check")
			}
			if _, ok := ent.CheckedRow[*ent.Supplier](bad, supplier.Table, foreign.ID); ok {
				t.Error("another account's supplier was kept")
			}
			if n := ent.CheckedTxs(); n != before+1 {
				t.Errorf("%d transactions keep rows, want %d", n, before+1)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if n := ent.CheckedTxs(); n != before {
			t.Errorf("after the commit %d transactions keep rows, want %d", n, before)
		}
		if _, ok := ent.CheckedRow[*ent.Supplier](st.Client.PurchaseOrder.Create().Mutation(), supplier.Table, sup.ID); ok {
			t.Error("a row outside a transaction")
		}
	})
}
