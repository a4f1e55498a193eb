package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/mixin"

	"larder.dev/larder/policy"
)

// SystemOnlyMixin makes a schema internal (organizations, accounts, keys,
// events, counters): only the system viewer reads or writes it.
type SystemOnlyMixin struct{ mixin.Schema }

// Policy is policy.SystemOnly.
func (SystemOnlyMixin) Policy() ent.Policy { return policy.SystemOnly() }

// Annotations name the policy's rules for the access report.
func (m SystemOnlyMixin) Annotations() []schema.Annotation {
	return []schema.Annotation{policy.DescribePolicy(m.Policy())}
}
