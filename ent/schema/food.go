package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"

	"larder.dev/larder/internal/generators/annotate"
)

// Food is a nutrition source: a material's nutrient values come from its food.
type Food struct{ ent.Schema }

// Mixin makes foods an account's or shared, with audit timestamps.
func (Food) Mixin() []ent.Mixin { return []ent.Mixin{AccountMixin{Shared: true}, TimeMixin{}} }

// Fields of a food.
func (Food) Fields() []ent.Field {
	return []ent.Field{
		field.String("name").
			Optional().
			Nillable().
			Comment("English name.").
			Annotations(annotate.Required(), annotate.Len(1, 200), annotate.Sortable(), annotate.Searchable(), annotate.IgnoreNull()),
		field.String("name_fr").
			Optional().
			Nillable().
			Comment("French name.").
			Annotations(annotate.Required(), annotate.Len(1, 200), annotate.Sortable(), annotate.Searchable(), annotate.IgnoreNull()),
		field.String("source").
			Optional().
			Nillable().
			Comment("Where the nutrient values come from (a food composition table and its entry).").
			Annotations(annotate.MaxLen(200)),
		field.String("suggested_yield_description").
			Optional().
			Nillable().
			Comment("What the suggested yield accounts for.").
			Annotations(annotate.MaxLen(500)),
		field.Float("suggested_yield_pct").
			Optional().
			Nillable().
			Comment("Suggested yield, percent.").
			Annotations(annotate.Range(0, 100)),
	}
}

// Edges of a food: its nutrient values, removed with it.
func (Food) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("nutrients", FoodNutrient.Type).
			Comment("Nutrient values per 100 g; an empty array means none.").
			Annotations(entsql.OnDelete(entsql.Cascade), annotate.Entries("nutrients").SingleOnly()),
	}
}

// Indexes back the sorts.
func (Food) Indexes() []ent.Index { return tenantIndexes("name", "name_fr") }

// Annotations expose foods at /foods; on a distributed PostgreSQL the table
// is a reference table (docs/scaling.md).
func (Food) Annotations() []schema.Annotation {
	return []schema.Annotation{
		annotate.Expose("foods", "food_id", annotate.Catalog, annotate.CRUD...).
			Emits("created", "updated", "deleted").
			SearchByID().
			Describe("Foods: nutrition sources of materials, the account's own plus shared ones from a public food composition table."),
		annotate.Place(annotate.Reference),
	}
}
