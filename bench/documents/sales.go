package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// The sales scenarios: a 200-line sales order, and a 200-line shipment of
// such an order (one base unit of every line, picked from the lots
// salesSetup makes, and invoiced).
const salesLines = 200

// salesFixture adds what sales documents name: a customer and, per
// material, a lot holding plenty.
type salesFixture struct {
	customer int64
	company  string
	address  string
	lots     map[int64]int64 // product → its lot
}

func (f *fixture) salesSetup(ctx context.Context, db *sql.DB, l larder) (*salesFixture, error) {
	sf := &salesFixture{lots: map[int64]int64{}}
	err := db.QueryRowContext(ctx, `SELECT id, company, COALESCE(address::text, 'null') FROM customers WHERE account_id = $1 AND customer_code = 'EPI-QC'`, f.account).
		Scan(&sf.customer, &sf.company, &sf.address)
	if err != nil {
		return nil, fmt.Errorf("customer EPI-QC: %w", err)
	}
	for i, p := range f.products {
		var out struct {
			Data struct{ ID int64 } `json:"data"`
		}
		body := map[string]any{"product_id": p.id, "lot_number": fmt.Sprintf("SHIP-%d-%d", time.Now().UnixNano(), i), "quantity_base": 1e9}
		if err := l.create("/v1/product-lots", body, &out); err != nil {
			return nil, err
		}
		sf.lots[p.id] = out.Data.ID
	}
	return sf, nil
}

func (f *fixture) salesOrder(sf *salesFixture) map[string]any {
	lines := make([]map[string]any, salesLines)
	for i := range lines {
		lines[i] = map[string]any{"product_id": f.products[i%len(f.products)].id, "order_qty": lineQty, "price": lineCost}
	}
	return map[string]any{"customer_id": sf.customer, "lines": lines}
}

// order is a sales order made for a shipment to ship.
type order struct {
	id    int64
	lines []int64
}

// newOrder creates a sales order through Larder (not measured).
func (f *fixture) newOrder(l larder, sf *salesFixture) (order, error) {
	var out struct {
		Data struct {
			ID    int64 `json:"id"`
			Lines []struct {
				ID int64 `json:"id"`
			} `json:"lines"`
		} `json:"data"`
	}
	if err := l.create("/v1/sales-orders", f.salesOrder(sf), &out); err != nil {
		return order{}, err
	}
	o := order{id: out.Data.ID}
	for _, x := range out.Data.Lines {
		o.lines = append(o.lines, x.ID)
	}
	return o, nil
}

func shipmentBody(o order) map[string]any {
	lines := make([]map[string]any, len(o.lines))
	for i, id := range o.lines {
		lines[i] = map[string]any{"sales_order_line_id": id, "quantity_base": 1}
	}
	return map[string]any{"lines": lines}
}

// salesOrder writes a sales order's rows directly.
func (b baseline) salesOrder(ctx context.Context, sf *salesFixture) error {
	f := b.f
	tx, err := b.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	no, err := number(ctx, tx, f.account, "bench_sales_order")
	if err != nil {
		return err
	}
	now := time.Now()
	var id int64
	err = tx.QueryRowContext(ctx, `INSERT INTO sales_orders (created_at, updated_at, sales_order_no, status, billing_address, shipping_address,
		company, subtotal, tax1, tax2, account_id, customer_id) VALUES ($1, $1, $2, 'OPEN', $3, $3, $4, $5, false, false, $6, $7) RETURNING id`,
		now, no, sf.address, sf.company, salesLines*lineQty*lineCost, f.account, sf.customer).Scan(&id)
	if err != nil {
		return err
	}
	args := make([]any, 0, salesLines*12)
	for i := range salesLines {
		p := f.products[i%len(f.products)]
		args = append(args, f.account, id, p.id, p.code, p.name, lineQty, lineQty, lineCost, 0, false, false, "BASE_UOM")
	}
	if _, err := insert(ctx, tx, "sales_order_lines", "account_id, sales_order_id, product_id, product_code, product_name, order_qty, order_qty_base, price, shipped_qty_base, tax1, tax2, uom_type",
		salesLines, args, false); err != nil {
		return err
	}
	if err := b.events(ctx, tx, "sales_order.created", "sales_order", []int64{id}, now); err != nil {
		return err
	}
	return tx.Commit()
}

