package policy

import (
	"context"

	"entgo.io/ent"

	"larder.dev/larder/ent/privacy"
)

// DenyAll is the last rule of every policy: what no rule allowed is refused.
func DenyAll() privacy.QueryMutationRule { return privacy.AlwaysDenyRule() }

// DenyChanges makes a schema append-only: rows are created, never updated
// or deleted, except by the system viewer (stock movements, corrections).
func DenyChanges() privacy.MutationRule {
	return privacy.MutationRuleFunc(func(_ context.Context, m ent.Mutation) error {
		if m.Op().Is(ent.OpCreate) {
			return privacy.Skip
		}
		return privacy.Denyf("%s rows are never changed or removed", m.Type())
	})
}
