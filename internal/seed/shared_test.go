package seed_test

import (
	"context"
	"testing"

	"larder.dev/larder/ent/unitofmeasure"
	"larder.dev/larder/hooks"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/seed"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

// Every shared weight is a decimal the API can serve (6 places at most), and
// Shared corrects a database seeded with an older weight, once (a second run
// changes nothing); a volume given a weight loses it, and a missing shared
// unit comes back.
func TestSharedUnitWeights(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		// System viewer: the test reads and rewrites the shared rows as Shared does.
		ctx := hooks.WithoutEvents(policy.System(context.Background()))
		oz := func() (float64, int64) {
			u, err := st.Client.UnitOfMeasure.Query().Where(unitofmeasure.IsGlobal(true), unitofmeasure.Code("oz")).Only(ctx)
			if err != nil {
				t.Fatal(err)
			}
			return *u.WeightInGrams, u.UpdatedAt.UnixNano()
		}
		if w, _ := oz(); w != 28.349523 {
			t.Fatalf("oz weighs %v g", w)
		}
		if err := st.Client.UnitOfMeasure.Update().Where(unitofmeasure.IsGlobal(true), unitofmeasure.Code("oz")).SetWeightInGrams(28.349523125).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		if err := seed.Shared(context.Background(), st.Client); err != nil {
			t.Fatal(err)
		}
		w, at := oz()
		if w != 28.349523 {
			t.Fatalf("after Shared oz weighs %v g", w)
		}
		if err := seed.Shared(context.Background(), st.Client); err != nil {
			t.Fatal(err)
		}
		if _, again := oz(); again != at {
			t.Fatal("a second Shared changed the unit")
		}

		litre := unitofmeasure.And(unitofmeasure.IsGlobal(true), unitofmeasure.Code("L"))
		if err := st.Client.UnitOfMeasure.Update().Where(litre).SetWeightInGrams(1000).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		dozen := unitofmeasure.And(unitofmeasure.IsGlobal(true), unitofmeasure.Code("dozen"))
		if _, err := st.Client.UnitOfMeasure.Delete().Where(dozen).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		if err := seed.Shared(context.Background(), st.Client); err != nil {
			t.Fatal(err)
		}
		if l, err := st.Client.UnitOfMeasure.Query().Where(litre).Only(ctx); err != nil || l.WeightInGrams != nil {
			t.Fatalf("after Shared the litre is %+v (%v), want no weight", l, err)
		}
		if n, err := st.Client.UnitOfMeasure.Query().Where(dozen).Count(ctx); err != nil || n != 1 {
			t.Fatalf("after Shared %d shared dozens (%v), want 1", n, err)
		}
		for _, u := range seed.Units {
			if u.WeightInGrams != nil && *u.WeightInGrams*1e6 != float64(int64(*u.WeightInGrams*1e6)) {
				t.Errorf("%s weighs %v g: more than 6 decimal places", u.Code, *u.WeightInGrams)
			}
		}
	})
}
