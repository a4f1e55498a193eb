// Command documents measures creating purchasing documents: a 200-line
// purchase order and a 1000-line bill, sent one at a time to Larder over HTTP,
// against a hand-written baseline that inserts the same rows in one
// transaction with multi-row INSERTs over database/sql (lib/pq). It reports
// p50 and p99 of each, and the ratio of the medians (target: Larder ≤ 2×).
//
// The baseline writes what Larder's create writes, row for row: the document
// (numbered from a counter row), its lines, and for a bill a new lot per line
// with its PURCHASE_ENTRY movement, the recosted products, and one event row
// per created or changed record. It checks nothing and reads nothing back:
// it is the floor of the work, not a second implementation.
//
// Run it through bench/documents.sh, which prepares the database and server.
package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	_ "github.com/lib/pq" // registers "postgres"
	"github.com/shopspring/decimal"
)

func main() {
	url := flag.String("url", "http://127.0.0.1:28995", "Larder's base URL")
	key := flag.String("key", "", "a test key with purchasing:write and cost:read")
	dsn := flag.String("database", "", "PostgreSQL URL of Larder's database")
	account := flag.Int64("account", 0, "the key's account id")
	n := flag.Int("n", 30, "measured creates of each kind and side")
	warmup := flag.Int("warmup", 3, "creates of each kind and side before measuring")
	out := flag.String("json", "", "also write the results to this file")
	only := flag.String("only", "", "run only the scenarios whose name starts with this (the sales order and shipments depend on each other)")
	flag.Parse()
	if *key == "" || *dsn == "" || *account == 0 {
		log.Fatal("documents: -key, -database and -account are required")
	}
	db, err := sql.Open("postgres", *dsn)
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(4)
	f, err := load(context.Background(), db, *account)
	if err != nil {
		log.Fatal(err)
	}
	l := larder{url: strings.TrimRight(*url, "/"), key: *key, client: &http.Client{Timeout: time.Minute}}
	b := baseline{db: db, f: f}
	run := strconv.FormatInt(time.Now().Unix(), 36) // new lot numbers on every run
	sf, err := f.salesSetup(context.Background(), db, l)
	if err != nil {
		log.Fatal(err)
	}
	var lorder, border order // the orders the next shipments ship
	type scenario struct {
		name           string
		prepare        func(i int) error // before each pair, not measured
		larder, direct func(i int) error
	}
	shipment := func(name string) scenario {
		return scenario{name: name, prepare: func(i int) (err error) {
			if lorder, err = f.newOrder(l, sf); err == nil {
				border, err = f.newOrder(l, sf)
			}
			return err
		}, larder: func(i int) error {
			return l.post(fmt.Sprintf("/v1/sales-orders/%d/shipments", lorder.id), shipmentBody(lorder))
		}, direct: func(i int) error { return b.shipment(context.Background(), sf, border) }}
	}
	scenarios := []scenario{
		// Sales first, then again after the bills, which give the same
		// products thousands of lots for picking to choose from.
		{name: "sales order, 200 lines", larder: func(i int) error { return l.post("/v1/sales-orders", f.salesOrder(sf)) },
			direct: func(i int) error { return b.salesOrder(context.Background(), sf) }},
		shipment("shipment, 200 lines"),
		{"purchase order, 200 lines", nil, func(i int) error { return l.post("/v1/purchase-orders", f.order()) },
			func(i int) error { return b.order(context.Background()) }},
		{"bill, 1000 new lots", nil, func(i int) error { return l.post("/v1/bills", f.bill(fmt.Sprintf("L%s-%d", run, i))) },
			func(i int) error { return b.bill(context.Background(), fmt.Sprintf("B%s-%d", run, i), false) }},
		// The same lot numbers again: every line tops up the lot the same
		// line of the earlier bill made.
		{"bill, 1000 lots topped up", nil, func(i int) error { return l.post("/v1/bills", f.bill(fmt.Sprintf("L%s-%d", run, i))) },
			func(i int) error { return b.bill(context.Background(), fmt.Sprintf("B%s-%d", run, i), true) }},
		shipment("shipment, after the bills"),
	}
	var results []result
	for _, s := range scenarios {
		if !strings.HasPrefix(s.name, *only) {
			continue
		}
		var lt, bt []time.Duration
		for i := range *warmup + *n {
			if s.prepare != nil {
				if err := s.prepare(i); err != nil {
					log.Fatalf("%s, preparing: %v", s.name, err)
				}
			}
			// Alternate the sides so that drift hits both alike.
			d1, err := timed(func() error { return s.larder(i) })
			if err != nil {
				log.Fatalf("%s, Larder: %v", s.name, err)
			}
			d2, err := timed(func() error { return s.direct(i) })
			if err != nil {
				log.Fatalf("%s, baseline: %v", s.name, err)
			}
			if i >= *warmup {
				lt, bt = append(lt, d1), append(bt, d2)
			}
			if i == *warmup-1 {
				// The tables grew from nothing; plan with statistics, as
				// autovacuum's analyze gives a database in service.
				if _, err := db.Exec("ANALYZE"); err != nil {
					log.Fatal(err)
				}
			}
		}
		r := result{Scenario: s.name, N: *n, Larder: summarize(lt), Baseline: summarize(bt)}
		r.RatioP50 = r.Larder.P50 / r.Baseline.P50
		r.RatioP99 = r.Larder.P99 / r.Baseline.P99
		results = append(results, r)
		fmt.Printf("%-27s Larder p50 %7.2f ms p99 %7.2f ms | baseline p50 %7.2f ms p99 %7.2f ms | ratio p50 %.2f p99 %.2f\n",
			r.Scenario, r.Larder.P50, r.Larder.P99, r.Baseline.P50, r.Baseline.P99, r.RatioP50, r.RatioP99)
	}
	if *out != "" {
		data, _ := json.MarshalIndent(results, "", "  ")
		if err := os.WriteFile(*out, data, 0o644); err != nil {
			log.Fatal(err)
		}
	}
}