// shipment ships one base unit of every line of o directly: it locks the
// order and the lots, lowers the lots, writes the shipment, its lines and
// movements, the lines' shipped quantities, the invoice and its lines, and
// moves the order, with the events Larder writes.
func (b baseline) shipment(ctx context.Context, sf *salesFixture, o order) error {
	f := b.f
	tx, err := b.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "SELECT id FROM sales_orders WHERE id = $1 FOR UPDATE", o.id); err != nil {
		return err
	}
	var sb strings.Builder
	lotArgs := []any{}
	sb.WriteString("SELECT id, quantity_base::text FROM product_lots WHERE id IN (")
	lotIDs := make([]int64, 0, len(sf.lots))
	for _, p := range f.products {
		if len(lotArgs) > 0 {
			sb.WriteString(",")
		}
		lotArgs = append(lotArgs, sf.lots[p.id])
		lotIDs = append(lotIDs, sf.lots[p.id])
		fmt.Fprintf(&sb, "$%d", len(lotArgs))
	}
	sb.WriteString(") ORDER BY id FOR UPDATE")
	rows, err := tx.QueryContext(ctx, sb.String(), lotArgs...)
	if err != nil {
		return err
	}
	held := map[int64]float64{}
	for rows.Next() {
		var id int64
		var q float64
		if err := rows.Scan(&id, &q); err != nil {
			rows.Close()
			return err
		}
		held[id] = q
	}
	rows.Close()
	take := map[int64]float64{}
	for i := range o.lines {
		take[sf.lots[f.products[i%len(f.products)].id]]++
	}
	sb.Reset()
	args := []any{}
	sb.WriteString("UPDATE product_lots SET quantity_base = v.q::numeric, updated_at = now() FROM (VALUES ")
	for i, id := range lotIDs {
		if i > 0 {
			sb.WriteString(",")
		}
		fmt.Fprintf(&sb, "($%d::bigint, $%d::text)", len(args)+1, len(args)+2)
		args = append(args, id, fmt.Sprint(held[id]-take[id]))
	}
	sb.WriteString(") AS v(id, q) WHERE product_lots.id = v.id")
	if _, err := tx.ExecContext(ctx, sb.String(), args...); err != nil {
		return err
	}
	now := time.Now()
	var sid int64
	if err := tx.QueryRowContext(ctx, `INSERT INTO shipments (created_at, updated_at, ship_date, account_id, sales_order_id) VALUES ($1, $1, $2, $3, $4) RETURNING id`,
		now, now.Truncate(24*time.Hour), f.account, o.id).Scan(&sid); err != nil {
		return err
	}
	lines := make([]any, 0, len(o.lines)*5)
	moves := make([]any, 0, len(o.lines)*8)
	for i, id := range o.lines {
		lot := sf.lots[f.products[i%len(f.products)].id]
		lines = append(lines, f.account, sid, id, 1, lot)
		moves = append(moves, "SHIPPING", -1, "shipment", sid, "api", now, lot, f.account)
	}
	if _, err := insert(ctx, tx, "shipment_lines", "account_id, shipment_id, sales_order_line_id, quantity_base, lot_id", len(o.lines), lines, false); err != nil {
		return err
	}
	if _, err := insert(ctx, tx, "stock_movements", "type, quantity_base, document_type, document_id, source, created_at, lot_id, account_id", len(o.lines), moves, false); err != nil {
		return err
	}
	sb.Reset()
	args = args[:0]
	sb.WriteString("UPDATE sales_order_lines SET shipped_qty_base = v.q::numeric FROM (VALUES ")
	for i, id := range o.lines {
		if i > 0 {
			sb.WriteString(",")
		}
		fmt.Fprintf(&sb, "($%d::bigint, $%d::text)", len(args)+1, len(args)+2)
		args = append(args, id, "1")
	}
	sb.WriteString(") AS v(id, q) WHERE sales_order_lines.id = v.id")
	if _, err := tx.ExecContext(ctx, sb.String(), args...); err != nil {
		return err
	}
	no, err := number(ctx, tx, f.account, "bench_invoice")
	if err != nil {
		return err
	}
	var inv int64
	err = tx.QueryRowContext(ctx, `INSERT INTO invoices (created_at, updated_at, invoice_no, invoice_date, billing_address, shipping_address, company,
		is_cancelled, subtotal, tax1, tax2, account_id, customer_id, sales_order_id) VALUES ($1, $1, $2, $3, $4, $4, $5, false, $6, false, false, $7, $8, $9) RETURNING id`,
		now, no, now.Truncate(24*time.Hour), sf.address, sf.company, float64(len(o.lines))*lineCost, f.account, sf.customer, o.id).Scan(&inv)
	if err != nil {
		return err
	}
	il := make([]any, 0, len(o.lines)*10)
	for i := range o.lines {
		p := f.products[i%len(f.products)]
		il = append(il, f.account, inv, p.id, p.code, p.name, lineCost, 1, 1, false, false, "BASE_UOM")
	}
	if _, err := insert(ctx, tx, "invoice_lines", "account_id, invoice_id, product_id, product_code, product_name, price, shipped_qty, shipped_qty_base, tax1, tax2, uom_type",
		len(o.lines), il, false); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "UPDATE shipments SET invoice_id = $1 WHERE id = $2", inv, sid); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "UPDATE sales_orders SET status = 'BACK_ORDER', ship_date = $1, updated_at = $2 WHERE id = $3", now.Truncate(24*time.Hour), now, o.id); err != nil {
		return err
	}
	for _, e := range []struct {
		typ, resource string
		ids           []int64
	}{{"product_lot.updated", "product_lot", lotIDs}, {"invoice.created", "invoice", []int64{inv}}, {"sales_order.updated", "sales_order", []int64{o.id}}} {
		if err := b.events(ctx, tx, e.typ, e.resource, e.ids, now); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// create posts body and decodes the 201 answer into out.
func (l larder) create(path string, body, out any) error {
	data, err := l.send(path, body)
	if err != nil {
		return err
	}
	return json.Unmarshal(data, out)
}
