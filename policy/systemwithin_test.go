package policy_test

import (
	"context"
	"testing"

	"larder.dev/larder/ent/event"
	"larder.dev/larder/ent/tag"
	"larder.dev/larder/ent/unitofmeasure"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

// The system viewer narrowed to one account (SystemWithin) reads that
// account's rows of a tenant table and the shared rows of a shared one, not
// another account's; it reads the system-only tables of every account, as
// the system viewer does. SystemWithin leaves a tenant's viewer as it is.
func TestSystemWithin(t *testing.T) {
	t.Parallel()
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		tn := newTenants(t, st)
		c := st.Client
		mine := tn.tag(t, tn.a, "A's")
		theirs := tn.tag(t, tn.b, "B's")
		sys := policy.System(context.Background())
		within := policy.SystemWithin(sys, tn.aID)

		if v := policy.FromContext(within); !v.IsSystem() || v.AccountID != tn.aID {
			t.Fatalf("SystemWithin's viewer: system %v, account %d; want the system viewer of account %d", v.IsSystem(), v.AccountID, tn.aID)
		}
		ids := c.Tag.Query().Where(tag.IDIn(mine.ID, theirs.ID)).IDsX(within)
		if len(ids) != 1 || ids[0] != mine.ID {
			t.Errorf("tags read within account %d: %v, want [%d]", tn.aID, ids, mine.ID)
		}
		if n := c.Tag.Query().Where(tag.IDIn(mine.ID, theirs.ID)).CountX(sys); n != 2 {
			t.Errorf("the system viewer read %d of the two accounts' tags", n)
		}
		if n := c.UnitOfMeasure.Query().Where(unitofmeasure.ID(tn.sharedUnit)).CountX(within); n != 1 {
			t.Errorf("the shared unit read within an account: %d rows, want 1", n)
		}
		// Events are system-only: both accounts' are read, as by the system viewer.
		all := c.Event.Query().Where(event.AccountIDIn(tn.aID, tn.bID)).CountX(sys)
		if n := c.Event.Query().Where(event.AccountIDIn(tn.aID, tn.bID)).CountX(within); n != all || all == 0 {
			t.Errorf("events read within an account: %d, by the system viewer: %d (want the same, not 0)", n, all)
		}
		if got := policy.SystemWithin(tn.a, tn.bID); got != tn.a {
			t.Error("SystemWithin changed a tenant's viewer")
		}
		if got := policy.SystemWithin(sys, 0); got != sys {
			t.Error("SystemWithin of account 0 changed the system viewer")
		}
	})
}