type stats struct{ P50, P99, Min, Max float64 } // milliseconds

type result struct {
	Scenario           string
	N                  int
	Larder, Baseline   stats
	RatioP50, RatioP99 float64
}

func timed(f func() error) (time.Duration, error) {
	t := time.Now()
	err := f()
	return time.Since(t), err
}

func summarize(ds []time.Duration) stats {
	slices.Sort(ds)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	at := func(q float64) float64 { return ms(ds[min(len(ds)-1, int(q*float64(len(ds))))]) }
	return stats{P50: at(0.5), P99: at(0.99), Min: ms(ds[0]), Max: ms(ds[len(ds)-1])}
}

// larder sends creates to the server.
type larder struct {
	url, key string
	client   *http.Client
}

func (l larder) post(path string, body any) error {
	_, err := l.send(path, body)
	return err
}

// send posts body and returns the 201 answer.
func (l larder) send(path string, body any) ([]byte, error) {
	data, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequest("POST", l.url+path, bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+l.key)
	req.Header.Set("Content-Type", "application/json")
	res, err := l.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	answer, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, err
	}
	if res.StatusCode != http.StatusCreated {
		return nil, fmt.Errorf("%s: %d %s", path, res.StatusCode, answer)
	}
	return answer, nil
}

// product is what a line copies from its product.
type product struct {
	id         int64
	code, name string
	perUnit    float64 // base units per purchase unit
}

// fixture is the account's rows the documents name.
type fixture struct {
	account             int64
	supplier            int64
	company, address    string
	location, warehouse int64
	products            []product
}

func load(ctx context.Context, db *sql.DB, account int64) (*fixture, error) {
	f := &fixture{account: account}
	err := db.QueryRowContext(ctx, `SELECT id, company, COALESCE(address::text, 'null') FROM suppliers WHERE account_id = $1 AND supplier_code = 'MILL'`, account).
		Scan(&f.supplier, &f.company, &f.address)
	if err != nil {
		return nil, fmt.Errorf("supplier MILL: %w", err)
	}
	err = db.QueryRowContext(ctx, `SELECT id, parent_id FROM locations WHERE account_id = $1 AND path = 'MAIN/RECEIVING'`, account).Scan(&f.location, &f.warehouse)
	if err != nil {
		return nil, fmt.Errorf("location MAIN/RECEIVING: %w", err)
	}
	rows, err := db.QueryContext(ctx, `SELECT id, product_code, name, COALESCE(uom_qty, 1) * COALESCE(uom_base_conversion, 1)
		FROM products WHERE account_id = $1 AND product_type IN ('RAW_MATERIAL', 'PACKAGING', 'MISCELLANEOUS') ORDER BY id LIMIT 20`, account)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var p product
		if err := rows.Scan(&p.id, &p.code, &p.name, &p.perUnit); err != nil {
			return nil, err
		}
		f.products = append(f.products, p)
	}
	if len(f.products) < 20 {
		return nil, fmt.Errorf("the account has %d materials, 20 are needed", len(f.products))
	}
	return f, rows.Err()
}

