package policy

import (
	"context"

	"entgo.io/ent/entql"

	"larder.dev/larder/ent/privacy"
)

// FilterTenantReads limits every query to the viewer's account and, for shared
// schemas, to the shared rows: another account's row is simply not found.
func FilterTenantReads(shared bool) privacy.QueryRule {
	return privacy.FilterFunc(func(ctx context.Context, f privacy.Filter) error {
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
}

// FilterTenantWrites limits every update and delete to the viewer's own rows
// and lets the viewer create rows, which the account hook stamps as its own.
func FilterTenantWrites() privacy.MutationRule {
	return privacy.FilterFunc(func(ctx context.Context, f privacy.Filter) error {
		v := FromContext(ctx)
		if v == nil || v.AccountID == 0 {
			return privacy.Denyf("no account in context")
		}
		f.Where(entql.FieldEQ("account_id", v.AccountID))
		return privacy.Allow
	})
}
