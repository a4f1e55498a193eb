package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"larder.dev/larder/internal/generators/annotate"
)

// Nutrient is a nutrient foods report values of (energy, fat, sodium), shared
// by every account.
type Nutrient struct{ ent.Schema }

// Mixin makes nutrients shared reference rows.
func (Nutrient) Mixin() []ent.Mixin { return []ent.Mixin{AccountMixin{Shared: true}, TimeMixin{}} }

// Fields of a nutrient.
func (Nutrient) Fields() []ent.Field {
	return []ent.Field{
		field.String("key").
			Comment("Stable internal key (INFOODS tagname).").
			Annotations(annotate.Hidden()),
		field.Bool("is_major_nutrient").
			Default(false).
			Comment("One of the core nutrients of the Canadian Nutrition Facts table."),
		field.String("label").
			Optional().
			Nillable().
			Comment("The wording on the Nutrition Facts table.").
			Annotations(annotate.Searchable()),
		field.String("name").
			Optional().
			Nillable().
			Comment("Food-composition name.").
			Annotations(annotate.Searchable()),
		field.String("uom").
			Optional().
			Nillable().
			Comment("Unit values are given in (kcal, g, mg, µg).").
			Annotations(annotate.SearchableExactly()),
	}
}

// Indexes order the list by name; keys are unique.
func (Nutrient) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("account_id", "name"),
		index.Fields("account_id", "key").Unique(),
		index.Fields("key").Unique().Annotations(sharedOnly()),
	}
}

// Annotations expose nutrients at /nutrients, unpaginated; on a distributed
// PostgreSQL the table is a reference table (docs/scaling.md).
func (Nutrient) Annotations() []schema.Annotation {
	return []schema.Annotation{
		annotate.Expose("nutrients", "nutrient_id", annotate.Catalog, annotate.ReadOnlyOps...).
			All("name").
			Describe("Nutrients foods report values of, shared by every account. The list is not paginated: every row, by name."),
		annotate.Place(annotate.Reference),
	}
}
