package hooks

import (
	"context"

	"entgo.io/ent"

	gen "larder.dev/larder/ent"
	"larder.dev/larder/ent/hook"
	"larder.dev/larder/ent/unitofmeasure"
	"larder.dev/larder/internal/platform/problem"
)

// UnitCodeUnique refuses an account unit whose code a shared unit already has:
// codes are unique across the account's own and the shared units. The unique
// index covers the account's own units.
func UnitCodeUnique() ent.Hook {
	return hook.On(func(next ent.Mutator) ent.Mutator {
		return hook.UnitOfMeasureFunc(func(ctx context.Context, m *gen.UnitOfMeasureMutation) (ent.Value, error) {
			code, ok := m.Code()
			global, _ := m.IsGlobal()
			if ok && !global {
				taken, err := gen.ClientOf(m).UnitOfMeasure.Query().
					Where(unitofmeasure.Code(code), unitofmeasure.IsGlobal(true)).
					Exist(ctx)
				if err != nil {
					return nil, err
				}
				if taken {
					return nil, problem.Conflict(problem.Duplicate, "code", "code "+code+" is already used by a shared unit of measure")
				}
			}
			return next.Mutate(ctx, m)
		})
	}, ent.OpCreate)
}
