// Package testaccount resets an organization's test account to the dataset
// it was seeded with (seed.TestAccount), for developers who want their
// integration tests to start again from known data. It is a web-application
// action, never an API operation. (It is not in package tenancy because the
// seed imports tenancy, and a package named testdata is one the go tool
// ignores.)
package testaccount

import (
	"context"
	"fmt"
	"time"

	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/account"
	"larder.dev/larder/internal/identity/audit"
	"larder.dev/larder/internal/identity/tenancy"
	"larder.dev/larder/internal/seed"
	"larder.dev/larder/policy"
)

// Reset is what ResetTest did: the rows of the test account it deleted and
// the seeded rows it created, in all and per table (tables with neither are
// left out).
type Reset struct {
	OrganizationID int
	AccountID      int
	Deleted        int
	Created        int
	Tables         map[string]Count
}

// Count is the rows of one table that a reset deleted and created.
type Count struct {
	Deleted int `json:"deleted"`
	Created int `json:"created"`
}

// ResetTest replaces the business data of organization orgID's test account
// with a fresh seed, as `larder org create` seeds it, in one transaction that
// also records the reset (audit.TestDataReset, with the counts) for the
// actor of ctx. It deletes every row of every table that belongs to the
// account, in an order derived from the schema's foreign keys, document
// counters included (so numbering restarts as in a new account), and the
// account's idempotency keys (their stored answers name rows that are gone).
// It clears the account's webhook event log too, and with it the deliveries
// and attempts of those events: the events describe records that no longer
// exist, and a delivery cannot outlive its event. It keeps the API keys, the
// webhook endpoints, people, audit records, the live account and the
// organization.
//
// An API read with a test key sees the data wholly before or wholly after
// the reset, which commits at once: all the statements of the read (a list,
// then the lists of its records) run in one snapshot (store.Snapshot). The
// API's writes to the test account fall wholly before or after it too
// (lockAccount).
//
// Another organization's id, or one that does not exist, is "organization N
// does not exist".
func ResetTest(ctx context.Context, c *ent.Client, orgID int) (Reset, error) {
	return ResetTestAt(ctx, c, orgID, time.Now())
}

// ResetTestAt is ResetTest as of now: the fresh seed is dated from now's day
// (seed.TestAccountAt), and the reset is recorded at now.
func ResetTestAt(ctx context.Context, c *ent.Client, orgID int, now time.Time) (Reset, error) {
	// System viewer: a reset deletes and seeds every table of the account, and records the reset in the system-only audit history.
	ctx = policy.System(ctx)
	p, err := thePlan()
	if err != nil {
		return Reset{}, fmt.Errorf("reset test data: %w", err)
	}
	var out Reset
	err = ent.RunInTx(ctx, c, func(tx *ent.Tx) error {
		out = Reset{OrganizationID: orgID, Tables: map[string]Count{}} // counted afresh if the transaction runs again
		// Writing the organization's row first locks it: concurrent resets
		// of one organization run one after the other, each deleting what
		// the last one seeded.
		err := tx.Organization.UpdateOneID(orgID).Exec(ctx)
		if ent.IsNotFound(err) {
			return fmt.Errorf("organization %d does not exist", orgID)
		}
		if err != nil {
			return err
		}
		o := tenancy.Organization{}
		if o.Org, err = tx.Organization.Get(ctx, orgID); err != nil {
			return err
		}
		if o.Live, err = tx.Account.Query().Where(account.OrganizationID(orgID), account.EnvironmentEQ(account.EnvironmentLive)).Only(ctx); err != nil {
			return err
		}
		// Locked, on PostgreSQL, before anything is deleted: see lockAccount.
		if o.Test, err = tx.Account.Query().Where(account.OrganizationID(orgID), account.EnvironmentEQ(account.EnvironmentTest)).
			Modify(lockAccount).Only(ctx); err != nil {
			return err
		}
		out.AccountID = o.Test.ID
		for _, s := range p {
			// Counted before the DELETE, which does not count the rows its
			// own cascade removes (the areas of a warehouse).
			n, err := s.count(ctx, tx, o.Test.ID)
			if err != nil {
				return err
			}
			if err := s.delete(ctx, tx, o.Test.ID); err != nil {
				return err
			}
			if n > 0 {
				out.Tables[s.table] = Count{Deleted: n}
				out.Deleted += n
			}
		}
		if err := seed.TestAccountAt(now)(ctx, tx, &o); err != nil {
			return err
		}
		for _, s := range p {
			n, err := s.count(ctx, tx, o.Test.ID)
			if err != nil {
				return err
			}
			if n > 0 {
				cnt := out.Tables[s.table]
				cnt.Created = n
				out.Tables[s.table] = cnt
				out.Created += n
			}
		}
		return audit.Record(ctx, tx, audit.Entry{
			OrganizationID: orgID, Action: audit.TestDataReset, At: now,
			Detail: map[string]any{"account_id": o.Test.ID, "deleted": out.Deleted, "created": out.Created, "tables": out.Tables},
		})
	})
	if err != nil {
		return Reset{}, fmt.Errorf("reset test data: %w", err)
	}
	return out, nil
}

// lockAccount locks the test account's row FOR UPDATE on PostgreSQL, so that
// the API's writes to the account fall wholly before or wholly after the
// reset. Every row a write adds to the account checks its foreign key to
// accounts, which takes FOR KEY SHARE on the account's row, and that waits
// for FOR UPDATE: a write that added a row before the lock commits before
// the reset deletes anything (the lock waits for it), and one that adds a row
// after it waits until the reset has committed and then lands on the fresh
// seed. Without the lock, such a write (PostgreSQL's READ COMMITTED) could
// commit between the reset's DELETE of its table and the reset's commit and
// survive the reset, as if it came after it, though it committed before. A
// write that only changes rows meets the reset on their row locks instead: it
// goes first, or waits and then finds its row deleted (not found). A write
// that changes a row and then adds one may deadlock with the reset;
// PostgreSQL ends one of the two, and ent.RunInTx runs it again, after the
// other. Reads are not held up: plain SELECTs take no row locks. SQLite needs
// none of it: every transaction takes the database's write lock at BEGIN.
func lockAccount(s *sql.Selector) {
	if s.Dialect() == dialect.Postgres {
		s.ForUpdate()
	}
}

// delete removes the step's rows of the account.
func (s step) delete(ctx context.Context, tx *ent.Tx, acct int) error {
	// Direct SQL: one DELETE per table removes every row of the test account that ResetTest found as the system, without the soft delete and per-row hooks of ent.
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("DELETE FROM %s WHERE id IN (%s)", s.table, s.rows), acct); err != nil {
		return fmt.Errorf("delete %s: %w", s.table, err)
	}
	return nil
}

// count is the number of the step's rows of the account.
func (s step) count(ctx context.Context, tx *ent.Tx, acct int) (int, error) {
	// Direct SQL: one COUNT over any table of the plan, where no single ent query reaches them all, for the test account ResetTest found as the system.
	rows, err := tx.QueryContext(ctx, fmt.Sprintf("SELECT COUNT(*) FROM (%s) AS x", s.rows), acct)
	if err != nil {
		return 0, fmt.Errorf("count %s: %w", s.table, err)
	}
	defer rows.Close()
	var n int
	if !rows.Next() {
		return 0, fmt.Errorf("count %s: no row: %v", s.table, rows.Err())
	}
	if err := rows.Scan(&n); err != nil {
		return 0, fmt.Errorf("count %s: %w", s.table, err)
	}
	return n, rows.Close()
}
