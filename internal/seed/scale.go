package seed

import (
	"context"
	"fmt"
	"strings"
	"time"

	"entgo.io/ent/dialect"
	"github.com/shopspring/decimal"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/productlot"
	"larder.dev/larder/ent/stockmovement"
	"larder.dev/larder/hooks"
	"larder.dev/larder/internal/modules/catalog"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/policy"
)

// ScaleResult is what Scale wrote.
type ScaleResult struct {
	Rows    int
	Elapsed time.Duration
}

// Scale adds n copies of the test dataset's catalog (suppliers, QC
// checkpoints, products and their join rows, each code suffixed -S00001…),
// and lotsPerProduct lots of each product with their PRODUCT_FORM movements, to
// the account of the app viewer in ctx, in one transaction, with multi-row
// inserts and without events: benchmark data, not a workload. dia is the
// database's dialect (dialect.Postgres or dialect.SQLite): lots and movements,
// most of the rows, are written in SQL of its own.
func Scale(ctx context.Context, c *ent.Client, dia string, n int, progress func(done, total int)) (ScaleResult, error) {
	start := time.Now()
	cal := calendarOf(start)
	acct := policy.FromContext(ctx).AccountID
	if acct == 0 {
		return ScaleResult{}, fmt.Errorf("scale needs an account viewer")
	}
	quiet := hooks.WithoutEvents(ctx)
	var res ScaleResult
	err := ent.RunInTx(ctx, c, func(tx *ent.Tx) error {
		res = ScaleResult{} // counted afresh if the transaction runs again
		bulk, err := catalog.NewBulk(ctx, tx)
		if err != nil {
			return err
		}
		units, err := qcUnits(quiet, tx)
		if err != nil {
			return err
		}
		// The checkpoints name only the shared QC units read just above.
		checked := hooks.CheckedReferences(quiet, ent.TypeQCCheckpoint)
		lots := newLotWriter(dia, acct)
		// Copies are written in groups so that every insert fills its batches.
		const group = 50
		for k := 1; k <= n; k += group {
			var (
				recs []catalog.Record
				sups []*ent.SupplierCreate
				qcs  []*ent.QCCheckpointCreate
			)
			for j := k; j < min(k+group, n+1); j++ {
				suffix := fmt.Sprintf("-S%05d", j)
				sups = append(sups, supplierCreates(tx, suffix, cal)...)
				cs, err := checkpointCreates(tx, suffix, units)
				if err != nil {
					return err
				}
				qcs = append(qcs, cs...)
				rs, err := productRecords(suffix)
				if err != nil {
					return err
				}
				recs = append(recs, rs...)
			}
			ss, err := saveBulk(quiet, "suppliers", sups, tx.Supplier.CreateBulk)
			if err != nil {
				return err
			}
			qq, err := saveBulk(checked, "QC checkpoints", qcs, tx.QCCheckpoint.CreateBulk)
			if err != nil {
				return err
			}
			res.Rows += len(ss) + len(qq)
			bulk.Know(ss, qq)
			ps, rows, err := bulk.CreateProducts(ctx, tx, recs)
			if err != nil {
				return err
			}
			res.Rows += rows
			stock, err := lots.write(ctx, tx, scaleLots(ps, cal))
			if err != nil {
				return err
			}
			res.Rows += stock
			if progress != nil {
				progress(min(k+group-1, n), n)
			}
		}
		return nil
	})
	res.Elapsed = time.Since(start)
	return res, err
}

// saveBulk creates the builders in batches and returns what they created.
func saveBulk[B, E any, R interface {
	Save(context.Context) ([]E, error)
}](ctx context.Context, what string, bs []B, create func(...B) R) ([]E, error) {
	out := make([]E, 0, len(bs))
	for len(bs) > 0 {
		n := min(len(bs), bulkSize)
		saved, err := create(bs[:n]...).Save(ctx)
		if err != nil {
			return out, fmt.Errorf("seed %s: %w", what, err)
		}
		out = append(out, saved...)
		bs = bs[n:]
	}
	return out, nil
}

