package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"log"
	"strings"
	"time"

	"github.com/lib/pq"

	"larder.dev/larder/ent"
	"larder.dev/larder/internal/identity/tenancy"
	"larder.dev/larder/internal/modules/inventory"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/seed"
	"larder.dev/larder/migrate"
	"larder.dev/larder/policy"
)

// The plant the fill writes, for -lots lots (1,000,000 by default) and
// -generations generations G of production (10 by default):
//
//   - a quarter are raw lots, each received on a bill (PURCHASE_ENTRY,
//     three lots a bill, 500 suppliers);
//   - the rest are G generations of produced lots, as many in each: every
//     lot of generation g is the PRODUCTION_OUTPUT of one run, which consumes
//     six raw lots picked at random (PRODUCTION_CONSUMPTION) and, from
//     generation 2, the lot of the same rank in generation g-1, and one in
//     five a second lot of generation g-1 picked at random (a blend);
//   - generation G is finished goods, each lot shipped as many times as
//     brings the movements to ten a lot (SHIPPING), five lots a shipment, one
//     shipment a sales order, four orders in five invoiced, 5,000 customers.
//
// So a raw lot goes into about 18 runs of every generation, and each run's
// lot on, generation after generation, towards the finished goods and their
// shipments: forward, a raw lot's trace reaches a few hundred records, which
// is what a recall of a supplier's lot reads, and as many runs deep as
// there are generations after the first run that consumed it.
const (
	rawShare      = 4  // one lot in rawShare is raw
	rawInputs     = 6  // raw lots a run consumes
	blendPercent  = 20 // runs that consume a second lot of the previous generation
	linesPerShip  = 5  // lots per shipment
	lotsPerBill   = 3
	suppliers     = 500
	customers     = 5000
	rawProducts   = 1500
	interProducts = 500 // per intermediate generation
	finalProducts = 1000
	locations     = 4
)

// plan is what the fill wrote, kept in the database (table
// trace_bench_fill) so that a later run measures it again.
type plan struct {
	Org, Account int
	Lots         int
	Raw, PerGen  int
	Generations  int
	// ShipsPerLot is the shipments of each finished lot.
	ShipsPerLot int
	Movements   int
	// Lot is the traced lot, Nodes its trace's node count at the depth.
	Lot, Nodes int
	// Candidates is how many lots were traced to pick Lot.
	Candidates  int
	FillSeconds float64
	Steps       []step
}

type step struct {
	What    string
	Rows    int64
	Seconds float64
}

// The tables the fill writes in bulk; their secondary indexes are dropped
// before and built again after, from their own definitions.
var bulkTables = []string{"product_lots", "stock_movements", "productions", "bills", "shipments", "sales_orders", "invoices"}

