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

// SalesOrderLine is a line of a sales order: a quantity of a product in one
// of its units, at a price per that unit.
type SalesOrderLine struct{ ent.Schema }

// Mixin makes the line its order's account's.
func (SalesOrderLine) Mixin() []ent.Mixin { return []ent.Mixin{AccountMixin{}} }

// uomTypes are the units a sales quantity may be in (spec Sales orders).
var uomTypes = []string{"INVENTORY_UNIT", "PACKAGING_SIZE", "BASE_UOM"}

// Fields of a line (spec Sales order line). The id is declared so that an
// update keeps a line by its id.
func (SalesOrderLine) Fields() []ent.Field {
	return []ent.Field{
		field.Int("id"),
		field.Int("sales_order_id").
			Immutable().
			Comment("The order."),
		decimalField("cancelled_qty_base", "What was written off when the order was cancelled, in base units.", annotate.Output()),
		decimalField("discount_rate", "Discount, in percent.", annotate.Range(0, 100), annotate.Cost()),
		field.String("notes").
			Optional().
			Nillable().
			Comment("Free-text notes.").
			Annotations(annotate.MaxLen(2000)),
		decimalField("order_qty", "Quantity ordered, in uom_type units.", annotate.Required(), annotate.Positive()),
		decimalField("order_qty_base", "Quantity ordered, in the product's base unit.", annotate.Output()),
		decimalField("price", "Price per uom_type unit, stored as sent (no price list applied).", annotate.Min(0), annotate.Cost()),
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
		decimalField("shipped_qty_base", "Quantity shipped so far, in base units.", annotate.Output()),
		field.Bool("tax1").
			Optional().
			Nillable().
			Default(false).
			Comment("Whether the first tax applies.").
			Annotations(annotate.Cost()),
		field.Bool("tax2").
			Optional().
			Nillable().
			Default(false).
			Comment("Whether the second tax applies.").
			Annotations(annotate.Cost()),
		field.Enum("uom_type").
			Values(uomTypes...).
			Default("BASE_UOM").
			Comment("The unit of order_qty and price: BASE_UOM, the product's base unit; INVENTORY_UNIT, uom_qty × uom_base_conversion base units; PACKAGING_SIZE, uom_base_conversion base units."),
	}
}

// Edges: the order, and the product, in use while a line names it.
func (SalesOrderLine) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("sales_order", SalesOrder.Type).
			Ref("lines").
			Field("sales_order_id").
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
func (SalesOrderLine) Indexes() []ent.Index {
	return []ent.Index{index.Fields("sales_order_id"), index.Fields("product_id")}
}

// Annotations report a line's change as its order's.
func (SalesOrderLine) Annotations() []schema.Annotation {
	return []schema.Annotation{annotate.LineOf("SalesOrder", "sales_order_id")}
}