// The lines: a quantity and a cost per purchase unit, products in turn.
const (
	orderLines, billLines = 200, 1000
	lineQty, lineCost     = 3, 1.25
)

func (f *fixture) order() map[string]any {
	lines := make([]map[string]any, orderLines)
	for i := range lines {
		lines[i] = map[string]any{"product_id": f.products[i%len(f.products)].id, "quantity": lineQty, "cost": lineCost}
	}
	return map[string]any{"supplier_id": f.supplier, "lines": lines}
}

// bill makes every line a new lot (prefix keeps the numbers unique), the
// heaviest case: one lot and one movement written per line.
func (f *fixture) bill(prefix string) map[string]any {
	lines := make([]map[string]any, billLines)
	for i := range lines {
		lines[i] = map[string]any{"product_id": f.products[i%len(f.products)].id, "quantity": lineQty, "cost": lineCost,
			"lot_number": fmt.Sprintf("%s-%d", prefix, i), "location_id": f.location, "expiration_date": "2027-06-30"}
	}
	return map[string]any{"supplier_id": f.supplier, "bill_date": "2026-11-24", "lines": lines}
}

// baseline writes the same rows directly.
type baseline struct {
	db *sql.DB
	f  *fixture
}

// values writes a multi-row VALUES list of rows of width columns, numbering
// the parameters from 1, and appends the row values to args.
func values(sb *strings.Builder, rows, width int) {
	for r := range rows {
		if r > 0 {
			sb.WriteString(",")
		}
		sb.WriteString("(")
		for c := range width {
			if c > 0 {
				sb.WriteString(",")
			}
			fmt.Fprintf(sb, "$%d", r*width+c+1)
		}
		sb.WriteString(")")
	}
}

