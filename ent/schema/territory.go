package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"

	"larder.dev/larder/internal/generators/annotate"
)

// Territory is a sales territory: a sales reference list (docs/api-behaviour.md, "Resources"). The API
// reads it; it is written in the web application (and by seeding).
type Territory struct{ ent.Schema }

// Mixin makes the rows an account's, with audit timestamps.
func (Territory) Mixin() []ent.Mixin { return []ent.Mixin{AccountMixin{}, TimeMixin{}} }

// Fields of a territory (id, code, name, description, active).
func (Territory) Fields() []ent.Field {
	return []ent.Field{
		field.Bool("active").
			Default(true).
			Comment("Whether the territory is in use."),
		field.String("code").
			Comment("Short code, unique within the account.").
			Annotations(annotate.Sortable(), annotate.Searchable()),
		field.String("description").
			Optional().
			Nillable().
			Comment("Free-text description."),
		field.String("name").
			Comment("Display name.").
			Annotations(annotate.Sortable(), annotate.Searchable()),
	}
}

// Indexes back the sorts; codes are unique per account.
func (Territory) Indexes() []ent.Index { return append(tenantIndexes("name"), uniqueCode()) }

// Annotations expose the list at /territories, read-only.
func (Territory) Annotations() []schema.Annotation {
	return []schema.Annotation{
		annotate.Expose("territories", "territory_id", annotate.Sales, annotate.ReadOnlyOps...).
			Describe("Sales territories. Read-only through the API; they are managed in the web application."),
	}
}
