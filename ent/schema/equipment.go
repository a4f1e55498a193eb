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

// Equipment is a machine or tool of the plant (an oven, a mixer, a metal
// detector). Later production lines and runs that use it will reference it
// with Restrict foreign keys, which makes deleting equipment in use a 409 IN_USE.
type Equipment struct{ ent.Schema }

// Mixin makes equipment an account's, with audit timestamps.
func (Equipment) Mixin() []ent.Mixin { return []ent.Mixin{AccountMixin{}, TimeMixin{}} }

// Fields of equipment.
func (Equipment) Fields() []ent.Field {
	return []ent.Field{
		field.String("code").
			Comment("Short code, unique within the account.").
			Annotations(annotate.Len(1, 40), annotate.Filterable(), annotate.Sortable(), annotate.Searchable()),
		field.String("name").
			Comment("Display name.").
			Annotations(annotate.Len(1, 100), annotate.PartialFilter(), annotate.Sortable(), annotate.Searchable()),
		field.Bool("out_of_service").
			Default(false).
			Comment("Whether the equipment is out of service (unavailable); toggled by update.").
			Annotations(annotate.IncludeParam("include_out_of_service", true)),
		field.Int("warehouse_id").
			Optional().
			Nillable().
			Comment("The warehouse the equipment is in: one of the account's warehouses.").
			Annotations(annotate.RefRoot()),
	}
}

// Edges of equipment: the warehouse it is in.
func (Equipment) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("warehouse", Location.Type).
			Field("warehouse_id").
			Unique().
			Annotations(entsql.OnDelete(entsql.Restrict)),
	}
}

// Indexes back filters and sorts; codes are unique per account; warehouse
// deletions look equipment up by warehouse.
func (Equipment) Indexes() []ent.Index {
	return append(tenantIndexes("name", "out_of_service"),
		uniqueCode(),
		index.Fields("warehouse_id"),
	)
}

// Annotations expose equipment at /equipment.
func (Equipment) Annotations() []schema.Annotation {
	return []schema.Annotation{
		annotate.Expose("equipment", "equipment_id", annotate.Manufacturing, annotate.CRUD...).
			Emits("created", "updated", "deleted").
			Describe("Equipment of the plant (ovens, mixers, detectors), in service or out of it."),
	}
}
