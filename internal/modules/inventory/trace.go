package inventory

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"entgo.io/ent/dialect"
	"github.com/shopspring/decimal"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/location"
	"larder.dev/larder/ent/lotcorrection"
	"larder.dev/larder/ent/product"
	"larder.dev/larder/ent/stockmovement"
	"larder.dev/larder/ent/unitofmeasure"
	"larder.dev/larder/internal/platform/problem"
	"larder.dev/larder/policy"
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
// any read: every table the trace's statement reads carries the privacy
// policy's tenant predicate, so no step follows another account's movement
// and no record of another account is returned; the corrections are read
// through the policy. A context without a viewer of an account is refused.
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
	fwd, bwd := depth, depth
	switch d {
	case Forward:
		bwd = 0
	case Backward:
		fwd = 0
	}
	r, err := reach(ctx, c, id, fwd, bwd)
	if err != nil {
		return nil, err
	}
	if r.lots[id] == nil { // not the account's lot
		return nil, &ent.NotFoundError{}
	}
	t := &Trace{LotID: id, Direction: d, Depth: depth}
	// A way not asked for reached the lot alone: it keeps its movements,
	// not its links that way.
	if fwd == 0 {
		clear(r.fwd)
	}
	if bwd == 0 {
		clear(r.bwd)
	}
	b := r.graph(t)
	b.add(NodeLot, id, nodeID(NodeLot, id), 0)
	if err := b.load(ctx, c, r); err != nil {
		return nil, err
	}
	b.finish(t)
	return t, nil
}

