package console

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/shopspring/decimal"

	"larder.dev/larder/internal/modules/inventory"
)

// fanTrace is a trace of 56 nodes over levels -2 to 4: a supplier's lot
// (-2, with its bill at -3) into a run (-1) making the traced lot (0),
// which four runs (1) turn into four lots each (2), each shipped to two
// customers (3) — 8 runs and 32 shipments, so one column holds 32 nodes.
func fanTrace() *inventory.Trace {
	t := &inventory.Trace{LotID: 1, Direction: inventory.Both, Depth: 20}
	unit := "g"
	lot := func(id, level int) {
		n := "L-" + strconv.Itoa(id)
		name := "A product with a name far longer than a box shows"
		t.Nodes = append(t.Nodes, inventory.Node{ID: "lot-" + strconv.Itoa(id), Kind: inventory.NodeLot, Level: level,
			Lot: &inventory.TraceLot{ID: id, LotNumber: &n, ProductName: &name, UnitCode: &unit}})
	}
	edge := func(from, to string, q int64) {
		t.Edges = append(t.Edges, inventory.Edge{From: from, To: to, QuantityBase: decimal.NewFromInt(q)})
	}
	supplier := "Prairie Mills Ltd."
	t.Nodes = append(t.Nodes, inventory.Node{ID: "bill-1", Kind: inventory.NodeBill, Level: -3, Bill: &inventory.TraceBill{ID: 1, BillNo: 7, SupplierName: &supplier}})
	lot(2, -2)
	t.Nodes = append(t.Nodes, inventory.Node{ID: "production-1", Kind: inventory.NodeProduction, Level: -1, Production: &inventory.TraceProduction{ID: 1, ProductionNo: 1, Status: "COMPLETED"}})
	lot(1, 0)
	edge("bill-1", "lot-2", 50000)
	edge("lot-2", "production-1", 20000)
	edge("production-1", "lot-1", 120)
	for r := 2; r <= 5; r++ {
		t.Nodes = append(t.Nodes, inventory.Node{ID: "production-" + strconv.Itoa(r), Kind: inventory.NodeProduction, Level: 1, Production: &inventory.TraceProduction{ID: r, ProductionNo: r, Status: "COMPLETED"}})
		edge("lot-1", "production-"+strconv.Itoa(r), 10)
	}
	for i := 0; i < 16; i++ {
		id := 10 + i
		lot(id, 2)
		edge("production-"+strconv.Itoa(2+i/4), "lot-"+strconv.Itoa(id), 12)
	}
	no := 100
	for i := 0; i < 32; i++ {
		customer := fmt.Sprintf("Customer %d", i)
		s := "shipment-" + strconv.Itoa(i+1)
		t.Nodes = append(t.Nodes, inventory.Node{ID: s, Kind: inventory.NodeShipment, Level: 3, Shipment: &inventory.TraceShipment{ID: i + 1, InvoiceNo: &no, CustomerName: &customer}})
		edge("lot-"+strconv.Itoa(10+i/2), s, 6)
	}
	return t
}

