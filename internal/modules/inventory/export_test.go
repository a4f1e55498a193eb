package inventory

import (
	"context"
	"slices"

	"larder.dev/larder/ent"
)

// ReachLots runs the trace's statement alone for the viewer of ctx, from the
// lot over depth runs each way, and returns the lots of its rows in order.
func ReachLots(ctx context.Context, c *ent.Client, lot, depth int) ([]int, error) {
	r, err := reach(ctx, c, lot, depth, depth)
	if err != nil {
		return nil, err
	}
	var out []int
	for id := range r.lots {
		out = append(out, id)
	}
	slices.Sort(out)
	return out, nil
}
