package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// ProductSupplier is a join row: a supplier of a material.
type ProductSupplier struct{ ent.Schema }

// Mixin makes the row belong to the product's account.
func (ProductSupplier) Mixin() []ent.Mixin { return []ent.Mixin{AccountMixin{}} }

// Fields of the join row.
func (ProductSupplier) Fields() []ent.Field {
	return []ent.Field{
		field.Int("product_id").
			Immutable().
			Comment("The product."),
		field.Int("supplier_id").
			Immutable().
			Comment("The supplier."),
	}
}

// Edges: the product (the row goes with it) and the referenced row (in use
// while the row exists).
func (ProductSupplier) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("product", Product.Type).
			Ref("suppliers").
			Field("product_id").
			Unique().
			Required().
			Immutable(),
		edge.To("supplier", Supplier.Type).
			Field("supplier_id").
			Unique().
			Required().
			Immutable().
			Annotations(entsql.OnDelete(entsql.Restrict)),
	}
}

// Indexes: each reference once per product; the reverse lookup of a delete check.
func (ProductSupplier) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("account_id", "product_id", "supplier_id").Unique(),
		index.Fields("supplier_id"),
	}
}
