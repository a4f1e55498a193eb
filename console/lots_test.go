package console_test

import (
	"encoding/csv"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/shopspring/decimal"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/customer"
	entproduct "larder.dev/larder/ent/product"
	"larder.dev/larder/ent/productionline"
	"larder.dev/larder/ent/productlot"
	"larder.dev/larder/ent/salesorderline"
	"larder.dev/larder/ent/supplier"
	"larder.dev/larder/internal/identity/people"
	"larder.dev/larder/internal/modules/inventory"
	"larder.dev/larder/internal/modules/manufacturing"
	"larder.dev/larder/internal/modules/purchasing"
	"larder.dev/larder/internal/modules/sales"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

// traced is a chain recorded through the purchasing, manufacturing and
// sales workflows in a seeded test account: a bill of Prairie Mills brings
// in a flour lot, a run of cookies consumes part of it and makes a cookie
// lot, a shipment to Épicerie du Marché takes some of the cookies and a
// second run puts a dozen of them on a tray.
type traced struct {
	bill                 *ent.Bill
	flour, cookies, tray *ent.ProductLot
	run, rework          *ent.Production
	shipment             *ent.Shipment
	invoiceNo            int
	supplierName         string
	customerName         string
}

// traceChain records the chain in org's test account.
func traceChain(t *testing.T, st *store.Store, org *dbtest.Org) traced {
	t.Helper()
	ctx := org.Ctx(policy.Test)
	tx, err := st.Client.Tx(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	productID := func(code string) int {
		id, err := tx.Product.Query().Where(entproduct.ProductCode(code)).OnlyID(ctx)
		must(err)
		return id
	}
	flourID, cookieID := productID("RM-FLOUR"), productID("FG-COOKIE12")
	mill, err := tx.Supplier.Query().Where(supplier.SupplierCode("MILL")).Only(ctx)
	must(err)
	locs, err := tx.Location.Query().All(ctx)
	must(err)
	var area *int
	for _, l := range locs {
		if l.Path == "MAIN/STORAGE" {
			area = &l.ID
		}
	}
	if area == nil {
		t.Fatal("no location MAIN/STORAGE")
	}

	var out traced
	out.supplierName = *mill.Company
	line := tx.BillLine.Create().SetProductID(flourID).SetQuantity(decimal.NewFromInt(2)).SetLotNumber("TR-FLOUR-1").
		SetCost(decimal.RequireFromString("21.75")).SetLocationID(*area).SetExpirationDate(time.Date(2027, 11, 6, 0, 0, 0, 0, time.UTC))
	b := tx.Bill.Create().SetSupplierID(mill.ID).SetBillDate(time.Date(2026, 11, 6, 0, 0, 0, 0, time.UTC)).SetSupplierReference("PM-1")
	must(purchasing.PrepareBill(ctx, tx, b.Mutation(), []*ent.BillLineCreate{line}, nil))
	out.bill, err = b.Save(ctx)
	must(err)
	rows, err := tx.BillLine.CreateBulk(line.SetBillID(out.bill.ID)).Save(ctx)
	must(err)
	must(purchasing.ReceiveBill(ctx, tx, out.bill, rows))
	out.flour, err = tx.ProductLot.Query().Where(productlot.LotNumber("TR-FLOUR-1")).Only(ctx)
	must(err)

	lineID, err := tx.ProductionLine.Query().Where(productionline.Name("Cookie line")).OnlyID(ctx)
	must(err)
	ten, grams, lot := decimal.NewFromInt(10), decimal.NewFromInt(20000), "TR-COOKIE-1"
	expires := time.Date(2027, 2, 5, 0, 0, 0, 0, time.UTC)
	out.run, err = manufacturing.Create(ctx, tx, manufacturing.Plan{ProductID: cookieID, LineID: &lineID, Quantity: &ten,
		LotNumber: &lot, ExpirationDate: &expires, Steps: []manufacturing.Step{{ProductID: flourID, QuantityBase: grams}}})
	must(err)
	at := time.Date(2026, 11, 7, 6, 0, 0, 0, time.UTC)
	_, err = manufacturing.Start(ctx, tx, out.run.ID, at)
	must(err)
	out.run, err = manufacturing.Complete(ctx, tx, out.run.ID, manufacturing.Completion{
		Consume: []manufacturing.Consumption{{LotID: out.flour.ID, QuantityBase: grams}}}, at.Add(3*time.Hour))
	must(err)
	out.cookies, err = tx.ProductLot.Query().Where(productlot.LotNumber(lot)).Only(ctx)
	must(err)

	cust, err := tx.Customer.Query().Where(customer.CustomerCode("EPI-QC")).Only(ctx)
	must(err)
	out.customerName = *cust.Company
	ol := tx.SalesOrderLine.Create().SetProductID(cookieID).SetOrderQty(decimal.NewFromInt(5)).
		SetUomType(salesorderline.UomTypeINVENTORY_UNIT).SetPrice(decimal.RequireFromString("51.00"))
	ob := tx.SalesOrder.Create().SetCustomerID(cust.ID).SetOrderDate(time.Date(2026, 11, 8, 0, 0, 0, 0, time.UTC))
	must(sales.PrepareOrder(ctx, tx, ob.Mutation(), []*ent.SalesOrderLineCreate{ol}, nil))
	order, err := ob.Save(ctx)
	must(err)
	orows, err := tx.SalesOrderLine.CreateBulk(ol.SetSalesOrderID(order.ID)).Save(ctx)
	must(err)
	sl := tx.ShipmentLine.Create().SetSalesOrderLineID(orows[0].ID).SetQuantityBase(decimal.NewFromInt(60)).SetLotID(out.cookies.ID)
	sb := tx.Shipment.Create().SetSalesOrderID(order.ID).SetShipDate(time.Date(2026, 11, 9, 0, 0, 0, 0, time.UTC))
	prepared, err := sales.PrepareShipment(ctx, tx, sb.Mutation(), []*ent.ShipmentLineCreate{sl})
	must(err)
	out.shipment, err = sb.Save(ctx)
	must(err)
	srows, err := tx.ShipmentLine.CreateBulk(sl.SetShipmentID(out.shipment.ID)).Save(ctx)
	must(err)
	must(sales.Ship(ctx, tx, out.shipment, srows, prepared))
	out.shipment, err = tx.Shipment.Get(ctx, out.shipment.ID)
	must(err)
	inv, err := tx.Invoice.Get(ctx, *out.shipment.InvoiceID)
	must(err)
	out.invoiceNo = inv.InvoiceNo

	// A second run takes 12 of the cookies into a tray.
	tray, one, dozen := "TR-TRAY-1", decimal.NewFromInt(1), decimal.NewFromInt(12)
	out.rework, err = manufacturing.Create(ctx, tx, manufacturing.Plan{ProductID: productID("RC-COOKIE"), LineID: &lineID, Quantity: &one,
		LotNumber: &tray, ExpirationDate: &expires, Steps: []manufacturing.Step{{ProductID: cookieID, QuantityBase: dozen}}})
	must(err)
	at = at.Add(72 * time.Hour)
	_, err = manufacturing.Start(ctx, tx, out.rework.ID, at)
	must(err)
	out.rework, err = manufacturing.Complete(ctx, tx, out.rework.ID, manufacturing.Completion{
		Consume: []manufacturing.Consumption{{LotID: out.cookies.ID, QuantityBase: dozen}}}, at.Add(time.Hour))
	must(err)
	out.tray, err = tx.ProductLot.Query().Where(productlot.LotNumber(tray)).Only(ctx)
	must(err)
	must(tx.Commit())
	return out
}

// svgNodes are the ids of the nodes the trace's drawing holds, in its
// order.
func svgNodes(body string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`<g class="node [^"]*" id="node-([^"]+)">`).FindAllStringSubmatch(body, -1) {
		out = append(out, m[1])
	}
	return out
}

// svgEdges are the drawing's edges as "from→to", in its order.
func svgEdges(body string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`<path class="edge" data-from="([^"]+)" data-to="([^"]+)"`).FindAllStringSubmatch(body, -1) {
		out = append(out, m[1]+"→"+m[2])
	}
	return out
}

