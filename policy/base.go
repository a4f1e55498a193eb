package policy

import (
	"entgo.io/ent"

	"larder.dev/larder/ent/privacy"
)

// Tenant is the policy of a tenant schema: the system viewer, then read-only
// rows, then the tenant filter, then nothing. Shared schemas also show every
// account the shared rows.
func Tenant(shared bool) ent.Policy {
	return privacy.Policy{
		Query: privacy.QueryPolicy{
			AllowSystem(),
			FilterTenantReads(shared),
			DenyAll(),
		},
		Mutation: privacy.MutationPolicy{
			AllowSystem(),
			DenyLockedRows(),
			FilterTenantWrites(),
			DenyAll(),
		},
	}
}

// SystemOnly is the policy of internal schemas (organizations, accounts, keys,
// events, counters): only the system viewer reads or writes them.
func SystemOnly() ent.Policy {
	return privacy.Policy{
		Query:    privacy.QueryPolicy{AllowSystem(), DenyAll()},
		Mutation: privacy.MutationPolicy{AllowSystem(), DenyAll()},
	}
}
