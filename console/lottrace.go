package console

import (
	"fmt"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/shopspring/decimal"

	"larder.dev/larder/internal/modules/inventory"
)

// A trace is drawn left to right, from suppliers to customers: one column per
// node level (upstream levels are negative, the traced lot is level 0),
// each column's nodes top to bottom in the trace's order, centred on the
// tallest column. The geometry is fixed, so the same trace is drawn the same.
const (
	traceMargin = 16
	nodeWidth   = 240
	nodeHeight  = 60
	columnGap   = 120
	rowGap      = 20
	// labelRunes is how much of a line a node box shows; the node's title
	// holds it whole.
	labelRunes = 34
)

// drawing is a trace as the page's SVG draws it.
type drawing struct {
	Width, Height int
	// Title and Desc name and describe the drawing for assistive technology.
	Title, Desc string
	Nodes       []drawnNode
	Edges       []drawnEdge
}

// drawnNode is a node's box and its lines of text.
type drawnNode struct {
	ID         string
	X, Y, W, H int
	// Kind is the node's kind (its CSS class); KindLabel names it.
	Kind, KindLabel string
	Line1, Line2    string
	// Full is the whole label, as the box's title.
	Full string
	// Traced marks the traced lot.
	Traced bool
	// Link is the node's page (a lot's, a bill's, a shipment's invoice's),
	// "" for a node without one; LinkLabel names it.
	Link, LinkLabel string
	// TextX, KindY, Line1Y, Line2Y place the text.
	TextX, KindY, Line1Y, Line2Y int
}

// drawnEdge is an edge's curve and its quantity.
type drawnEdge struct {
	From, To string
	Path     string
	LabelX   int
	LabelY   int
	Label    string
}

