package main

import (
	"context"
	"strconv"
	"testing"

	"larder.dev/larder/ent/bill"
	"larder.dev/larder/ent/event"
	"larder.dev/larder/ent/invoice"
	"larder.dev/larder/ent/productlot"
	"larder.dev/larder/ent/salesorder"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/restapi"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

// docs/operators.md, "Commands": `larder bill cancel` and `larder invoice cancel`
// keep the document, mark it cancelled with the day, send <kind>.cancelled
// as an app event and leave the stock it moved; a second cancel and another
// account's document are refused.
func TestCancelCommands(t *testing.T) {
	t.Parallel()
	for _, b := range dbtest.Backends(t) {
		t.Run(string(b), func(t *testing.T) {
			db := dbtest.MigratedURL(t, b)
			o := cli(t, db, "org", "create", "--name", "Canceller")
			org := strconv.Itoa(int(o["id"].(float64)))
			test := int(o["accounts"].(map[string]any)["test"].(map[string]any)["id"].(float64))
			st, err := store.Open(context.Background(), db, store.Options{Snapshots: restapi.Snapshots{}})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			ctx := policy.App(context.Background(), test, policy.Test)
			open, err := st.Client.Bill.Query().Where(bill.IsCancelled(false)).WithLines().Order(bill.ByID()).First(ctx)
			if err != nil {
				t.Fatal("the seeded account has no open bill:", err)
			}
			inv, err := st.Client.Invoice.Query().Where(invoice.IsCancelled(false)).Order(invoice.ByID()).First(ctx)
			if err != nil {
				t.Fatal("the seeded account has no open invoice:", err)
			}
			lotID := *open.Edges.Lines[0].LotID
			lotBefore := st.Client.ProductLot.Query().Where(productlot.ID(lotID)).OnlyX(ctx).QuantityBase
			orderBefore := st.Client.SalesOrder.Query().Where(salesorder.ID(inv.SalesOrderID)).OnlyX(ctx).Status
			for _, tc := range []struct {
				kind string
				id   int
				no   int
			}{{"bill", open.ID, open.BillNo}, {"invoice", inv.ID, inv.InvoiceNo}} {
				args := func(env string) []string {
					return []string{tc.kind, "cancel", "--org", org, "--env", env, "--id", strconv.Itoa(tc.id)}
				}
				got := cli(t, db, args("test")...)
				if got["id"] != float64(tc.id) || got["is_cancelled"] != true || got["cancelled_at"] == nil || got[tc.kind+"_no"] != float64(tc.no) {
					t.Fatalf("%s cancel: %v", tc.kind, got)
				}
				evs, err := st.Client.Event.Query().Where(event.Type(tc.kind+".cancelled"), event.ResourceID(tc.id)).All(policy.System(ctx))
				if err != nil || len(evs) != 1 || evs[0].Source != event.SourceApp || evs[0].AccountID != test {
					t.Fatalf("%s.cancelled events %v, %v; want one app event of the test account", tc.kind, evs, err)
				}
				fails(t, db, "cancelled already", args("test")...)
				fails(t, db, "no such "+tc.kind, args("live")...)
				fails(t, db, "needs --id", tc.kind, "cancel", "--org", org, "--env", "test")
				if n := appEvents(t, db, org, tc.kind+".cancelled"); n != 1 {
					t.Fatalf("%d %s.cancelled events after refusals, want 1", n, tc.kind)
				}
			}
			if !st.Client.Bill.GetX(ctx, open.ID).IsCancelled || !st.Client.Invoice.GetX(ctx, inv.ID).IsCancelled {
				t.Fatal("a document was not kept cancelled")
			}
			if q := st.Client.ProductLot.Query().Where(productlot.ID(lotID)).OnlyX(ctx).QuantityBase; !q.Equal(lotBefore) {
				t.Fatalf("the bill's lot went from %s to %s: cancelling moves no stock", lotBefore, q)
			}
			if s := st.Client.SalesOrder.Query().Where(salesorder.ID(inv.SalesOrderID)).OnlyX(ctx).Status; s != orderBefore {
				t.Fatalf("the invoice's order went from %s to %s", orderBefore, s)
			}
		})
	}
}
