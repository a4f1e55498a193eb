package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// ProductByproduct is a join row: a product a recipe also yields.
type ProductByproduct struct{ ent.Schema }

// Mixin makes the row belong to the product's account.
func (ProductByproduct) Mixin() []ent.Mixin { return []ent.Mixin{AccountMixin{}} }

// Fields of the join row.
func (ProductByproduct) Fields() []ent.Field {
	return []ent.Field{
		field.Int("product_id").
			Immutable().
			Comment("The product."),
		field.Int("byproduct_id").
			Immutable().
			Comment("The byproduct."),
	}
}

// Edges: the product (the row goes with it) and the referenced row (in use
// while the row exists).
func (ProductByproduct) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("product", Product.Type).
			Ref("byproducts").
			Field("product_id").
			Unique().
			Required().
			Immutable(),
		edge.To("byproduct", Product.Type).
			Field("byproduct_id").
			Unique().
			Required().
			Immutable().
			Annotations(entsql.OnDelete(entsql.Restrict)),
	}
}

// Indexes: each reference once per product; the reverse lookup of a delete check.
func (ProductByproduct) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("account_id", "product_id", "byproduct_id").Unique(),
		index.Fields("byproduct_id"),
	}
}