// traceReachSQL writes the statement that finds, in one round trip whatever
// the size of the trace, the lots a trace reaches each way, their
// movements, and the record of every lot and of every document a movement
// names (run, bill with its supplier, shipment with its order, customer and
// invoice), for PostgreSQL (postgres) or SQLite. The forward part follows a
// lot's PRODUCTION_CONSUMPTION to the run's PRODUCTION_OUTPUT, the backward
// part the other way; UNION keeps one row per lot and level, so a cycle ends
// at the depth. Every step reads movements by lot (stock_movements' lot_id
// index) or by run (stockmovement_account_id_document_type_document_id), and
// every record it joins is read by primary key; no cost column is read.
//
// Every table the statement reads carries the tenant predicate of the
// privacy policy on its alias (policy.AccountRows; units of measure, which
// may be shared rows, policy.AccountOrSharedRows): each step of the
// recursion follows the account's movements only, and each record is the
// account's, or missing. The account is parameter $1 (policy.AccountParam),
// then come the lot ($2), the forward depth ($3) and the backward depth
// ($4): parameters appear in order of number, as SQLite numbers $N
// parameters in the order it meets them.
//
// reached's columns are named in its first SELECT as well as in its column
// list: PostgreSQL inlines the CTE as a subquery, and Citus, sending the
// statement to the account's shard, writes that subquery out without the
// list, so that "r.side" would name nothing on the worker.
func traceReachSQL(postgres bool) string {
	own, ownOrShared := policy.AccountRows, policy.AccountOrSharedRows
	// ids chooses records by the ids a subquery gathers. PostgreSQL cannot
	// know how many rows a recursion returns; it guessed some ten thousand
	// movements where there were six hundred, and then read whole tables
	// of the account into hashes (every bill of bench/trace's plant, for
	// six). So there the ids are gathered first, = ANY(ARRAY(subquery)),
	// and each record is read through its primary key. SQLite reads
	// IN (subquery) through the primary key anyway.
	ids := func(column, subquery string) string {
		if postgres {
			return column + " = ANY(ARRAY(" + subquery + "))"
		}
		return column + " IN (" + subquery + ")"
	}
	return `WITH RECURSIVE
fwd(lot_id, level) AS (
  SELECT l.id, 0 FROM product_lots l WHERE ` + own("l") + ` AND l.id = $2
  UNION
  SELECT o.lot_id, f.level + 1 FROM fwd f
  JOIN stock_movements c ON c.lot_id = f.lot_id AND ` + own("c") + ` AND c.type = 'PRODUCTION_CONSUMPTION'
  JOIN stock_movements o ON ` + own("o") + ` AND o.document_type = 'production' AND o.document_id = c.document_id AND o.type = 'PRODUCTION_OUTPUT'
  WHERE f.level < $3
),
bwd(lot_id, level) AS (
  SELECT l.id, 0 FROM product_lots l WHERE ` + own("l") + ` AND l.id = $2
  UNION
  SELECT c.lot_id, b.level + 1 FROM bwd b
  JOIN stock_movements o ON o.lot_id = b.lot_id AND ` + own("o") + ` AND o.type = 'PRODUCTION_OUTPUT'
  JOIN stock_movements c ON ` + own("c") + ` AND c.document_type = 'production' AND c.document_id = o.document_id AND c.type = 'PRODUCTION_CONSUMPTION'
  WHERE b.level < $4
),
reached(side, lot_id, level) AS (
  SELECT 1 AS side, lot_id, min(level) AS level FROM fwd GROUP BY lot_id
  UNION ALL
  SELECT -1, lot_id, min(level) FROM bwd GROUP BY lot_id
),
mv AS MATERIALIZED (
  SELECT r.side, r.lot_id, r.level, m.id, m.type, m.document_type, m.document_id, m.quantity_base, m.source, m.created_at
  FROM reached r LEFT JOIN stock_movements m ON m.lot_id = r.lot_id AND ` + own("m") + `
),
lot_rec AS MATERIALIZED (
  SELECT l.id, l.product_id, l.lot_number, l.expiration_date, l.qc_status, l.quantity_base, l.location_id, l.archived,
    pr.product_code, pr.name, u.code AS unit_code, loc.code AS location_code, loc.name AS location_name
  FROM product_lots l
  LEFT JOIN products pr ON pr.id = l.product_id AND ` + own("pr") + `
  LEFT JOIN units_of_measure u ON u.id = pr.uom_base_id AND ` + ownOrShared("u") + `
  LEFT JOIN locations loc ON loc.id = l.location_id AND ` + own("loc") + `
  WHERE ` + own("l") + ` AND ` + ids("l.id", "SELECT lot_id FROM mv") + `
),
run_rec AS MATERIALIZED (
  SELECT p.id, p.production_no, p.status, p.product_id, p.lot_number, p.start_date, p.end_date
  FROM productions p
  WHERE ` + own("p") + ` AND ` + ids("p.id", "SELECT document_id FROM mv WHERE document_type = 'production'") + `
),
bill_rec AS MATERIALIZED (
  SELECT b.id, b.bill_no, b.bill_date, b.supplier_id, b.supplier_reference, b.is_cancelled, sup.company
  FROM bills b LEFT JOIN suppliers sup ON sup.id = b.supplier_id AND ` + own("sup") + `
  WHERE ` + own("b") + ` AND ` + ids("b.id", "SELECT document_id FROM mv WHERE document_type = 'bill'") + `
),
shipment_rec AS MATERIALIZED (
  SELECT s.id, s.ship_date, s.tracking_number, s.sales_order_id, so.sales_order_no, so.customer_id, cu.company, s.invoice_id, inv.invoice_no
  FROM shipments s
  LEFT JOIN sales_orders so ON so.id = s.sales_order_id AND ` + own("so") + `
  LEFT JOIN customers cu ON cu.id = so.customer_id AND ` + own("cu") + `
  LEFT JOIN invoices inv ON inv.id = s.invoice_id AND ` + own("inv") + `
  WHERE ` + own("s") + ` AND ` + ids("s.id", "SELECT document_id FROM mv WHERE document_type = 'shipment'") + `
)
SELECT mv.side, mv.lot_id, mv.level,
  l.product_id, l.lot_number, l.expiration_date, l.qc_status, l.quantity_base, l.location_id, l.archived,
  l.product_code, l.name, l.unit_code, l.location_code, l.location_name,
  mv.id, mv.type, mv.document_type, mv.document_id, mv.quantity_base, mv.source, mv.created_at,
  p.production_no, p.status, p.product_id, p.lot_number, p.start_date, p.end_date,
  b.bill_no, b.bill_date, b.supplier_id, b.supplier_reference, b.is_cancelled, b.company,
  s.ship_date, s.tracking_number, s.sales_order_id, s.sales_order_no, s.customer_id, s.company, s.invoice_id, s.invoice_no
FROM mv
JOIN lot_rec l ON l.id = mv.lot_id
LEFT JOIN run_rec p ON mv.document_type = 'production' AND p.id = mv.document_id
LEFT JOIN bill_rec b ON mv.document_type = 'bill' AND b.id = mv.document_id
LEFT JOIN shipment_rec s ON mv.document_type = 'shipment' AND s.id = mv.document_id
ORDER BY mv.side, mv.lot_id, mv.id`
}

// The statement of each database, written once.
var (
	traceReachPostgres = traceReachSQL(true)
	traceReachSQLite   = traceReachSQL(false)
)

