package inventory

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/bill"
	"larder.dev/larder/ent/location"
	"larder.dev/larder/ent/lotcorrection"
	"larder.dev/larder/ent/product"
	"larder.dev/larder/ent/production"
	"larder.dev/larder/ent/productlot"
	"larder.dev/larder/ent/shipment"
	"larder.dev/larder/ent/stockmovement"
	"larder.dev/larder/ent/unitofmeasure"
	"larder.dev/larder/policy"
	"larder.dev/larder/problem"
)

// A lot's trace follows its stock movements: a bill's PURCHASE_ENTRY brings
// a lot in from a supplier, a production run's PRODUCTION_CONSUMPTION takes
// lots in and its PRODUCTION_OUTPUT puts its lot out, a shipment's SHIPPING
// takes a lot to a customer, and the origins that are no document (a lot
// created through the API, a correction, an adjustment, a count) start a
// lot's quantity. Backward goes from the lot towards its suppliers, forward
// towards its customers.

// Direction is which way a trace goes from its lot.
type Direction string

// The directions of a trace.
const (
	Backward Direction = "backward"
	Forward  Direction = "forward"
	Both     Direction = "both"
)

// The bounds of a trace's depth: the number of production runs followed in
// each direction.
const (
	DefaultTraceDepth = 20
	MaxTraceDepth     = 50
)

// NodeKind is what a node of a trace is.
type NodeKind string

// The kinds of node.
const (
	NodeLot        NodeKind = "lot"
	NodeProduction NodeKind = "production"
	NodeBill       NodeKind = "bill"
	NodeShipment   NodeKind = "shipment"
	NodeOrigin     NodeKind = "origin"
)

// OriginKind is what started a lot's quantity when no document did.
type OriginKind string

// The origins that are no document.
const (
	OriginCreated    OriginKind = "created"    // the lot was created with a quantity (PRODUCT_FORM)
	OriginCorrection OriginKind = "correction" // its quantity was corrected (PATCH)
	OriginAdjustment OriginKind = "adjustment" // an ADJUSTMENT movement
	OriginCount      OriginKind = "count"      // an INVENTORY_COUNT movement
)

// Trace is the graph of what a lot came from and went into, with the recall
// summary drawn from it.
type Trace struct {
	LotID     int
	Direction Direction
	Depth     int
	// Truncated is true when the depth stopped the trace before a run that
	// consumed (forward) or made (backward) one of its outermost lots.
	Truncated bool
	// Nodes in order of level, then kind, then id; the traced lot is the
	// one at level 0.
	Nodes []Node
	// Edges in the order of their nodes, from then to.
	Edges  []Edge
	Recall Recall
}

// Node is one record of the trace; exactly one of its details is set, the
// one its Kind names.
type Node struct {
	// ID is unique in the trace: the kind and the record's id ("lot-12",
	// "origin-created-40" for the movement 40).
	ID   string
	Kind NodeKind
	// Level is the number of edges between the node and the traced lot:
	// negative upstream, positive downstream.
	Level      int
	Lot        *TraceLot
	Production *TraceProduction
	Bill       *TraceBill
	Shipment   *TraceShipment
	Origin     *TraceOrigin
}

// TraceLot is a lot of a trace.
type TraceLot struct {
	ID             int
	ProductID      int
	ProductCode    *string
	ProductName    *string
	UnitCode       *string // the product's base unit
	LotNumber      *string
	ExpirationDate *time.Time
	QCStatus       string
	QuantityBase   decimal.Decimal // on hand
	LocationID     *int
	LocationCode   *string
	LocationName   *string
	Archived       bool
}

// TraceProduction is a production run of a trace.
type TraceProduction struct {
	ID           int
	ProductionNo int
	Status       string
	ProductID    *int
	LotNumber    *string
	StartDate    *time.Time
	EndDate      *time.Time
}