// draw lays a trace out.
func draw(t *inventory.Trace, env string) *drawing {
	var levels []int
	rows := map[int]int{}
	for _, n := range t.Nodes {
		if rows[n.Level] == 0 {
			levels = append(levels, n.Level)
		}
		rows[n.Level]++
	}
	slices.Sort(levels)
	column := map[int]int{}
	most := 0
	for i, l := range levels {
		column[l] = i
		most = max(most, rows[l])
	}
	d := &drawing{
		Width:  2*traceMargin + max(1, len(levels))*(nodeWidth+columnGap) - columnGap,
		Height: 2*traceMargin + max(1, most)*(nodeHeight+rowGap) - rowGap,
	}
	var traced *inventory.Node
	byID := map[string]*drawnNode{}
	units := map[string]*string{}
	next := map[int]int{}
	for i, n := range t.Nodes {
		if n.Level == 0 && n.Kind == inventory.NodeLot {
			traced = &t.Nodes[i]
		}
		row := next[n.Level]
		next[n.Level]++
		x := traceMargin + column[n.Level]*(nodeWidth+columnGap)
		y := traceMargin + (most-rows[n.Level])*(nodeHeight+rowGap)/2 + row*(nodeHeight+rowGap)
		kind, line1, line2 := nodeLabel(n)
		full := kind + ": " + line1
		if line2 != "" {
			full += ", " + line2
		}
		if n.Lot != nil {
			full = kind + ": " + line1 + ", " + productName(n.Lot.ProductCode, n.Lot.ProductName)
		}
		dn := drawnNode{
			ID: n.ID, X: x, Y: y, W: nodeWidth, H: nodeHeight, Kind: string(n.Kind), KindLabel: kind,
			Line1: clip(line1), Line2: clip(line2), Full: full,
			TextX: x + 10, KindY: y + 17, Line1Y: y + 35, Line2Y: y + 52,
		}
		if n.Lot != nil {
			dn.Traced = n.Level == 0
			dn.Link = lotPath(n.Lot.ID, env, t.Direction, t.Depth)
			dn.LinkLabel = "Lot " + line1 + ", " + productName(n.Lot.ProductCode, n.Lot.ProductName)
			units[n.ID] = n.Lot.UnitCode
		}
		// A bill links to its page; a shipment to its invoice's.
		switch {
		case n.Bill != nil:
			dn.Link = documentPath("bills", n.Bill.ID, env)
			dn.LinkLabel = full
		case n.Shipment != nil && n.Shipment.InvoiceID != nil:
			dn.Link = documentPath("invoices", *n.Shipment.InvoiceID, env)
			dn.LinkLabel = full
		}
		d.Nodes = append(d.Nodes, dn)
	}
	for i := range d.Nodes {
		byID[d.Nodes[i].ID] = &d.Nodes[i]
	}
	for _, e := range t.Edges {
		from, to := byID[e.From], byID[e.To]
		if from == nil || to == nil {
			continue
		}
		unit := units[e.To]
		if unit == nil {
			unit = units[e.From]
		}
		sx, sy := from.X+from.W, from.Y+from.H/2
		ex, ey := to.X, to.Y+to.H/2
		// A curve leaves the right side of its node and enters the left
		// side of the next; one that goes back (or within a column) bends
		// out and back in.
		bend := max((ex-sx)/2, 48)
		c1x, c2x := sx+bend, ex-bend
		d.Edges = append(d.Edges, drawnEdge{
			From: e.From, To: e.To,
			Path:   fmt.Sprintf("M%d %d C%d %d %d %d %d %d", sx, sy, c1x, sy, c2x, ey, ex, ey),
			LabelX: (sx + 3*c1x + 3*c2x + ex) / 8, LabelY: (sy+3*sy+3*ey+ey)/8 - 5,
			Label: quantity(e.QuantityBase, unit),
		})
	}
	name := "the lot"
	if traced != nil && traced.Lot != nil {
		name = "lot " + lotName(traced.Lot)
	}
	d.Title = fmt.Sprintf("Trace of %s, %s, %d production run%s deep", name, directionWords(t.Direction), t.Depth, plural(t.Depth))
	d.Desc = fmt.Sprintf("%d node%s in %d column%s joined by %d edge%s, from suppliers on the left to customers on the right; the traced lot is highlighted. The tables below list what a recall reaches.",
		len(t.Nodes), plural(len(t.Nodes)), len(levels), plural(len(levels)), len(t.Edges), plural(len(t.Edges)))
	return d
}

// nodeLabel names a node's kind and its record in two lines.
func nodeLabel(n inventory.Node) (kind, line1, line2 string) {
	switch {
	case n.Lot != nil:
		kind = "Lot"
		if n.Level == 0 {
			kind = "Traced lot"
		}
		if n.Lot.Archived {
			kind += " (archived)"
		}
		line2 = orDash(n.Lot.ProductName)
		if n.Lot.ProductName == nil {
			line2 = orDash(n.Lot.ProductCode)
		}
		return kind, lotName(n.Lot), line2
	case n.Production != nil:
		p := n.Production
		line2 = p.Status
		if p.EndDate != nil {
			line2 += " " + day(p.EndDate)
		}
		return "Production run", "Run " + strconv.Itoa(p.ProductionNo), line2
	case n.Bill != nil:
		b := n.Bill
		line1 = "Bill " + strconv.Itoa(b.BillNo)
		if b.IsCancelled {
			line1 += " (cancelled)"
		}
		return "Bill from supplier", line1, orDash(b.SupplierName)
	case n.Shipment != nil:
		return "Shipment to customer", shipmentName(n.Shipment), orDash(n.Shipment.CustomerName)
	case n.Origin != nil:
		o := n.Origin
		return "Origin", originWords[o.Kind], "by " + o.Source + " on " + day(&o.At)
	}
	return string(n.Kind), n.ID, ""
}

