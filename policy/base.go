package policy

import (
	"entgo.io/ent"

	"larder.dev/larder/ent/privacy"
)

// Rules are a schema's own rules, placed in its tenant policy between the
// system viewer and the tenant filter.
type Rules struct {
	Query    []privacy.QueryRule
	Mutation []privacy.MutationRule
}

// Tenant is the policy of a tenant schema: the system viewer, then the
// schema's own rules, then read-only rows, then the tenant filter, then
// nothing. Shared schemas also show every account the shared rows. The
// system viewer narrowed to one account (SystemWithin) reads with the tenant
// filter's predicate on it.
func Tenant(shared bool, own Rules) ent.Policy {
	within := accountRows
	if shared {
		within = accountOrShared
	}
	q := privacy.QueryPolicy{allowSystem(within)}
	q = append(q, own.Query...)
	q = append(q, FilterTenantReads(shared), DenyAll())
	m := privacy.MutationPolicy{AllowSystem()}
	m = append(m, own.Mutation...)
	m = append(m, DenyLockedRows(), FilterTenantWrites(), DenyAll())
	return privacy.Policy{Query: q, Mutation: m}
}

// SystemOnly is the policy of internal schemas (organizations, accounts, keys,
// events, counters): only the system viewer reads or writes them.
func SystemOnly() ent.Policy {
	return privacy.Policy{
		Query:    privacy.QueryPolicy{AllowSystem(), DenyAll()},
		Mutation: privacy.MutationPolicy{AllowSystem(), DenyAll()},
	}
}
