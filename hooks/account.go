// Package hooks holds the ent hooks the schemas and the client compose: the
// account stamp, the reference check, the transactional outbox and per-entity
// invariants.
package hooks

import (
	"context"

	"entgo.io/ent"

	gen "larder.dev/larder/ent"
	"larder.dev/larder/ent/hook"
	"larder.dev/larder/policy"
)

// StampAccount sets account_id on every create from the viewer, so no body and
// no handler ever chooses the owner. The system viewer sets it explicitly.
func StampAccount() ent.Hook {
	return hook.On(func(next ent.Mutator) ent.Mutator {
		return ent.MutateFunc(func(ctx context.Context, m ent.Mutation) (ent.Value, error) {
			if v := policy.FromContext(ctx); v != nil && !v.IsSystem() && v.AccountID != 0 {
				if err := m.SetField("account_id", v.AccountID); err != nil {
					return nil, err
				}
			}
			return next.Mutate(ctx, m)
		})
	}, ent.OpCreate)
}

// CheckReferences refuses a foreign key that names a row the caller cannot see
// (missing, or another account's) with a 400 naming the field.
func CheckReferences() ent.Hook {
	return hook.On(func(next ent.Mutator) ent.Mutator {
		return ent.MutateFunc(func(ctx context.Context, m ent.Mutation) (ent.Value, error) {
			if !policy.FromContext(ctx).IsSystem() {
				if err := gen.CheckReferences(ctx, m); err != nil {
					return nil, err
				}
			}
			return next.Mutate(ctx, m)
		})
	}, ent.OpCreate|ent.OpUpdate|ent.OpUpdateOne)
}
