package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// RecipeStep is a step of a recipe's routing: an operation, in order, on a
// piece of equipment or none. It is internal (version 1 serves no bill of
// materials): the web application writes it (`larder product import`) and a
// new run copies it. An operation or equipment a step names is in use.
type RecipeStep struct{ ent.Schema }

// Mixin makes the step belong to its recipe's account.
func (RecipeStep) Mixin() []ent.Mixin { return []ent.Mixin{AccountMixin{}} }

// Fields of a routing step.
func (RecipeStep) Fields() []ent.Field {
	return []ent.Field{
		field.Int("product_id").
			Immutable().
			Comment("The recipe."),
		field.Int("position").
			Immutable().
			Comment("Order of the step within the recipe, from 1."),
		field.Int("operation_id").
			Immutable().
			Comment("The operation the step performs."),
		field.Int("equipment_id").
			Optional().
			Nillable().
			Immutable().
			Comment("The equipment the step runs on, if any."),
	}
}

// Edges: the recipe (the steps go with it), and the operation and equipment,
// in use while the step exists.
func (RecipeStep) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("product", Product.Type).
			Ref("recipe_steps").
			Field("product_id").
			Unique().
			Required().
			Immutable(),
		edge.To("operation", Operation.Type).
			Field("operation_id").
			Unique().
			Required().
			Immutable().
			Annotations(entsql.OnDelete(entsql.Restrict)),
		edge.To("equipment", Equipment.Type).
			Field("equipment_id").
			Unique().
			Immutable().
			Annotations(entsql.OnDelete(entsql.Restrict)),
	}
}

// Indexes: one step per position of a recipe; the reverse lookups of delete
// checks.
func (RecipeStep) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("account_id", "product_id", "position").Unique(),
		index.Fields("operation_id"),
		index.Fields("equipment_id"),
	}
}
