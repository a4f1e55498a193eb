package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"larder.dev/larder/hooks"
	"larder.dev/larder/internal/generators/annotate"
)

// ProductionLine is a line of the plant that production runs are made on.
// Deleting one is a soft delete: runs keep referencing it.
type ProductionLine struct{ ent.Schema }

// Mixin makes production lines an account's, with audit timestamps and soft
// deletion.
func (ProductionLine) Mixin() []ent.Mixin {
	return []ent.Mixin{AccountMixin{}, TimeMixin{}, SoftDeleteMixin{}}
}

// Fields of a production line.
func (ProductionLine) Fields() []ent.Field {
	return []ent.Field{
		field.String("description").
			Optional().
			Nillable().
			Comment("Free-text description.").
			Annotations(annotate.MaxLen(500)),
		field.String("name").
			Comment("Display name, unique within the account.").
			Annotations(annotate.Len(1, 100), annotate.PartialFilter(), annotate.Sortable(), annotate.Searchable()),
		field.Int("warehouse_id").
			Optional().
			Nillable().
			Comment("The warehouse the line is in: one of the account's warehouses.").
			Annotations(annotate.RefRoot()),
	}
}

// Edges of a production line: the warehouse it is in and the equipment it uses.
func (ProductionLine) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("warehouse", Location.Type).
			Field("warehouse_id").
			Unique().
			Annotations(entsql.OnDelete(entsql.Restrict)),
		edge.To("equipment", ProductionLineEquipment.Type).
			Comment("The equipment the line uses (internal); removed by a soft delete.").
			Annotations(entsql.OnDelete(entsql.Cascade)),
	}
}

// Hooks release the equipment of a line when it is soft-deleted.
func (ProductionLine) Hooks() []ent.Hook {
	return []ent.Hook{hooks.ReleaseLineEquipment()}
}

// Indexes: names are unique among the account's lines that are not deleted;
// lists sort and filter by name; warehouse deletions look lines up by warehouse.
func (ProductionLine) Indexes() []ent.Index {
	return []ent.Index{
		liveUnique("name"),
		index.Fields("warehouse_id"),
	}
}

// Annotations expose production lines at /production-lines.
func (ProductionLine) Annotations() []schema.Annotation {
	return []schema.Annotation{
		annotate.Expose("production-lines", "production_line_id", annotate.Manufacturing, annotate.CRUD...).
			Emits("created", "updated", "deleted").
			Describe("Production lines of the plant. Deleting a line is a soft delete: it leaves the API while runs keep referencing it."),
	}
}
