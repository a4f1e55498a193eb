package policy_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/shopspring/decimal"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/event"
	"larder.dev/larder/ent/operation"
	"larder.dev/larder/ent/privacy"
	"larder.dev/larder/ent/tag"
	"larder.dev/larder/ent/unitofmeasure"
	"larder.dev/larder/hooks"
	"larder.dev/larder/internal/platform/problem"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

// tenants is two organizations' live accounts on one store.
type tenants struct {
	st         *store.Store
	a, b       context.Context
	aID, bID   int
	sharedUnit int
}

func newTenants(t *testing.T, st *store.Store) *tenants {
	oa, ob := dbtest.NewOrg(t, st, ""), dbtest.NewOrg(t, st, "")
	kg := st.Client.UnitOfMeasure.Query().Where(unitofmeasure.Code("kg"), unitofmeasure.IsGlobal(true)).OnlyIDX(policy.System(context.Background()))
	return &tenants{st: st, a: oa.Ctx(policy.Live), b: ob.Ctx(policy.Live), aID: oa.Live.ID, bID: ob.Live.ID, sharedUnit: kg}
}

// tx runs f in a transaction of ctx.
func (tn *tenants) tx(ctx context.Context, f func(tx *ent.Tx) error) error {
	return ent.RunInTx(ctx, tn.st.Client, f)
}

func (tn *tenants) tag(t *testing.T, ctx context.Context, name string) *ent.Tag {
	t.Helper()
	var out *ent.Tag
	err := tn.tx(ctx, func(tx *ent.Tx) (err error) {
		out, err = tx.Tag.Create().SetName(name).SetRefType(tag.RefTypePRODUCT).Save(ctx)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// The tenant policy: reads see own rows and shared rows; writes reach own rows
// only; shared rows refuse writes with READ_ONLY_RECORD; no viewer sees nothing.
func TestTenantPolicy(t *testing.T) {
	t.Parallel()
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		tn := newTenants(t, st)
		c := st.Client
		mine := tn.tag(t, tn.a, "A's")
		theirs := tn.tag(t, tn.b, "B's")

		cases := []struct {
			name string
			run  func() error
			want func(error) bool
		}{
			{"own row is read", func() error { _, err := c.Tag.Get(tn.a, mine.ID); return err }, isNil},
			{"another account's row is not found", func() error { _, err := c.Tag.Get(tn.a, theirs.ID); return err }, ent.IsNotFound},
			{"another account's row is not updated", func() error {
				return tn.tx(tn.a, func(tx *ent.Tx) error { return tx.Tag.UpdateOneID(theirs.ID).SetName("x").Exec(tn.a) })
			}, ent.IsNotFound},
			{"another account's row is not deleted", func() error {
				return tn.tx(tn.a, func(tx *ent.Tx) error { return tx.Tag.DeleteOneID(theirs.ID).Exec(tn.a) })
			}, ent.IsNotFound},
			{"a bulk update touches own rows only", func() error {
				return tn.tx(tn.a, func(tx *ent.Tx) error {
					n, err := tx.Tag.Update().Where(tag.RefTypeEQ(tag.RefTypePRODUCT)).SetDescription("bulk").Save(tn.a)
					if err == nil && n != 1 {
						return errors.New("bulk update reached another account")
					}
					return err
				})
			}, isNil},
			{"a shared row is read", func() error { _, err := c.UnitOfMeasure.Get(tn.a, tn.sharedUnit); return err }, isNil},
			{"a shared row refuses updates", func() error {
				return tn.tx(tn.a, func(tx *ent.Tx) error { return tx.UnitOfMeasure.UpdateOneID(tn.sharedUnit).SetName("x").Exec(tn.a) })
			}, code(problem.ReadOnlyRecord)},
			{"a shared row refuses deletes", func() error {
				return tn.tx(tn.a, func(tx *ent.Tx) error { return tx.UnitOfMeasure.DeleteOneID(tn.sharedUnit).Exec(tn.a) })
			}, code(problem.ReadOnlyRecord)},
			{"no viewer reads nothing", func() error { _, err := c.Tag.Query().All(context.Background()); return err }, isDenied},
			{"no viewer writes nothing", func() error {
				ctx := context.Background()
				return tn.tx(ctx, func(tx *ent.Tx) error {
					return tx.Tag.Create().SetName("x").SetRefType(tag.RefTypePRODUCT).SetAccountID(tn.aID).Exec(ctx)
				})
			}, isDenied},
			{"an account viewer reads no internal rows", func() error { _, err := c.APIKey.Query().All(tn.a); return err }, isDenied},
			{"the system viewer reads every account", func() error {
				n := c.Tag.Query().Where(tag.IDIn(mine.ID, theirs.ID)).CountX(policy.System(context.Background()))
				if n != 2 {
					return errors.New("system viewer missed rows")
				}
				return nil
			}, isNil},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				if err := tc.run(); !tc.want(err) {
					t.Fatalf("error %v", err)
				}
			})
		}
		t.Run("the account is stamped from the viewer", func(t *testing.T) {
			var created *ent.Tag
			err := tn.tx(tn.a, func(tx *ent.Tx) (err error) {
				created, err = tx.Tag.Create().SetName("stamped").SetRefType(tag.RefTypeCUSTOMER).SetAccountID(tn.bID).Save(tn.a)
				return err
			})
			if err != nil || created.AccountID != tn.aID {
				t.Fatalf("account %v, err %v; want the viewer's %d", created, err, tn.aID)
			}
		})
		t.Run("references must be visible", func(t *testing.T) {
			var theirUnit *ent.UnitOfMeasure
			err := tn.tx(tn.b, func(tx *ent.Tx) (err error) {
				theirUnit, err = tx.UnitOfMeasure.Create().SetCode("theirs").SetName("Theirs").Save(tn.b)
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			err = tn.tx(tn.a, func(tx *ent.Tx) error {
				return tx.Operation.Create().SetCode("X").SetName("X").SetUnitOfMeasureID(theirUnit.ID).Exec(tn.a)
			})
			if p, ok := problem.As(err); !ok || p.Code != problem.Validation || p.Fields[0].Field != "unit_of_measure_id" {
				t.Fatalf("error %v", err)
			}
			err = tn.tx(tn.a, func(tx *ent.Tx) error {
				return tx.Operation.Create().SetCode("Y").SetName("Y").SetUnitOfMeasureID(tn.sharedUnit).Exec(tn.a)
			})
			if err != nil {
				t.Fatalf("a shared unit must be referable: %v", err)
			}
		})
	})
}

// Cost fields are nil for viewers without cost:read, on loaded edges too.
func TestCostRedactionAtTheEntLevel(t *testing.T) {
	t.Parallel()
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		org := dbtest.NewOrg(t, st, "")
		full := org.Ctx(policy.Live)
		err := ent.RunInTx(full, st.Client, func(tx *ent.Tx) error {
			u := tx.UnitOfMeasure.Create().SetCode("batch").SetName("Batch").SaveX(full)
			return tx.Operation.Create().SetCode("MIX").SetName("Mix").SetCost(decimal.RequireFromString("12.5")).SetUnitOfMeasureID(u.ID).Exec(full)
		})
		if err != nil {
			t.Fatal(err)
		}
		blind := policy.NewContext(context.Background(), &policy.Viewer{AccountID: org.Live.ID, Scopes: policy.Effective([]policy.Scope{policy.Read("manufacturing")})})
		for _, tc := range []struct {
			name string
			ctx  context.Context
			want bool
		}{{"with cost:read", full, true}, {"without cost:read", blind, false}} {
			t.Run(tc.name, func(t *testing.T) {
				op := st.Client.Operation.Query().Where(operation.Code("MIX")).OnlyX(tc.ctx)
				if (op.Cost != nil) != tc.want {
					t.Fatalf("operation cost %v", op.Cost)
				}
				u := st.Client.UnitOfMeasure.Query().Where(unitofmeasure.Code("batch")).WithOperations().OnlyX(tc.ctx)
				if len(u.Edges.Operations) != 1 || (u.Edges.Operations[0].Cost != nil) != tc.want {
					t.Fatalf("nested operation cost %v", u.Edges.Operations)
				}
			})
		}
	})
}

