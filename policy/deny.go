package policy

import (
	"context"

	"entgo.io/ent"

	"larder.dev/larder/ent/privacy"
)

// DenyAll is the last rule of every policy: what no rule allowed is refused.
func DenyAll() Rule {
	r := privacy.AlwaysDenyRule()
	return Rule{Name: "deny", Does: "What no rule before allowed is refused.", query: r, mutation: r}
}

// DenyChanges makes a schema append-only: rows are created, never updated
// or deleted, except by the system viewer (stock movements, corrections).
func DenyChanges() Rule {
	return Rule{Name: "append-only", Does: "Rows are created, never updated or deleted (by anyone but the system viewer).",
		mutation: privacy.MutationRuleFunc(func(_ context.Context, m ent.Mutation) error {
			if m.Op().Is(ent.OpCreate) {
				return privacy.Skip
			}
			return privacy.Denyf("%s rows are never changed or removed", m.Type())
		})}
}
