package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"larder.dev/larder/internal/generators/annotate"
)

// Allergen is a substance a product can declare. The priority food allergens
// of Canada are shared; an account adds its own.
type Allergen struct{ ent.Schema }

// Mixin makes allergens an account's or shared, with audit timestamps.
func (Allergen) Mixin() []ent.Mixin {
	return []ent.Mixin{AccountMixin{Shared: true}, TimeMixin{}}
}

// Fields of an allergen.
func (Allergen) Fields() []ent.Field {
	return []ent.Field{
		field.String("code").
			Optional().
			Nillable().
			Comment("Short code, unique within the account.").
			Annotations(annotate.MaxLen(40), annotate.Filterable(), annotate.Sortable(), annotate.Searchable()),
		field.String("description").
			Optional().
			Nillable().
			Comment("Free-text description.").
			Annotations(annotate.MaxLen(500), annotate.PartialFilter()),
		field.Bool("is_major_allergen").
			Default(false).
			Comment("A priority (major) food allergen.").
			Annotations(annotate.Filterable(), annotate.Sortable()),
		field.String("name").
			Comment("English name, unique within the account.").
			Annotations(annotate.Len(1, 100), annotate.PartialFilter(), annotate.Sortable(), annotate.Searchable()),
		field.String("name_fr").
			Comment("French name.").
			Annotations(annotate.Len(1, 100), annotate.Sortable(), annotate.Searchable()),
		field.String("regulatory_reference").
			Optional().
			Nillable().
			Comment("The regulation that lists the allergen.").
			Annotations(annotate.MaxLen(50), annotate.Filterable()),
	}
}

// Indexes back filters and sorts; name and code are unique per account.
func (Allergen) Indexes() []ent.Index {
	return append(tenantIndexes("name_fr", "is_major_allergen", "description", "regulatory_reference"),
		index.Fields("account_id", "name").Unique(),
		uniqueCode(),
		uniqueSharedCode(),
	)
}

// Annotations expose allergens at /allergens; on a distributed PostgreSQL the
// table is a reference table (docs/scaling.md).
func (Allergen) Annotations() []schema.Annotation {
	return []schema.Annotation{
		annotate.Expose("allergens", "allergen_id", annotate.Catalog, annotate.CRUD...).
			Emits("created", "updated", "deleted").
			SearchNotCombinable().
			Describe("Allergens: the account's own plus the shared priority allergens."),
		annotate.Place(annotate.Reference),
	}
}
