package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// ProductTag is a join row: a tag on a product.
type ProductTag struct{ ent.Schema }

// Mixin makes the row belong to the product's account.
func (ProductTag) Mixin() []ent.Mixin { return []ent.Mixin{AccountMixin{}} }

// Fields of the join row.
func (ProductTag) Fields() []ent.Field {
	return []ent.Field{
		field.Int("product_id").
			Immutable().
			Comment("The product."),
		field.Int("tag_id").
			Immutable().
			Comment("The tag."),
	}
}

// Edges: the product (the row goes with it) and the referenced row (in use
// while the row exists).
func (ProductTag) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("product", Product.Type).
			Ref("tags").
			Field("product_id").
			Unique().
			Required().
			Immutable(),
		edge.To("tag", Tag.Type).
			Field("tag_id").
			Unique().
			Required().
			Immutable().
			Annotations(entsql.OnDelete(entsql.Restrict)),
	}
}

// Indexes: each reference once per product; the reverse lookup of a delete check.
func (ProductTag) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("account_id", "product_id", "tag_id").Unique(),
		index.Fields("tag_id"),
	}
}
