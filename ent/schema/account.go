package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"larder.dev/larder/internal/generators/annotate"
)

// Account is one environment (live or test) of an organization: the tenant that
// owns every business row.
type Account struct{ ent.Schema }

// Mixin adds timestamps and makes it system-only.
func (Account) Mixin() []ent.Mixin { return []ent.Mixin{TimeMixin{}, SystemOnlyMixin{}} }

// Fields of an account.
func (Account) Fields() []ent.Field {
	return []ent.Field{
		field.Int("organization_id").
			Immutable().
			Comment("The organization the account belongs to."),
		field.Enum("environment").
			Values("live", "test").
			Immutable().
			Comment("Live (real data) or test (seeded data)."),
	}
}

// Edges of an account.
func (Account) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("organization", Organization.Type).
			Ref("accounts").
			Field("organization_id").
			Unique().
			Required().
			Immutable(),
	}
}

// Indexes: one account per organization and environment.
func (Account) Indexes() []ent.Index {
	return []ent.Index{index.Fields("organization_id", "environment").Unique()}
}

// Annotations keep the account out of the API; on a distributed PostgreSQL
// the table is a reference table (docs/scaling.md).
func (Account) Annotations() []schema.Annotation {
	return []schema.Annotation{annotate.Internal(), annotate.Place(annotate.Reference)}
}
