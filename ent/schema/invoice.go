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

// Invoice is what a shipment bills the customer: one per shipment, for what
// shipped, at the order's prices. Read-only through the API; cancelled in the
// web application, never deleted.
type Invoice struct{ ent.Schema }

// Mixin makes invoices an account's, with exposed timestamps.
func (Invoice) Mixin() []ent.Mixin { return []ent.Mixin{AccountMixin{}, TimeMixin{Exposed: true}} }

// Fields of an invoice (spec Invoice).
func (Invoice) Fields() []ent.Field {
	return []ent.Field{
		field.Int("invoice_no").
			Immutable().
			Comment("The invoice's number: per account, increasing and without gaps, given when the shipment made it.").
			Annotations(annotate.Output(), annotate.Sortable(), annotate.Searchable()),
		field.Time("invoice_date").
			Immutable().
			Comment("The day the invoice was made: its shipment's ship date.").
			Annotations(annotate.Date(), annotate.Output(), annotate.DateRangeFilter()),
		addressField("billing_address", "The order's billing address when it shipped.", annotate.Output()),
		addressField("shipping_address", "The order's shipping address when it shipped.", annotate.Output()),
		field.Time("cancelled_at").
			Optional().
			Nillable().
			Comment("When the invoice was cancelled in the web application.").
			Annotations(annotate.Date(), annotate.Output()),
		field.String("company").
			Optional().
			Nillable().
			Comment("The customer's name as it stood on the order.").
			Annotations(annotate.Output(), annotate.Searchable()),
		field.Int("customer_id").
			Immutable().
			Comment("The customer.").
			Annotations(annotate.Output(), annotate.Filterable()),
		field.Bool("is_cancelled").
			Default(false).
			Comment("A cancelled invoice is kept, never deleted.").
			Annotations(annotate.Output()),
		field.Time("order_date").
			Optional().
			Nillable().
			Comment("The order's date.").
			Annotations(annotate.Date(), annotate.Output(), annotate.Sortable()),
		field.Time("ship_date").
			Optional().
			Nillable().
			Comment("When the shipment left.").
			Annotations(annotate.Date(), annotate.Output(), annotate.Sortable()),
		decimalField("paid_amount", "What has been paid against the invoice.", annotate.Output(), annotate.Cost()),
		field.Int("sales_order_id").
			Immutable().
			Comment("The order shipped.").
			Annotations(annotate.Output(), annotate.Filterable()),
		decimalField("subtotal", "Sum of the line amounts (shipped_qty × price × (1 − discount_rate/100)), before tax, rounded half-up once to the currency's minor unit.",
			annotate.Output(), annotate.Cost()),
		field.Bool("tax1").
			Optional().
			Nillable().
			Comment("Whether the first tax applies to any line.").
			Annotations(annotate.Output(), annotate.Cost()),
		field.Bool("tax2").
			Optional().
			Nillable().
			Comment("Whether the second tax applies to any line.").
			Annotations(annotate.Output(), annotate.Cost()),
		decimalField("tax1_rate", "The first tax's rate, in percent, as on the order.", annotate.Output(), annotate.Cost()),
		decimalField("tax2_rate", "The second tax's rate, in percent, as on the order.", annotate.Output(), annotate.Cost()),
	}
}

// Edges: the customer and order (in use while an invoice names them), the lines.
func (Invoice) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("customer", Customer.Type).
			Field("customer_id").
			Unique().
			Required().
			Immutable().
			Annotations(entsql.OnDelete(entsql.Restrict)),
		edge.To("sales_order", SalesOrder.Type).
			Field("sales_order_id").
			Unique().
			Required().
			Immutable().
			Annotations(entsql.OnDelete(entsql.Restrict)),
		edge.To("lines", InvoiceLine.Type).
			Comment("The invoice's lines, in line id order.").
			Annotations(entsql.OnDelete(entsql.Cascade), annotate.Entries("lines").SingleOnly().Identified()),
	}
}

// Hooks number a new invoice.
func (Invoice) Hooks() []ent.Hook {
	return []ent.Hook{hooks.NumberDocument("invoice_no")}
}

// Indexes back filters and sorts; numbers are unique per account.
func (Invoice) Indexes() []ent.Index {
	return append(tenantIndexes("customer_id", "sales_order_id", "invoice_date", "order_date", "ship_date", "created_at", "updated_at"),
		index.Fields("account_id", "invoice_no").Unique(),
		index.Fields("customer_id"),
		index.Fields("sales_order_id"),
	)
}

// Annotations expose invoices, read-only, at /invoices.
func (Invoice) Annotations() []schema.Annotation {
	return []schema.Annotation{
		annotate.Expose("invoices", "invoice_id", annotate.Sales, annotate.List, annotate.Read).
			Updated().
			Emits("created", "updated", "cancelled").
			Describe("Invoices: what each shipment of a sales order billed. Read-only; cancelled in the web application (a cancelled invoice is kept)."),
	}
}
