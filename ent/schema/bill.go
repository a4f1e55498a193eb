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

// Bill is a supplier's invoice: recording it receives its lines into lots,
// with one PURCHASE_ENTRY stock movement each, and recalculates product
// costs. A bill is cancelled in the web application, never deleted.
type Bill struct{ ent.Schema }

// Mixin makes bills an account's, with timestamps kept for audit (the spec shows none).
func (Bill) Mixin() []ent.Mixin { return []ent.Mixin{AccountMixin{}, TimeMixin{}} }

// Fields of a bill (spec Bill).
func (Bill) Fields() []ent.Field {
	return []ent.Field{
		field.Time("bill_date").
			Immutable().
			Comment("The date on the supplier's invoice.").
			Annotations(annotate.Date(), annotate.DateRangeFilter(), annotate.Sortable()),
		field.Int("bill_no").
			Immutable().
			Comment("The bill's number: per account, increasing and without gaps, given at creation.").
			Annotations(annotate.Output(), annotate.Sortable(), annotate.Searchable()),
		addressField("billing_address", "The supplier's address, copied when the bill was recorded.", annotate.Output()),
		field.Time("cancelled_at").
			Optional().
			Nillable().
			Comment("When the bill was cancelled in the web application.").
			Annotations(annotate.Date(), annotate.Output()),
		field.String("company").
			Optional().
			Nillable().
			Comment("The supplier's name as it stood on the bill.").
			Annotations(annotate.Output(), annotate.Searchable()),
		field.Bool("is_cancelled").
			Default(false).
			Comment("A cancelled bill is kept, never deleted.").
			Annotations(annotate.Output()),
		field.String("notes").
			Optional().
			Nillable().
			Comment("Free-text notes.").
			Annotations(annotate.MaxLen(2000)),
		decimalField("paid_amount", "What has been paid against the bill.", annotate.Output(), annotate.Cost()),
		field.Int("purchase_order_id").
			Optional().
			Nillable().
			Immutable().
			Comment("The purchase order the bill receives; linking it does not change the order's status.").
			Annotations(annotate.Positive(), annotate.Filterable()),
		decimalField("subtotal", "Sum of the line amounts (quantity × cost × (1 − discount_rate/100)), rounded half-up once to the currency's minor unit. Bills are recorded with no tax.",
			annotate.Output(), annotate.Cost()),
		field.Int("supplier_id").
			Immutable().
			Comment("The supplier who sent the bill.").
			Annotations(annotate.Positive(), annotate.Filterable(), annotate.CheckReads(hooks.SupplierCopied...)),
		field.String("supplier_reference").
			Optional().
			Nillable().
			Comment("The supplier's reference, such as its invoice number.").
			Annotations(annotate.MaxLen(255), annotate.Searchable()),
		field.Bool("tax1").
			Optional().
			Nillable().
			Comment("Whether the first tax applies: false, bills are recorded with no tax.").
			Annotations(annotate.Output(), annotate.Cost()),
		field.Bool("tax2").
			Optional().
			Nillable().
			Comment("Whether the second tax applies: false, bills are recorded with no tax.").
			Annotations(annotate.Output(), annotate.Cost()),
		decimalField("tax1_rate", "The first tax's rate, in percent: null, bills are recorded with no tax.", annotate.Output(), annotate.Cost()),
		decimalField("tax2_rate", "The second tax's rate, in percent: null, bills are recorded with no tax.", annotate.Output(), annotate.Cost()),
	}
}

// Edges: the supplier and order (in use while a bill names them) and the lines.
func (Bill) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("supplier", Supplier.Type).
			Field("supplier_id").
			Unique().
			Required().
			Immutable().
			Annotations(entsql.OnDelete(entsql.Restrict)),
		edge.To("purchase_order", PurchaseOrder.Type).
			Field("purchase_order_id").
			Unique().
			Immutable().
			Annotations(entsql.OnDelete(entsql.Restrict)),
		edge.To("lines", BillLine.Type).
			Comment("The bill's lines, in line id order, each with the lot it received.").
			Annotations(
				entsql.OnDelete(entsql.Cascade),
				annotate.Entries("lines").SingleOnly().Lines(1, 1000).AtMostDistinct("product_id", 200).
					Prepared().
					Reading("product_id", hooks.ProductCosted...).
					Recorded(),
			),
	}
}

// Hooks number a new bill and copy its supplier's address and name.
func (Bill) Hooks() []ent.Hook {
	return []ent.Hook{hooks.NumberDocument("bill_no"), hooks.CopySupplier(false)}
}

// Indexes back filters and sorts; numbers are unique per account.
func (Bill) Indexes() []ent.Index {
	return append(tenantIndexes("supplier_id", "purchase_order_id", "bill_date"),
		index.Fields("account_id", "bill_no").Unique(),
		index.Fields("supplier_id"),
		index.Fields("purchase_order_id"),
	)
}

// Annotations expose bills at /bills.
func (Bill) Annotations() []schema.Annotation {
	return []schema.Annotation{
		annotate.Expose("bills", "bill_id", annotate.Purchasing, annotate.List, annotate.Read, annotate.Create).
			IdempotentCreate().
			Emits("created", "updated", "cancelled").
			Describe("Bills: suppliers' invoices. Recording one receives its lines into lots, each with a PURCHASE_ENTRY stock movement, and recalculates product costs unless the account costs manually. Cancelling happens in the web application; a cancelled bill is kept."),
	}
}
