package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"

	"larder.dev/larder/internal/generators/annotate"
)

// Operation is a production operation with its cost per quantity.
type Operation struct{ ent.Schema }

// Mixin makes operations an account's, with audit timestamps.
func (Operation) Mixin() []ent.Mixin { return []ent.Mixin{AccountMixin{}, TimeMixin{}} }

// Fields of an operation.
func (Operation) Fields() []ent.Field {
	return []ent.Field{
		field.String("code").
			Comment("Short code, unique within the account.").
			Annotations(annotate.Len(1, 40), annotate.Filterable(), annotate.Sortable(), annotate.Searchable()),
		decimalField("cost", "Cost per qty.", annotate.Cost(), annotate.Min(0)),
		field.String("name").
			Comment("Display name.").
			Annotations(annotate.Len(1, 50), annotate.PartialFilter(), annotate.Sortable(), annotate.Searchable()),
		field.Float("qty").
			Optional().
			Nillable().
			Comment("The quantity the cost is per.").
			Annotations(annotate.Min(0)),
		field.Int("unit_of_measure_id").
			Optional().
			Nillable().
			Comment("Unit of qty: one of the account's units or a shared one."),
	}
}

// Edges of an operation.
func (Operation) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("unit_of_measure", UnitOfMeasure.Type).
			Field("unit_of_measure_id").
			Unique().
			Annotations(entsql.OnDelete(entsql.Restrict)),
	}
}

// Indexes back filters and sorts; codes are unique per account.
func (Operation) Indexes() []ent.Index {
	return append(tenantIndexes("name", "unit_of_measure_id"), uniqueCode())
}

// Annotations expose operations at /operations.
func (Operation) Annotations() []schema.Annotation {
	return []schema.Annotation{
		annotate.Expose("operations", "operation_id", annotate.Manufacturing, annotate.CRUD...).
			Emits("created", "updated", "deleted").
			Describe("Production operations and what they cost."),
	}
}
