package policy

import (
	"context"

	"entgo.io/ent/entql"

	"larder.dev/larder/ent/privacy"
)

// FilterTenantReads limits every query to the viewer's account and, for shared
// schemas, to the shared rows: another account's row is simply not found.
func FilterTenantReads(shared bool) Rule {
	r := Rule{Name: "tenant filter", Does: "Reads see the viewer's account's rows only; another account's row is not found (404)."}
	if shared {
		r = Rule{Name: "tenant filter + shared rows", Does: "Reads see the viewer's account's rows and the shared rows (is_global), nothing else."}
	}
	r.query = privacy.FilterFunc(func(ctx context.Context, f privacy.Filter) error {
		v := FromContext(ctx)
		if v == nil || v.AccountID == 0 {
			return privacy.Denyf("no account in context")
		}
		p := entql.FieldEQ("account_id", v.AccountID)
		if shared {
			p = entql.Or(p, entql.FieldEQ("is_global", true))
		}
		f.Where(p)
		return privacy.Allow
	})
	return r
}

// FilterTenantWrites limits every update and delete to the viewer's own rows
// and lets the viewer create rows, which the account hook stamps as its own.
func FilterTenantWrites() Rule {
	return Rule{Name: "tenant write filter", Does: "Updates and deletes reach the viewer's account's rows only; creates are stamped with the viewer's account.",
		mutation: privacy.FilterFunc(func(ctx context.Context, f privacy.Filter) error {
			v := FromContext(ctx)
			if v == nil || v.AccountID == 0 {
				return privacy.Denyf("no account in context")
			}
			f.Where(entql.FieldEQ("account_id", v.AccountID))
			return privacy.Allow
		})}
}
