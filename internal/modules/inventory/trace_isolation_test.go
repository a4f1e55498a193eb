package inventory_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"entgo.io/ent/dialect"
	"github.com/google/go-cmp/cmp"
	"github.com/shopspring/decimal"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/bill"
	"larder.dev/larder/ent/lotcorrection"
	"larder.dev/larder/ent/product"
	"larder.dev/larder/ent/production"
	"larder.dev/larder/ent/productlot"
	"larder.dev/larder/ent/shipment"
	"larder.dev/larder/ent/stockmovement"
	"larder.dev/larder/ent/unitofmeasure"
	"larder.dev/larder/internal/modules/inventory"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

// The lots of newPlant, whose traces must not change whatever another
// account holds.
var plantLots = []string{"FLOUR-1", "FLOUR-2", "SUGAR-1", "DOUGH-1", "BREAD-1", "LONE-1"}

// Two accounts hold the same plant (the same lot numbers, products,
// suppliers and customers), and rows that link each account's lots and
// documents to the other's: movements of one account on the other's lots
// and runs, and records that name the other's (a lot of the other's product
// at the other's location, a product in the other's unit, a bill of the
// other's supplier, shipments on the other's order and invoice, an order of
// the other's customer). No workflow writes such rows, and the database's
// foreign keys refuse most of them (they carry the account); the trace must still
// answer each account as if the other held nothing: every step of its
// statement follows the account's own movements only, and every record it
// returns is the account's. Each link below is the one way a trace would
// show another account's row, or another account's movement would lead it
// on, if one table of its statement were read without the account.
func TestTraceLotIsolation(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		a := &tenant{plant: newPlant(t, st)}
		aBefore := a.plantTraces(t)
		b := &tenant{plant: newPlant(t, st)}
		bBefore := b.plantTraces(t)
		for _, p := range []*tenant{a, b} {
			p.addExtras(t, st)
		}
		linkAcross(t, st, a, b)
		linkAcross(t, st, b, a)

		for _, c := range []struct {
			name          string
			viewer, other *tenant
			before        []string
		}{{"A", a, b, aBefore}, {"B", b, a, bBefore}} {
			x, y := c.viewer, c.other
			// The plant's answers are what they were before the other
			// account and the links existed.
			if diff := cmp.Diff(c.before, x.plantTraces(t)); diff != "" {
				t.Errorf("account %s: the plant's traces changed (-before +after):\n%s", c.name, diff)
			}
			// Each link leads nowhere.
			for _, e := range []struct {
				lot  string
				d    inventory.Direction
				want []string
			}{
				// The other's consumption of the lot for a run of the
				// viewer's that made Z1.
				{"A1", inventory.Forward, []string{"A1"}},
				// The run that consumed A2 made the other's W2, which the
				// viewer's run R-F2b consumed to make Z2.
				{"A2", inventory.Forward, []string{"A2", "R-F2"}},
				// The other's output of the lot by a run of the viewer's
				// that consumed Z3.
				{"A3", inventory.Backward, []string{"A3", "origin-created"}},
				// The run that made A4 consumed the other's W4, which the
				// viewer's run R-B2b made of Z4.
				{"A4", inventory.Backward, []string{"A4", "R-B2", "origin-created"}},
				// The viewer's runs took the other's lots in and out: the
				// lots are not shown.
				{"Z2", inventory.Backward, []string{"R-F2b", "Z2", "origin-created"}},
				{"Z4", inventory.Forward, []string{"R-B2b", "Z4"}},
				// Movements of the viewer's naming the other's run, bill
				// and shipment.
				{"HX-REC", inventory.Both, []string{"HX-REC", "origin-created"}},
				// Records of the viewer's naming the other's.
				{"HX-J", inventory.Both, []string{"HX-J", "origin-created"}},
				{"HX-J2", inventory.Both, []string{"HX-J2", "hx-bill", "hx-ship1", "hx-ship2", "origin-created"}},
			} {
				tr := x.traceOf(t, e.lot, e.d)
				if diff := cmp.Diff(e.want, x.nodeNames(t, tr)); diff != "" {
					t.Errorf("account %s: trace %s %s (-want +got):\n%s", c.name, e.lot, e.d, diff)
				}
			}
			x.checkRecords(t, c.name)
			// Every trace of every lot of the viewer's holds the viewer's
			// records only.
			own := x.ownRows(t, st)
			for lot := range x.lots {
				for _, d := range []inventory.Direction{inventory.Backward, inventory.Forward, inventory.Both} {
					tr := x.traceOf(t, lot, d)
					for _, n := range tr.Nodes {
						if !own[n.ID] {
							t.Errorf("account %s: trace %s %s holds %s, none of the account's", c.name, lot, d, n.ID)
						}
					}
				}
			}
			// A lot of the other's is not found, and the statement alone,
			// started from it, returns nothing.
			for lot, id := range y.lots {
				if _, err := inventory.TraceLotOf(x.ctx, st.Client, id, inventory.Both, 20); !ent.IsNotFound(err) {
					t.Errorf("account %s: the other's lot %s: %v, want not found", c.name, lot, err)
				}
				got, err := inventory.ReachLots(x.ctx, st.Client, id, 20)
				if err != nil || len(got) > 0 {
					t.Errorf("account %s: the statement from the other's lot %s: %v, %v; want no row", c.name, lot, got, err)
				}
			}
		}
		// Without a viewer of an account there is no trace at all.
		for name, ctx := range map[string]context.Context{"no viewer": context.Background(), "system": policy.System(context.Background())} {
			if _, err := inventory.TraceLotOf(ctx, st.Client, a.lots["FLOUR-1"], inventory.Both, 5); !errors.Is(err, policy.ErrNoAccount) {
				t.Errorf("%s: %v, want %v", name, err, policy.ErrNoAccount)
			}
		}
	})
}

