package policy

import "larder.dev/larder/ent/privacy"

// DenyAll is the last rule of every policy: what no rule allowed is refused.
func DenyAll() privacy.QueryMutationRule { return privacy.AlwaysDenyRule() }