// TraceReachSQL is the statement (PostgreSQL's) that finds a trace's lots,
// movements and records, for benchmarks that run it alone; its parameters
// are the account, the lot, the forward depth and the backward depth.
var TraceReachSQL = traceReachPostgres

// movement is a stock movement a trace read, with the document it names
// (one of production, bill, shipment, or none).
type movement struct {
	id         int
	lot        int
	typ        stockmovement.Type
	docType    string
	docID      int
	quantity   decimal.Decimal
	source     string
	at         time.Time
	production *TraceProduction
	bill       *TraceBill
	shipment   *TraceShipment
}

// reached is what traceReachSQL found: each side's lots and levels, every lot
// reached, and their movements.
type reached struct {
	fwd, bwd           map[int]int // lot → level in lots (runs followed)
	fwdDepth, bwdDepth int
	lots               map[int]*TraceLot
	moves              map[int][]movement // lot → its movements, in order of id
}

// traceRow is one row of traceReachSQL.
type traceRow struct {
	side, lot, level int
	// the lot
	productID                        int
	lotNumber, qc, productCode, name sql.NullString
	unit, locCode, locName           sql.NullString
	expires                          any
	onHand                           decimal.NullDecimal
	locationID                       sql.NullInt64
	archived                         sql.NullBool
	// the movement
	id, docID            sql.NullInt64
	typ, docType, source sql.NullString
	quantity             decimal.NullDecimal
	at                   any
	// its run
	runNo, runProduct sql.NullInt64
	runStatus, runLot sql.NullString
	runStart, runEnd  any
	// its bill
	billNo, supplierID        sql.NullInt64
	billDate                  any
	supplierRef, supplierName sql.NullString
	billCancelled             sql.NullBool
	// its shipment
	shipDate                     any
	tracking, customerName       sql.NullString
	orderID, orderNo, customerID sql.NullInt64
	invoiceID, invoiceNo         sql.NullInt64
}

func (x *traceRow) dest() []any {
	return []any{&x.side, &x.lot, &x.level,
		&x.productID, &x.lotNumber, &x.expires, &x.qc, &x.onHand, &x.locationID, &x.archived,
		&x.productCode, &x.name, &x.unit, &x.locCode, &x.locName,
		&x.id, &x.typ, &x.docType, &x.docID, &x.quantity, &x.source, &x.at,
		&x.runNo, &x.runStatus, &x.runProduct, &x.runLot, &x.runStart, &x.runEnd,
		&x.billNo, &x.billDate, &x.supplierID, &x.supplierRef, &x.billCancelled, &x.supplierName,
		&x.shipDate, &x.tracking, &x.orderID, &x.orderNo, &x.customerID, &x.customerName, &x.invoiceID, &x.invoiceNo}
}