// TraceBill is a bill of a trace, with its supplier.
type TraceBill struct {
	ID                int
	BillNo            int
	BillDate          time.Time
	SupplierID        int
	SupplierName      *string
	SupplierReference *string
	IsCancelled       bool
}

// TraceShipment is a shipment of a trace, with its order, invoice and
// customer.
type TraceShipment struct {
	ID             int
	ShipDate       *time.Time
	TrackingNumber *string
	SalesOrderID   int
	SalesOrderNo   int
	InvoiceID      *int
	InvoiceNo      *int
	CustomerID     int
	CustomerName   *string
}

// TraceOrigin is an origin of a lot's quantity that is no document.
type TraceOrigin struct {
	Kind OriginKind
	// Source is what made it: api, app or system.
	Source string
	At     time.Time
}

// Edge is a link of the trace, in the direction the goods went: from a
// bill or an origin to a lot, from a lot to the run that consumed it, from a
// run to its lot, from a lot to a shipment.
type Edge struct {
	From, To string
	// QuantityBase is what went along the link, in the base unit of the
	// lot's product: the sum of its movements. From an origin it is the
	// signed change the origin made.
	QuantityBase decimal.Decimal
	// Date is when the first movement of the link was recorded.
	Date time.Time
}

// Recall is what a recall of the traced lot needs at once.
type Recall struct {
	// Lots are the traced lot and every lot downstream of it, with what each
	// holds and where.
	Lots []*TraceLot
	// Customers received affected lots, in order of id.
	Customers []RecallCustomer
	// Suppliers delivered the lots upstream, in order of id.
	Suppliers []RecallSupplier
}

// RecallCustomer is a customer who received affected product.
type RecallCustomer struct {
	CustomerID   int
	CustomerName *string
	Shipments    []RecallShipment
}

// RecallShipment is a shipment to such a customer and the affected lots it
// took.
type RecallShipment struct {
	Shipment *TraceShipment
	Lots     []RecallQuantity
}

// RecallSupplier is a supplier whose lots are upstream of the traced lot.
type RecallSupplier struct {
	SupplierID   int
	SupplierName *string
	Lots         []RecallReceipt
}

// RecallReceipt is a supplier's lot received on a bill.
type RecallReceipt struct {
	Bill *TraceBill
	RecallQuantity
}

// RecallQuantity is a lot and a quantity of it, in its product's base unit.
type RecallQuantity struct {
	Lot          *TraceLot
	QuantityBase decimal.Decimal
}

// TraceLotOf traces the lot id of the viewer's account in ctx, in direction
// d (Both when empty) over at most depth production runs each way
// (DefaultTraceDepth when 0). A lot of another account is not found, as for
// any read: the lot is read through the account's policy, the movements are
// read with the viewer's account in every step of the query, and every node's
// record through the policy again.
func TraceLotOf(ctx context.Context, c *ent.Client, id int, d Direction, depth int) (*Trace, error) {
	if d == "" {
		d = Both
	}
	if d != Backward && d != Forward && d != Both {
		return nil, problem.Invalidf("direction", "must be one of backward, forward, both")
	}
	if depth == 0 {
		depth = DefaultTraceDepth
	}
	if depth < 1 || depth > MaxTraceDepth {
		return nil, problem.Invalidf("depth", "must be between 1 and %d", MaxTraceDepth)
	}
	v := policy.FromContext(ctx)
	if v == nil || v.AccountID == 0 {
		return nil, fmt.Errorf("trace: the viewer must be an account's")
	}
	root, err := c.ProductLot.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	fwd, bwd := depth, depth
	switch d {
	case Forward:
		bwd = 0
	case Backward:
		fwd = 0
	}
	r, err := reach(ctx, c, v.AccountID, root.ID, fwd, bwd)
	if err != nil {
		return nil, err
	}
	t := &Trace{LotID: root.ID, Direction: d, Depth: depth}
	// A way not asked for reached the lot alone: it keeps its movements,
	// not its links that way.
	if fwd == 0 {
		clear(r.fwd)
	}
	if bwd == 0 {
		clear(r.bwd)
	}
	b := r.graph(t)
	b.add(NodeLot, root.ID, nodeID(NodeLot, root.ID), 0)
	if err := b.load(ctx, c, r); err != nil {
		return nil, err
	}
	b.finish(t)
	return t, nil
}

