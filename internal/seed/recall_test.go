package seed_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/productlot"
	"larder.dev/larder/ent/salesorder"
	"larder.dev/larder/internal/modules/inventory"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/seed"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

// The recall scenario traced forward from the supplier's flour lot: the two
// completed runs that consumed it, their output lots, and the three
// customers who received them, with the partial shipment's rest on hand and
// its order still BACK_ORDER.
func TestRecallScenarioTracesForward(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		org := dbtest.NewSeededOrg(t, st)
		ctx := org.Ctx(policy.Test)
		lot := func(number string) *ent.ProductLot {
			t.Helper()
			l, err := st.Client.ProductLot.Query().Where(productlot.LotNumber(number)).Only(ctx)
			if err != nil {
				t.Fatalf("lot %s: %v", number, err)
			}
			return l
		}
		flour := lot(seed.RecallLotNumber)
		bread, rolls := lot(seed.RecallOutputLots[0]), lot(seed.RecallOutputLots[1])

		tr, err := inventory.TraceLotOf(ctx, st.Client, flour.ID, inventory.Forward, 0)
		if err != nil {
			t.Fatal(err)
		}
		if tr.Truncated {
			t.Error("the trace is truncated")
		}

		// Nodes as kind, level and what they are.
		var nodes []string
		names := map[string]string{}
		for _, n := range tr.Nodes {
			var what string
			switch n.Kind {
			case inventory.NodeLot:
				what = fmt.Sprintf("%s %s on hand %s", *n.Lot.ProductCode, *n.Lot.LotNumber, n.Lot.QuantityBase)
			case inventory.NodeProduction:
				what = fmt.Sprintf("%s %s", n.Production.Status, *n.Production.LotNumber)
			case inventory.NodeShipment:
				what = "to " + *n.Shipment.CustomerName
			case inventory.NodeBill:
				what = "from " + *n.Bill.SupplierName
			default:
				what = string(n.Kind)
			}
			names[n.ID] = what
			nodes = append(nodes, fmt.Sprintf("%d %s: %s", n.Level, n.Kind, what))
		}
		wantNodes := []string{
			"0 lot: RM-FLOUR RC-FLOUR-2611 on hand 250000",
			"1 production: COMPLETED RC-BOX12-2611",
			"1 production: COMPLETED RC-COOKIE-2611",
			"2 lot: FG-COOKIE12 RC-BOX12-2611 on hand 216",
			"2 lot: RC-COOKIE RC-COOKIE-2611 on hand 120",
			"3 shipment: to Épicerie du Marché",
			"3 shipment: to Northern Food Distributors",
			"3 shipment: to Café Alpha",
		}
		if d := cmp.Diff(wantNodes, nodes); d != "" {
			t.Errorf("nodes (-want +got):\n%s", d)
		}

		var edges []string
		for _, e := range tr.Edges {
			edges = append(edges, fmt.Sprintf("%s -> %s: %s", names[e.From], names[e.To], e.QuantityBase))
		}
		wantEdges := []string{
			"RM-FLOUR RC-FLOUR-2611 on hand 250000 -> COMPLETED RC-BOX12-2611: 30000",
			"RM-FLOUR RC-FLOUR-2611 on hand 250000 -> COMPLETED RC-COOKIE-2611: 20000",
			"COMPLETED RC-BOX12-2611 -> FG-COOKIE12 RC-BOX12-2611 on hand 216: 480",
			"COMPLETED RC-COOKIE-2611 -> RC-COOKIE RC-COOKIE-2611 on hand 120: 240",
			"FG-COOKIE12 RC-BOX12-2611 on hand 216 -> to Épicerie du Marché: 120",
			"FG-COOKIE12 RC-BOX12-2611 on hand 216 -> to Northern Food Distributors: 144",
			"RC-COOKIE RC-COOKIE-2611 on hand 120 -> to Café Alpha: 120",
		}
		if d := cmp.Diff(wantEdges, edges); d != "" {
			t.Errorf("edges (-want +got):\n%s", d)
		}

		// The recall summary: the lots to pull, the customers to call.
		var lots []string
		for _, l := range tr.Recall.Lots {
			lots = append(lots, fmt.Sprintf("%d %s %s", l.ID, *l.LotNumber, l.QuantityBase))
		}
		wantLots := []string{
			fmt.Sprintf("%d RC-FLOUR-2611 250000", flour.ID),
			fmt.Sprintf("%d RC-BOX12-2611 216", bread.ID),
			fmt.Sprintf("%d RC-COOKIE-2611 120", rolls.ID),
		}
		if d := cmp.Diff(wantLots, lots); d != "" {
			t.Errorf("recall lots (-want +got):\n%s", d)
		}
		var customers []string
		for _, c := range tr.Recall.Customers {
			for _, s := range c.Shipments {
				for _, q := range s.Lots {
					customers = append(customers, fmt.Sprintf("%s: %s %s", *c.CustomerName, *q.Lot.LotNumber, q.QuantityBase))
				}
			}
		}
		wantCustomers := []string{
			seed.RecallCustomers[0] + ": RC-BOX12-2611 120",
			seed.RecallCustomers[1] + ": RC-BOX12-2611 144",
			seed.RecallCustomers[2] + ": RC-COOKIE-2611 120",
		}
		if d := cmp.Diff(wantCustomers, customers); d != "" {
			t.Errorf("recall customers (-want +got):\n%s", d)
		}
		suppliers := func(tr *inventory.Trace) []string {
			var out []string
			for _, s := range tr.Recall.Suppliers {
				for _, r := range s.Lots {
					out = append(out, fmt.Sprintf("%s: %s %s", *s.SupplierName, *r.Lot.LotNumber, r.QuantityBase))
				}
			}
			return out
		}
		if s := suppliers(tr); len(s) != 0 {
			t.Errorf("a forward trace has suppliers: %v", s)
		}

		// The partial shipment's order waits for the rest.
		var statuses []string
		for _, n := range tr.Nodes {
			if n.Kind != inventory.NodeShipment {
				continue
			}
			o, err := st.Client.SalesOrder.Get(ctx, n.Shipment.SalesOrderID)
			if err != nil {
				t.Fatal(err)
			}
			statuses = append(statuses, fmt.Sprintf("%s %s", *n.Shipment.CustomerName, o.Status))
		}
		wantStatuses := []string{
			seed.RecallCustomers[0] + " " + string(salesorder.StatusSHIPPED),
			seed.RecallCustomers[1] + " " + string(salesorder.StatusBACK_ORDER),
			seed.RecallCustomers[2] + " " + string(salesorder.StatusSHIPPED),
		}
		if d := cmp.Diff(wantStatuses, statuses); d != "" {
			t.Errorf("orders (-want +got):\n%s", d)
		}

		// Backward, an output lot leads to the supplier's bill.
		back, err := inventory.TraceLotOf(ctx, st.Client, bread.ID, inventory.Backward, 0)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff([]string{seed.RecallSupplier + ": RC-FLOUR-2611 300000"}, suppliers(back)); d != "" {
			t.Errorf("backward suppliers (-want +got):\n%s", d)
		}
	})
}
