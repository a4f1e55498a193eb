package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"larder.dev/larder/internal/generators/annotate"
)

// ShipmentLine is a quantity of one order line shipped, from a named lot or
// picked (the movements record the lots picked).
type ShipmentLine struct{ ent.Schema }

// Mixin makes the line its shipment's account's.
func (ShipmentLine) Mixin() []ent.Mixin { return []ent.Mixin{AccountMixin{}} }

// Fields of a line (docs/api-behaviour.md, "Resources", Shipments).
func (ShipmentLine) Fields() []ent.Field {
	return []ent.Field{
		field.Int("shipment_id").
			Immutable().
			Comment("The shipment."),
		field.Int("sales_order_line_id").
			Comment("The order line shipped: one of this order's.").
			Annotations(annotate.Positive()),
		decimalField("quantity_base", "Quantity shipped, in the product's base unit.", annotate.Required(), annotate.Positive()),
		field.Int("lot_id").
			Optional().
			Nillable().
			Comment("The lot to take it from; omitted, the product's sellable lots, first-expiring first.").
			Annotations(annotate.Positive()),
	}
}

// Edges: the shipment, and the named lot, in use while a line names it.
func (ShipmentLine) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("shipment", Shipment.Type).
			Ref("lines").
			Field("shipment_id").
			Unique().
			Required().
			Immutable(),
		edge.To("lot", ProductLot.Type).
			Field("lot_id").
			Unique().
			Annotations(entsql.OnDelete(entsql.Restrict)),
	}
}

// Indexes: a shipment's lines; the reverse lookup of a lot.
func (ShipmentLine) Indexes() []ent.Index {
	return []ent.Index{index.Fields("shipment_id"), index.Fields("lot_id")}
}
