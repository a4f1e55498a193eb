package inventory_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/shopspring/decimal"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/product"
	"larder.dev/larder/ent/production"
	"larder.dev/larder/ent/stockmovement"
	"larder.dev/larder/hooks"
	"larder.dev/larder/internal/modules/inventory"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

// plant is a small plant whose goods are traced, built with the stock
// hooks every workflow uses, so each movement is what a bill, a run or a
// shipment writes:
//
//	bill 1 (Mill Co)  → FLOUR-1 100 (corrected to 98)
//	created           → FLOUR-2 40
//	bill 2 (Sweet Co) → SUGAR-1 50
//	run 1 consumes FLOUR-1 30 + 10 (two movements), FLOUR-2 20, SUGAR-1 5 → DOUGH-1 60
//	run 2 consumes DOUGH-1 50 → BREAD-1 100
//	run 3 (rework) consumes BREAD-1 10 → DOUGH-1 8 (a cycle)
//	shipment 1 (order 1, Café Uno, invoiced) takes BREAD-1 30
//	shipment 2 (order 2, Deli Dos) takes BREAD-1 20, part of its order
//	LONE-1 has no link at all.
type plant struct {
	ctx     context.Context
	c       *ent.Client
	lots    map[string]int
	names   map[string]string // node id → name in the rendering
	prod    map[string]int
	sup     map[string]int
	cust    map[string]int
	at      time.Time
	account int
	org     *dbtest.Org
}