// svgLinks are the links over the drawing (lots, bills, shipments'
// invoices): their targets and names.
func svgLinks(body string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`<a class="nodelink" href="([^"]+)" aria-label="([^"]+)"`).FindAllStringSubmatch(body, -1) {
		out = append(out, html.UnescapeString(m[1])+" "+html.UnescapeString(m[2]))
	}
	return out
}

// svgTexts are the text lines of the drawing's node of id.
func svgTexts(body, id string) []string {
	i := strings.Index(body, `id="node-`+id+`"`)
	if i < 0 {
		return nil
	}
	part := body[i:]
	part = part[:strings.Index(part, "</g>")]
	var out []string
	for _, m := range regexp.MustCompile(`<text class="[a-z0-9]+"[^>]*>([^<]*)</text>`).FindAllStringSubmatch(part, -1) {
		out = append(out, html.UnescapeString(m[1]))
	}
	return out
}

// qtyLabels are the quantities written on the drawing's edges, in order.
func qtyLabels(body string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`<text class="qty"[^>]*>([^<]*)</text>`).FindAllStringSubmatch(body, -1) {
		out = append(out, html.UnescapeString(m[1]))
	}
	return out
}

// wantDrawing is what the drawing of a trace must hold: every node in the
// trace's order, every edge with its quantity in the lot's base unit.
func wantDrawing(tr *inventory.Trace) (nodes, edges, quantities []string) {
	units := map[string]string{}
	for _, n := range tr.Nodes {
		nodes = append(nodes, n.ID)
		if n.Lot != nil {
			units[n.ID] = " " + *n.Lot.UnitCode
		}
	}
	for _, e := range tr.Edges {
		edges = append(edges, e.From+"→"+e.To)
		u, ok := units[e.To]
		if !ok {
			u = units[e.From]
		}
		quantities = append(quantities, thousands(e.QuantityBase.String())+u)
	}
	return nodes, edges, quantities
}

