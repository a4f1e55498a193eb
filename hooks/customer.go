package hooks

import (
	"context"
	"strings"

	"entgo.io/ent"

	gen "larder.dev/larder/ent"
	"larder.dev/larder/ent/hook"
	"larder.dev/larder/internal/platform/problem"
)

// NormalizeCustomerCode stores a customer's code trimmed and upper-cased
// (spec Customer), so uniqueness holds on what is stored: " ab-1 " and "AB-1"
// are the same code. A code of only spaces is refused.
func NormalizeCustomerCode() ent.Hook {
	return hook.On(func(next ent.Mutator) ent.Mutator {
		return hook.CustomerFunc(func(ctx context.Context, m *gen.CustomerMutation) (ent.Value, error) {
			if v, ok := m.CustomerCode(); ok {
				code := strings.ToUpper(strings.TrimSpace(v))
				if code == "" {
					return nil, problem.Invalid("customer_code", "must not be empty or only spaces")
				}
				m.SetCustomerCode(code)
			}
			return next.Mutate(ctx, m)
		})
	}, ent.OpCreate|ent.OpUpdate|ent.OpUpdateOne)
}
