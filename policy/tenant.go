package policy

import (
	"context"

	entsql "entgo.io/ent/dialect/sql"

	"larder.dev/larder/ent"
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
		if shared {
			return known(f, accountOrShared, v.AccountID)
		}
		return known(f, accountRows, v.AccountID)
	})
	return r
}

// accountRows and accountOrShared are the tenant filter's predicates on the
// viewer's account: known predicates (ent.Known), so that a read by id
// carrying no other is answered by a compiled statement (ent's Read).
// account_id is immutable, so accountRows is Stable: an update of one row
// reads the row back with the account too (ent's updateOneStable).
var (
	accountRows     = &ent.Known{Make: func(account any) func(*entsql.Selector) { return entsql.FieldEQ("account_id", account) }, Stable: true}
	accountOrShared = &ent.Known{Make: func(account any) func(*entsql.Selector) {
		return func(s *entsql.Selector) {
			s.Where(entsql.Or(entsql.EQ(s.C("account_id"), account), entsql.EQ(s.C("is_global"), true)))
		}
	}}
)

// knownFilter is a privacy filter that takes known predicates: every
// generated filter (template "compiled", ent.Known).
type knownFilter interface {
	WhereKnown(*ent.Known, any)
}

// known adds k's predicate on v to the query or mutation of f, and allows it.
// The SQL predicate goes in as it is, where the entql form of the same
// condition (entql.FieldEQ) is evaluated against the schema graph on every
// query (three allocations more per GET, and the lookups), and a query
// records it for its compiled statement. A filter without WhereKnown is
// refused.
func known(f privacy.Filter, k *ent.Known, v any) error {
	w, ok := f.(knownFilter)
	if !ok {
		return privacy.Denyf("tenant filter: %T takes no known predicate", f)
	}
	w.WhereKnown(k, v)
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
			return known(f, accountRows, v.AccountID)
		})}
}