func newPlant(t *testing.T, st *store.Store) *plant {
	t.Helper()
	o := dbtest.NewOrg(t, st, "")
	p := &plant{ctx: o.Ctx(policy.Live), c: st.Client, lots: map[string]int{}, names: map[string]string{},
		prod: map[string]int{}, sup: map[string]int{}, cust: map[string]int{}, at: time.Date(2026, 11, 2, 8, 0, 0, 0, time.UTC)}
	p.account = policy.FromContext(p.ctx).AccountID
	p.org = o
	err := ent.RunInTx(p.ctx, st.Client, func(tx *ent.Tx) error {
		ctx := p.ctx
		for _, code := range []string{"FLOUR", "SUGAR", "DOUGH", "BREAD"} {
			p.prod[code] = tx.Product.Create().SetProductCode(code).SetName(strings.ToLower(code)).SetProductType(product.ProductTypeFINISHED_GOOD).SaveX(ctx).ID
		}
		for _, name := range []string{"Mill Co", "Sweet Co"} {
			p.sup[name] = tx.Supplier.Create().SetCompany(name).SaveX(ctx).ID
		}
		for _, name := range []string{"Café Uno", "Deli Dos"} {
			p.cust[name] = tx.Customer.Create().SetCompany(name).SaveX(ctx).ID
		}
		bill := func(supplier string) int {
			b := tx.Bill.Create().SetSupplierID(p.sup[supplier]).SetBillDate(p.at).SaveX(ctx)
			p.names["bill-"+fmt.Sprint(b.ID)] = "bill " + supplier
			return b.ID
		}
		run := func(name, output string, lot string) int {
			r := tx.Production.Create().SetProductID(p.prod[output]).SetLotNumber(lot).SetStatus(production.StatusCOMPLETED).SaveX(ctx)
			p.names["production-"+fmt.Sprint(r.ID)] = name
			return r.ID
		}
		ship := func(name, customer string, invoiced bool) int {
			o := tx.SalesOrder.Create().SetCustomerID(p.cust[customer]).SaveX(ctx)
			c := tx.Shipment.Create().SetSalesOrderID(o.ID).SetShipDate(p.at.AddDate(0, 0, 3))
			if invoiced {
				inv := tx.Invoice.Create().SetCustomerID(p.cust[customer]).SetSalesOrderID(o.ID).SetInvoiceDate(p.at).SaveX(ctx)
				c.SetInvoiceID(inv.ID)
			}
			s := c.SaveX(ctx)
			p.names["shipment-"+fmt.Sprint(s.ID)] = name
			return s.ID
		}
		lot := func(number, code, qty string, mv *hooks.Movement) {
			cctx := ctx
			if mv != nil {
				cctx = hooks.WithMovement(ctx, *mv)
			}
			l := tx.ProductLot.Create().SetProductID(p.prod[code]).SetLotNumber(number).SetQuantityBase(decimal.RequireFromString(qty)).SaveX(cctx)
			p.lots[number] = l.ID
			p.names["lot-"+fmt.Sprint(l.ID)] = number
		}
		move := func(number, delta string, mv hooks.Movement) {
			l := tx.ProductLot.GetX(ctx, p.lots[number])
			tx.ProductLot.UpdateOneID(l.ID).SetQuantityBase(l.QuantityBase.Add(decimal.RequireFromString(delta))).
				SaveX(hooks.WithMovement(ctx, mv))
		}
		b1, b2 := bill("Mill Co"), bill("Sweet Co")
		lot("FLOUR-1", "FLOUR", "100", &hooks.Movement{Type: stockmovement.TypePURCHASE_ENTRY, DocumentType: "bill", DocumentID: b1})
		lot("FLOUR-2", "FLOUR", "40", nil)
		lot("SUGAR-1", "SUGAR", "50", &hooks.Movement{Type: stockmovement.TypePURCHASE_ENTRY, DocumentType: "bill", DocumentID: b2})
		lot("LONE-1", "SUGAR", "7", nil)
		// A correction (PATCH): no movement, a recorded correction.
		tx.ProductLot.UpdateOneID(p.lots["FLOUR-1"]).SetQuantityBase(decimal.RequireFromString("98")).SaveX(ctx)
		r1, r2, r3 := run("run 1", "DOUGH", "DOUGH-1"), run("run 2", "BREAD", "BREAD-1"), run("run 3", "DOUGH", "DOUGH-1")
		consume := func(r int) hooks.Movement {
			return hooks.Movement{Type: stockmovement.TypePRODUCTION_CONSUMPTION, DocumentType: "production", DocumentID: r}
		}
		output := func(r int) *hooks.Movement {
			return &hooks.Movement{Type: stockmovement.TypePRODUCTION_OUTPUT, DocumentType: "production", DocumentID: r}
		}
		move("FLOUR-1", "-30", consume(r1))
		move("FLOUR-1", "-10", consume(r1))
		move("FLOUR-2", "-20", consume(r1))
		move("SUGAR-1", "-5", consume(r1))
		lot("DOUGH-1", "DOUGH", "60", output(r1))
		move("DOUGH-1", "-50", consume(r2))
		lot("BREAD-1", "BREAD", "100", output(r2))
		move("BREAD-1", "-10", consume(r3))
		move("DOUGH-1", "8", *output(r3))
		s1, s2 := ship("shipment 1", "Café Uno", true), ship("shipment 2", "Deli Dos", false)
		move("BREAD-1", "-30", hooks.Movement{Type: stockmovement.TypeSHIPPING, DocumentType: "shipment", DocumentID: s1})
		move("BREAD-1", "-20", hooks.Movement{Type: stockmovement.TypeSHIPPING, DocumentType: "shipment", DocumentID: s2})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// render words a trace: its header, each node as "level kind name
// detail", each edge as "from > to quantity", and the recall summary.
func (p *plant) render(t *testing.T, tr *inventory.Trace) []string {
	t.Helper()
	name := func(id string) string {
		if n, ok := p.names[id]; ok {
			return n
		}
		if strings.HasPrefix(id, "origin-") {
			return id[:strings.LastIndexByte(id, '-')]
		}
		t.Fatalf("node %s is none of the plant's", id)
		return ""
	}
	out := []string{fmt.Sprintf("trace %s %s depth %d truncated %v", name(fmt.Sprintf("lot-%d", tr.LotID)), tr.Direction, tr.Depth, tr.Truncated)}
	for _, n := range tr.Nodes {
		var detail string
		switch {
		case n.Lot != nil:
			detail = fmt.Sprintf("%s %s on hand %s", *n.Lot.ProductCode, n.Lot.QCStatus, n.Lot.QuantityBase)
		case n.Production != nil:
			detail = fmt.Sprintf("%s %s", n.Production.Status, *n.Production.LotNumber)
		case n.Bill != nil:
			detail = *n.Bill.SupplierName
		case n.Shipment != nil:
			detail = fmt.Sprintf("%s invoiced %v", *n.Shipment.CustomerName, n.Shipment.InvoiceNo != nil)
		case n.Origin != nil:
			detail = fmt.Sprintf("%s by %s", n.Origin.Kind, n.Origin.Source)
		default:
			t.Fatalf("node %s has no detail", n.ID)
		}
		out = append(out, fmt.Sprintf("%d %s %s: %s", n.Level, n.Kind, name(n.ID), detail))
	}
	for _, e := range tr.Edges {
		if e.Date.IsZero() {
			t.Fatalf("edge %s > %s has no date", e.From, e.To)
		}
		out = append(out, fmt.Sprintf("%s > %s %s", name(e.From), name(e.To), e.QuantityBase))
	}
	for _, l := range tr.Recall.Lots {
		out = append(out, fmt.Sprintf("affected %s on hand %s", *l.LotNumber, l.QuantityBase))
	}
	for _, c := range tr.Recall.Customers {
		for _, s := range c.Shipments {
			for _, q := range s.Lots {
				out = append(out, fmt.Sprintf("customer %s %s %s %s", *c.CustomerName, s.Shipment.ShipDate.Format(time.DateOnly), *q.Lot.LotNumber, q.QuantityBase))
			}
		}
	}
	for _, s := range tr.Recall.Suppliers {
		for _, r := range s.Lots {
			out = append(out, fmt.Sprintf("supplier %s bill %d %s %s", *s.SupplierName, r.Bill.BillNo, *r.Lot.LotNumber, r.QuantityBase))
		}
	}
	return out
}

func (p *plant) trace(t *testing.T, lot string, d inventory.Direction, depth int) []string {
	t.Helper()
	tr, err := inventory.TraceLotOf(p.ctx, p.c, p.lots[lot], d, depth)
	if err != nil {
		t.Fatal(err)
	}
	return p.render(t, tr)
}

func TestTraceLot(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		p := newPlant(t, st)
		cases := []struct {
			lot   string
			d     inventory.Direction
			depth int
			want  []string
		}{{
			// Forward one run: the dough, not the bread the dough made.
			lot: "FLOUR-1", d: inventory.Forward, depth: 1,
			want: []string{
				"trace FLOUR-1 forward depth 1 truncated true",
				"0 lot FLOUR-1: FLOUR AVAILABLE on hand 58",
				"1 production run 1: COMPLETED DOUGH-1",
				"2 lot DOUGH-1: DOUGH AVAILABLE on hand 18",
				"FLOUR-1 > run 1 40",
				"run 1 > DOUGH-1 60",
				"affected FLOUR-1 on hand 58",
				"affected DOUGH-1 on hand 18",
			},
		}, {
			// Forward all the way: the rework's run goes back into the
			// dough, which is visited once; the shipments' customers.
			lot: "FLOUR-1", d: inventory.Forward, depth: 20,
			want: []string{
				"trace FLOUR-1 forward depth 20 truncated false",
				"0 lot FLOUR-1: FLOUR AVAILABLE on hand 58",
				"1 production run 1: COMPLETED DOUGH-1",
				"2 lot DOUGH-1: DOUGH AVAILABLE on hand 18",
				"3 production run 2: COMPLETED BREAD-1",
				"4 lot BREAD-1: BREAD AVAILABLE on hand 40",
				"5 production run 3: COMPLETED DOUGH-1",
				"5 shipment shipment 1: Café Uno invoiced true",
				"5 shipment shipment 2: Deli Dos invoiced false",
				"FLOUR-1 > run 1 40",
				"run 1 > DOUGH-1 60",
				"DOUGH-1 > run 2 50",
				"run 2 > BREAD-1 100",
				"BREAD-1 > run 3 10",
				"BREAD-1 > shipment 1 30",
				"BREAD-1 > shipment 2 20",
				"run 3 > DOUGH-1 8",
				"affected FLOUR-1 on hand 58",
				"affected DOUGH-1 on hand 18",
				"affected BREAD-1 on hand 40",
				"customer Café Uno 2026-11-05 BREAD-1 30",
				"customer Deli Dos 2026-11-05 BREAD-1 20",
			},
		}, {
			// Backward from the bread: both flours (one bill, one created
			// and a correction), the sugar's bill, through the dough and
			// the rework that fed it.
			lot: "BREAD-1", d: inventory.Backward, depth: 20,
			want: []string{
				"trace BREAD-1 backward depth 20 truncated false",
				"-5 origin origin-correction: correction by app",
				"-5 origin origin-created: created by app",
				"-5 bill bill Mill Co: Mill Co",
				"-5 bill bill Sweet Co: Sweet Co",
				"-4 lot FLOUR-1: FLOUR AVAILABLE on hand 58",
				"-4 lot FLOUR-2: FLOUR AVAILABLE on hand 20",
				"-4 lot SUGAR-1: SUGAR AVAILABLE on hand 45",
				"-3 production run 1: COMPLETED DOUGH-1",
				"-3 production run 3: COMPLETED DOUGH-1",
				"-2 lot DOUGH-1: DOUGH AVAILABLE on hand 18",
				"-1 production run 2: COMPLETED BREAD-1",
				"0 lot BREAD-1: BREAD AVAILABLE on hand 40",
				"origin-correction > FLOUR-1 -2",
				"origin-created > FLOUR-2 40",
				"bill Mill Co > FLOUR-1 100",
				"bill Sweet Co > SUGAR-1 50",
				"FLOUR-1 > run 1 40",
				"FLOUR-2 > run 1 20",
				"SUGAR-1 > run 1 5",
				"run 1 > DOUGH-1 60",
				"run 3 > DOUGH-1 8",
				"DOUGH-1 > run 2 50",
				"run 2 > BREAD-1 100",
				"BREAD-1 > run 3 10",
				"affected BREAD-1 on hand 40",
				"supplier Mill Co bill 1 FLOUR-1 100",
				"supplier Sweet Co bill 2 SUGAR-1 50",
			},
		}, {
			// Both ways one run from the dough: its two makers and what
			// they consumed (with their bills and origins, which cost no
			// depth), the run it went into and the bread with its
			// shipments. The bread, consumed by the rework, is upstream
			// too: it stays downstream, as near. The rework's run is where
			// the depth stopped forward.
			lot: "DOUGH-1", d: inventory.Both, depth: 1,
			want: []string{
				"trace DOUGH-1 both depth 1 truncated true",
				"-3 origin origin-correction: correction by app",
				"-3 origin origin-created: created by app",
				"-3 bill bill Mill Co: Mill Co",
				"-3 bill bill Sweet Co: Sweet Co",
				"-2 lot FLOUR-1: FLOUR AVAILABLE on hand 58",
				"-2 lot FLOUR-2: FLOUR AVAILABLE on hand 20",
				"-2 lot SUGAR-1: SUGAR AVAILABLE on hand 45",
				"-1 production run 1: COMPLETED DOUGH-1",
				"-1 production run 3: COMPLETED DOUGH-1",
				"0 lot DOUGH-1: DOUGH AVAILABLE on hand 18",
				"1 production run 2: COMPLETED BREAD-1",
				"2 lot BREAD-1: BREAD AVAILABLE on hand 40",
				"3 shipment shipment 1: Café Uno invoiced true",
				"3 shipment shipment 2: Deli Dos invoiced false",
				"origin-correction > FLOUR-1 -2",
				"origin-created > FLOUR-2 40",
				"bill Mill Co > FLOUR-1 100",
				"bill Sweet Co > SUGAR-1 50",
				"FLOUR-1 > run 1 40",
				"FLOUR-2 > run 1 20",
				"SUGAR-1 > run 1 5",
				"run 1 > DOUGH-1 60",
				"run 3 > DOUGH-1 8",
				"DOUGH-1 > run 2 50",
				"run 2 > BREAD-1 100",
				"BREAD-1 > run 3 10",
				"BREAD-1 > shipment 1 30",
				"BREAD-1 > shipment 2 20",
				"affected DOUGH-1 on hand 18",
				"affected BREAD-1 on hand 40",
				"customer Café Uno 2026-11-05 BREAD-1 30",
				"customer Deli Dos 2026-11-05 BREAD-1 20",
				"supplier Mill Co bill 1 FLOUR-1 100",
				"supplier Sweet Co bill 2 SUGAR-1 50",
			},
		}, {
			lot: "LONE-1", d: inventory.Both, depth: 5,
			want: []string{
				"trace LONE-1 both depth 5 truncated false",
				"-1 origin origin-created: created by app",
				"0 lot LONE-1: SUGAR AVAILABLE on hand 7",
				"origin-created > LONE-1 7",
				"affected LONE-1 on hand 7",
			},
		}}
		for _, c := range cases {
			got := p.trace(t, c.lot, c.d, c.depth)
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("trace %s %s %d (-want +got):\n%s", c.lot, c.d, c.depth, diff)
			}
		}
	})
}

