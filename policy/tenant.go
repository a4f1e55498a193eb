package policy

import (
	"context"

	entsql "entgo.io/ent/dialect/sql"

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
		account := v.AccountID
		if shared {
			return where(f, func(s *entsql.Selector) {
				s.Where(entsql.Or(entsql.EQ(s.C("account_id"), account), entsql.EQ(s.C("is_global"), true)))
			})
		}
		return where(f, entsql.FieldEQ("account_id", account))
	})
	return r
}

// sqlFilter is a privacy filter that takes SQL predicates.
type sqlFilter interface {
	WhereP(...func(*entsql.Selector))
}

// where adds p to the query or mutation of f, and allows it. The SQL
// predicate goes in as it is, where the entql form of the same condition
// (entql.FieldEQ) is evaluated against the schema graph on every query
// (three allocations more per GET, and the lookups). Every generated filter
// has WhereP (template "larder"); a filter without it is refused.
func where(f privacy.Filter, p func(*entsql.Selector)) error {
	w, ok := f.(sqlFilter)
	if !ok {
		return privacy.Denyf("tenant filter: %T takes no SQL predicate", f)
	}
	w.WhereP(p)
	return privacy.Allow
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
			return where(f, entsql.FieldEQ("account_id", v.AccountID))
		})}
}
