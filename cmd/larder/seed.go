package main

import (
	"context"
	"fmt"

	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/seed"
	"larder.dev/larder/policy"
)

func seedScale(ctx context.Context, e *env, args []string) error {
	c := e.command("seed", needs{org: inAccount})
	scale := c.Int("scale", 0, "copies of the test dataset to add (required, 1 or more)")
	return c.run(ctx, args, func() error {
		if *scale < 1 {
			return fmt.Errorf("seed needs --scale N with N of 1 or more")
		}
		if c.env != policy.Test {
			return fmt.Errorf("seed adds benchmark data to a test account only: use --env test")
		}
		return nil
	}, func(ctx context.Context, st *store.Store) error {
		bar := newProgress(e.stderr, "seeding")
		res, err := seed.Scale(ctx, st.Client, st.Dialect, *scale, bar.set)
		bar.done()
		if err != nil {
			return err
		}
		rate := float64(res.Rows) / res.Elapsed.Seconds()
		return e.print(map[string]any{"copies": *scale, "rows": res.Rows, "seconds": res.Elapsed.Seconds(), "rows_per_second": int(rate)},
			fmt.Sprintf("%d copies: %d rows in %s (%.0f rows/s)", *scale, res.Rows, res.Elapsed.Round(1e6), rate))
	})
}
