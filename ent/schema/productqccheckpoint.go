package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// ProductQCCheckpoint is a join row: a QC checkpoint of a recipe.
type ProductQCCheckpoint struct{ ent.Schema }

// Mixin makes the row belong to the product's account.
func (ProductQCCheckpoint) Mixin() []ent.Mixin { return []ent.Mixin{AccountMixin{}} }

// Fields of the join row.
func (ProductQCCheckpoint) Fields() []ent.Field {
	return []ent.Field{
		field.Int("product_id").
			Immutable().
			Comment("The product."),
		field.Int("qc_checkpoint_id").
			Immutable().
			Comment("The qc checkpoint."),
	}
}

// Edges: the product (the row goes with it) and the referenced row (in use
// while the row exists).
func (ProductQCCheckpoint) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("product", Product.Type).
			Ref("qc_checkpoints").
			Field("product_id").
			Unique().
			Required().
			Immutable(),
		edge.To("qc_checkpoint", QCCheckpoint.Type).
			Field("qc_checkpoint_id").
			Unique().
			Required().
			Immutable().
			Annotations(entsql.OnDelete(entsql.Restrict)),
	}
}

// Indexes: each reference once per product; the reverse lookup of a delete check.
func (ProductQCCheckpoint) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("account_id", "product_id", "qc_checkpoint_id").Unique(),
		index.Fields("qc_checkpoint_id"),
	}
}