// traceReach finds, in one statement, the lots a trace reaches each way and
// their movements. The forward part follows a lot's PRODUCTION_CONSUMPTION
// to the run's PRODUCTION_OUTPUT, the backward part the other way; UNION
// keeps one row per lot and level, so a cycle ends at the depth. Every step
// reads movements by lot (stock_movements' lot_id index) or by run
// (stockmovement_account_id_document_type_document_id), always of the
// account ($1). Parameters appear in order of number: SQLite numbers $N
// parameters as it meets them.
const traceReach = `WITH RECURSIVE
fwd(lot_id, level) AS (
  SELECT id, 0 FROM product_lots WHERE account_id = $1 AND id = $2
  UNION
  SELECT o.lot_id, f.level + 1 FROM fwd f
  JOIN stock_movements c ON c.lot_id = f.lot_id AND c.account_id = $1 AND c.type = 'PRODUCTION_CONSUMPTION'
  JOIN stock_movements o ON o.account_id = $1 AND o.document_type = 'production' AND o.document_id = c.document_id AND o.type = 'PRODUCTION_OUTPUT'
  WHERE f.level < $3
),
bwd(lot_id, level) AS (
  SELECT id, 0 FROM product_lots WHERE account_id = $1 AND id = $2
  UNION
  SELECT c.lot_id, b.level + 1 FROM bwd b
  JOIN stock_movements o ON o.lot_id = b.lot_id AND o.account_id = $1 AND o.type = 'PRODUCTION_OUTPUT'
  JOIN stock_movements c ON c.account_id = $1 AND c.document_type = 'production' AND c.document_id = o.document_id AND c.type = 'PRODUCTION_CONSUMPTION'
  WHERE b.level < $4
),
reached(side, lot_id, level) AS (
  SELECT 1, lot_id, min(level) FROM fwd GROUP BY lot_id
  UNION ALL
  SELECT -1, lot_id, min(level) FROM bwd GROUP BY lot_id
)
SELECT r.side, r.lot_id, r.level, m.id, m.type, m.document_type, m.document_id, m.quantity_base, m.source, m.created_at
FROM reached r LEFT JOIN stock_movements m ON m.lot_id = r.lot_id AND m.account_id = $1
ORDER BY r.side, r.lot_id, m.id`

// TraceReachSQL is the statement that finds a trace's lots and movements,
// for benchmarks that run it alone; its parameters are the account, the lot,
// the forward depth and the backward depth.
const TraceReachSQL = traceReach

// movement is a stock movement a trace read.
type movement struct {
	id       int
	lot      int
	typ      stockmovement.Type
	docType  string
	docID    int
	quantity decimal.Decimal
	source   string
	at       time.Time
}

// reached is what traceReach found: each side's lots and levels, and the
// movements of every lot reached.
type reached struct {
	fwd, bwd           map[int]int // lot → level in lots (runs followed)
	fwdDepth, bwdDepth int
	moves              map[int][]movement // lot → its movements, in order of id
}

