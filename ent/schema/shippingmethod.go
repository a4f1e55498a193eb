package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"

	"larder.dev/larder/internal/generators/annotate"
)

// ShippingMethod is a way orders are shipped: a sales reference list (docs/api-behaviour.md, "Resources"). The API
// reads it; it is written in the web application (and by seeding).
type ShippingMethod struct{ ent.Schema }

// Mixin makes the rows an account's, with audit timestamps.
func (ShippingMethod) Mixin() []ent.Mixin { return []ent.Mixin{AccountMixin{}, TimeMixin{}} }

// Fields of a shipping method (id, code, name, description, active).
func (ShippingMethod) Fields() []ent.Field {
	return []ent.Field{
		field.Bool("active").
			Default(true).
			Comment("Whether the shipping method is in use."),
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
func (ShippingMethod) Indexes() []ent.Index { return append(tenantIndexes("name"), uniqueCode()) }

// Annotations expose the list at /shipping-methods, read-only.
func (ShippingMethod) Annotations() []schema.Annotation {
	return []schema.Annotation{
		annotate.Expose("shipping-methods", "shipping_method_id", annotate.Sales, annotate.ReadOnlyOps...).
			Describe("Shipping methods. Read-only through the API; they are managed in the web application."),
	}
}
