package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"larder.dev/larder/internal/generators/annotate"
)

// InvoiceLine is what one line of the order shipped, at the order's price.
type InvoiceLine struct{ ent.Schema }

// Mixin makes the line its invoice's account's.
func (InvoiceLine) Mixin() []ent.Mixin { return []ent.Mixin{AccountMixin{}} }

// Fields of a line (spec Invoice line).
func (InvoiceLine) Fields() []ent.Field {
	return []ent.Field{
		field.Int("invoice_id").
			Immutable().
			Comment("The invoice."),
		decimalField("discount_rate", "Discount, in percent, as on the order line.", annotate.Cost()),
		decimalField("price", "Price per uom_type unit, as on the order line.", annotate.Cost()),
		field.String("product_code").
			Optional().
			Nillable().
			Comment("The product's code, as on the order line."),
		field.String("product_name").
			Optional().
			Nillable().
			Comment("The product's name, as on the order line."),
		field.Int("product_id").
			Comment("The product."),
		decimalField("shipped_qty", "Quantity shipped, in uom_type units (shipped_qty_base converted, to 6 decimals)."),
		decimalField("shipped_qty_base", "Quantity shipped, in base units."),
		field.Bool("tax1").
			Optional().
			Nillable().
			Comment("Whether the first tax applies, as on the order line.").
			Annotations(annotate.Cost()),
		field.Bool("tax2").
			Optional().
			Nillable().
			Comment("Whether the second tax applies, as on the order line.").
			Annotations(annotate.Cost()),
		field.Enum("uom_type").
			Values(uomTypes...).
			Optional().
			Nillable().
			Comment("The unit of shipped_qty and price, as on the order line."),
	}
}

// Edges: the invoice, and the product, in use while a line names it.
func (InvoiceLine) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("invoice", Invoice.Type).
			Ref("lines").
			Field("invoice_id").
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

// Indexes: an invoice's lines; the reverse lookup of a product's delete check.
func (InvoiceLine) Indexes() []ent.Index {
	return []ent.Index{index.Fields("invoice_id"), index.Fields("product_id")}
}
