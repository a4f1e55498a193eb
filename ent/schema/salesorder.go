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

// SalesOrder is a customer's order: lines of products at prices, shipped in
// one or more shipments, each invoiced.
type SalesOrder struct{ ent.Schema }

// Mixin makes orders an account's, with exposed timestamps.
func (SalesOrder) Mixin() []ent.Mixin {
	return []ent.Mixin{AccountMixin{}, TimeMixin{Exposed: true}}
}

// Fields of an order (the specification's Sales order and Sales orders; docs/api-behaviour.md, "Resources").
func (SalesOrder) Fields() []ent.Field {
	return []ent.Field{
		field.Int("sales_order_no").
			Immutable().
			Comment("The order's number: per account, increasing and without gaps, given at creation.").
			Annotations(annotate.Output(), annotate.Sortable(), annotate.Searchable()),
		field.Enum("status").
			Values("OPEN", "BACK_ORDER", "PREPARING", "CANCELLED", "CLOSE", "SHIPPED").
			Default("OPEN").
			Comment("Where the order is (CLOSE, where purchase orders say CLOSED). A new order is OPEN; only OPEN and BACK_ORDER orders can be edited; the cancel and status-change operations and shipments move it.").
			Annotations(
				annotate.Output(),
				annotate.RepeatableFilter("status"),
				annotate.Sortable(),
				annotate.States(
					annotate.From("OPEN").To("PREPARING", "BACK_ORDER", "CANCELLED", "SHIPPED"),
					annotate.From("PREPARING").To("OPEN", "BACK_ORDER", "CANCELLED", "SHIPPED"),
					annotate.From("BACK_ORDER").To("CANCELLED", "SHIPPED"),
					annotate.From("SHIPPED").To("CLOSE"),
				).EditableIn("OPEN", "BACK_ORDER"),
			),
		field.Int("customer_id").
			Immutable().
			Comment("The customer.").
			Annotations(annotate.Positive(), annotate.Filterable(), annotate.CheckReads(hooks.CustomerCopied...)),
		addressField("billing_address", "The address the order was raised with: omitted at creation, the customer's address then."),
		addressField("shipping_address", "Where the order goes: omitted at creation, the order's billing address."),
		field.String("company").
			Optional().
			Nillable().
			Comment("The customer's name as it stood on the order.").
			Annotations(annotate.Output(), annotate.Searchable()),
		field.String("customer_purchase_order_no").
			Optional().
			Nillable().
			Comment("The customer's own order number, free text.").
			Annotations(annotate.MaxLen(100), annotate.Searchable()),
		field.Time("order_date").
			Optional().
			Nillable().
			Comment("When the order was placed.").
			Annotations(annotate.Date(), annotate.DateRangeFilter(), annotate.Sortable()),
		field.Time("expected_date").
			Optional().
			Nillable().
			Comment("When the customer expects the goods.").
			Annotations(annotate.Date(), annotate.Sortable()),
		field.Time("ship_date").
			Optional().
			Nillable().
			Comment("When the last shipment left.").
			Annotations(annotate.Date(), annotate.Output()),
		decimalField("subtotal", "Sum of the line amounts (order_qty × price × (1 − discount_rate/100)), before tax, rounded half-up once to the currency's minor unit.",
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
		decimalField("tax1_rate", "The first tax's rate, in percent: the customer's tax rate's, copied at creation.", annotate.Output(), annotate.Cost()),
		decimalField("tax2_rate", "The second tax's rate, in percent: the customer's tax rate's, copied at creation.", annotate.Output(), annotate.Cost()),
		field.String("tracking_number").
			Optional().
			Nillable().
			Comment("The carrier's tracking number.").
			Annotations(annotate.MaxLen(100)),
	}
}

// Edges: the customer (in use while an order names it) and the lines.
func (SalesOrder) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("customer", Customer.Type).
			Field("customer_id").
			Unique().
			Required().
			Immutable().
			Annotations(entsql.OnDelete(entsql.Restrict)),
		edge.To("lines", SalesOrderLine.Type).
			Comment("The order's lines, in line id order.").
			Annotations(
				entsql.OnDelete(entsql.Cascade),
				annotate.Entries("lines").SingleOnly().Lines(1, 200).KeptByID().
					Prepared().
					Reading("product_id", hooks.ProductCopied...),
			),
	}
}

// Hooks number a new order.
func (SalesOrder) Hooks() []ent.Hook {
	return []ent.Hook{hooks.NumberDocument("sales_order_no")}
}

// Indexes back filters and sorts; numbers are unique per account.
func (SalesOrder) Indexes() []ent.Index {
	return append(tenantIndexes("status", "customer_id", "order_date", "expected_date", "created_at", "updated_at"),
		index.Fields("account_id", "sales_order_no").Unique(),
		index.Fields("customer_id"),
	)
}

// Annotations expose orders at /sales-orders with their cancel and
// status-change operations.
func (SalesOrder) Annotations() []schema.Annotation {
	return []schema.Annotation{
		annotate.Expose("sales-orders", "sales_order_id", annotate.Sales,
			annotate.List, annotate.Read, annotate.Create, annotate.Update).
			Updated().
			Emits("created", "updated", "cancelled", "shipped", "closed").
			With(
				annotate.Act("cancel", "cancelSalesOrder", "Cancel a sales order").
					Describe("Cancels an OPEN, BACK_ORDER or PREPARING order; any other is 409 INVALID_STATE. What did not ship is written off (cancelled_qty_base). Reported as sales_order.cancelled."),
				annotate.Act("status", "changeSalesOrderStatus", "Change a sales order's status").
					Taking("status").
					Requesting("OPEN", "PREPARING", "BACK_ORDER", "CLOSE").
					Describe("Moves the order: OPEN to PREPARING or BACK_ORDER; PREPARING to OPEN or BACK_ORDER; SHIPPED to CLOSE. Any other move is 409 INVALID_STATE (cancelling has its own operation; shipments make an order SHIPPED). Reported as sales_order.closed for CLOSE, .updated otherwise."),
			).
			Describe("Sales orders: lines of products a customer ordered, at prices stored as sent. Shipments (POST /sales-orders/{id}/shipments) take stock and invoice what shipped."),
	}
}
