package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
	"github.com/shopspring/decimal"

	"larder.dev/larder/ent/privacy"
	"larder.dev/larder/internal/generators/annotate"
	"larder.dev/larder/policy"
)

// StockMovement is one change of a lot's quantity: what entered, moved, was
// consumed or shipped, when, why and by whom. Append-only, never served by
// the API: a lot's quantity is the sum of its movements and corrections.
type StockMovement struct{ ent.Schema }

// Mixin makes movements an account's and append-only.
func (StockMovement) Mixin() []ent.Mixin {
	return []ent.Mixin{AccountMixin{Rules: policy.Rules{Mutation: []privacy.MutationRule{policy.DenyChanges()}}}}
}

// Fields of a movement.
func (StockMovement) Fields() []ent.Field {
	return append([]ent.Field{
		field.Int("lot_id").
			Immutable().
			Comment("The lot whose quantity changed."),
		field.Int("location_id").
			Optional().
			Nillable().
			Immutable().
			Comment("Where the lot was."),
		field.Enum("type").
			Values("PRODUCT_FORM", "PURCHASE_ENTRY", "PRODUCTION_CONSUMPTION", "PRODUCTION_OUTPUT", "SHIPPING", "ADJUSTMENT", "INVENTORY_COUNT").
			Immutable().
			Comment("What moved the stock."),
		field.Other("quantity_base", decimal.Decimal{}).
			SchemaType(map[string]string{dialect.Postgres: "numeric(20,6)", dialect.SQLite: "numeric"}).
			Immutable().
			Comment("Signed change, in the product's base unit.").
			Annotations(annotate.Number()),
		field.String("document_type").
			Optional().
			Nillable().
			Immutable().
			Comment("The kind of record that caused it (product_lot, bill, production, shipment)."),
		field.Int("document_id").
			Optional().
			Nillable().
			Immutable().
			Comment("The record that caused it."),
	}, changeOrigin()...)
}

// Edges of a movement: its lot and place.
func (StockMovement) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("lot", ProductLot.Type).
			Ref("movements").
			Field("lot_id").
			Unique().
			Required().
			Immutable(),
		edge.To("location", Location.Type).
			Field("location_id").
			Unique().
			Immutable().
			Annotations(entsql.OnDelete(entsql.Restrict)),
	}
}

// Indexes: a lot's movements, a location's, and a document's (a lot's trace
// goes from a production run's consumptions to its outputs and back).
func (StockMovement) Indexes() []ent.Index {
	return []ent.Index{index.Fields("lot_id"), index.Fields("location_id"), index.Fields("account_id", "document_type", "document_id")}
}

// Annotations keep movements out of the API.
func (StockMovement) Annotations() []schema.Annotation {
	return []schema.Annotation{annotate.Internal()}
}
