package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
	"github.com/shopspring/decimal"

	"larder.dev/larder/ent/privacy"
	"larder.dev/larder/internal/generators/annotate"
	"larder.dev/larder/policy"
)

// LotCorrection records a correction of a lot's quantity through PATCH, which
// the spec says writes no stock movement: with it, a lot's quantity is still
// the sum of what moved it. Append-only, never served by the API.
type LotCorrection struct{ ent.Schema }

// Mixin makes corrections an account's and append-only.
func (LotCorrection) Mixin() []ent.Mixin {
	return []ent.Mixin{AccountMixin{Rules: policy.Rules{Mutation: []privacy.MutationRule{policy.DenyChanges()}}}}
}

// Fields of a correction.
func (LotCorrection) Fields() []ent.Field {
	dec := map[string]string{dialect.Postgres: "numeric(20,6)", dialect.SQLite: "numeric"}
	return append([]ent.Field{
		field.Int("lot_id").
			Immutable().
			Comment("The corrected lot."),
		field.Other("quantity_before", decimal.Decimal{}).
			SchemaType(dec).
			Immutable().
			Comment("quantity_base before the correction.").
			Annotations(annotate.Number()),
		field.Other("quantity_after", decimal.Decimal{}).
			SchemaType(dec).
			Immutable().
			Comment("quantity_base after it.").
			Annotations(annotate.Number()),
	}, changeOrigin()...)
}

// Edges of a correction: its lot.
func (LotCorrection) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("lot", ProductLot.Type).
			Ref("corrections").
			Field("lot_id").
			Unique().
			Required().
			Immutable(),
	}
}

// Indexes: a lot's corrections.
func (LotCorrection) Indexes() []ent.Index { return []ent.Index{index.Fields("lot_id")} }

// Annotations keep corrections out of the API.
func (LotCorrection) Annotations() []schema.Annotation {
	return []schema.Annotation{annotate.Internal()}
}
