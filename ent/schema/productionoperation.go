package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// ProductionOperation is a step of a run's routing: the operation performed
// and the equipment it ran on, copied from the recipe's steps when the run is
// planned, so that a recall can name the equipment a lot went through. It is
// internal (the spec's run has no such field). An operation or equipment a
// run names is in use.
type ProductionOperation struct{ ent.Schema }

// Mixin makes the step belong to its run's account.
func (ProductionOperation) Mixin() []ent.Mixin { return []ent.Mixin{AccountMixin{}} }

// Fields of a run's routing step.
func (ProductionOperation) Fields() []ent.Field {
	return []ent.Field{
		field.Int("production_id").
			Immutable().
			Comment("The run."),
		field.Int("position").
			Immutable().
			Comment("Order of the step within the run, from 1."),
		field.Int("operation_id").
			Immutable().
			Comment("The operation performed."),
		field.Int("equipment_id").
			Optional().
			Nillable().
			Immutable().
			Comment("The equipment it ran on, if any."),
	}
}

// Edges: the run, and the operation and equipment, in use while the step
// exists.
func (ProductionOperation) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("production", Production.Type).
			Ref("operations").
			Field("production_id").
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

// Indexes: one step per position of a run; the reverse lookups of delete
// checks.
func (ProductionOperation) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("account_id", "production_id", "position").Unique(),
		index.Fields("operation_id"),
		index.Fields("equipment_id"),
	}
}