// A lot's page, for every role, draws its trace: every node and edge of the
// trace in its order, each node labelled with its record, the edges with
// their quantities, every lot a link to its page; forward from the
// supplier's flour lot it reaches the run, the cookie lot and the shipment,
// backward from the cookies the run, the flour and the bill. The recall
// tables name the customer's invoice and the supplier's bill, and the CSV
// downloads with its header row and a file name naming the lot.
func TestLotPage(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		d := newDesk(t, st)
		org := dbtest.NewSeededOrg(t, st)
		c := traceChain(t, st, org)
		lot := func(l *ent.ProductLot) string { return "lot-" + strconv.Itoa(l.ID) }
		bill, run, ship := "bill-"+strconv.Itoa(c.bill.ID), "production-"+strconv.Itoa(c.run.ID), "shipment-"+strconv.Itoa(c.shipment.ID)
		page := func(l *ent.ProductLot, q string) string { return fmt.Sprintf("/console/lots/%d?%senv=test", l.ID, q) }
		trace := func(l *ent.ProductLot, d inventory.Direction, depth int) *inventory.Trace {
			tr, err := inventory.TraceLotOf(org.Ctx(policy.Test), st.Client, l.ID, d, depth)
			if err != nil {
				t.Fatal(err)
			}
			return tr
		}
		rework := "production-" + strconv.Itoa(c.rework.ID)
		forward, both, backward := trace(c.flour, inventory.Forward, 20), trace(c.flour, inventory.Both, 20), trace(c.cookies, inventory.Backward, 1)
		shallow := trace(c.flour, inventory.Forward, 1)
		// Each trace is the chain, as far as it goes that way; one run deep,
		// the forward trace stops before the tray's run.
		for _, x := range []struct {
			tr        *inventory.Trace
			want      []string
			truncated bool
		}{
			{forward, []string{lot(c.flour), run, lot(c.cookies), rework, ship, lot(c.tray)}, false},
			{both, []string{bill, lot(c.flour), run, lot(c.cookies), rework, ship, lot(c.tray)}, false},
			{backward, []string{bill, lot(c.flour), run, lot(c.cookies)}, false},
			{shallow, []string{lot(c.flour), run, lot(c.cookies), ship}, true},
		} {
			nodes, _, _ := wantDrawing(x.tr)
			if diff := cmp.Diff(x.want, nodes); diff != "" || x.tr.Truncated != x.truncated {
				t.Fatalf("the %s trace of lot %d, truncated %v (-want +got):\n%s", x.tr.Direction, x.tr.LotID, x.tr.Truncated, diff)
			}
		}

		for _, role := range people.Roles {
			t.Run(string(role), func(t *testing.T) {
				b, _ := d.signedIn(org.Org.ID, role)
				for _, x := range []struct {
					path string
					tr   *inventory.Trace
				}{
					{page(c.flour, "direction=forward&"), forward},
					{page(c.flour, ""), both},
					{page(c.cookies, "depth=1&direction=backward&"), backward},
					{page(c.flour, "depth=1&direction=forward&"), shallow},
				} {
					res := b.get(x.path)
					if res.status != http.StatusOK {
						t.Fatalf("%s: %d %s", x.path, res.status, res.body)
					}
					nodes, edges, quantities := wantDrawing(x.tr)
					if diff := cmp.Diff(nodes, svgNodes(res.body)); diff != "" {
						t.Errorf("%s: nodes (-want +got):\n%s", x.path, diff)
					}
					if diff := cmp.Diff(edges, svgEdges(res.body)); diff != "" {
						t.Errorf("%s: edges (-want +got):\n%s", x.path, diff)
					}
					if diff := cmp.Diff(quantities, qtyLabels(res.body)); diff != "" {
						t.Errorf("%s: quantities (-want +got):\n%s", x.path, diff)
					}
					summary := fmt.Sprintf("This trace has %d nodes and %d edges.", len(nodes), len(edges))
					levels := map[int]bool{}
					for _, n := range x.tr.Nodes {
						levels[n.Level] = true
					}
					desc := fmt.Sprintf(`<desc id="trace-desc">%d nodes in %d columns joined by %d edges`, len(nodes), len(levels), len(edges))
					state := "It is complete: no production run lies beyond its depth of 20."
					if x.tr.Depth == 1 {
						state = "It is complete: no production run lies beyond its depth of 1."
					}
					if x.tr.Truncated {
						state = "<strong>It is truncated:</strong> the depth of 1 production run stopped it"
					}
					for _, s := range []string{summary, desc, `<svg role="img" aria-labelledby="trace-title trace-desc"`, state} {
						if !strings.Contains(res.body, s) {
							t.Errorf("%s lacks %s", x.path, s)
						}
					}
				}

				res := b.get(page(c.flour, "direction=forward&"))
				// 20 kg of flour into the run, 10 cases of 12 cookies out
				// of it, 5 cases shipped.
				for edge, want := range map[string]string{lot(c.flour) + "→" + run: "20,000 g", run + "→" + lot(c.cookies): "120 each",
					lot(c.cookies) + "→" + ship: "60 each", lot(c.cookies) + "→" + rework: "12 each"} {
					if i := slices.Index(svgEdges(res.body), edge); i < 0 || qtyLabels(res.body)[i] != want {
						t.Errorf("edge %s is not drawn with %s", edge, want)
					}
				}
				want := []string{
					page(c.flour, "direction=forward&") + " Lot TR-FLOUR-1, RM-FLOUR All-purpose wheat flour",
					page(c.cookies, "direction=forward&") + " Lot TR-COOKIE-1, FG-COOKIE12 Chocolate chip cookies, box of 12",
					fmt.Sprintf("/console/invoices/%d?env=test Shipment to customer: Invoice %d, %s", *c.shipment.InvoiceID, c.invoiceNo, c.customerName),
					page(c.tray, "direction=forward&") + " Lot TR-TRAY-1, RC-COOKIE Chocolate chip cookies, baked (batch)",
				}
				if diff := cmp.Diff(want, svgLinks(res.body)); diff != "" {
					t.Errorf("forward links: lots, the shipment's invoice (-want +got):\n%s", diff)
				}
				for id, want := range map[string][]string{
					lot(c.flour):   {"Traced lot", "TR-FLOUR-1", "All-purpose wheat flour"},
					run:            {"Production run", "Run " + strconv.Itoa(c.run.ProductionNo), "COMPLETED 2026-11-07"},
					lot(c.cookies): {"Lot", "TR-COOKIE-1", "Chocolate chip cookies, box of 12"},
					ship:           {"Shipment to customer", "Invoice " + strconv.Itoa(c.invoiceNo), c.customerName},
				} {
					if diff := cmp.Diff(want, svgTexts(res.body, id)); diff != "" {
						t.Errorf("node %s (-want +got):\n%s", id, diff)
					}
				}
				for _, s := range []string{
					`<title id="trace-title">Trace of lot TR-FLOUR-1, forward to customers, 20 production runs deep</title>`,
					`<g class="node lot traced" id="node-` + lot(c.flour) + `">`,
					// The recall summary: the affected lots with what they
					// hold (the cookies less those shipped and those on the
					// tray), the customer's shipment.
					`<td class="num nowrap">30,000 g</td>`, `<td class="num nowrap">48 each</td>`,
					`>` + html.EscapeString(c.customerName) + `</th>`, "<td>Invoice " + strconv.Itoa(c.invoiceNo) + "</td>",
					`<td class="nowrap">2026-11-09</td>`,
					`<li><a href="/console/lots/` + strconv.Itoa(c.cookies.ID) + `?direction=forward&amp;env=test">TR-COOKIE-1</a>: 60 each</li>`,
					`href="/console/lots/` + strconv.Itoa(c.flour.ID) + `/trace.csv?depth=20&amp;direction=forward&amp;env=test"`,
				} {
					if !strings.Contains(res.body, s) {
						t.Errorf("the forward page lacks %s", s)
					}
				}

				res = b.get(page(c.flour, ""))
				if diff := cmp.Diff([]string{"Bill from supplier", "Bill " + strconv.Itoa(c.bill.BillNo), c.supplierName}, svgTexts(res.body, bill)); diff != "" {
					t.Errorf("the bill's node (-want +got):\n%s", diff)
				}
				// Two bags of 25 kg.
				if i := slices.Index(svgEdges(res.body), bill+"→"+lot(c.flour)); i < 0 || qtyLabels(res.body)[i] != "50,000 g" {
					t.Errorf("the bill's edge is not drawn with 50,000 g")
				}
				for _, s := range []string{"<td>Bill " + strconv.Itoa(c.bill.BillNo) + " (their reference PM-1)</td>", `<td class="nowrap">2026-11-06</td>`,
					`>` + html.EscapeString(c.supplierName) + `</th>`, `<td class="num nowrap">50,000 g</td>`,
					`<a href="/console/lots/` + strconv.Itoa(c.cookies.ID) + `?env=test">TR-COOKIE-1</a>`} {
					if !strings.Contains(res.body, s) {
						t.Errorf("the page both ways lacks %s", s)
					}
				}

				res = b.get(fmt.Sprintf("/console/lots/%d/trace.csv?env=test&direction=forward&depth=5", c.flour.ID))
				if res.status != http.StatusOK {
					t.Fatalf("CSV: %d %s", res.status, res.body)
				}
				if got := res.header.Get("Content-Type"); got != "text/csv; charset=utf-8" {
					t.Errorf("CSV Content-Type %q", got)
				}
				if got, want := res.header.Get("Content-Disposition"), fmt.Sprintf(`attachment; filename=lot-%d-TR-FLOUR-1-trace-forward.csv`, c.flour.ID); got != want {
					t.Errorf("CSV Content-Disposition %q, want %q", got, want)
				}
				recs, err := csv.NewReader(strings.NewReader(res.body)).ReadAll()
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(inventory.TraceCSVHeader, recs[0]); diff != "" {
					t.Errorf("CSV header (-want +got):\n%s", diff)
				}
				if len(recs) != len(forward.Edges)+1 {
					t.Errorf("CSV has %d rows, want the header and one per edge (%d)", len(recs), len(forward.Edges))
				}
			})
		}
	})
}