func reach(ctx context.Context, c *ent.Client, account, lot, fwd, bwd int) (*reached, error) {
	// Direct SQL: a lot's trace follows stock movements through production runs in one recursive query (ent has no recursive query); every step is filtered by the viewer's account, and the lot was first read through the account's policy.
	rows, err := c.QueryContext(ctx, traceReach, account, lot, fwd, bwd)
	if err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	defer rows.Close()
	r := &reached{fwd: map[int]int{}, bwd: map[int]int{}, fwdDepth: fwd, bwdDepth: bwd, moves: map[int][]movement{}}
	seen := map[int]bool{}
	for rows.Next() {
		var (
			side, lotID, level int
			id, docID          *int64
			typ, docType, src  *string
			q                  decimal.NullDecimal
			at                 any
		)
		if err := rows.Scan(&side, &lotID, &level, &id, &typ, &docType, &docID, &q, &src, &at); err != nil {
			return nil, fmt.Errorf("trace: %w", err)
		}
		if side > 0 {
			r.fwd[lotID] = level
		} else {
			r.bwd[lotID] = level
		}
		if id == nil || seen[int(*id)] {
			continue
		}
		seen[int(*id)] = true
		m := movement{id: int(*id), lot: lotID, typ: stockmovement.Type(*typ), quantity: q.Decimal, source: deref(src)}
		if docType != nil {
			m.docType = *docType
		}
		if docID != nil {
			m.docID = int(*docID)
		}
		if m.at, err = timeOf(at); err != nil {
			return nil, fmt.Errorf("trace: movement %d: %w", m.id, err)
		}
		r.moves[lotID] = append(r.moves[lotID], m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	for _, ms := range r.moves {
		slices.SortFunc(ms, func(a, b movement) int { return a.id - b.id })
	}
	return r, nil
}

// timeOf reads a timestamp as either driver returns it: PostgreSQL a
// time.Time, SQLite (ent stores its times as text there) a string.
func timeOf(v any) (time.Time, error) {
	switch t := v.(type) {
	case time.Time:
		return t, nil
	case string:
		return parseSQLiteTime(t)
	case []byte:
		return parseSQLiteTime(string(t))
	}
	return time.Time{}, fmt.Errorf("a time of type %T", v)
}

func parseSQLiteTime(s string) (time.Time, error) {
	for _, layout := range []string{"2006-01-02 15:04:05.999999999-07:00", time.RFC3339Nano, "2006-01-02 15:04:05.999999999", "2006-01-02T15:04:05.999999999"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("the time %q", s)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// builder assembles a trace's nodes and edges from what was reached, then
// fills the nodes' details.
type builder struct {
	nodes map[string]*Node
	edges map[[2]string]*Edge
	// ids of each kind's records, to read their details.
	lots, productions, bills, shipments []int
	// correctionLots are the upstream lots whose corrections are origins.
	correctionLots []int
}

func nodeID(k NodeKind, id int) string { return string(k) + "-" + strconv.Itoa(id) }

// add puts a node at level, or keeps the one there if it is as near or
// nearer to the traced lot (a forward one on a tie).
func (b *builder) add(k NodeKind, id int, key string, level int) {
	if n, ok := b.nodes[key]; ok {
		if abs(n.Level) < abs(level) || (abs(n.Level) == abs(level) && n.Level >= level) {
			return
		}
		n.Level = level
		return
	}
	b.nodes[key] = &Node{ID: key, Kind: k, Level: level}
	switch k {
	case NodeLot:
		b.lots = append(b.lots, id)
	case NodeProduction:
		b.productions = append(b.productions, id)
	case NodeBill:
		b.bills = append(b.bills, id)
	case NodeShipment:
		b.shipments = append(b.shipments, id)
	}
}

func (b *builder) link(from, to string, q decimal.Decimal, at time.Time) {
	e, ok := b.edges[[2]string{from, to}]
	if !ok {
		b.edges[[2]string{from, to}] = &Edge{From: from, To: to, QuantityBase: q, Date: at}
		return
	}
	e.QuantityBase = e.QuantityBase.Add(q)
	if at.Before(e.Date) {
		e.Date = at
	}
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// graph turns the lots and movements reached into nodes and edges. A lot
// at lot level n is at node level 2n forward (-2n backward); the runs
// between lots, and the documents and origins beside them, sit at the odd
// levels between.
func (r *reached) graph(t *Trace) *builder {
	b := &builder{nodes: map[string]*Node{}, edges: map[[2]string]*Edge{}}
	// The runs each side follows: those that consumed a forward lot below
	// the depth, and those that made a backward lot below it.
	fwdRuns, bwdRuns := map[int]int{}, map[int]int{} // run → its node level
	for lot, n := range r.fwd {
		b.add(NodeLot, lot, nodeID(NodeLot, lot), 2*n)
		for _, m := range r.moves[lot] {
			if r.fwdDepth == 0 || m.typ != stockmovement.TypePRODUCTION_CONSUMPTION || m.docType != "production" {
				continue
			}
			if n >= r.fwdDepth {
				t.Truncated = true
			} else if l, ok := fwdRuns[m.docID]; !ok || 2*n+1 < l {
				fwdRuns[m.docID] = 2*n + 1
			}
		}
	}
	for lot, n := range r.bwd {
		b.add(NodeLot, lot, nodeID(NodeLot, lot), -2*n)
		for _, m := range r.moves[lot] {
			if r.bwdDepth == 0 || m.typ != stockmovement.TypePRODUCTION_OUTPUT || m.docType != "production" {
				continue
			}
			if n >= r.bwdDepth {
				t.Truncated = true
			} else if l, ok := bwdRuns[m.docID]; !ok || -2*n-1 > l {
				bwdRuns[m.docID] = -2*n - 1
			}
		}
	}
	for run, l := range fwdRuns {
		b.add(NodeProduction, run, nodeID(NodeProduction, run), l)
	}
	for run, l := range bwdRuns {
		b.add(NodeProduction, run, nodeID(NodeProduction, run), l)
	}
	for lot, ms := range r.moves {
		from := nodeID(NodeLot, lot)
		_, isFwd := r.fwd[lot]
		_, isBwd := r.bwd[lot]
		fl, bl := 2*r.fwd[lot], -2*r.bwd[lot]
		for _, m := range ms {
			q := m.quantity.Abs()
			switch m.typ {
			case stockmovement.TypePRODUCTION_CONSUMPTION:
				_, f := fwdRuns[m.docID]
				_, bk := bwdRuns[m.docID]
				if m.docType == "production" && ((isFwd && f && r.fwd[lot] < r.fwdDepth) || (isBwd && bk)) {
					b.link(from, nodeID(NodeProduction, m.docID), q, m.at)
				}
			case stockmovement.TypePRODUCTION_OUTPUT:
				_, f := fwdRuns[m.docID]
				_, bk := bwdRuns[m.docID]
				if m.docType == "production" && ((isFwd && f) || (isBwd && bk && r.bwd[lot] < r.bwdDepth)) {
					b.link(nodeID(NodeProduction, m.docID), from, q, m.at)
				}
			case stockmovement.TypeSHIPPING:
				if isFwd && m.docType == "shipment" {
					to := nodeID(NodeShipment, m.docID)
					b.add(NodeShipment, m.docID, to, fl+1)
					b.link(from, to, q, m.at)
				}
			case stockmovement.TypePURCHASE_ENTRY:
				if isBwd && m.docType == "bill" {
					at := nodeID(NodeBill, m.docID)
					b.add(NodeBill, m.docID, at, bl-1)
					b.link(at, from, q, m.at)
				}
			default:
				if !isBwd {
					continue
				}
				k := map[stockmovement.Type]OriginKind{
					stockmovement.TypePRODUCT_FORM:    OriginCreated,
					stockmovement.TypeADJUSTMENT:      OriginAdjustment,
					stockmovement.TypeINVENTORY_COUNT: OriginCount,
				}[m.typ]
				if k == "" {
					continue
				}
				at := "origin-" + string(k) + "-" + strconv.Itoa(m.id)
				b.add(NodeOrigin, m.id, at, bl-1)
				b.nodes[at].Origin = &TraceOrigin{Kind: k, Source: m.source, At: m.at}
				b.link(at, from, m.quantity, m.at)
			}
		}
		if isBwd {
			b.correctionLots = append(b.correctionLots, lot)
		}
	}
	return b
}

// load reads the details of every node through the account's policy, and
// the corrections of the upstream lots as origins.
func (b *builder) load(ctx context.Context, c *ent.Client, r *reached) error {
	if len(b.correctionLots) > 0 {
		cs, err := c.LotCorrection.Query().Where(lotcorrection.LotIDIn(b.correctionLots...)).Order(lotcorrection.ByID()).All(ctx)
		if err != nil {
			return err
		}
		for _, x := range cs {
			key := "origin-" + string(OriginCorrection) + "-" + strconv.Itoa(x.ID)
			lot := nodeID(NodeLot, x.LotID)
			b.add(NodeOrigin, x.ID, key, b.nodes[lot].Level-1)
			b.nodes[key].Origin = &TraceOrigin{Kind: OriginCorrection, Source: string(x.Source), At: x.CreatedAt}
			b.link(key, lot, x.QuantityAfter.Sub(x.QuantityBefore), x.CreatedAt)
		}
	}
	if err := b.loadLots(ctx, c); err != nil {
		return err
	}
	if len(b.productions) > 0 {
		ps, err := c.Production.Query().Where(production.IDIn(b.productions...)).
			Select(production.FieldID, production.FieldProductionNo, production.FieldStatus, production.FieldProductID,
				production.FieldLotNumber, production.FieldStartDate, production.FieldEndDate).
			All(ctx)
		if err != nil {
			return err
		}
		for _, p := range ps {
			tp := &TraceProduction{ID: p.ID, ProductionNo: p.ProductionNo,
				Status: string(p.Status), LotNumber: p.LotNumber, StartDate: p.StartDate, EndDate: p.EndDate}
			if p.ProductID != 0 {
				tp.ProductID = &p.ProductID
			}
			b.nodes[nodeID(NodeProduction, p.ID)].Production = tp
		}
	}
	if len(b.bills) > 0 {
		bs, err := c.Bill.Query().Where(bill.IDIn(b.bills...)).WithSupplier().All(ctx)
		if err != nil {
			return err
		}
		for _, x := range bs {
			tb := &TraceBill{ID: x.ID, BillNo: x.BillNo, BillDate: x.BillDate, SupplierID: x.SupplierID,
				SupplierReference: x.SupplierReference, IsCancelled: x.IsCancelled}
			if x.Edges.Supplier != nil {
				tb.SupplierName = x.Edges.Supplier.Company
			}
			b.nodes[nodeID(NodeBill, x.ID)].Bill = tb
		}
	}
	if len(b.shipments) > 0 {
		ss, err := c.Shipment.Query().Where(shipment.IDIn(b.shipments...)).
			WithSalesOrder(func(q *ent.SalesOrderQuery) { q.WithCustomer() }).
			WithInvoice().
			All(ctx)
		if err != nil {
			return err
		}
		for _, x := range ss {
			ts := &TraceShipment{ID: x.ID, ShipDate: x.ShipDate, TrackingNumber: x.TrackingNumber, SalesOrderID: x.SalesOrderID, InvoiceID: x.InvoiceID}
			if o := x.Edges.SalesOrder; o != nil {
				ts.SalesOrderNo = o.SalesOrderNo
				ts.CustomerID = o.CustomerID
				if cu := o.Edges.Customer; cu != nil {
					ts.CustomerName = cu.Company
				}
			}
			if inv := x.Edges.Invoice; inv != nil {
				ts.InvoiceNo = &inv.InvoiceNo
			}
			b.nodes[nodeID(NodeShipment, x.ID)].Shipment = ts
		}
	}
	// A record the policy did not return is none of the account's: it
	// leaves the trace, with its edges.
	for key, n := range b.nodes {
		if n.Lot == nil && n.Production == nil && n.Bill == nil && n.Shipment == nil && n.Origin == nil {
			delete(b.nodes, key)
		}
	}
	for key, e := range b.edges {
		if b.nodes[e.From] == nil || b.nodes[e.To] == nil {
			delete(b.edges, key)
		}
	}
	return nil
}

// loadLots reads the lots with their products' names and base units and
// their locations.
func (b *builder) loadLots(ctx context.Context, c *ent.Client) error {
	lots, err := c.ProductLot.Query().Where(productlot.IDIn(b.lots...)).All(ctx)
	if err != nil {
		return err
	}
	tls, err := traceLots(ctx, c, lots)
	if err != nil {
		return err
	}
	for _, tl := range tls {
		b.nodes[nodeID(NodeLot, tl.ID)].Lot = tl
	}
	return nil
}

// traceLots describes lots with their products' codes, names and base units
// and their locations, in the order of lots.
func traceLots(ctx context.Context, c *ent.Client, lots []*ent.ProductLot) ([]*TraceLot, error) {
	var productIDs, locationIDs []int
	for _, l := range lots {
		productIDs = append(productIDs, l.ProductID)
		if l.LocationID != nil {
			locationIDs = append(locationIDs, *l.LocationID)
		}
	}
	products := map[int]*ent.Product{}
	units := map[int]*string{}
	if len(productIDs) > 0 {
		ps, err := c.Product.Query().Where(product.IDIn(uniq(productIDs)...)).
			Select(product.FieldID, product.FieldName, product.FieldProductCode, product.FieldUomBaseID).All(ctx)
		if err != nil {
			return nil, err
		}
		var uoms []int
		for _, p := range ps {
			products[p.ID] = p
			if p.UomBaseID != nil {
				uoms = append(uoms, *p.UomBaseID)
			}
		}
		if len(uoms) > 0 {
			us, err := c.UnitOfMeasure.Query().Where(unitofmeasure.IDIn(uniq(uoms)...)).
				Select(unitofmeasure.FieldID, unitofmeasure.FieldCode).All(ctx)
			if err != nil {
				return nil, err
			}
			for _, u := range us {
				units[u.ID] = &u.Code
			}
		}
	}
	locations := map[int]*ent.Location{}
	if len(locationIDs) > 0 {
		ls, err := c.Location.Query().Where(location.IDIn(uniq(locationIDs)...)).
			Select(location.FieldID, location.FieldCode, location.FieldName).All(ctx)
		if err != nil {
			return nil, err
		}
		for _, l := range ls {
			locations[l.ID] = l
		}
	}
	out := make([]*TraceLot, len(lots))
	for i, l := range lots {
		tl := &TraceLot{ID: l.ID, ProductID: l.ProductID, LotNumber: l.LotNumber, ExpirationDate: l.ExpirationDate,
			QCStatus: string(l.QcStatus), QuantityBase: l.QuantityBase, LocationID: l.LocationID, Archived: l.Archived}
		if p := products[l.ProductID]; p != nil {
			tl.ProductName, tl.ProductCode = p.Name, p.ProductCode
			if p.UomBaseID != nil {
				tl.UnitCode = units[*p.UomBaseID]
			}
		}
		if l.LocationID != nil {
			if loc := locations[*l.LocationID]; loc != nil {
				tl.LocationCode, tl.LocationName = &loc.Code, &loc.Name
			}
		}
		out[i] = tl
	}
	return out, nil
}

func uniq(ids []int) []int {
	slices.Sort(ids)
	return slices.Compact(ids)
}

// kindOrder sorts nodes of one level: the goods' way through a plant.
var kindOrder = map[NodeKind]int{NodeOrigin: 0, NodeBill: 1, NodeLot: 2, NodeProduction: 3, NodeShipment: 4}

// finish orders the nodes and edges and draws the recall summary.
func (b *builder) finish(t *Trace) {
	for _, n := range b.nodes {
		t.Nodes = append(t.Nodes, *n)
	}
	slices.SortFunc(t.Nodes, func(x, y Node) int {
		return cmp.Or(cmp.Compare(x.Level, y.Level), cmp.Compare(kindOrder[x.Kind], kindOrder[y.Kind]), compareIDs(x.ID, y.ID))
	})
	order := make(map[string]int, len(t.Nodes))
	for i, n := range t.Nodes {
		order[n.ID] = i
	}
	for _, e := range b.edges {
		t.Edges = append(t.Edges, *e)
	}
	slices.SortFunc(t.Edges, func(x, y Edge) int {
		return cmp.Or(cmp.Compare(order[x.From], order[y.From]), cmp.Compare(order[x.To], order[y.To]))
	})
	t.Recall = recallOf(t)
}

// compareIDs orders node ids of one kind by their numbers.
func compareIDs(a, b string) int {
	na, _ := strconv.Atoi(a[strings.LastIndexByte(a, '-')+1:])
	nb, _ := strconv.Atoi(b[strings.LastIndexByte(b, '-')+1:])
	return cmp.Or(cmp.Compare(na, nb), strings.Compare(a, b))
}

// recallOf draws the recall summary from a trace's nodes and edges.
func recallOf(t *Trace) Recall {
	var r Recall
	byID := map[string]*Node{}
	for i := range t.Nodes {
		byID[t.Nodes[i].ID] = &t.Nodes[i]
	}
	for _, n := range t.Nodes {
		if n.Kind == NodeLot && n.Level >= 0 {
			r.Lots = append(r.Lots, n.Lot)
		}
	}
	customers := map[int]*RecallCustomer{}
	shipments := map[int]*RecallShipment{}
	suppliers := map[int]*RecallSupplier{}
	for _, e := range t.Edges {
		from, to := byID[e.From], byID[e.To]
		switch {
		case to.Kind == NodeShipment && from.Kind == NodeLot:
			s := to.Shipment
			rs := shipments[s.ID]
			if rs == nil {
				rs = &RecallShipment{Shipment: s}
				shipments[s.ID] = rs
			}
			rs.Lots = append(rs.Lots, RecallQuantity{Lot: from.Lot, QuantityBase: e.QuantityBase})
		case from.Kind == NodeBill && to.Kind == NodeLot:
			bl := from.Bill
			rsup := suppliers[bl.SupplierID]
			if rsup == nil {
				rsup = &RecallSupplier{SupplierID: bl.SupplierID, SupplierName: bl.SupplierName}
				suppliers[bl.SupplierID] = rsup
			}
			rsup.Lots = append(rsup.Lots, RecallReceipt{Bill: bl, RecallQuantity: RecallQuantity{Lot: to.Lot, QuantityBase: e.QuantityBase}})
		}
	}
	for _, rs := range shipments {
		s := rs.Shipment
		id := s.CustomerID
		c := customers[id]
		if c == nil {
			c = &RecallCustomer{CustomerID: id, CustomerName: s.CustomerName}
			customers[id] = c
		}
		c.Shipments = append(c.Shipments, *rs)
	}
	for _, c := range customers {
		slices.SortFunc(c.Shipments, func(x, y RecallShipment) int {
			return cmp.Or(compareTimes(x.Shipment.ShipDate, y.Shipment.ShipDate), cmp.Compare(x.Shipment.ID, y.Shipment.ID))
		})
		r.Customers = append(r.Customers, *c)
	}
	slices.SortFunc(r.Customers, func(x, y RecallCustomer) int { return cmp.Compare(x.CustomerID, y.CustomerID) })
	for _, s := range suppliers {
		slices.SortFunc(s.Lots, func(x, y RecallReceipt) int {
			return cmp.Or(cmp.Compare(x.Bill.ID, y.Bill.ID), cmp.Compare(x.Lot.ID, y.Lot.ID))
		})
		r.Suppliers = append(r.Suppliers, *s)
	}
	slices.SortFunc(r.Suppliers, func(x, y RecallSupplier) int { return cmp.Compare(x.SupplierID, y.SupplierID) })
	return r
}

// compareTimes orders times, a missing one last.
func compareTimes(a, b *time.Time) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return 1
	case b == nil:
		return -1
	}
	return a.Compare(*b)
}
