package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"

	"larder.dev/larder/internal/generators/annotate"
)

// PriceList is a list of selling prices in one currency: a sales reference list (docs/api-behaviour.md, "Resources"). The API
// reads it; it is written in the web application (and by seeding).
type PriceList struct{ ent.Schema }

// Mixin makes the rows an account's, with audit timestamps.
func (PriceList) Mixin() []ent.Mixin { return []ent.Mixin{AccountMixin{}, TimeMixin{}} }

// Fields of a price list (id, code, name, description, active, currency).
func (PriceList) Fields() []ent.Field {
	return []ent.Field{
		field.Bool("active").
			Default(true).
			Comment("Whether the price list is in use."),
		field.String("code").
			Comment("Short code, unique within the account.").
			Annotations(annotate.Sortable(), annotate.Searchable()),
		field.String("currency").
			Default("CAD").
			Comment("ISO 4217 code of the list's prices."),
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
func (PriceList) Indexes() []ent.Index { return append(tenantIndexes("name"), uniqueCode()) }

// Annotations expose the list at /price-lists, read-only.
func (PriceList) Annotations() []schema.Annotation {
	return []schema.Annotation{
		annotate.Expose("price-lists", "price_list_id", annotate.Sales, annotate.ReadOnlyOps...).
			Describe("Price lists. Read-only through the API; they are managed in the web application."),
	}
}