// originWords say what started a lot's quantity.
var originWords = map[inventory.OriginKind]string{
	inventory.OriginCreated:    "Created with a quantity",
	inventory.OriginCorrection: "Quantity corrected",
	inventory.OriginAdjustment: "Stock adjustment",
	inventory.OriginCount:      "Inventory count",
}

// shipmentName is a shipment's invoice, or its order when it has none.
func shipmentName(s *inventory.TraceShipment) string {
	if s.InvoiceNo != nil {
		return "Invoice " + strconv.Itoa(*s.InvoiceNo)
	}
	return "Order " + strconv.Itoa(s.SalesOrderNo) + " (no invoice)"
}

// directionWords says which way a trace goes.
func directionWords(d inventory.Direction) string {
	switch d {
	case inventory.Backward:
		return "backward to suppliers"
	case inventory.Forward:
		return "forward to customers"
	}
	return "both ways"
}

// clip cuts a line to what a node box shows.
func clip(s string) string {
	if utf8.RuneCountInString(s) <= labelRunes {
		return s
	}
	r := []rune(s)
	return string(r[:labelRunes-1]) + "…"
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// recallView is the recall summary as the page's tables show it.
type recallView struct {
	Lots      []recallLot
	Customers []recallCustomer
	Suppliers []recallSupplier
}

// recallLot is an affected lot.
type recallLot struct {
	*inventory.TraceLot
	Link string
}

// recallCustomer is a customer with the shipments of affected lots.
type recallCustomer struct {
	Name      string
	Shipments []recallShipment
}

// recallShipment is one shipment: when, which invoice, what it took.
type recallShipment struct {
	Date, Invoice string
	Lots          []recallQuantity
}

// recallQuantity is a lot and a quantity of it.
type recallQuantity struct {
	Lot, Link, Quantity string
}

// recallSupplier is a supplier with the lots it delivered.
type recallSupplier struct {
	Name     string
	Receipts []recallReceipt
}

// recallReceipt is a lot received on a bill.
type recallReceipt struct {
	Bill, Date string
	recallQuantity
}

// recallOf prepares a trace's recall summary.
func recallOf(t *inventory.Trace, env string) recallView {
	var v recallView
	q := func(l *inventory.TraceLot, n decimal.Decimal, unit *string) recallQuantity {
		return recallQuantity{Lot: lotName(l), Link: lotPath(l.ID, env, t.Direction, t.Depth), Quantity: quantity(n, unit)}
	}
	for _, l := range t.Recall.Lots {
		v.Lots = append(v.Lots, recallLot{TraceLot: l, Link: lotPath(l.ID, env, t.Direction, t.Depth)})
	}
	for _, c := range t.Recall.Customers {
		rc := recallCustomer{Name: orDash(c.CustomerName)}
		for _, s := range c.Shipments {
			rs := recallShipment{Date: day(s.Shipment.ShipDate), Invoice: shipmentName(s.Shipment)}
			for _, l := range s.Lots {
				rs.Lots = append(rs.Lots, q(l.Lot, l.QuantityBase, l.Lot.UnitCode))
			}
			rc.Shipments = append(rc.Shipments, rs)
		}
		v.Customers = append(v.Customers, rc)
	}
	for _, s := range t.Recall.Suppliers {
		rs := recallSupplier{Name: orDash(s.SupplierName)}
		for _, r := range s.Lots {
			bill := "Bill " + strconv.Itoa(r.Bill.BillNo)
			if r.Bill.SupplierReference != nil && *r.Bill.SupplierReference != "" {
				bill += " (their reference " + *r.Bill.SupplierReference + ")"
			}
			if r.Bill.IsCancelled {
				bill += ", cancelled"
			}
			rs.Receipts = append(rs.Receipts, recallReceipt{Bill: bill, Date: day(&r.Bill.BillDate), recallQuantity: q(r.Lot, r.QuantityBase, r.Lot.UnitCode)})
		}
		v.Suppliers = append(v.Suppliers, rs)
	}
	return v
}
