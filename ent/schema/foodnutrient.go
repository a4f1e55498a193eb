package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"larder.dev/larder/internal/generators/annotate"
)

// FoodNutrient is the value of one nutrient in a food.
type FoodNutrient struct{ ent.Schema }

// Mixin makes a value belong to its food's account, or be shared with it.
func (FoodNutrient) Mixin() []ent.Mixin { return []ent.Mixin{AccountMixin{Shared: true}} }

// Annotations: on a distributed PostgreSQL the table is a reference table
// (docs/scaling.md).
func (FoodNutrient) Annotations() []schema.Annotation {
	return []schema.Annotation{annotate.Place(annotate.Reference)}
}

// Fields of a nutrient value.
func (FoodNutrient) Fields() []ent.Field {
	return []ent.Field{
		field.Int("food_id").
			Immutable().
			Comment("The food."),
		field.Int("nutrient_id").
			Immutable().
			Comment("The nutrient.").
			Annotations(annotate.Borrow("label", "name", "uom")),
		field.Float("value").
			Optional().
			Nillable().
			Comment("Amount per 100 g, in the nutrient's unit."),
	}
}

// Edges of a nutrient value.
func (FoodNutrient) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("food", Food.Type).
			Ref("nutrients").
			Field("food_id").
			Unique().
			Required().
			Immutable(),
		edge.To("nutrient", Nutrient.Type).
			Field("nutrient_id").
			Unique().
			Required().
			Immutable().
			Annotations(entsql.OnDelete(entsql.Restrict)),
	}
}

// Indexes: one value per nutrient and food.
func (FoodNutrient) Indexes() []ent.Index {
	return []ent.Index{index.Fields("food_id", "nutrient_id").Unique()}
}