// plantTraces renders every trace of the plant's lots, each way, at a short
// and a long depth.
func (p *plant) plantTraces(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, lot := range plantLots {
		for _, d := range []inventory.Direction{inventory.Backward, inventory.Forward, inventory.Both} {
			for _, depth := range []int{1, 20} {
				out = append(out, p.trace(t, lot, d, depth)...)
			}
		}
	}
	return out
}

func (p *plant) traceOf(t *testing.T, lot string, d inventory.Direction) *inventory.Trace {
	t.Helper()
	tr, err := inventory.TraceLotOf(p.ctx, p.c, p.lots[lot], d, 20)
	if err != nil {
		t.Fatalf("trace %s %s: %v", lot, d, err)
	}
	return tr
}

// nodeNames names a trace's nodes, sorted: a record by its name in the
// plant, an origin by its kind, any other node by its id.
func (p *plant) nodeNames(t *testing.T, tr *inventory.Trace) []string {
	t.Helper()
	var out []string
	for _, n := range tr.Nodes {
		switch name, ok := p.names[n.ID]; {
		case ok:
			out = append(out, name)
		case n.Kind == inventory.NodeOrigin:
			out = append(out, n.ID[:strings.LastIndexByte(n.ID, '-')])
		default:
			out = append(out, "foreign "+n.ID)
		}
	}
	slices.Sort(out)
	return out
}

// tenant is an account's plant and its records for the links.
type tenant struct {
	*plant
	ext extras
	// otherCustomer is the other account's customer that an order of
	// this account names.
	otherCustomer int
}

// extras are a plant's records for the links: a unit, a location, a product
// in the unit, one in the shared kg and one to be put in the other's unit.
type extras struct {
	unit, location     int
	inUnit, inKg, inXU int
}

