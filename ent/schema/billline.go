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

// BillLine is a line of a bill: a quantity of a product received, in its
// purchase unit, into a lot.
type BillLine struct{ ent.Schema }

// Mixin makes the line its bill's account's.
func (BillLine) Mixin() []ent.Mixin { return []ent.Mixin{AccountMixin{}} }

// Fields of a line (spec Bill line), then the lot it was received into.
func (BillLine) Fields() []ent.Field {
	return append(append([]ent.Field{
		field.Int("bill_id").
			Immutable().
			Comment("The bill."),
	}, purchaseLineFields(true)...),
		field.String("lot_number").
			Comment("The lot received into: a new lot, or the product's lot with this number at this location, topped up.").
			Annotations(annotate.Len(1, 100)),
		field.Int("location_id").
			Optional().
			Nillable().
			Comment("Where the goods went: a warehouse or a location in one; none when omitted.").
			Annotations(annotate.Positive()),
		field.Int("lot_id").
			Optional().
			Nillable().
			Comment("The lot the line was received into.").
			Annotations(annotate.Output()),
	)
}

// Edges: the bill, and the product, location and lot, in use while a line
// names them.
func (BillLine) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("bill", Bill.Type).
			Ref("lines").
			Field("bill_id").
			Unique().
			Required().
			Immutable(),
		edge.To("product", Product.Type).
			Field("product_id").
			Unique().
			Required().
			Annotations(entsql.OnDelete(entsql.Restrict)),
		edge.To("location", Location.Type).
			Field("location_id").
			Unique().
			Annotations(entsql.OnDelete(entsql.Restrict)),
		edge.To("lot", ProductLot.Type).
			Field("lot_id").
			Unique().
			Annotations(entsql.OnDelete(entsql.Restrict)),
	}
}

// Indexes: a bill's lines; the reverse lookups of delete checks.
func (BillLine) Indexes() []ent.Index {
	return []ent.Index{index.Fields("bill_id"), index.Fields("product_id"), index.Fields("location_id"), index.Fields("lot_id")}
}

// Annotations report a line's change as its bill's.
func (BillLine) Annotations() []schema.Annotation {
	return []schema.Annotation{annotate.LineOf("Bill", "bill_id")}
}