// lotsPerProduct is how many lots scale seeding gives each product.
const lotsPerProduct = 4

// scaleLot is a lot scale seeding writes: numbered, in no location, with the
// PRODUCT_FORM movement of its whole quantity.
type scaleLot struct {
	productID   int
	productName *string
	number      string
	expires     time.Time
	quantity    decimal.Decimal
}

// scaleLots are lotsPerProduct numbered lots of each product, with expiry
// dates spread over the two years from six weeks after cal's day, and a copy
// of the product's name.
func scaleLots(products []*ent.Product, cal calendar) []scaleLot {
	base := cal.day(42)
	lots := make([]scaleLot, 0, lotsPerProduct*len(products))
	for _, p := range products {
		for k := range lotsPerProduct {
			lots = append(lots, scaleLot{
				productID:   p.ID,
				productName: p.Name,
				number:      fmt.Sprintf("L%d-%d", p.ID, k+1),
				expires:     base.AddDate(0, 0, (p.ID*7+k*97)%730),
				quantity:    decimal.NewFromInt(int64(100 * (k + 1))),
			})
		}
	}
	return lots
}

// lotWriter writes scale lots and their movements of one account in the
// database's own bulk SQL: lots carry no event, and the products they
// name were created in this transaction in the same account, so ent's
// per-row hooks (reference checks, the movement each lot's creation writes,
// the product name's copy) have nothing to add, and cost most of the time.
// The columns are those ent writes, with the schema's defaults.
type lotWriter struct {
	dia  string
	acct int
}

func newLotWriter(dia string, acct int) *lotWriter { return &lotWriter{dia: dia, acct: acct} }

// write inserts lots and one movement per lot, and returns the rows written.
func (w *lotWriter) write(ctx context.Context, tx *ent.Tx, lots []scaleLot) (int, error) {
	rows := 0
	batch := sqliteLotBatch
	if w.dia == dialect.Postgres {
		batch = postgresLotBatch
	}
	for len(lots) > 0 {
		n := min(len(lots), batch)
		var err error
		if w.dia == dialect.Postgres {
			err = w.postgres(ctx, tx, lots[:n])
		} else {
			err = w.sqlite(ctx, tx, lots[:n])
		}
		if err != nil {
			return rows, err
		}
		rows += 2 * n
		lots = lots[n:]
	}
	return rows, nil
}

// postgresLotBatch bounds the arrays of one statement.
const postgresLotBatch = 10000

// postgresLots inserts lots from arrays and, in the same statement, the
// movement of each lot's whole quantity.
const postgresLots = `WITH lots AS (
	INSERT INTO product_lots (account_id, product_id, product_name, lot_number, expiration_date, quantity_base,
		lot_origin, qc_status, location_key, archived, created_at, updated_at)
	SELECT $1, t.product_id, t.product_name, t.lot_number, t.expiration_date, t.quantity_base, $2, $3, $4, $5, $6, $6
	FROM unnest($7::bigint[], $8::text[], $9::text[], $10::timestamptz[], $11::numeric[])
		AS t(product_id, product_name, lot_number, expiration_date, quantity_base)
	RETURNING id, account_id, quantity_base
)
INSERT INTO stock_movements (account_id, lot_id, type, quantity_base, document_type, document_id, source, created_at)
SELECT account_id, id, $12, quantity_base, $13, id, $14, $6 FROM lots`

