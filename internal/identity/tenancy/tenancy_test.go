package tenancy_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/event"
	"larder.dev/larder/ent/tag"
	"larder.dev/larder/internal/identity/tenancy"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

// CurrencyOf takes an API caller's currency from its key lookup (no read:
// the viewer's EUR wins over the organization's CAD), and reads the
// organization for a viewer that does not carry it (an app command).
func TestCurrencyOf(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		o := dbtest.NewOrg(t, st, "")
		app := o.Ctx(policy.Test)
		if got, err := tenancy.CurrencyOf(app, st.Client); err != nil || got != "CAD" {
			t.Errorf("app viewer: CurrencyOf = %q, %v; want the organization's CAD", got, err)
		}
		v := *policy.FromContext(app)
		v.Currency = "EUR"
		api := policy.NewContext(app, &v)
		if got, err := tenancy.CurrencyOf(api, st.Client); err != nil || got != "EUR" {
			t.Errorf("viewer with a currency: CurrencyOf = %q, %v; want the viewer's EUR", got, err)
		}
	})
}

// Reader's viewer is the organization's account of the environment with
// the read scopes of every module, cost:read only when asked for and no
// write scope; it reads that account's rows alone. An environment that is
// neither live nor test, or an organization that does not exist, is an
// error.
func TestReader(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		a, b := dbtest.NewOrg(t, st, ""), dbtest.NewOrg(t, st, "")
		for _, o := range []*dbtest.Org{a, b} {
			for _, env := range []policy.Environment{policy.Live, policy.Test} {
				ctx := o.Ctx(env)
				tx, err := st.Client.Tx(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := tx.Tag.Create().SetName(fmt.Sprintf("%d %s", o.Org.ID, env)).SetRefType(tag.RefTypePRODUCT).Save(ctx); err != nil {
					t.Fatal(err)
				}
				if err := tx.Commit(); err != nil {
					t.Fatal(err)
				}
			}
		}
		reads := []string{"catalog:read", "inventory:read", "manufacturing:read", "purchasing:read", "sales:read"}
		for _, tc := range []struct {
			env    policy.Environment
			costs  bool
			scopes []string
		}{
			{policy.Live, false, reads},
			{policy.Test, true, append(slices.Clone(reads[:1]), append([]string{"cost:read"}, reads[1:]...)...)},
		} {
			ctx, err := tenancy.Reader(context.Background(), st.Client, a.Org.ID, tc.env, tc.costs)
			if err != nil {
				t.Fatal(err)
			}
			v := policy.FromContext(ctx)
			acct := a.Live.ID
			if tc.env == policy.Test {
				acct = a.Test.ID
			}
			if v.AccountID != acct || v.OrganizationID != a.Org.ID || v.Environment != tc.env || v.Source != policy.SourceApp || v.IsSystem() {
				t.Errorf("%s viewer %+v, want account %d of organization %d", tc.env, v, acct, a.Org.ID)
			}
			if diff := cmp.Diff(tc.scopes, v.ScopeList()); diff != "" {
				t.Errorf("%s scopes (-want +got):\n%s", tc.env, diff)
			}
			tags, err := st.Client.Tag.Query().All(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, x := range tags {
				names = append(names, x.Name)
			}
			if want := []string{fmt.Sprintf("%d %s", a.Org.ID, tc.env)}; !cmp.Equal(want, names) {
				t.Errorf("%s reads tags %v, want %v", tc.env, names, want)
			}
		}
		if _, err := tenancy.Reader(context.Background(), st.Client, a.Org.ID, "prod", false); err == nil {
			t.Error("an environment prod gives a viewer")
		}
		if _, err := tenancy.Reader(context.Background(), st.Client, 1<<30, policy.Live, false); err == nil {
			t.Error("an organization that does not exist gives a viewer")
		}
	})
}

// Actor's viewer acts in the organization's account of the environment as
// the person: every scope, its rows alone, and the events of its changes
// name the person.
func TestActor(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		a, b := dbtest.NewOrg(t, st, ""), dbtest.NewOrg(t, st, "")
		bctx := b.Ctx(policy.Test)
		if err := ent.RunInTx(bctx, st.Client, func(tx *ent.Tx) error {
			return tx.Tag.Create().SetName("theirs").SetRefType(tag.RefTypePRODUCT).Exec(bctx)
		}); err != nil {
			t.Fatal(err)
		}
		ctx, err := tenancy.Actor(context.Background(), st.Client, a.Org.ID, policy.Test, 77)
		if err != nil {
			t.Fatal(err)
		}
		v := policy.FromContext(ctx)
		if v.AccountID != a.Test.ID || v.OrganizationID != a.Org.ID || v.Environment != policy.Test || v.Source != policy.SourceApp || v.UserID != 77 || v.IsSystem() || !v.Can("catalog:write") {
			t.Fatalf("viewer %+v", v)
		}
		tx, err := st.Client.Tx(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := tx.Tag.Create().SetName("mine").SetRefType(tag.RefTypePRODUCT).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		names := st.Client.Tag.Query().Select(tag.FieldName).StringsX(ctx)
		if !cmp.Equal([]string{"mine"}, names) {
			t.Errorf("the actor reads tags %v", names)
		}
		evs := st.Client.Event.Query().Where(event.AccountID(a.Test.ID), event.Type("tag.created")).AllX(policy.System(context.Background()))
		if len(evs) != 1 || evs[0].UserID == nil || *evs[0].UserID != 77 || evs[0].Source != event.SourceApp {
			t.Errorf("events %+v", evs)
		}
		if _, err := tenancy.Actor(context.Background(), st.Client, a.Org.ID, "prod", 77); err == nil {
			t.Error("an environment prod gives a viewer")
		}
	})
}