// The drawing of a trace of 56 nodes: one column per level, left to right
// from the most upstream; each column's boxes top to bottom in the trace's
// order, a row apart, centred on the tallest column, none overlapping and
// all inside the drawing; each edge from the right side of its node to the
// left side of the next, its quantity in the lot's unit; long lines cut
// with an ellipsis. Drawing it again gives the same drawing.
func TestDrawLayout(t *testing.T) {
	tr := fanTrace()
	if len(tr.Nodes) != 56 {
		t.Fatalf("the trace has %d nodes", len(tr.Nodes))
	}
	d := draw(tr, "test")
	if diff := cmp.Diff(d, draw(tr, "test")); diff != "" {
		t.Fatalf("drawn twice, differently:\n%s", diff)
	}
	pitchX, pitchY := nodeWidth+columnGap, nodeHeight+rowGap
	if want := [2]int{2*traceMargin + 7*pitchX - columnGap, 2*traceMargin + 32*pitchY - rowGap}; [2]int{d.Width, d.Height} != want {
		t.Errorf("size %dx%d, want %dx%d", d.Width, d.Height, want[0], want[1])
	}
	rows := map[int]int{-3: 1, -2: 1, -1: 1, 0: 1, 1: 4, 2: 16, 3: 32}
	seen := map[int]int{}
	for i, n := range d.Nodes {
		level := tr.Nodes[i].Level
		if n.ID != tr.Nodes[i].ID {
			t.Fatalf("box %d is %s, want %s", i, n.ID, tr.Nodes[i].ID)
		}
		x := traceMargin + (level+3)*pitchX
		y := traceMargin + (32-rows[level])*pitchY/2 + seen[level]*pitchY
		seen[level]++
		if n.X != x || n.Y != y || n.W != nodeWidth || n.H != nodeHeight {
			t.Errorf("%s at %d,%d %dx%d, want %d,%d", n.ID, n.X, n.Y, n.W, n.H, x, y)
		}
		if n.X < 0 || n.Y < 0 || n.X+n.W > d.Width || n.Y+n.H > d.Height {
			t.Errorf("%s is outside the drawing", n.ID)
		}
		for _, o := range d.Nodes[:i] {
			if n.X < o.X+o.W && o.X < n.X+n.W && n.Y < o.Y+o.H && o.Y < n.Y+n.H {
				t.Errorf("%s overlaps %s", n.ID, o.ID)
			}
		}
	}
	byID := map[string]drawnNode{}
	for _, n := range d.Nodes {
		byID[n.ID] = n
	}
	for i, e := range d.Edges {
		from, to := byID[e.From], byID[e.To]
		start := fmt.Sprintf("M%d %d ", from.X+from.W, from.Y+from.H/2)
		end := fmt.Sprintf(" %d %d", to.X, to.Y+to.H/2)
		if !strings.HasPrefix(e.Path, start) || !strings.HasSuffix(e.Path, end) {
			t.Errorf("edge %s→%s is %q, want from %q to %q", e.From, e.To, e.Path, start, end)
		}
		if want := grouped(tr.Edges[i].QuantityBase) + " g"; e.Label != want {
			t.Errorf("edge %s→%s says %q, want %q", e.From, e.To, e.Label, want)
		}
	}
	traced := byID["lot-1"]
	if !traced.Traced || traced.Link != "/console/lots/1?env=test" || byID["lot-2"].Traced {
		t.Errorf("the traced lot's box: %+v", traced)
	}
	if got, want := traced.Line2, "A product with a name far longer …"; got != want || len([]rune(got)) != labelRunes {
		t.Errorf("a long line is %q, want %q", got, want)
	}
	if got, want := traced.Full, "Traced lot: L-1, A product with a name far longer than a box shows"; got != want {
		t.Errorf("the box's title is %q, want %q", got, want)
	}
	if bill := byID["bill-1"]; bill.Link != "/console/bills/1?env=test" || bill.Line1 != "Bill 7" || bill.Line2 != "Prairie Mills Ltd." {
		t.Errorf("the bill's box: %+v", bill)
	}
	if want := "56 nodes in 7 columns joined by 55 edges"; !strings.HasPrefix(d.Desc, want) {
		t.Errorf("the description %q does not start %q", d.Desc, want)
	}
}

// The recall summary writes its quantities as every page does: thousands
// separated, in the lot's unit.
func TestRecallQuantitiesGrouped(t *testing.T) {
	unit, n, customer, supplier := "g", "L-1", "Corner Store", "Prairie Mills Ltd."
	lot := &inventory.TraceLot{ID: 1, LotNumber: &n, UnitCode: &unit}
	no := 12
	tr := &inventory.Trace{LotID: 1, Direction: inventory.Both, Depth: 20}
	tr.Recall.Customers = []inventory.RecallCustomer{{CustomerName: &customer, Shipments: []inventory.RecallShipment{
		{Shipment: &inventory.TraceShipment{ID: 1, InvoiceNo: &no}, Lots: []inventory.RecallQuantity{{Lot: lot, QuantityBase: decimal.NewFromInt(1250)}}}}}}
	tr.Recall.Suppliers = []inventory.RecallSupplier{{SupplierName: &supplier, Lots: []inventory.RecallReceipt{
		{Bill: &inventory.TraceBill{ID: 1, BillNo: 7}, RecallQuantity: inventory.RecallQuantity{Lot: lot, QuantityBase: decimal.RequireFromString("300000.5")}}}}}
	v := recallOf(tr, "test")
	if got := v.Customers[0].Shipments[0].Lots[0].Quantity; got != "1,250 g" {
		t.Errorf("shipped %q, want 1,250 g", got)
	}
	if got := v.Suppliers[0].Receipts[0].Quantity; got != "300,000.5 g" {
		t.Errorf("received %q, want 300,000.5 g", got)
	}
}
