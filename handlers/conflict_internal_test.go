package handlers

import (
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"larder.dev/larder/ent"
	"larder.dev/larder/internal/platform/address"
	"larder.dev/larder/internal/platform/problem"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

// Two defaults of one customer written side by side, neither seeing the
// other's: the one-default index refuses the second, and the refusal is the
// answer the index's schema declares, the one the hook gives when it sees
// the first default.
func TestDefaultAddressIndexAnswer(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		if st.Dialect != "postgres" {
			t.Skip("SQLite takes its one write lock at BEGIN: no two transactions write side by side")
		}
		ctx := dbtest.NewOrg(t, st, "").Ctx(policy.Live)
		tx, err := st.Client.Tx(ctx)
		if err != nil {
			t.Fatal(err)
		}
		cust, err := tx.Customer.Create().SetCompany("Side by side").SetCustomerCode("SIDE").Save(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		create := func(tx *ent.Tx) error {
			_, err := tx.ShippingAddress.Create().SetCustomerID(cust.ID).SetAddress(address.Address{}).SetIsDefault(true).Save(ctx)
			return err
		}
		first, err := st.Client.Tx(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer first.Rollback()
		if err := create(first); err != nil {
			t.Fatal(err)
		}
		second, err := st.Client.Tx(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer second.Rollback()
		done := make(chan error, 1)
		go func() { done <- create(second) }()
		select {
		case err := <-done:
			t.Fatalf("the second default did not wait for the first: %v", err)
		case <-time.After(500 * time.Millisecond): // waiting on the index
		}
		if err := first.Commit(); err != nil {
			t.Fatal(err)
		}
		err = <-done
		var c *ent.ConstraintError
		if !errors.As(err, &c) {
			t.Fatalf("the second default: %v", err)
		}
		h := &Handler{log: slog.New(slog.NewTextHandler(io.Discard, nil))}
		p := h.classify(ctx, err)
		want := problem.Conflict(problem.DefaultAddressExists, "is_default", "The customer has a default shipping address already; set its is_default to false first.")
		if p.Code != want.Code || p.Status() != 409 || p.Detail != want.Detail || len(p.Fields) != 1 || p.Fields[0] != want.Fields[0] {
			t.Fatalf("%q answered %+v", err, p)
		}
	})
}
