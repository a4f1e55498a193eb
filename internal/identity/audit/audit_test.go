package audit_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/auditrecord"
	"larder.dev/larder/ent/migrate"
	"larder.dev/larder/internal/identity/audit"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

// Actions names every action the schema records, so a filter offers them all.
func TestActionsAreTheSchemas(t *testing.T) {
	var enum []string
	for _, col := range migrate.AuditRecordsColumns {
		if col.Name == "action" {
			enum = col.Enums
		}
	}
	if len(enum) == 0 || !slices.Equal(audit.Actions(), enum) {
		t.Errorf("Actions() = %v\nschema     %v", audit.Actions(), enum)
	}
}

// record writes n records of action as actor for org, one after the other.
func record(t *testing.T, st *store.Store, orgID int, action string, actor string, n int) {
	t.Helper()
	ctx := audit.WithActor(policy.System(context.Background()), actor)
	for i := 0; i < n; i++ {
		err := ent.RunInTx(ctx, st.Client, func(tx *ent.Tx) error {
			return audit.Record(ctx, tx, audit.Entry{
				OrganizationID: orgID, Action: auditrecord.Action(action), At: time.Now(),
				Detail: map[string]any{"n": i},
			})
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// Recent pages newest first, DefaultPageSize (50) at a time unless asked,
// never more than MaxPageSize (200); the filters choose by action and actor;
// another organization's records never appear.
func TestRecentPagesAndFilters(t *testing.T) {
	if audit.DefaultPageSize != 50 || audit.MaxPageSize != 200 {
		t.Fatalf("page sizes %d and %d, want 50 and 200", audit.DefaultPageSize, audit.MaxPageSize)
	}
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		a := dbtest.NewOrg(t, st, "")
		b := dbtest.NewOrg(t, st, "")
		// What tenancy.Create records is there too; count from here.
		before, err := audit.History(ctx, st.Client, a.Org.ID)
		if err != nil {
			t.Fatal(err)
		}
		record(t, st, a.Org.ID, "key_created", "ada@example.com", 3)
		record(t, st, a.Org.ID, "user_invited", "bob@example.com", 2)
		record(t, st, b.Org.ID, "key_created", "ada@example.com", 4)

		page, next, err := audit.Recent(ctx, st.Client, a.Org.ID, audit.Filter{Limit: 2})
		if err != nil {
			t.Fatal(err)
		}
		if len(page) != 2 || page[0].Action != "user_invited" || page[0].ID <= page[1].ID || next != page[1].ID {
			t.Fatalf("first page %+v next %d", page, next)
		}
		var all []audit.Listed
		for cursor := 0; ; {
			p, n, err := audit.Recent(ctx, st.Client, a.Org.ID, audit.Filter{Limit: 2, Before: cursor})
			if err != nil {
				t.Fatal(err)
			}
			all = append(all, p...)
			if n == 0 {
				break
			}
			cursor = n
		}
		if len(all) != len(before)+5 {
			t.Errorf("paged through %d records, want %d", len(all), len(before)+5)
		}
		for i, l := range all {
			if i > 0 && l.ID >= all[i-1].ID {
				t.Errorf("not newest first at %d", i)
			}
		}

		keys, next, err := audit.Recent(ctx, st.Client, a.Org.ID, audit.Filter{Action: "key_created", Actor: "ada@example.com"})
		if err != nil {
			t.Fatal(err)
		}
		if len(keys) != 3 || next != 0 {
			t.Errorf("ada's keys of A: %d records (next %d), want 3 and no next page", len(keys), next)
		}
		for _, l := range keys {
			if l.Action != "key_created" || l.Actor != "ada@example.com" {
				t.Errorf("filtered record %+v", l)
			}
		}
		bobs, _, _ := audit.Recent(ctx, st.Client, a.Org.ID, audit.Filter{Actor: "bob@example.com"})
		if len(bobs) != 2 {
			t.Errorf("bob's records: %d, want 2", len(bobs))
		}
		ofB, _, _ := audit.Recent(ctx, st.Client, b.Org.ID, audit.Filter{Action: "key_created"})
		if len(ofB) != 4 {
			t.Errorf("B's key records: %d, want 4 (none of A's)", len(ofB))
		}
		if _, _, err := audit.Recent(ctx, st.Client, a.Org.ID, audit.Filter{Action: "drop_table"}); !errors.Is(err, audit.ErrUnknownAction) {
			t.Errorf("unknown action: %v", err)
		}
	})
}

// A page never holds more than MaxPageSize records, and Limit 0 is
// DefaultPageSize.
func TestRecentBoundsThePage(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		a := dbtest.NewOrg(t, st, "")
		record(t, st, a.Org.ID, "plan_changed", "ops", audit.MaxPageSize+1)
		p, next, err := audit.Recent(ctx, st.Client, a.Org.ID, audit.Filter{Limit: 10_000})
		if err != nil {
			t.Fatal(err)
		}
		if len(p) != audit.MaxPageSize || next == 0 {
			t.Errorf("asked for 10000: %d records, next %d; want %d and a next page", len(p), next, audit.MaxPageSize)
		}
		p, _, _ = audit.Recent(ctx, st.Client, a.Org.ID, audit.Filter{})
		if len(p) != audit.DefaultPageSize {
			t.Errorf("default page: %d records, want %d", len(p), audit.DefaultPageSize)
		}
		if _, _, err := audit.Recent(ctx, st.Client, 1<<30, audit.Filter{}); err == nil {
			t.Error("an organization that does not exist has a history")
		}
	})
}
