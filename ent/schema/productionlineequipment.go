package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// ProductionLineEquipment is a join row: a piece of equipment a production
// line uses. It is internal (the spec's line has no equipment field); the web
// application and seeding write it. Equipment a line uses is in use (409
// IN_USE on delete); a line's soft delete removes its rows, as it removes the
// line's per-product capacities.
type ProductionLineEquipment struct{ ent.Schema }

// Mixin makes the row belong to the line's account.
func (ProductionLineEquipment) Mixin() []ent.Mixin { return []ent.Mixin{AccountMixin{}} }

// Fields of the join row.
func (ProductionLineEquipment) Fields() []ent.Field {
	return []ent.Field{
		field.Int("production_line_id").
			Immutable().
			Comment("The production line."),
		field.Int("equipment_id").
			Immutable().
			Comment("The equipment the line uses."),
	}
}

// Edges: the line and the equipment, in use while the row exists.
func (ProductionLineEquipment) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("production_line", ProductionLine.Type).
			Ref("equipment").
			Field("production_line_id").
			Unique().
			Required().
			Immutable(),
		edge.To("equipment", Equipment.Type).
			Field("equipment_id").
			Unique().
			Required().
			Immutable().
			Annotations(entsql.OnDelete(entsql.Restrict)),
	}
}

// Indexes: each piece of equipment once per line; the reverse lookup of a
// delete check.
func (ProductionLineEquipment) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("account_id", "production_line_id", "equipment_id").Unique().
			StorageKey("productionlineequipment_account_id_line_id_equipment_id"),
		index.Fields("equipment_id"),
	}
}
