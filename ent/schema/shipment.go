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

// Shipment is goods of a sales order leaving: recording one takes its
// quantities from lots (the named lot, or the first-expiring sellable lots)
// with SHIPPING stock movements, adds them to the order's lines, invoices
// them, and moves the order to SHIPPED or BACK_ORDER (docs/api-behaviour.md, "Resources", Shipments).
type Shipment struct{ ent.Schema }

// Mixin makes shipments an account's, with timestamps kept for audit.
func (Shipment) Mixin() []ent.Mixin { return []ent.Mixin{AccountMixin{}, TimeMixin{}} }

// Fields of a shipment (docs/api-behaviour.md, "Resources", Shipments).
func (Shipment) Fields() []ent.Field {
	return []ent.Field{
		field.Int("sales_order_id").
			Immutable().
			Comment("The order shipped (from the path).").
			Annotations(annotate.Output()),
		field.Time("ship_date").
			Optional().
			Nillable().
			Immutable().
			Comment("When the goods left; omitted, today (UTC). The order's and the invoice's ship_date.").
			Annotations(annotate.Date()),
		field.String("tracking_number").
			Optional().
			Nillable().
			Immutable().
			Comment("The carrier's tracking number; given, it becomes the order's.").
			Annotations(annotate.MaxLen(100)),
		field.Int("invoice_id").
			Optional().
			Nillable().
			Comment("The invoice the shipment made.").
			Annotations(annotate.Output()),
	}
}

// Edges: the order and the invoice, and the lines.
func (Shipment) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("sales_order", SalesOrder.Type).
			Field("sales_order_id").
			Unique().
			Required().
			Immutable().
			Annotations(entsql.OnDelete(entsql.Restrict)),
		edge.To("invoice", Invoice.Type).
			Field("invoice_id").
			Unique().
			Annotations(entsql.OnDelete(entsql.Restrict)),
		edge.To("lines", ShipmentLine.Type).
			Comment("What shipped, per order line.").
			Annotations(
				entsql.OnDelete(entsql.Cascade),
				annotate.Entries("lines").SingleOnly().Lines(1, 200).
					Prepared().
					Recorded().
					HandedOver(),
			),
	}
}

// Indexes: an order's shipments.
func (Shipment) Indexes() []ent.Index {
	return []ent.Index{index.Fields("sales_order_id"), index.Fields("invoice_id")}
}

// Annotations expose the create at /sales-orders/{sales_order_id}/shipments.
func (Shipment) Annotations() []schema.Annotation {
	return []schema.Annotation{
		annotate.Expose("shipments", "shipment_id", annotate.Sales, annotate.Create).
			Under("sales-orders", "sales_order_id", "sales_order_id").
			Describe("Shipments of a sales order: each takes stock from lots with SHIPPING movements (a named lot, or the product's first-expiring sellable lots), adds to the order lines' shipped_qty_base, makes one invoice for what shipped (invoice_id), and moves the order to SHIPPED when every line is shipped or cancelled, else BACK_ORDER. 409 INSUFFICIENT_STOCK when stock is short and LOT_NOT_SELLABLE for a named lot that is expired or not sellable; nothing is written then."),
	}
}
