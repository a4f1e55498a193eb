package testaccount_test

import (
	"context"
	"maps"
	"reflect"
	"testing"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/migrate"
	"larder.dev/larder/ent/tag"
	"larder.dev/larder/internal/modules/testaccount"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

// resettable are the rows of counts that a reset deletes: every table of the
// account but its keys, endpoints and audit records, tables without rows left
// out.
func resettable(all map[string]int) (map[string]int, int) {
	out, total := map[string]int{}, 0
	for table, n := range all {
		switch table {
		case migrate.APIKeysTable.Name, migrate.WebhookEndpointsTable.Name, migrate.AuditRecordsTable.Name:
			continue
		}
		if n > 0 {
			out[table] = n
			total += n
		}
	}
	return out, total
}

// testTag creates a tag in org's test account as the web application does,
// which records its tag.created event.
func testTag(t *testing.T, st *store.Store, org *dbtest.Org, name string) {
	t.Helper()
	ctx := org.Ctx(policy.Test)
	if err := ent.RunInTx(ctx, st.Client, func(tx *ent.Tx) error {
		return tx.Tag.Create().SetName(name).SetRefType(tag.RefTypePRODUCT).Exec(ctx)
	}); err != nil {
		t.Fatal(err)
	}
}

// TestContents counts what a reset would delete: a fresh seed's rows table by
// table (keys aside), one more tag and event after a tag is made, and then the
// reset deletes exactly what was counted. Another organization's counts do
// not move, both ways.
func TestTestContents(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		a := dbtest.NewSeededOrg(t, st)
		b := dbtest.NewSeededOrg(t, st)
		a.Key(t, policy.Test, "all") // kept by a reset, so not counted
		contents := func(org *dbtest.Org) testaccount.Contents {
			t.Helper()
			c, err := testaccount.TestContents(ctx, st.Client, org.Org.ID)
			if err != nil {
				t.Fatal(err)
			}
			return c
		}
		seeded, seededTotal := resettable(counts(t, st, a.Test.ID))
		got := contents(a)
		if !reflect.DeepEqual(got.Tables, seeded) || got.Total != seededTotal || got.Total < 100 {
			t.Fatalf("fresh seed: %d rows %v\nwant %d rows %v", got.Total, got.Tables, seededTotal, seeded)
		}
		if bGot := contents(b); !reflect.DeepEqual(bGot, got) {
			t.Fatalf("two fresh seeds count differently: %v and %v", bGot, got)
		}

		testTag(t, st, a, "Marker")
		want := maps.Clone(seeded)
		want[migrate.TagsTable.Name]++
		want[migrate.EventsTable.Name]++
		aGot := contents(a)
		if !reflect.DeepEqual(aGot.Tables, want) || aGot.Total != seededTotal+2 {
			t.Fatalf("after a tag: %d rows %v\nwant %v", aGot.Total, aGot.Tables, want)
		}
		if bGot := contents(b); !reflect.DeepEqual(bGot, got) {
			t.Errorf("a tag of organization %d changed the counts of %d: %v", a.Org.ID, b.Org.ID, bGot)
		}
		testTag(t, st, b, "B marker")
		if again := contents(a); !reflect.DeepEqual(again, aGot) {
			t.Errorf("a tag of organization %d changed the counts of %d: %v", b.Org.ID, a.Org.ID, again)
		}

		r, err := testaccount.ResetTest(ctx, st.Client, a.Org.ID)
		if err != nil {
			t.Fatal(err)
		}
		deleted := map[string]int{}
		for table, c := range r.Tables {
			if c.Deleted > 0 {
				deleted[table] = c.Deleted
			}
		}
		if !reflect.DeepEqual(deleted, aGot.Tables) || r.Deleted != aGot.Total {
			t.Errorf("the reset deleted %d rows %v, counted %d rows %v", r.Deleted, deleted, aGot.Total, aGot.Tables)
		}
		if after := contents(a); !reflect.DeepEqual(after, got) {
			t.Errorf("after the reset: %v, want a fresh seed's %v", after, got)
		}

		if _, err := testaccount.TestContents(ctx, st.Client, 999999999); err == nil || err.Error() != "organization 999999999 does not exist" {
			t.Errorf("counts of no organization: %v", err)
		}
	})
}