func insert(ctx context.Context, tx *sql.Tx, table, columns string, rows int, args []any, returning bool) ([]int64, error) {
	var sb strings.Builder
	fmt.Fprintf(&sb, "INSERT INTO %s (%s) VALUES ", table, columns)
	values(&sb, rows, len(args)/rows)
	if !returning {
		_, err := tx.ExecContext(ctx, sb.String(), args...)
		return nil, err
	}
	sb.WriteString(" RETURNING id")
	rs, err := tx.QueryContext(ctx, sb.String(), args...)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	ids := make([]int64, 0, rows)
	for rs.Next() {
		var id int64
		if err := rs.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rs.Err()
}

// number takes the next number of a document from its counter row, as
// Larder's numbering does; the baseline's own counters start past Larder's
// numbers, which share the unique index.
func number(ctx context.Context, tx *sql.Tx, account int64, document string) (int64, error) {
	var n int64
	err := tx.QueryRowContext(ctx, `INSERT INTO document_counters (document, last, account_id) VALUES ($1, 1, $2)
		ON CONFLICT (account_id, document) DO UPDATE SET last = document_counters.last + 1 RETURNING last`, document, account).Scan(&n)
	return 1_000_000 + n, err
}

// snapshot stands for an event's snapshot: about the size Larder writes.
var snapshot = `{"id":1,"created_at":"2026-11-24T10:00:00Z","updated_at":"2026-11-24T10:00:00Z","lot_number":"B0-0","product_id":1,` +
	`"product_code":"RM-FLOUR","product_name":"All-purpose wheat flour","quantity_base":75000,"expiration_date":"2027-06-30T00:00:00Z",` +
	`"location_id":1,"archived":false,"qc_status":"AVAILABLE","lot_origin":"INVOICE"}`

// topUp locks the lots numbered prefix-i, adds each line's quantity to its
// lot in one UPDATE, and returns the lots' ids in line order.
func (b baseline) topUp(ctx context.Context, tx *sql.Tx, prefix string, now time.Time) ([]int64, error) {
	f := b.f
	var sb strings.Builder
	args := make([]any, 0, billLines*3+1)
	args = append(args, f.account)
	sb.WriteString("SELECT id, product_id, lot_number, quantity_base::text FROM product_lots WHERE account_id = $1 AND (product_id, location_key, lot_number) IN (VALUES ")
	for i := range billLines {
		if i > 0 {
			sb.WriteString(",")
		}
		fmt.Fprintf(&sb, "($%d::bigint, $%d::bigint, $%d)", len(args)+1, len(args)+2, len(args)+3)
		args = append(args, f.products[i%len(f.products)].id, f.location, fmt.Sprintf("%s-%d", prefix, i))
	}
	sb.WriteString(") FOR UPDATE")
	rows, err := tx.QueryContext(ctx, sb.String(), args...)
	if err != nil {
		return nil, err
	}
	byNumber := map[string]int64{}
	quantity := map[int64]string{}
	for rows.Next() {
		var id, product int64
		var number, q string
		if err := rows.Scan(&id, &product, &number, &q); err != nil {
			rows.Close()
			return nil, err
		}
		byNumber[number] = id
		quantity[id] = q
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	ids := make([]int64, billLines)
	sb.Reset()
	args = args[:0]
	sb.WriteString("UPDATE product_lots SET quantity_base = v.q::numeric, updated_at = $1 FROM (VALUES ")
	args = append(args, now)
	for i := range billLines {
		id, ok := byNumber[fmt.Sprintf("%s-%d", prefix, i)]
		if !ok {
			return nil, fmt.Errorf("no lot %s-%d to top up", prefix, i)
		}
		ids[i] = id
		if i > 0 {
			sb.WriteString(",")
		}
		fmt.Fprintf(&sb, "($%d::bigint, $%d::text)", len(args)+1, len(args)+2)
		// The new quantity, exact: what the lot held plus the line's, as
		// Larder computes it.
		q, err := decimal.NewFromString(quantity[id])
		if err != nil {
			return nil, err
		}
		args = append(args, id, q.Add(decimal.NewFromFloat(lineQty*f.products[i%len(f.products)].perUnit)).String())
	}
	sb.WriteString(") AS v(id, q) WHERE product_lots.id = v.id")
	if _, err := tx.ExecContext(ctx, sb.String(), args...); err != nil {
		return nil, err
	}
	return ids, nil
}

// eventSeq makes the baseline's event ids unique.
var eventSeq int

// events inserts one event row per resource id.
func (b baseline) events(ctx context.Context, tx *sql.Tx, typ, resource string, ids []int64, now time.Time) error {
	const width = 9
	args := make([]any, 0, len(ids)*width)
	for _, id := range ids {
		eventSeq++
		args = append(args, fmt.Sprintf("evt_bench%d_%d", now.UnixNano(), eventSeq), "test", typ, resource, id, snapshot, "api", now, b.f.account)
	}
	_, err := insert(ctx, tx, "events", "event_id, environment, type, resource_type, resource_id, snapshot, source, created_at, account_id", len(ids), args, false)
	return err
}

func (b baseline) order(ctx context.Context) error {
	f := b.f
	tx, err := b.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	no, err := number(ctx, tx, f.account, "bench_purchase_order")
	if err != nil {
		return err
	}
	now := time.Now()
	var id int64
	err = tx.QueryRowContext(ctx, `INSERT INTO purchase_orders (created_at, updated_at, purchase_order_no, status, billing_address, shipping_address,
		company, subtotal, tax1, tax2, account_id, supplier_id) VALUES ($1, $1, $2, 'OPEN', $3, $3, $4, $5, false, false, $6, $7) RETURNING id`,
		now, no, f.address, f.company, orderLines*lineQty*lineCost, f.account, f.supplier).Scan(&id)
	if err != nil {
		return err
	}
	args := make([]any, 0, orderLines*8)
	for i := range orderLines {
		p := f.products[i%len(f.products)]
		args = append(args, lineCost, p.code, p.name, lineQty, lineQty*p.perUnit, id, f.account, p.id)
	}
	if _, err := insert(ctx, tx, "purchase_order_lines", "cost, product_code, product_name, quantity, quantity_base, purchase_order_id, account_id, product_id",
		orderLines, args, false); err != nil {
		return err
	}
	if err := b.events(ctx, tx, "purchase_order.created", "purchase_order", []int64{id}, now); err != nil {
		return err
	}
	return tx.Commit()
}

// bill records a bill whose every line makes a new lot numbered prefix-i, or,
// with topUp, tops up the lot of that number (made by an earlier bill).
func (b baseline) bill(ctx context.Context, prefix string, topUp bool) error {
	f := b.f
	tx, err := b.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	no, err := number(ctx, tx, f.account, "bench_bill")
	if err != nil {
		return err
	}
	now := time.Now()
	expiry := time.Date(2027, 6, 30, 0, 0, 0, 0, time.UTC)
	var id int64
	err = tx.QueryRowContext(ctx, `INSERT INTO bills (created_at, updated_at, bill_date, bill_no, billing_address, company, is_cancelled,
		subtotal, tax1, tax2, account_id, supplier_id) VALUES ($1, $1, $2, $3, $4, $5, false, $6, false, false, $7, $8) RETURNING id`,
		now, time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC), no, f.address, f.company, billLines*lineQty*lineCost, f.account, f.supplier).Scan(&id)
	if err != nil {
		return err
	}
	var lotIDs []int64
	lotEvent := "product_lot.created"
	if topUp {
		lotEvent = "product_lot.updated"
		if lotIDs, err = b.topUp(ctx, tx, prefix, now); err != nil {
			return err
		}
	} else {
		lots := make([]any, 0, billLines*12)
		for i := range billLines {
			p := f.products[i%len(f.products)]
			lots = append(lots, now, now, f.location, fmt.Sprintf("%s-%d", prefix, i), expiry, "INVOICE", lineQty*p.perUnit, f.account, p.id, f.location, f.warehouse, p.name)
		}
		lotIDs, err = insert(ctx, tx, "product_lots", "created_at, updated_at, location_key, lot_number, expiration_date, lot_origin, quantity_base, account_id, product_id, location_id, warehouse_id, product_name",
			billLines, lots, true)
		if err != nil {
			return err
		}
	}
	lines := make([]any, 0, billLines*13)
	moves := make([]any, 0, billLines*9)
	for i := range billLines {
		p := f.products[i%len(f.products)]
		lines = append(lines, lineCost, expiry, p.code, p.name, lineQty, lineQty*p.perUnit, fmt.Sprintf("%s-%d", prefix, i), id, f.account, p.id, f.location, lotIDs[i])
		moves = append(moves, "PURCHASE_ENTRY", lineQty*p.perUnit, "bill", id, "api", now, lotIDs[i], f.account, f.location)
	}
	if _, err := insert(ctx, tx, "bill_lines", "cost, expiration_date, product_code, product_name, quantity, quantity_base, lot_number, bill_id, account_id, product_id, location_id, lot_id",
		billLines, lines, false); err != nil {
		return err
	}
	if _, err := insert(ctx, tx, "stock_movements", "type, quantity_base, document_type, document_id, source, created_at, lot_id, account_id, location_id",
		billLines, moves, false); err != nil {
		return err
	}
	// The recost: one statement for every product of the bill.
	var sb strings.Builder
	args := make([]any, 0, len(f.products)*2)
	sb.WriteString("UPDATE products SET cost = v.cost::numeric, updated_at = now() FROM (VALUES ")
	for i, p := range f.products {
		if i > 0 {
			sb.WriteString(",")
		}
		fmt.Fprintf(&sb, "($%d::bigint, $%d::text)", 2*i+1, 2*i+2)
		args = append(args, p.id, "1.250000")
	}
	sb.WriteString(") AS v(id, cost) WHERE products.id = v.id")
	if _, err := tx.ExecContext(ctx, sb.String(), args...); err != nil {
		return err
	}
	productIDs := make([]int64, len(f.products))
	for i, p := range f.products {
		productIDs[i] = p.id
	}
	for _, e := range []struct {
		typ, resource string
		ids           []int64
	}{{"bill.created", "bill", []int64{id}}, {lotEvent, "product_lot", lotIDs}, {"product.updated", "product", productIDs}} {
		if err := b.events(ctx, tx, e.typ, e.resource, e.ids, now); err != nil {
			return err
		}
	}
	return tx.Commit()
}
