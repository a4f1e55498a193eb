package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// ProductionConsumedStep is a step entry of a run: a component lot the run consumed.
type ProductionConsumedStep struct{ ent.Schema }

// Mixin makes the step belong to its run's account.
func (ProductionConsumedStep) Mixin() []ent.Mixin { return []ent.Mixin{AccountMixin{}} }

// Fields of a step entry (spec Production run, step entry).
func (ProductionConsumedStep) Fields() []ent.Field {
	return []ent.Field{
		field.Int("production_id").
			Immutable().
			Comment("The run."),
		field.Int("lot_id").
			Optional().
			Nillable().
			Immutable().
			Comment("The lot consumed."),
		field.Int("product_id").
			Immutable().
			Comment("The component product."),
		decimalField("quantity_base", "Quantity, in the component product's base unit."),
	}
}

// Edges: the run, and the product and lot, in use while the step exists.
func (ProductionConsumedStep) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("production", Production.Type).
			Ref("consumed_steps").
			Field("production_id").
			Unique().
			Required().
			Immutable(),
		edge.To("lot", ProductLot.Type).
			Field("lot_id").
			Unique().
			Immutable().
			Annotations(entsql.OnDelete(entsql.Restrict)),
		edge.To("product", Product.Type).
			Field("product_id").
			Unique().
			Required().
			Immutable().
			Annotations(entsql.OnDelete(entsql.Restrict)),
	}
}

// Indexes: a run's steps; the reverse lookups of delete checks.
func (ProductionConsumedStep) Indexes() []ent.Index {
	return []ent.Index{index.Fields("production_id"), index.Fields("product_id"), index.Fields("lot_id")}
}
