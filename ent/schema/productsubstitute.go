package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// ProductSubstitute is a join row: a product that can replace a material.
type ProductSubstitute struct{ ent.Schema }

// Mixin makes the row belong to the product's account.
func (ProductSubstitute) Mixin() []ent.Mixin { return []ent.Mixin{AccountMixin{}} }

// Fields of the join row.
func (ProductSubstitute) Fields() []ent.Field {
	return []ent.Field{
		field.Int("product_id").
			Immutable().
			Comment("The product."),
		field.Int("substitute_id").
			Immutable().
			Comment("The substitute."),
	}
}

// Edges: the product (the row goes with it) and the referenced row (in use
// while the row exists).
func (ProductSubstitute) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("product", Product.Type).
			Ref("substitutes").
			Field("product_id").
			Unique().
			Required().
			Immutable(),
		edge.To("substitute", Product.Type).
			Field("substitute_id").
			Unique().
			Required().
			Immutable().
			Annotations(entsql.OnDelete(entsql.Restrict)),
	}
}

// Indexes: each reference once per product; the reverse lookup of a delete check.
func (ProductSubstitute) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("account_id", "product_id", "substitute_id").Unique(),
		index.Fields("substitute_id"),
	}
}
