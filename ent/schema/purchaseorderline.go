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

// PurchaseOrderLine is a line of a purchase order: a quantity of a product,
// in its purchase unit (the inventory unit), at a cost.
type PurchaseOrderLine struct{ ent.Schema }

// Mixin makes the line its order's account's.
func (PurchaseOrderLine) Mixin() []ent.Mixin { return []ent.Mixin{AccountMixin{}} }

// Fields of a line (spec PO line), in the order the API shows them.
func (PurchaseOrderLine) Fields() []ent.Field {
	return append([]ent.Field{
		field.Int("purchase_order_id").
			Immutable().
			Comment("The order."),
	}, purchaseLineFields(false)...)
}

// purchaseLineFields are the fields purchase order lines and bill lines
// share; a bill line also names a lot and a location.
func purchaseLineFields(bill bool) []ent.Field {
	fs := []ent.Field{
		decimalField("cost", "Cost per purchase unit.", annotate.Min(0), annotate.Cost()),
		decimalField("discount_rate", "Discount, in percent.", annotate.Range(0, 100), annotate.Cost()),
		field.Time("expiration_date").
			Optional().
			Nillable().
			Comment("When the goods expire (UTC)."),
	}
	if !bill {
		fs = append(fs,
			field.Int("lead_time").
				Optional().
				Nillable().
				Comment("Lead time, in days.").
				Annotations(annotate.Min(0)),
			field.String("notes").
				Optional().
				Nillable().
				Comment("Free-text notes.").
				Annotations(annotate.MaxLen(2000)),
		)
	}
	fs = append(fs,
		field.String("product_code").
			Optional().
			Nillable().
			Comment("The product's code, as it stood when the line was written.").
			Annotations(annotate.Output()),
		field.String("product_name").
			Optional().
			Nillable().
			Comment("The product's name, as it stood when the line was written.").
			Annotations(annotate.Output()),
		field.Int("product_id").
			Comment("The product.").
			Annotations(annotate.Positive()),
		decimalField("quantity", "Quantity, in the purchase unit (the product's inventory unit).", annotate.Required(), annotate.Positive()),
		decimalField("quantity_base", "Quantity in the product's base unit: quantity × uom_qty × uom_base_conversion.", annotate.Output()),
		field.String("supplier_partno").
			Optional().
			Nillable().
			Comment("The supplier's part number.").
			Annotations(annotate.MaxLen(100)),
	)
	return fs
}

// Edges: the order, and the product, in use while a line names it.
func (PurchaseOrderLine) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("purchase_order", PurchaseOrder.Type).
			Ref("lines").
			Field("purchase_order_id").
			Unique().
			Required().
			Immutable(),
		edge.To("product", Product.Type).
			Field("product_id").
			Unique().
			Required().
			Annotations(entsql.OnDelete(entsql.Restrict)),
	}
}

// Indexes: an order's lines; the reverse lookup of a product's delete check.
func (PurchaseOrderLine) Indexes() []ent.Index {
	return []ent.Index{index.Fields("purchase_order_id"), index.Fields("product_id")}
}

// Annotations report a line's change as its order's.
func (PurchaseOrderLine) Annotations() []schema.Annotation {
	return []schema.Annotation{annotate.LineOf("PurchaseOrder", "purchase_order_id")}
}