// postgres writes one batch of lots and movements in one statement.
func (w *lotWriter) postgres(ctx context.Context, tx *ent.Tx, lots []scaleLot) error {
	// Direct SQL: scale seeding writes lots and their movements from arrays in one statement (ent's per-row hooks were most of its time); the account is the viewer's, the products were just created in it, and no event is due.
	ids := make([]int64, len(lots))
	names := make([]*string, len(lots))
	numbers := make([]string, len(lots))
	expires := make([]string, len(lots))
	quantities := make([]string, len(lots))
	for i, l := range lots {
		ids[i] = int64(l.productID)
		names[i] = l.productName
		numbers[i] = l.number
		expires[i] = l.expires.Format(time.RFC3339Nano)
		quantities[i] = l.quantity.String()
	}
	res, err := tx.ExecContext(ctx, postgresLots,
		w.acct, productlot.LotOriginPRODUCT_FORM.String(), productlot.DefaultQcStatus.String(), productlot.DefaultLocationKey, productlot.DefaultArchived, now(),
		store.Array(ids), store.Array(names), store.Array(numbers), store.Array(expires), store.Array(quantities),
		stockmovement.TypePRODUCT_FORM.String(), lotDocument, stockmovement.SourceSystem.String())
	if err != nil {
		return fmt.Errorf("bulk lots: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil || n != int64(len(lots)) {
		return fmt.Errorf("bulk lots: %d movements for %d lots (%v)", n, len(lots), err)
	}
	return nil
}

// sqliteLotBatch keeps one insert of lots (12 parameters a lot) under
// SQLite's 32,766 parameters; full batches repeat one statement, which the
// statement cache prepares. Parameters are plain ?: SQLite looks a numbered
// one up by a linear search of the statement's names.
const sqliteLotBatch = 1000

// sqlite writes one batch of lots, then their movements, copied from the lots
// by id (the primary key alone: with the account too, SQLite walks an index
// of all the account's lots).
func (w *lotWriter) sqlite(ctx context.Context, tx *ent.Tx, lots []scaleLot) error {
	// Direct SQL: scale seeding writes lots and their movements in multi-row inserts (ent's per-row hooks were most of its time); the account is the viewer's, the products were just created in it, and no event is due.
	at := now()
	var q strings.Builder
	q.WriteString(`INSERT INTO product_lots (account_id, product_id, product_name, lot_number, expiration_date, quantity_base,
	lot_origin, qc_status, location_key, archived, created_at, updated_at) VALUES `)
	args := make([]any, 0, 12*len(lots))
	for i, l := range lots {
		if i > 0 {
			q.WriteByte(',')
		}
		q.WriteString("(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
		args = append(args, w.acct, l.productID, l.productName, l.number, l.expires, l.quantity,
			productlot.LotOriginPRODUCT_FORM.String(), productlot.DefaultQcStatus.String(), productlot.DefaultLocationKey, productlot.DefaultArchived, at, at)
	}
	q.WriteString(" RETURNING id")
	rows, err := tx.QueryContext(ctx, q.String(), args...)
	if err != nil {
		return fmt.Errorf("bulk lots: %w", err)
	}
	args = append(args[:0], stockmovement.TypePRODUCT_FORM.String(), lotDocument, stockmovement.SourceSystem.String(), at)
	const fixed = 4
	for rows.Next() {
		var id int
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return fmt.Errorf("bulk lots: %w", err)
		}
		args = append(args, id)
	}
	if err := firstErr(rows.Err(), rows.Close()); err != nil {
		return fmt.Errorf("bulk lots: %w", err)
	}
	if len(args)-fixed != len(lots) {
		return fmt.Errorf("bulk lots: %d ids for %d lots", len(args)-fixed, len(lots))
	}
	q.Reset()
	q.WriteString(`INSERT INTO stock_movements (account_id, lot_id, type, quantity_base, document_type, document_id, source, created_at)
	SELECT account_id, id, ?, quantity_base, ?, id, ?, ? FROM product_lots WHERE id IN (`)
	q.WriteString(strings.Repeat("?,", len(lots)-1))
	q.WriteString("?)")
	res, err := tx.ExecContext(ctx, q.String(), args...)
	if err != nil {
		return fmt.Errorf("bulk movements: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil || n != int64(len(lots)) {
		return fmt.Errorf("bulk movements: %d movements for %d lots (%v)", n, len(lots), err)
	}
	return nil
}

// lotDocument is the document_type of a lot's own PRODUCT_FORM movement (as
// hooks.AccountStock writes it).
const lotDocument = "product_lot"

// now is the timestamp of the rows of one statement: UTC at the microsecond
// precision both databases keep, as ent's defaults.
func now() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }

// firstErr is the first non-nil error.
func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
