package seed

import (
	"context"
	"fmt"
	"time"

	"github.com/shopspring/decimal"

	"larder.dev/larder/catalog"
	"larder.dev/larder/ent"
	"larder.dev/larder/ent/product"
	"larder.dev/larder/ent/productlot"
	"larder.dev/larder/ent/stockmovement"
	"larder.dev/larder/hooks"
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
// inserts and without events: benchmark data, not a workload.
func Scale(ctx context.Context, c *ent.Client, n int, progress func(done, total int)) (ScaleResult, error) {
	start := time.Now()
	if policy.FromContext(ctx).AccountID == 0 {
		return ScaleResult{}, fmt.Errorf("scale needs an account viewer")
	}
	quiet := hooks.WithoutEvents(ctx)
	var res ScaleResult
	err := ent.RunInTx(ctx, c, func(tx *ent.Tx) error {
		bulk, err := catalog.NewBulk(ctx, tx)
		if err != nil {
			return err
		}
		// Copies are written in groups so the product inserts fill their batches.
		const group = 20
		for k := 1; k <= n; k += group {
			var recs []catalog.Record
			for j := k; j < min(k+group, n+1); j++ {
				suffix := fmt.Sprintf("-S%05d", j)
				if err := seedSuppliersAs(quiet, tx, suffix); err != nil {
					return err
				}
				if err := seedCheckpointsAs(quiet, tx, suffix); err != nil {
					return err
				}
				res.Rows += len(supplierRows) + len(checkpointRows)
				rs, err := productRecords(suffix)
				if err != nil {
					return err
				}
				recs = append(recs, rs...)
			}
			rows, err := bulk.Create(ctx, tx, recs)
			if err != nil {
				return err
			}
			res.Rows += rows
			stock, err := bulkLots(ctx, tx, recs)
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

// lotsPerProduct is how many lots scale seeding gives each product.
const lotsPerProduct = 4

// bulkLots writes lotsPerProduct numbered lots of each product of recs, in
// no location, with expiry dates spread over two years, and their
// PRODUCT_FORM movements, in multi-row inserts. It returns the rows written.
func bulkLots(ctx context.Context, tx *ent.Tx, recs []catalog.Record) (int, error) {
	// System viewer: seeding writes lots and their movements in bulk and without events (benchmark datasets).
	acct := policy.FromContext(ctx).AccountID
	codes := make([]string, len(recs))
	for i, r := range recs {
		codes[i] = r.ProductCode
	}
	sys := hooks.WithBulkStock(hooks.WithoutEvents(policy.System(ctx)))
	products, err := tx.Product.Query().Where(product.AccountID(acct), product.ProductCodeIn(codes...)).All(sys)
	if err != nil {
		return 0, err
	}
	base := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
	var lots []*ent.ProductLotCreate
	for _, p := range products {
		for k := range lotsPerProduct {
			exp := base.AddDate(0, 0, (p.ID*7+k*97)%730)
			lots = append(lots, tx.ProductLot.Create().
				SetAccountID(acct).
				SetProductID(p.ID).
				SetNillableProductName(p.Name).
				SetLotNumber(fmt.Sprintf("L%d-%d", p.ID, k+1)).
				SetExpirationDate(exp).
				SetLotOrigin(productlot.LotOriginPRODUCT_FORM).
				SetQuantityBase(decimal.NewFromInt(int64(100*(k+1)))))
		}
	}
	rows := 0
	for start := 0; start < len(lots); start += bulkSize {
		saved, err := tx.ProductLot.CreateBulk(lots[start:min(start+bulkSize, len(lots))]...).Save(sys)
		if err != nil {
			return rows, fmt.Errorf("bulk lots: %w", err)
		}
		mvs := make([]*ent.StockMovementCreate, len(saved))
		for i, l := range saved {
			mvs[i] = tx.StockMovement.Create().
				SetAccountID(acct).
				SetLotID(l.ID).
				SetType(stockmovement.TypePRODUCT_FORM).
				SetQuantityBase(l.QuantityBase).
				SetDocumentType("product_lot").
				SetDocumentID(l.ID).
				SetSource(stockmovement.SourceSystem)
		}
		if err := tx.StockMovement.CreateBulk(mvs...).Exec(sys); err != nil {
			return rows, fmt.Errorf("bulk movements: %w", err)
		}
		rows += 2 * len(saved)
	}
	return rows, nil
}