func fillPlant(ctx context.Context, st *store.Store, nLots, generations, depth, target int) (*plan, error) {
	t0 := time.Now()
	if _, err := migrate.Apply(ctx, st.DB, st.Dialect, func(ctx context.Context) error { return seed.Shared(ctx, st.Client) }); err != nil {
		return nil, err
	}
	o, err := tenancy.Create(ctx, st.Client, "Trace bench", tenancy.Entitled, "CAD")
	if err != nil {
		return nil, err
	}
	p := &plan{Org: o.Org.ID, Account: o.Live.ID, Lots: nLots}
	p.Raw = nLots / rawShare
	p.PerGen = (nLots - p.Raw) / generations
	p.Lots = p.Raw + generations*p.PerGen
	p.Generations = generations
	// Ten movements a lot: what the bills and runs do not write, shipments do.
	others := p.Raw + generations*p.PerGen*(1+rawInputs) + (generations-1)*p.PerGen*(100+blendPercent)/100
	p.ShipsPerLot = max(1, (10*p.Lots-others)/p.PerGen/linesPerShip*linesPerShip)
	shipsPerLot := p.ShipsPerLot
	actx := policy.App(ctx, p.Account, policy.Live)
	var locIDs []int64
	err = ent.RunInTx(actx, st.Client, func(tx *ent.Tx) error {
		locIDs = nil
		for i := range locations {
			l, err := tx.Location.Create().SetCode(fmt.Sprintf("WH%d", i+1)).SetName(fmt.Sprintf("Warehouse %d", i+1)).SetPath(fmt.Sprintf("WH%d", i+1)).Save(actx)
			if err != nil {
				return err
			}
			locIDs = append(locIDs, int64(l.ID))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}

	// lib/pq's own pool of one connection: the session's settings below
	// hold for every statement of the fill.
	db, err := sql.Open("postgres", st.DSN)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	run := func(what, q string, args ...any) error {
		s := time.Now()
		res, err := conn.ExecContext(ctx, q, args...)
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		n, _ := res.RowsAffected()
		p.Steps = append(p.Steps, step{What: what, Rows: n, Seconds: time.Since(s).Seconds()})
		log.Printf("%-40s %10d rows %7.1f s", what, n, time.Since(s).Seconds())
		return nil
	}
	// Direct SQL: the benchmark's plant (about a million lots and ten million movements) is written by generate_series in a few statements; through ent's per-row hooks it would take hours. Foreign-key triggers are off for the session (session_replication_role) and secondary indexes are built after the rows, as for a restore: every reference points at a row the fill writes in the same account.
	for _, q := range []string{
		"SET session_replication_role = replica",
		"SET maintenance_work_mem = '512MB'",
		"SET synchronous_commit = off",
		"SELECT setseed(0.42)",
	} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return nil, fmt.Errorf("%s: %w", q, err)
		}
	}
	var defs []string
	rows, err := conn.QueryContext(ctx, `SELECT indexname, indexdef FROM pg_indexes i
		WHERE schemaname = 'public' AND tablename = ANY($1)
		AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = format('%I.%I', i.schemaname, i.indexname)::regclass)
		ORDER BY tablename, indexname`, pq.Array(bulkTables))
	if err != nil {
		return nil, err
	}
	var names []string
	for rows.Next() {
		var name, def string
		if err := rows.Scan(&name, &def); err != nil {
			rows.Close()
			return nil, err
		}
		names, defs = append(names, name), append(defs, def)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for _, n := range names {
		if _, err := conn.ExecContext(ctx, "DROP INDEX "+pq.QuoteIdentifier(n)); err != nil {
			return nil, err
		}
	}
	log.Printf("dropped %d secondary indexes of %s", len(names), strings.Join(bulkTables, ", "))

	off := map[string]int64{}
	for _, t := range []string{"suppliers", "customers", "products", "bills", "product_lots", "productions", "sales_orders", "invoices", "shipments"} {
		var n int64
		if err := conn.QueryRowContext(ctx, "SELECT coalesce(max(id), 0) FROM "+t).Scan(&n); err != nil {
			return nil, err
		}
		off[t] = n
	}
	var kg int64
	if err := conn.QueryRowContext(ctx, "SELECT id FROM units_of_measure WHERE code = 'kg' AND account_id IS NULL").Scan(&kg); err != nil {
		return nil, fmt.Errorf("unit kg: %w", err)
	}
	acct := p.Account
	R, P := int64(p.Raw), int64(p.PerGen)
	runs := int64(generations) * P
	ships := int64(shipsPerLot) * P / linesPerShip
	bills := (R + lotsPerBill - 1) / lotsPerBill
	const base = `timestamptz '2026-01-05 08:00:00+00'`
	// The generation of lot n (0: raw) and its rank in it.
	const genOf = `CASE WHEN n <= $R THEN 0 ELSE 1 + (n - $R - 1) / $P END`
	const rankOf = `CASE WHEN n <= $R THEN n ELSE (n - $R - 1) % $P + 1 END`
	// Two passes: the generation's and the rank's expressions name $R and $P.
	outer := strings.NewReplacer("$BASE", base, "$GEN", genOf, "$RANK", rankOf)
	inner := strings.NewReplacer("$R", fmt.Sprint(R), "$P", fmt.Sprint(P))
	sub := func(q string) string { return inner.Replace(outer.Replace(q)) }
	// products: raw 1..1500, then 500 per intermediate generation, then the finished goods.
	productOf := sub(`CASE WHEN g = 0 THEN 1 + (j - 1) % ` + fmt.Sprint(rawProducts) + `
		WHEN g < ` + fmt.Sprint(generations) + ` THEN ` + fmt.Sprint(rawProducts) + ` + (g - 1) * ` + fmt.Sprint(interProducts) + ` + 1 + (j - 1) % ` + fmt.Sprint(interProducts) + `
		ELSE ` + fmt.Sprint(rawProducts+(generations-1)*interProducts) + ` + 1 + (j - 1) % ` + fmt.Sprint(finalProducts) + ` END`)
	nProducts := rawProducts + (generations-1)*interProducts + finalProducts
	steps := []struct {
		what string
		q    string
		args []any
	}{
		{"suppliers", `INSERT INTO suppliers (id, created_at, updated_at, company, supplier_code, approval_status, account_id)
			SELECT $2 + i, now(), now(), 'Supplier ' || i, 'S' || i, 'APPROVED', $1 FROM generate_series(1, $3) i`,
			[]any{acct, off["suppliers"], suppliers}},
		{"customers", `INSERT INTO customers (id, created_at, updated_at, company, customer_code, account_id)
			SELECT $2 + i, now(), now(), 'Customer ' || i, 'C' || i, $1 FROM generate_series(1, $3) i`,
			[]any{acct, off["customers"], customers}},
		{"products", `INSERT INTO products (id, created_at, updated_at, name, product_code, kind, product_type, uom_base_id, account_id)
			SELECT $2 + i, now(), now(), 'Product ' || i, 'P' || i,
				CASE WHEN i <= $4 THEN 'material' ELSE 'recipe' END,
				CASE WHEN i <= $4 THEN 'RAW_MATERIAL' WHEN i <= $5 THEN 'SUB_RECIPE' ELSE 'FINISHED_GOOD' END, $6, $1
			FROM generate_series(1, $3) i`,
			[]any{acct, off["products"], nProducts, rawProducts, rawProducts + (generations-1)*interProducts, kg}},
		{"bills", `INSERT INTO bills (id, created_at, updated_at, bill_date, bill_no, supplier_reference, account_id, supplier_id)
			SELECT $2 + i, now(), now(), $BASE + i * interval '20 seconds', i, 'INV-' || i, $1, $4 + 1 + floor(random() * $5)::int
			FROM generate_series(1, $3) i`,
			[]any{acct, off["bills"], bills, off["suppliers"], suppliers}},
		{"product_lots", `INSERT INTO product_lots (id, created_at, updated_at, location_key, location_id, lot_number, expiration_date,
				lot_origin, qc_status, quantity_base, account_id, product_id, product_name, archived)
			SELECT $2 + n, at, at, loc, loc, 'L' || n, at + interval '1 year',
				CASE WHEN g = 0 THEN 'RECEPTION' ELSE 'PRODUCTION' END, 'AVAILABLE', 0, $1, $3 + pr, 'Product ' || pr, false
			FROM (SELECT n, g, j, ` + productOf + ` AS pr, $BASE + (g * 30 + j % 30) * interval '1 day' AS at,
					($4::bigint[])[1 + n % $5] AS loc
				FROM (SELECT n, $GEN AS g, $RANK AS j FROM generate_series(1, $6::bigint) n) x) y`,
			[]any{acct, off["product_lots"], off["products"], pq.Array(locIDs), len(locIDs), p.Lots}},
		{"productions", `INSERT INTO productions (id, created_at, updated_at, production_no, status, lot_number, start_date, end_date,
				account_id, product_id, location_id)
			SELECT $2 + r, at, at, r, 'COMPLETED', 'L' || n, at, at + interval '6 hours', $1, $3 + pr, ($4::bigint[])[1 + n % $5]
			FROM (SELECT r, n, ` + productOf + ` AS pr, $BASE + (g * 30 + j % 30) * interval '1 day' AS at
				FROM (SELECT r, n, $GEN AS g, $RANK AS j FROM (SELECT r, $R + r AS n FROM generate_series(1, $6::bigint) r) a) x) y`,
			[]any{acct, off["productions"], off["products"], pq.Array(locIDs), len(locIDs), runs}},
		{"movements: purchase entries", `INSERT INTO stock_movements (type, quantity_base, document_type, document_id, source, created_at, lot_id, account_id, location_id)
			SELECT 'PURCHASE_ENTRY', 1000, 'bill', $3 + (n - 1) / $4 + 1, 'api', $BASE + (n % 30) * interval '1 day', $2 + n, $1, ($5::bigint[])[1 + n % $6]
			FROM generate_series(1, $R::bigint) n`,
			[]any{acct, off["product_lots"], off["bills"], lotsPerBill, pq.Array(locIDs), len(locIDs)}},
		{"movements: production outputs", `INSERT INTO stock_movements (type, quantity_base, document_type, document_id, source, created_at, lot_id, account_id, location_id)
			SELECT 'PRODUCTION_OUTPUT', 500, 'production', $3 + r, 'api', $BASE + (g * 30 + j % 30) * interval '1 day' + interval '6 hours', $2 + n, $1, ($4::bigint[])[1 + n % $5]
			FROM (SELECT r, n, $GEN AS g, $RANK AS j FROM (SELECT r, $R + r AS n FROM generate_series(1, $6::bigint) r) a) x`,
			[]any{acct, off["product_lots"], off["productions"], pq.Array(locIDs), len(locIDs), runs}},
		{"movements: raw consumptions", `INSERT INTO stock_movements (type, quantity_base, document_type, document_id, source, created_at, lot_id, account_id, location_id)
			SELECT 'PRODUCTION_CONSUMPTION', -40, 'production', $3 + r, 'api', $BASE + (g * 30 + j % 30) * interval '1 day', $2 + 1 + floor(random() * $R)::bigint, $1, ($4::bigint[])[1 + r % $5]
			FROM (SELECT r, $GEN AS g, $RANK AS j FROM (SELECT (i - 1) / $7 + 1 AS r, $R + (i - 1) / $7 + 1 AS n FROM generate_series(1, $6::bigint) i) a) x`,
			[]any{acct, off["product_lots"], off["productions"], pq.Array(locIDs), len(locIDs), runs * rawInputs, rawInputs}},
		{"movements: intermediate consumptions", `INSERT INTO stock_movements (type, quantity_base, document_type, document_id, source, created_at, lot_id, account_id, location_id)
			SELECT 'PRODUCTION_CONSUMPTION', -400, 'production', $3 + r, 'api', $BASE + (g * 30 + j % 30) * interval '1 day', $2 + n - $P, $1, ($4::bigint[])[1 + r % $5]
			FROM (SELECT r, n, $GEN AS g, $RANK AS j FROM (SELECT r, $R + r AS n FROM generate_series($P + 1, $6::bigint) r) a) x`,
			[]any{acct, off["product_lots"], off["productions"], pq.Array(locIDs), len(locIDs), runs}},
		{"movements: blends", `INSERT INTO stock_movements (type, quantity_base, document_type, document_id, source, created_at, lot_id, account_id, location_id)
			SELECT 'PRODUCTION_CONSUMPTION', -50, 'production', $3 + r, 'api', $BASE + (g * 30 + j % 30) * interval '1 day', $2 + $R + (g - 2) * $P + 1 + floor(random() * $P)::bigint, $1, ($4::bigint[])[1 + r % $5]
			FROM (SELECT r, $GEN AS g, $RANK AS j FROM (SELECT r, $R + r AS n FROM generate_series($P + 1, $6::bigint) r) a) x
			WHERE random() < $7`,
			[]any{acct, off["product_lots"], off["productions"], pq.Array(locIDs), len(locIDs), runs, float64(blendPercent) / 100}},
		{"sales_orders", `INSERT INTO sales_orders (id, created_at, updated_at, sales_order_no, status, order_date, ship_date, account_id, customer_id)
			SELECT $2 + s, at, at, s, 'SHIPPED', at, at + interval '2 days', $1, $4 + 1 + floor(random() * $5)::int
			FROM (SELECT s, $BASE + interval '150 days' + s * interval '10 seconds' AS at FROM generate_series(1, $3::bigint) s) x`,
			[]any{acct, off["sales_orders"], ships, off["customers"], customers}},
		{"invoices", `INSERT INTO invoices (id, created_at, updated_at, invoice_no, invoice_date, account_id, customer_id, sales_order_id)
			SELECT $3 + (o.id - $2), o.created_at, o.created_at, o.sales_order_no, o.order_date + interval '2 days', $1, o.customer_id, o.id
			FROM sales_orders o WHERE o.id > $2 AND o.account_id = $1 AND o.sales_order_no % 5 <> 0`,
			[]any{acct, off["sales_orders"], off["invoices"]}},
		{"shipments", `INSERT INTO shipments (id, created_at, updated_at, ship_date, tracking_number, account_id, sales_order_id, invoice_id)
			SELECT $2 + s, at, at, at, 'TRK' || s, $1, $3 + s, CASE WHEN s % 5 <> 0 THEN $4 + s END
			FROM (SELECT s, $BASE + interval '152 days' + s * interval '10 seconds' AS at FROM generate_series(1, $5::bigint) s) x`,
			[]any{acct, off["shipments"], off["sales_orders"], off["invoices"], ships}},
		// Shipment k takes finished lot ((k-1)·7919 mod P)+1: each finished lot
		// exactly shipsPerLot times, the lots of a shipment far apart.
		{"movements: shipping", `INSERT INTO stock_movements (type, quantity_base, document_type, document_id, source, created_at, lot_id, account_id, location_id)
			SELECT 'SHIPPING', -15, 'shipment', $3 + (k - 1) / $4 + 1, 'api', $BASE + interval '152 days' + ((k - 1) / $4 + 1) * interval '10 seconds',
				$2 + $R + ($5 - 1) * $P + ((k - 1) * 7919) % $P + 1, $1, ($6::bigint[])[1 + k % $7]
			FROM generate_series(1, $8::bigint) k`,
			[]any{acct, off["product_lots"], off["shipments"], linesPerShip, generations, pq.Array(locIDs), len(locIDs), int64(shipsPerLot) * P}},
		{"lot quantities (sum of movements)", `UPDATE product_lots l SET quantity_base = m.q
			FROM (SELECT lot_id, sum(quantity_base) AS q FROM stock_movements WHERE account_id = $1 GROUP BY lot_id) m
			WHERE l.id = m.lot_id`,
			[]any{acct}},
	}
	for _, s := range steps {
		if err := run(s.what, sub(s.q), s.args...); err != nil {
			return nil, err
		}
	}
	for _, t := range []string{"suppliers", "customers", "products", "bills", "product_lots", "productions", "sales_orders", "invoices", "shipments", "stock_movements"} {
		if _, err := conn.ExecContext(ctx, fmt.Sprintf("SELECT setval(pg_get_serial_sequence('%s', 'id'), (SELECT max(id) FROM %s))", t, t)); err != nil {
			return nil, err
		}
	}
	s := time.Now()
	for _, d := range defs {
		if _, err := conn.ExecContext(ctx, d); err != nil {
			return nil, fmt.Errorf("%s: %w", d, err)
		}
	}
	p.Steps = append(p.Steps, step{What: fmt.Sprintf("%d indexes built", len(defs)), Seconds: time.Since(s).Seconds()})
	log.Printf("built %d indexes in %.1f s", len(defs), time.Since(s).Seconds())
	if _, err := conn.ExecContext(ctx, "SET session_replication_role = DEFAULT"); err != nil {
		return nil, err
	}
	s = time.Now()
	// As autovacuum leaves tables that have taken this many rows: analyzed,
	// their visibility maps set.
	for _, t := range append(bulkTables, "products", "suppliers", "customers") {
		if _, err := conn.ExecContext(ctx, "VACUUM ANALYZE "+t); err != nil {
			return nil, err
		}
	}
	p.Steps = append(p.Steps, step{What: "VACUUM ANALYZE", Seconds: time.Since(s).Seconds()})
	log.Printf("VACUUM ANALYZE in %.1f s", time.Since(s).Seconds())
	if err := conn.QueryRowContext(ctx, "SELECT count(*) FROM stock_movements WHERE account_id = $1", acct).Scan(&p.Movements); err != nil {
		return nil, err
	}

	// The traced lot: of 50 lots of each of the raw lots and the first three
	// generations, spread over each, the one whose trace at the depth goes
	// deepest among those within a tenth of the target's node count (the
	// nearest to the target when none is).
	type candidate struct{ lot, nodes, reach int }
	var cands []candidate
	for g := range 4 {
		first, size := off["product_lots"]+1, R
		if g > 0 {
			first, size = off["product_lots"]+R+int64(g-1)*P+1, P
		}
		for k := range 50 {
			id := int(first + int64(k)*size/50)
			t, err := inventory.TraceLotOf(actx, st.Client, id, inventory.Both, depth)
			if err != nil {
				return nil, fmt.Errorf("trace lot %d: %w", id, err)
			}
			c := candidate{lot: id, nodes: len(t.Nodes)}
			for _, n := range t.Nodes {
				if n.Kind == inventory.NodeLot {
					c.reach = max(c.reach, abs(n.Level)/2)
				}
			}
			cands = append(cands, c)
		}
	}
	p.Candidates = len(cands)
	best := cands[0]
	near := func(c candidate) bool { return 10*abs(c.nodes-target) <= target }
	for _, c := range cands[1:] {
		switch {
		case near(c) && (!near(best) || c.reach > best.reach || (c.reach == best.reach && abs(c.nodes-target) < abs(best.nodes-target))):
			best = c
		case !near(best) && abs(c.nodes-target) < abs(best.nodes-target):
			best = c
		}
	}
	p.Lot, p.Nodes = best.lot, best.nodes
	p.FillSeconds = time.Since(t0).Seconds()
	b, _ := json.Marshal(p)
	if _, err := conn.ExecContext(ctx, "CREATE TABLE trace_bench_fill (plan jsonb NOT NULL)"); err != nil {
		return nil, err
	}
	if _, err := conn.ExecContext(ctx, "INSERT INTO trace_bench_fill VALUES ($1)", string(b)); err != nil {
		return nil, err
	}
	log.Printf("filled %d lots, %d movements in %.0f s; traced lot %d, %d nodes", p.Lots, p.Movements, p.FillSeconds, p.Lot, p.Nodes)
	return p, nil
}

// planOf reads the plan a fill left.
func planOf(ctx context.Context, db *sql.DB) (*plan, error) {
	var b []byte
	if err := db.QueryRowContext(ctx, "SELECT plan FROM trace_bench_fill").Scan(&b); err != nil {
		return nil, fmt.Errorf("no finished fill in this database (run without -reuse): %w", err)
	}
	p := &plan{}
	return p, json.Unmarshal(b, p)
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