func TestTraceLotRefuses(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		p := newPlant(t, st)
		other := dbtest.NewOrg(t, st, "")
		if _, err := inventory.TraceLotOf(other.Ctx(policy.Live), st.Client, p.lots["FLOUR-1"], inventory.Both, 5); !ent.IsNotFound(err) {
			t.Errorf("another account's lot: %v, want not found", err)
		}
		// The plant's own test account holds none of it either.
		if _, err := inventory.TraceLotOf(p.org.Ctx(policy.Test), st.Client, p.lots["FLOUR-1"], inventory.Both, 5); !ent.IsNotFound(err) {
			t.Errorf("the test account: %v, want not found", err)
		}
		for _, c := range []struct {
			d     inventory.Direction
			depth int
			field string
		}{{"sideways", 5, "direction"}, {inventory.Both, inventory.MaxTraceDepth + 1, "depth"}, {inventory.Both, -1, "depth"}} {
			_, err := inventory.TraceLotOf(p.ctx, p.c, p.lots["FLOUR-1"], c.d, c.depth)
			if err == nil || !strings.Contains(err.Error(), c.field) {
				t.Errorf("%s %d: %v, want an error on %s", c.d, c.depth, err, c.field)
			}
		}
		// The bounds themselves answer.
		for _, depth := range []int{1, inventory.MaxTraceDepth} {
			if _, err := inventory.TraceLotOf(p.ctx, p.c, p.lots["FLOUR-1"], inventory.Both, depth); err != nil {
				t.Errorf("depth %d: %v", depth, err)
			}
		}
	})
}