// reach runs traceReachSQL for the viewer of ctx, who must be an account's
// (policy.AccountArgs).
func reach(ctx context.Context, c *ent.Client, lot, fwd, bwd int) (*reached, error) {
	// Direct SQL: a lot's trace follows stock movements through production runs in one recursive query (ent has no recursive query) and reads every record it reaches in the same statement; every table it reads carries the privacy policy's tenant predicate (policy.AccountRows), bound to the viewer's account by policy.AccountArgs, which refuses a viewer without one.
	args, err := policy.AccountArgs(ctx, lot, fwd, bwd)
	if err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	query := traceReachSQLite
	if c.Dialect() == dialect.Postgres {
		query = traceReachPostgres
	}
	rows, err := c.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	defer rows.Close()
	r := &reached{fwd: map[int]int{}, bwd: map[int]int{}, fwdDepth: fwd, bwdDepth: bwd, lots: map[int]*TraceLot{}, moves: map[int][]movement{}}
	seen := map[int]bool{}
	var x traceRow
	dest := x.dest()
	for rows.Next() {
		x = traceRow{}
		if err := rows.Scan(dest...); err != nil {
			return nil, fmt.Errorf("trace: %w", err)
		}
		if x.side > 0 {
			r.fwd[x.lot] = x.level
		} else {
			r.bwd[x.lot] = x.level
		}
		if r.lots[x.lot] == nil {
			if r.lots[x.lot], err = x.traceLot(); err != nil {
				return nil, err
			}
		}
		if !x.id.Valid || seen[int(x.id.Int64)] {
			continue
		}
		seen[int(x.id.Int64)] = true
		m, err := x.movement()
		if err != nil {
			return nil, err
		}
		r.moves[x.lot] = append(r.moves[x.lot], m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	return r, nil
}

// traceLot is the row's lot.
func (x *traceRow) traceLot() (*TraceLot, error) {
	l := &TraceLot{ID: x.lot, ProductID: x.productID, LotNumber: str(x.lotNumber), QCStatus: x.qc.String,
		QuantityBase: x.onHand.Decimal, LocationID: num(x.locationID), Archived: x.archived.Bool,
		ProductCode: str(x.productCode), ProductName: str(x.name), UnitCode: str(x.unit),
		LocationCode: str(x.locCode), LocationName: str(x.locName)}
	var err error
	if l.ExpirationDate, err = optTime(x.expires); err != nil {
		return nil, fmt.Errorf("trace: lot %d: %w", x.lot, err)
	}
	return l, nil
}

// movement is the row's movement, with the document it names.
func (x *traceRow) movement() (movement, error) {
	m := movement{id: int(x.id.Int64), lot: x.lot, typ: stockmovement.Type(x.typ.String), docType: x.docType.String,
		docID: int(x.docID.Int64), quantity: x.quantity.Decimal, source: x.source.String}
	var err error
	fail := func(err error) (movement, error) { return movement{}, fmt.Errorf("trace: movement %d: %w", m.id, err) }
	if m.at, err = timeOf(x.at); err != nil {
		return fail(err)
	}
	switch {
	case x.runNo.Valid:
		p := &TraceProduction{ID: m.docID, ProductionNo: int(x.runNo.Int64), Status: x.runStatus.String, LotNumber: str(x.runLot)}
		if x.runProduct.Valid && x.runProduct.Int64 != 0 {
			id := int(x.runProduct.Int64)
			p.ProductID = &id
		}
		if p.StartDate, err = optTime(x.runStart); err != nil {
			return fail(err)
		}
		if p.EndDate, err = optTime(x.runEnd); err != nil {
			return fail(err)
		}
		m.production = p
	case x.billNo.Valid:
		b := &TraceBill{ID: m.docID, BillNo: int(x.billNo.Int64), SupplierID: int(x.supplierID.Int64),
			SupplierName: str(x.supplierName), SupplierReference: str(x.supplierRef), IsCancelled: x.billCancelled.Bool}
		if b.BillDate, err = timeOf(x.billDate); err != nil {
			return fail(err)
		}
		m.bill = b
	case x.orderID.Valid:
		sh := &TraceShipment{ID: m.docID, TrackingNumber: str(x.tracking), SalesOrderID: int(x.orderID.Int64),
			SalesOrderNo: int(x.orderNo.Int64), CustomerID: int(x.customerID.Int64), CustomerName: str(x.customerName),
			InvoiceID: num(x.invoiceID), InvoiceNo: num(x.invoiceNo)}
		if sh.ShipDate, err = optTime(x.shipDate); err != nil {
			return fail(err)
		}
		m.shipment = sh
	}
	return m, nil
}

func str(s sql.NullString) *string {
	if !s.Valid {
		return nil
	}
	return &s.String
}

func num(n sql.NullInt64) *int {
	if !n.Valid {
		return nil
	}
	v := int(n.Int64)
	return &v
}

// optTime is timeOf for a column that may be NULL.
func optTime(v any) (*time.Time, error) {
	if v == nil {
		return nil, nil
	}
	t, err := timeOf(v)
	if err != nil {
		return nil, err
	}
	return &t, nil
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
	// The records traceReachSQL read beside the movements.
	productions, bills, shipments := map[int]*TraceProduction{}, map[int]*TraceBill{}, map[int]*TraceShipment{}
	for _, ms := range r.moves {
		for _, m := range ms {
			switch {
			case m.production != nil:
				productions[m.docID] = m.production
			case m.bill != nil:
				bills[m.docID] = m.bill
			case m.shipment != nil:
				shipments[m.docID] = m.shipment
			}
		}
	}
	for _, id := range b.lots {
		b.nodes[nodeID(NodeLot, id)].Lot = r.lots[id]
	}
	for _, id := range b.productions {
		b.nodes[nodeID(NodeProduction, id)].Production = productions[id]
	}
	for _, id := range b.bills {
		b.nodes[nodeID(NodeBill, id)].Bill = bills[id]
	}
	for _, id := range b.shipments {
		b.nodes[nodeID(NodeShipment, id)].Shipment = shipments[id]
	}
	// A record the statement did not find with the account is none of
	// its: it leaves the trace, with its edges.
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
