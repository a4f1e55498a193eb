package main

import (
	"context"
	"strconv"
	"testing"

	"larder.dev/larder/dbtest"
	"larder.dev/larder/ent/bill"
	"larder.dev/larder/ent/event"
	"larder.dev/larder/ent/productlot"
	"larder.dev/larder/policy"
	"larder.dev/larder/store"
)

// DECISIONS "Admin CLI": `larder bill cancel` keeps the bill, marks it
// cancelled with the day, sends bill.cancelled as an app event and leaves the
// stock it received; a second cancel and another account's bill are refused.
func TestBillCancel(t *testing.T) {
	t.Parallel()
	for _, b := range dbtest.Backends(t) {
		t.Run(string(b), func(t *testing.T) {
			db := dbtest.URL(t, b)
			o := cli(t, db, "org", "create", "--name", "Bill payer")
			org := strconv.Itoa(int(o["id"].(float64)))
			test := int(o["accounts"].(map[string]any)["test"].(map[string]any)["id"].(float64))
			st, err := store.Open(context.Background(), db, store.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			ctx := policy.App(context.Background(), test, policy.Test)
			open, err := st.Client.Bill.Query().Where(bill.IsCancelled(false)).WithLines().Order(bill.ByID()).First(ctx)
			if err != nil {
				t.Fatal("the seeded account has no open bill:", err)
			}
			lotID := *open.Edges.Lines[0].LotID
			before, err := st.Client.ProductLot.Query().Where(productlot.ID(lotID)).Only(ctx)
			if err != nil {
				t.Fatal(err)
			}
			id := strconv.Itoa(open.ID)
			args := func(env string) []string {
				return []string{"bill", "cancel", "--org", org, "--env", env, "--id", id}
			}
			got := cli(t, db, args("test")...)
			if got["id"] != float64(open.ID) || got["is_cancelled"] != true || got["cancelled_at"] == nil || got["bill_no"] != float64(open.BillNo) {
				t.Fatalf("cancel: %v", got)
			}
			kept, err := st.Client.Bill.Get(ctx, open.ID)
			if err != nil || !kept.IsCancelled || kept.CancelledAt == nil {
				t.Fatalf("the bill after cancelling: %+v, %v", kept, err)
			}
			after, err := st.Client.ProductLot.Query().Where(productlot.ID(lotID)).Only(ctx)
			if err != nil || !after.QuantityBase.Equal(before.QuantityBase) {
				t.Fatalf("the lot went from %s to %v (%v): cancelling moves no stock", before.QuantityBase, after, err)
			}
			evs, err := st.Client.Event.Query().Where(event.Type("bill.cancelled"), event.ResourceID(open.ID)).All(policy.System(ctx))
			if err != nil || len(evs) != 1 || evs[0].Source != event.SourceApp || evs[0].AccountID != test {
				t.Fatalf("bill.cancelled events %v, %v; want one app event of the test account", evs, err)
			}
			fails(t, db, "cancelled already", args("test")...)
			fails(t, db, "no such bill", args("live")...)
			fails(t, db, "needs --id", "bill", "cancel", "--org", org, "--env", "test")
			if n := appEvents(t, db, "bill.cancelled"); n != 1 {
				t.Fatalf("%d bill.cancelled events after refusals, want 1", n)
			}
		})
	}
}