// addExtras adds the extras, and two lots that show the records the links
// hide when they are the account's own: HX-OWN (its product in its unit,
// at its location) and HX-KG (a product in the shared unit).
func (p *tenant) addExtras(t *testing.T, st *store.Store) {
	t.Helper()
	ctx := p.ctx
	err := ent.RunInTx(ctx, st.Client, func(tx *ent.Tx) error {
		kg := tx.UnitOfMeasure.Query().Where(unitofmeasure.Code("kg"), unitofmeasure.IsGlobal(true)).OnlyIDX(ctx)
		p.ext.unit = tx.UnitOfMeasure.Create().SetCode("box").SetName("Box").SaveX(ctx).ID
		p.ext.location = tx.Location.Create().SetCode("LOC").SetName("Store").SetPath("LOC").SaveX(ctx).ID
		prod := func(code string, unit int) int {
			id := tx.Product.Create().SetProductCode(code).SetName(strings.ToLower(code)).SetProductType(product.ProductTypeFINISHED_GOOD).SetUomBaseID(unit).SaveX(ctx).ID
			p.prod[code] = id
			return id
		}
		p.ext.inUnit, p.ext.inKg, p.ext.inXU = prod("HXO", p.ext.unit), prod("HXK", kg), prod("HXP", p.ext.unit)
		p.newLot(ctx, tx, "HX-OWN", "HXO", &p.ext.location)
		p.newLot(ctx, tx, "HX-KG", "HXK", nil)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// newLot creates a lot of one unit of the product (a PRODUCT_FORM origin).
func (p *tenant) newLot(ctx context.Context, tx *ent.Tx, number, code string, location *int) int {
	c := tx.ProductLot.Create().SetProductID(p.prod[code]).SetLotNumber(number).SetQuantityBase(decimal.NewFromInt(1))
	if location != nil {
		c.SetLocationID(*location)
	}
	id := c.SaveX(ctx).ID
	p.lots[number] = id
	p.names[fmt.Sprintf("lot-%d", id)] = number
	return id
}

// idOf is the id of the plant's record of kind named name.
func (p *tenant) idOf(t *testing.T, kind, name string) int {
	t.Helper()
	for key, n := range p.names {
		if n == name && strings.HasPrefix(key, kind+"-") {
			var id int
			fmt.Sscan(key[len(kind)+1:], &id)
			return id
		}
	}
	t.Fatalf("no %s %s", kind, name)
	return 0
}

// linkAcross writes x's lots, runs and documents for the links, the other
// account y's lots W2 and W4, and the rows that tie them to each other
// (written as SQL with the database's foreign keys off, which nothing else
// would stop).
func linkAcross(t *testing.T, st *store.Store, x, y *tenant) {
	t.Helper()
	run := map[string]int{}
	doc := map[string]int{}
	err := ent.RunInTx(x.ctx, st.Client, func(tx *ent.Tx) error {
		ctx := x.ctx
		for _, lot := range []string{"A1", "Z1", "A2", "Z2", "A3", "Z3", "A4", "Z4", "HX-REC", "HX-J"} {
			x.newLot(ctx, tx, lot, "FLOUR", nil)
		}
		x.newLot(ctx, tx, "HX-J2", "HXP", nil)
		for _, name := range []string{"R-F1", "R-F2", "R-F2b", "R-B1", "R-B2", "R-B2b"} {
			r := tx.Production.Create().SetProductID(x.prod["FLOUR"]).SetLotNumber(name).SetStatus(production.StatusCOMPLETED).SaveX(ctx)
			run[name] = r.ID
			x.names[fmt.Sprintf("production-%d", r.ID)] = name
		}
		hxBill := tx.Bill.Create().SetSupplierID(x.sup["Mill Co"]).SetBillDate(x.at).SaveX(ctx)
		doc["hx-bill"] = hxBill.ID
		x.names[fmt.Sprintf("bill-%d", hxBill.ID)] = "hx-bill"
		for _, name := range []string{"hx-ship1", "hx-ship2"} {
			o := tx.SalesOrder.Create().SetCustomerID(x.cust["Café Uno"]).SaveX(ctx)
			s := tx.Shipment.Create().SetSalesOrderID(o.ID).SetShipDate(x.at).SaveX(ctx)
			doc[name], doc[name+" order"] = s.ID, o.ID
			x.names[fmt.Sprintf("shipment-%d", s.ID)] = name
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	err = ent.RunInTx(y.ctx, st.Client, func(tx *ent.Tx) error {
		y.newLot(y.ctx, tx, "W2", "FLOUR", nil)
		y.newLot(y.ctx, tx, "W4", "FLOUR", nil)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	sys := policy.System(context.Background())
	yShipment := st.Client.Shipment.GetX(sys, y.idOf(t, "shipment", "shipment 1"))
	// The database refuses a row of one account that refers to another
	// account's (its foreign keys between an account's tables carry the
	// account), so the links are written on a connection of their own
	// with its foreign keys off, as rows written before those keys could
	// have been.
	conn, err := st.DB.Conn(sys)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	keysOff, keysOn := "PRAGMA foreign_keys = OFF", "PRAGMA foreign_keys = ON"
	if st.Dialect == dialect.Postgres {
		keysOff, keysOn = "SET session_replication_role = replica", "RESET session_replication_role"
	}
	exec := func(query string, args ...any) {
		t.Helper()
		res, err := conn.ExecContext(sys, query, args...)
		if err != nil {
			t.Fatalf("%s: %v", query, err)
		}
		if n, err := res.RowsAffected(); err != nil || n != 1 {
			t.Fatalf("%s: %d rows, %v", query, n, err)
		}
	}
	if _, err := conn.ExecContext(sys, keysOff); err != nil {
		t.Fatal(err)
	}
	move := func(owner *tenant, lot int, typ stockmovement.Type, docType string, docID int) {
		exec(`INSERT INTO stock_movements (account_id, lot_id, type, quantity_base, document_type, document_id, source, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, owner.account, lot, string(typ), decimal.NewFromInt(1), docType, docID,
			string(stockmovement.SourceSystem), time.Now().UTC())
	}
	const (
		consumption = stockmovement.TypePRODUCTION_CONSUMPTION
		output      = stockmovement.TypePRODUCTION_OUTPUT
	)
	// y consumes x's A1 for x's R-F1, which made x's Z1.
	move(y, x.lots["A1"], consumption, "production", run["R-F1"])
	move(x, x.lots["Z1"], output, "production", run["R-F1"])
	// x's R-F2 consumes A2 and y's output of it is W2, which x's
	// R-F2b consumes to make Z2.
	move(x, x.lots["A2"], consumption, "production", run["R-F2"])
	move(y, y.lots["W2"], output, "production", run["R-F2"])
	move(x, y.lots["W2"], consumption, "production", run["R-F2b"])
	move(x, x.lots["Z2"], output, "production", run["R-F2b"])
	// y's output of x's A3 by x's R-B1, which consumed x's Z3.
	move(y, x.lots["A3"], output, "production", run["R-B1"])
	move(x, x.lots["Z3"], consumption, "production", run["R-B1"])
	// x's R-B2 made A4 and y's consumption for it is W4, which x's
	// R-B2b made of Z4.
	move(x, x.lots["A4"], output, "production", run["R-B2"])
	move(y, y.lots["W4"], consumption, "production", run["R-B2"])
	move(x, y.lots["W4"], output, "production", run["R-B2b"])
	move(x, x.lots["Z4"], consumption, "production", run["R-B2b"])
	// x's movements of HX-REC name y's run, bill and shipment.
	move(x, x.lots["HX-REC"], consumption, "production", y.idOf(t, "production", "run 1"))
	move(x, x.lots["HX-REC"], output, "production", y.idOf(t, "production", "run 1"))
	move(x, x.lots["HX-REC"], stockmovement.TypePURCHASE_ENTRY, "bill", y.idOf(t, "bill", "bill Mill Co"))
	move(x, x.lots["HX-REC"], stockmovement.TypeSHIPPING, "shipment", yShipment.ID)
	// HX-J2 came on x's bill and left on x's shipments, whose
	// records name y's below.
	move(x, x.lots["HX-J2"], stockmovement.TypePURCHASE_ENTRY, "bill", doc["hx-bill"])
	move(x, x.lots["HX-J2"], stockmovement.TypeSHIPPING, "shipment", doc["hx-ship1"])
	move(x, x.lots["HX-J2"], stockmovement.TypeSHIPPING, "shipment", doc["hx-ship2"])
	// x's records that name y's.
	exec("UPDATE product_lots SET product_id = $1, location_id = $2, location_key = $3 WHERE id = $4", y.prod["FLOUR"], y.ext.location, y.ext.location, x.lots["HX-J"])
	exec("UPDATE products SET uom_base_id = $1 WHERE id = $2", y.ext.unit, x.ext.inXU)
	exec("UPDATE bills SET supplier_id = $1 WHERE id = $2", y.sup["Mill Co"], doc["hx-bill"])
	exec("UPDATE sales_orders SET customer_id = $1 WHERE id = $2", y.cust["Café Uno"], doc["hx-ship1 order"])
	exec("UPDATE shipments SET sales_order_id = $1, invoice_id = $2 WHERE id = $3", yShipment.SalesOrderID, *yShipment.InvoiceID, doc["hx-ship2"])
	if _, err := conn.ExecContext(sys, keysOn); err != nil {
		t.Fatal(err)
	}
	x.otherCustomer = y.cust["Café Uno"]
}

// checkRecords checks what the trace says of the records that name the
// other account's y: nothing of y's, where the account's own show.
func (p *tenant) checkRecords(t *testing.T, name string) {
	t.Helper()
	nodes := map[string]inventory.Node{}
	for _, lot := range []string{"HX-J", "HX-J2", "HX-OWN", "HX-KG"} {
		for _, n := range p.traceOf(t, lot, inventory.Both).Nodes {
			nodes[p.names[n.ID]] = n
		}
	}
	s := func(v *string) string {
		if v == nil {
			return "-"
		}
		return *v
	}
	i := func(v *int) string {
		if v == nil {
			return "-"
		}
		return fmt.Sprint(*v)
	}
	var got []string
	for _, lot := range []string{"HX-J", "HX-J2", "HX-OWN", "HX-KG"} {
		l := nodes[lot].Lot
		if l == nil {
			t.Fatalf("account %s: no lot %s in its trace", name, lot)
		}
		got = append(got, fmt.Sprintf("%s: product %s %s unit %s location %s %s", lot, s(l.ProductCode), s(l.ProductName), s(l.UnitCode), s(l.LocationCode), s(l.LocationName)))
	}
	if b := nodes["hx-bill"].Bill; b != nil {
		got = append(got, fmt.Sprintf("hx-bill: supplier %s", s(b.SupplierName)))
	}
	for _, ship := range []string{"hx-ship1", "hx-ship2"} {
		if sh := nodes[ship].Shipment; sh != nil {
			customer := fmt.Sprint(sh.CustomerID)
			if sh.CustomerID == p.otherCustomer {
				customer = "the other's"
			}
			got = append(got, fmt.Sprintf("%s: order %d customer %s %s invoice %s", ship, sh.SalesOrderNo, customer, s(sh.CustomerName), i(sh.InvoiceNo)))
		}
	}
	order1 := nodes["hx-ship1"].Shipment
	want := []string{
		"HX-J: product - - unit - location - -",
		"HX-J2: product HXP hxp unit - location - -",
		"HX-OWN: product HXO hxo unit box location LOC Store",
		"HX-KG: product HXK hxk unit kg location - -",
		"hx-bill: supplier -",
		// The order is the account's, its customer the other's.
		fmt.Sprintf("hx-ship1: order %d customer the other's - invoice -", orderNo(order1)),
		"hx-ship2: order 0 customer 0 - invoice -",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("account %s: the records naming the other's (-want +got):\n%s", name, diff)
	}
}

func orderNo(s *inventory.TraceShipment) int {
	if s == nil {
		return -1
	}
	return s.SalesOrderNo
}

// ownRows are the node ids of every record of the plant's account that a
// trace may show: lots, runs, bills, shipments, and the origins of its
// movements and corrections.
func (p *tenant) ownRows(t *testing.T, st *store.Store) map[string]bool {
	t.Helper()
	sys := policy.System(context.Background())
	own := map[string]bool{}
	add := func(kind string, ids []int) {
		for _, id := range ids {
			own[fmt.Sprintf("%s-%d", kind, id)] = true
		}
	}
	add("lot", st.Client.ProductLot.Query().Where(productlot.AccountID(p.account)).IDsX(sys))
	add("production", st.Client.Production.Query().Where(production.AccountID(p.account)).IDsX(sys))
	add("bill", st.Client.Bill.Query().Where(bill.AccountID(p.account)).IDsX(sys))
	add("shipment", st.Client.Shipment.Query().Where(shipment.AccountID(p.account)).IDsX(sys))
	for _, id := range st.Client.StockMovement.Query().Where(stockmovement.AccountID(p.account)).IDsX(sys) {
		for _, k := range []inventory.OriginKind{inventory.OriginCreated, inventory.OriginAdjustment, inventory.OriginCount} {
			own[fmt.Sprintf("origin-%s-%d", k, id)] = true
		}
	}
	add("origin-"+string(inventory.OriginCorrection), st.Client.LotCorrection.Query().Where(lotcorrection.AccountID(p.account)).IDsX(sys))
	return own
}
