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

// PurchaseOrder is an order to a supplier: lines of products at a cost, with
// the supplier's address copied when the order is raised. It moves no stock;
// a bill receives it.
type PurchaseOrder struct{ ent.Schema }

// Mixin makes orders an account's, with exposed timestamps.
func (PurchaseOrder) Mixin() []ent.Mixin {
	return []ent.Mixin{AccountMixin{}, TimeMixin{Exposed: true}}
}

// purchaseOrderStatuses are the statuses of an order (spec Purchase order).
var purchaseOrderStatuses = []string{"OPEN", "SENT", "CONFIRMED", "CLOSED", "BACK_ORDER", "CANCELLED", "RECEIVED"}

// Fields of an order.
func (PurchaseOrder) Fields() []ent.Field {
	return []ent.Field{
		field.Int("purchase_order_no").
			Immutable().
			Comment("The order's number: per account, increasing and without gaps, given at creation.").
			Annotations(annotate.Output(), annotate.Sortable(), annotate.Searchable()),
		field.Enum("status").
			Values(purchaseOrderStatuses...).
			Default("OPEN").
			Comment("Where the order is. A new order is OPEN; only OPEN and SENT orders can be edited; the status-change operation moves it.").
			Annotations(
				annotate.Output(),
				annotate.RepeatableFilter("status"),
				annotate.Sortable(),
				annotate.States(
					annotate.From("OPEN").To("SENT", "CONFIRMED", "CANCELLED"),
					annotate.From("SENT").To("OPEN", "CONFIRMED", "CANCELLED"),
					annotate.From("CONFIRMED").To("BACK_ORDER", "RECEIVED", "CANCELLED"),
					annotate.From("BACK_ORDER").To("RECEIVED", "CANCELLED"),
					annotate.From("RECEIVED").To("CLOSED"),
				).EditableIn("OPEN", "SENT"),
			),
		field.Int("supplier_id").
			Comment("The supplier ordered from. Changing it copies the supplier's address again.").
			Annotations(annotate.Positive(), annotate.Filterable(), annotate.CheckReads(hooks.SupplierCopied...)),
		addressField("billing_address", "The vendor block: the supplier's address, copied when the order was raised or its supplier changed.", annotate.Output()),
		addressField("shipping_address", "The ship-to: the supplier's address, copied when the order was raised or its supplier changed.", annotate.Output()),
		field.String("company").
			Optional().
			Nillable().
			Comment("The supplier's name as it stood on the order.").
			Annotations(annotate.Output(), annotate.Searchable()),
		field.Time("order_date").
			Optional().
			Nillable().
			Comment("When the order was placed.").
			Annotations(annotate.Date(), annotate.DateRangeFilter(), annotate.Sortable()),
		field.Time("expected_date").
			Optional().
			Nillable().
			Comment("When the goods are expected.").
			Annotations(annotate.Date(), annotate.Sortable()),
		field.Time("received_date").
			Optional().
			Nillable().
			Comment("When the order was marked RECEIVED.").
			Annotations(annotate.Date(), annotate.Output()),
		field.String("supplier_reference").
			Optional().
			Nillable().
			Comment("The supplier's own reference.").
			Annotations(annotate.MaxLen(255), annotate.Searchable()),
		field.String("notes").
			Optional().
			Nillable().
			Comment("Free-text notes.").
			Annotations(annotate.MaxLen(2000)),
		decimalField("subtotal", "Sum of the line amounts (quantity × cost × (1 − discount_rate/100)), before tax, rounded half-up once to the currency's minor unit.",
			annotate.Output(), annotate.Cost()),
		field.Bool("tax1").
			Optional().
			Nillable().
			Comment("Whether the first tax applies.").
			Annotations(annotate.Output(), annotate.Cost()),
		field.Bool("tax2").
			Optional().
			Nillable().
			Comment("Whether the second tax applies.").
			Annotations(annotate.Output(), annotate.Cost()),
		decimalField("tax1_rate", "The first tax's rate, in percent.", annotate.Output(), annotate.Cost()),
		decimalField("tax2_rate", "The second tax's rate, in percent.", annotate.Output(), annotate.Cost()),
	}
}

// Edges: the supplier (in use while an order names it) and the lines.
func (PurchaseOrder) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("supplier", Supplier.Type).
			Field("supplier_id").
			Unique().
			Required().
			Annotations(entsql.OnDelete(entsql.Restrict)),
		edge.To("lines", PurchaseOrderLine.Type).
			Comment("The order's lines, in line id order.").
			Annotations(
				entsql.OnDelete(entsql.Cascade),
				annotate.Entries("lines").SingleOnly().Lines(1, 200).
					Prepared().
					Reading("product_id", hooks.ProductCopied...),
			),
	}
}

// Hooks number a new order and copy its supplier's address and name.
func (PurchaseOrder) Hooks() []ent.Hook {
	return []ent.Hook{hooks.NumberDocument("purchase_order_no"), hooks.CopySupplier(true)}
}

// Indexes back filters and sorts; numbers are unique per account.
func (PurchaseOrder) Indexes() []ent.Index {
	return append(tenantIndexes("status", "supplier_id", "order_date", "expected_date", "created_at", "updated_at"),
		index.Fields("account_id", "purchase_order_no").Unique(),
		index.Fields("supplier_id"),
	)
}

// Annotations expose orders at /purchase-orders with their status-change operation.
func (PurchaseOrder) Annotations() []schema.Annotation {
	return []schema.Annotation{
		annotate.Expose("purchase-orders", "purchase_order_id", annotate.Purchasing,
			annotate.List, annotate.Read, annotate.Create, annotate.Update).
			Updated().
			IdempotentCreate().
			Emits("created", "updated", "cancelled", "received", "closed").
			With(
				annotate.Act("status", "changePurchaseOrderStatus", "Change a purchase order's status").
					Taking("status").
					Describe("Moves the order: OPEN to SENT, CONFIRMED or CANCELLED; SENT to OPEN, CONFIRMED or CANCELLED; CONFIRMED to BACK_ORDER, RECEIVED or CANCELLED; BACK_ORDER to RECEIVED or CANCELLED; RECEIVED to CLOSED. Any other move is 409 INVALID_STATE. Moving to RECEIVED sets received_date. Reported as purchase_order.cancelled, .received or .closed, and .updated otherwise."),
			).
			Describe("Purchase orders: lines of products ordered from a supplier. Creating one moves no stock and changes no cost; bills receive the goods."),
	}
}