// The direction and depth are checked: a bad value is an error beside its
// field, the lot still shown and nothing traced; the CSV refuses them too.
// An environment that is not live or test, or the lot asked for in the
// other environment, is not found.
func TestLotPageErrors(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		d := newDesk(t, st)
		org := dbtest.NewSeededOrg(t, st)
		lot, err := st.Client.ProductLot.Query().Where(productlot.LotNumber("FL-2611-01")).Only(org.Ctx(policy.Test))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := d.signedIn(org.Org.ID, people.Viewer)
		base := fmt.Sprintf("/console/lots/%d", lot.ID)
		for _, tc := range []struct {
			query, field, msg string
		}{
			{"direction=sideways", "direction", "Choose a direction from the list"},
			{"depth=0", "depth", "Enter a whole number from 1 to 50"},
			{"depth=51", "depth", "Enter a whole number from 1 to 50"},
			{"depth=ten", "depth", "Enter a whole number from 1 to 50"},
		} {
			t.Run(tc.query, func(t *testing.T) {
				res := b.get(base + "?env=test&" + tc.query)
				if res.status != http.StatusBadRequest {
					t.Fatalf("%d, want 400", res.status)
				}
				if !strings.Contains(res.body, `<p class="error" id="e-`+tc.field+`">`+tc.msg) || !strings.Contains(res.body, `aria-invalid="true"`) {
					t.Errorf("no error beside %s:\n%s", tc.field, res.body)
				}
				if !strings.Contains(res.body, "<dd>FL-2611-01</dd>") || strings.Contains(res.body, "<svg") {
					t.Errorf("the lot is not shown, or a trace is")
				}
				if res := b.get(base + "/trace.csv?env=test&" + tc.query); res.status != http.StatusBadRequest || !strings.Contains(res.body, tc.msg) {
					t.Errorf("CSV: %d", res.status)
				}
			})
		}
		for _, p := range []string{base + "?env=prod", base + "?env=live", base + "/trace.csv?env=live", "/console/lots/x?env=test", "/console/lots/0?env=test"} {
			if res := b.get(p); res.status != http.StatusNotFound {
				t.Errorf("%s: %d, want 404", p, res.status)
			}
		}
	})
}

