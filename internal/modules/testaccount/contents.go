package testaccount

import (
	"context"
	"fmt"

	"larder.dev/larder/ent"
	"larder.dev/larder/internal/identity/tenancy"
	"larder.dev/larder/policy"
)

// Contents is what a reset of the test account would delete now: its rows in
// all and per table (tables without any are left out).
type Contents struct {
	Total  int
	Tables map[string]int
}

// TestContents counts the rows of organization orgID's test account that
// ResetTest would delete, table by table, so that a person can see what a
// reset replaces before asking for it. It counts exactly the rows the reset's
// plan names (its webhook events and their deliveries included, its keys and
// endpoints not), one table after another: a write meanwhile may show in
// some counts and not in others, which a guide does not mind. Another
// organization's id, or one that does not exist, is "organization N does not
// exist".
func TestContents(ctx context.Context, c *ent.Client, orgID int) (Contents, error) {
	// System viewer: the counts span every table of the account, as the reset's do.
	ctx = policy.System(ctx)
	p, err := thePlan()
	if err != nil {
		return Contents{}, fmt.Errorf("count test data: %w", err)
	}
	acct, err := tenancy.Account(ctx, c, orgID, policy.Test)
	if err != nil {
		return Contents{}, err
	}
	// A transaction only because a step counts through one; it writes nothing.
	tx, err := c.Tx(ctx)
	if err != nil {
		return Contents{}, err
	}
	defer func() { _ = tx.Rollback() }()
	out := Contents{Tables: map[string]int{}}
	for _, s := range p {
		n, err := s.count(ctx, tx, acct.ID)
		if err != nil {
			return Contents{}, fmt.Errorf("count test data: %w", err)
		}
		if n > 0 {
			out.Tables[s.table] = n
			out.Total += n
		}
	}
	return out, nil
}
