package seed

import (
	"context"
	"fmt"
	"time"

	"larder.dev/larder/catalog"
	"larder.dev/larder/ent"
	"larder.dev/larder/hooks"
	"larder.dev/larder/policy"
)

// ScaleResult is what Scale wrote.
type ScaleResult struct {
	Rows    int
	Elapsed time.Duration
}

// Scale adds n copies of the test dataset's catalog (suppliers, QC
// checkpoints, products and their join rows, each code suffixed -S00001…) to
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
			rows, err := catalog.BulkCreate(ctx, tx, recs)
			if err != nil {
				return err
			}
			res.Rows += rows
			if progress != nil {
				progress(min(k+group-1, n), n)
			}
		}
		return nil
	})
	res.Elapsed = time.Since(start)
	return res, err
}