// newLots makes n numbered lots of a new product in org's live account,
// oldest first, with numbers prefix-001 up.
func newLots(t *testing.T, st *store.Store, org *dbtest.Org, code, prefix string, n int) []*ent.ProductLot {
	t.Helper()
	ctx := org.Ctx(policy.Live)
	tx, err := st.Client.Tx(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	p, err := tx.Product.Create().SetName(code + " product").SetProductCode(code).SetKind(entproduct.KindMaterial).
		SetProductType(entproduct.ProductTypeRAW_MATERIAL).Save(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var out []*ent.ProductLot
	for i := 1; i <= n; i++ {
		l, err := tx.ProductLot.Create().SetProductID(p.ID).SetLotNumber(fmt.Sprintf("%s-%03d", prefix, i)).
			SetQuantityBase(decimal.NewFromInt(int64(i))).Save(ctx)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, l)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	return out
}

// shownLots are the lot numbers a list page shows, in its order.
func shownLots(body string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`<tr class="lot">\s*<td><a href="[^"]+">([^<]+)</a>`).FindAllStringSubmatch(body, -1) {
		out = append(out, m[1])
	}
	return out
}

// numbers are the lot numbers of ls, newest first.
func numbers(ls []*ent.ProductLot) []string {
	var out []string
	for i := len(ls) - 1; i >= 0; i-- {
		out = append(out, *ls[i].LotNumber)
	}
	return out
}

// The lots page lists an environment's lots newest first, 50 a page with a
// link to the older ones; it finds them by part of the number and of the
// product's code or name in any case, and each row links to the lot's page.
// Every role reads it, and the test account's lots are not the live ones.
func TestLotsPage(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		d := newDesk(t, st)
		org := dbtest.NewOrg(t, st, "")
		rye := newLots(t, st, org, "RM-RYE", "RYE", 3)
		oats := newLots(t, st, org, "RM-OAT", "OAT", 52)
		all := append(append([]*ent.ProductLot{}, rye...), oats...)
		for _, role := range people.Roles {
			t.Run(string(role), func(t *testing.T) {
				b, _ := d.signedIn(org.Org.ID, role)
				res := b.get("/console/lots?env=live")
				if res.status != http.StatusOK {
					t.Fatalf("%d %s", res.status, res.body)
				}
				if diff := cmp.Diff(numbers(all)[:50], shownLots(res.body)); diff != "" {
					t.Errorf("the newest page (-want +got):\n%s", diff)
				}
				older := regexp.MustCompile(`<a href="([^"]+)">Older lots</a>`).FindStringSubmatch(res.body)
				if older == nil {
					t.Fatal("no link to older lots")
				}
				res = b.get(html.UnescapeString(older[1]))
				if diff := cmp.Diff(numbers(all)[50:], shownLots(res.body)); diff != "" {
					t.Errorf("the older page (-want +got):\n%s", diff)
				}
				if strings.Contains(res.body, "Older lots") || !strings.Contains(res.body, "Newest lots") {
					t.Error("the last page links to older lots, or not to the newest")
				}
				res = b.get("/console/lots?" + url.Values{"env": {"live"}, "number": {"oat-05"}}.Encode())
				if diff := cmp.Diff([]string{"OAT-052", "OAT-051", "OAT-050"}, shownLots(res.body)); diff != "" {
					t.Errorf("number oat-05 (-want +got):\n%s", diff)
				}
				if want := fmt.Sprintf(`<a href="/console/lots/%d?env=live">OAT-052</a>`, oats[51].ID); !strings.Contains(res.body, want) {
					t.Errorf("no link %s", want)
				}
				res = b.get("/console/lots?" + url.Values{"product": {"rye PROD"}}.Encode())
				if diff := cmp.Diff(numbers(rye), shownLots(res.body)); diff != "" {
					t.Errorf("product rye (-want +got):\n%s", diff)
				}
				res = b.get("/console/lots?" + url.Values{"product": {"rm-oat"}, "number": {"-00"}}.Encode())
				if diff := cmp.Diff(numbers(oats[:9]), shownLots(res.body)); diff != "" {
					t.Errorf("product rm-oat, number -00 (-want +got):\n%s", diff)
				}
				res = b.get("/console/lots?" + url.Values{"number": {"nothing"}}.Encode())
				if !strings.Contains(res.body, "No live lot matches this search.") {
					t.Error("an empty search does not say so")
				}
				res = b.get("/console/lots?env=test")
				if res.status != http.StatusOK || len(shownLots(res.body)) != 0 || !strings.Contains(res.body, "No test lots yet.") {
					t.Errorf("the test account shows the live lots: %d %v", res.status, shownLots(res.body))
				}
				for _, q := range []string{"env=prod", "before=x", "number=" + strings.Repeat("x", 101)} {
					if res := b.get("/console/lots?" + q); res.status != http.StatusBadRequest {
						t.Errorf("%s: %d, want 400", q, res.status)
					}
				}
			})
		}
		b, _ := d.signedIn(org.Org.ID, people.Viewer)
		if res := b.get("/console/account"); !strings.Contains(res.body, `<li><a href="/console/lots">Lots</a></li>`) {
			t.Error("the navigation does not list the lots")
		}
	})
}