// Events are written in the transaction of their change, together just before
// it commits: a rolled-back write leaves none, a committed one leaves its
// events in the order of the changes, and a write outside a transaction is
// refused.
func TestOutboxIsTransactional(t *testing.T) {
	t.Parallel()
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		org := dbtest.NewOrg(t, st, "")
		ctx := org.Ctx(policy.Live)
		sys := policy.System(context.Background())
		count := func() int { return st.Client.Event.Query().Where(event.AccountID(org.Live.ID)).CountX(sys) }

		boom := errors.New("boom")
		err := ent.RunInTx(ctx, st.Client, func(tx *ent.Tx) error {
			tx.Tag.Create().SetName("rolled back").SetRefType(tag.RefTypePRODUCT).ExecX(ctx)
			if n := tx.Event.Query().Where(event.AccountID(org.Live.ID)).CountX(sys); n != 0 {
				t.Errorf("inside the transaction %d events, want none until it commits", n)
			}
			return boom
		})
		if !errors.Is(err, boom) || count() != 0 {
			t.Fatalf("after rollback: err %v, %d events", err, count())
		}
		if st.Client.Tag.Query().CountX(ctx) != 0 {
			t.Fatal("the tag survived the rollback")
		}

		err = st.Client.Tag.Create().SetName("no tx").SetRefType(tag.RefTypePRODUCT).Exec(ctx)
		if !errors.Is(err, hooks.ErrNoTx) || st.Client.Tag.Query().CountX(ctx) != 0 {
			t.Fatalf("a write outside a transaction: %v", err)
		}

		var ids []int
		err = ent.RunInTx(ctx, st.Client, func(tx *ent.Tx) error {
			for _, name := range []string{"committed", "second", "third"} {
				tg, err := tx.Tag.Create().SetName(name).SetRefType(tag.RefTypePRODUCT).Save(ctx)
				if err != nil {
					return err
				}
				ids = append(ids, tg.ID)
			}
			return tx.Tag.UpdateOneID(ids[0]).SetName("renamed").Exec(ctx)
		})
		if err != nil || count() != 4 {
			t.Fatalf("after commit: err %v, %d events", err, count())
		}
		evs := st.Client.Event.Query().Where(event.AccountID(org.Live.ID)).Order(event.ByID()).AllX(sys)
		var got []string
		for _, e := range evs {
			got = append(got, fmt.Sprintf("%s %d", e.Type, e.ResourceID))
			if e.Source != event.SourceApp || e.APIKeyID != nil || e.RequestID != nil {
				t.Fatalf("an app action's event: %+v", e)
			}
		}
		want := []string{fmt.Sprintf("tag.created %d", ids[0]), fmt.Sprintf("tag.created %d", ids[1]),
			fmt.Sprintf("tag.created %d", ids[2]), fmt.Sprintf("tag.updated %d", ids[0])}
		if !slices.Equal(got, want) {
			t.Fatalf("events %v, want %v (the order of the changes)", got, want)
		}
	})
}

func isNil(err error) bool { return err == nil }

func isDenied(err error) bool { return errors.Is(err, privacy.Deny) }

func code(c problem.Code) func(error) bool {
	return func(err error) bool {
		p, ok := problem.As(err)
		return ok && p.Code == c
	}
}
