package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"

	"larder.dev/larder/internal/generators/annotate"
)

// CustomerType is a kind of customer (retail, wholesale, …): a sales reference list (docs/api-behaviour.md, "Resources"). The API
// reads it; it is written in the web application (and by seeding).
type CustomerType struct{ ent.Schema }

// Mixin makes the rows an account's, with audit timestamps.
func (CustomerType) Mixin() []ent.Mixin { return []ent.Mixin{AccountMixin{}, TimeMixin{}} }

// Fields of a customer type (id, code, name, description, active).
func (CustomerType) Fields() []ent.Field {
	return []ent.Field{
		field.Bool("active").
			Default(true).
			Comment("Whether the customer type is in use."),
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
func (CustomerType) Indexes() []ent.Index { return append(tenantIndexes("name"), uniqueCode()) }

// Annotations expose the list at /customer-types, read-only.
func (CustomerType) Annotations() []schema.Annotation {
	return []schema.Annotation{
		annotate.Expose("customer-types", "customer_type_id", annotate.Sales, annotate.ReadOnlyOps...).
			Describe("Customer types. Read-only through the API; they are managed in the web application."),
	}
}