// thousands puts a comma between the thousands of a whole number written
// in digits (20000 is 20,000), as the pages write quantities.
func thousands(s string) string {
	whole, frac, ok := strings.Cut(s, ".")
	for i := len(whole) - 3; i > 0; i -= 3 {
		whole = whole[:i] + "," + whole[i:]
	}
	if ok {
		return whole + "." + frac
	}
	return whole
}

// A lot's page and its CSV read the lot of the person's organization alone:
// the same lot id asked for by another organization is not found, and
// another organization's lots are not listed.
func TestLotsOtherOrganization(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		d := newDesk(t, st)
		a, other := dbtest.NewOrg(t, st, ""), dbtest.NewOrg(t, st, "")
		lots := newLots(t, st, a, "RM-SPELT", "SPELT", 1)
		own, _ := d.signedIn(a.Org.ID, people.Viewer)
		if res := own.get(fmt.Sprintf("/console/lots/%d?env=live", lots[0].ID)); res.status != http.StatusOK {
			t.Fatalf("the owner's page: %d", res.status)
		}
		b, _ := d.signedIn(other.Org.ID, people.Admin)
		for _, p := range []string{"/console/lots/%d", "/console/lots/%d?env=live&direction=forward", "/console/lots/%d/trace.csv"} {
			if res := b.get(fmt.Sprintf(p, lots[0].ID)); res.status != http.StatusNotFound || strings.Contains(res.body, "SPELT") {
				t.Errorf("%s: %d, want 404", p, res.status)
			}
		}
		if res := b.get("/console/lots?number=SPELT"); len(shownLots(res.body)) != 0 {
			t.Errorf("another organization's lots are listed: %v", shownLots(res.body))
		}
	})
}
