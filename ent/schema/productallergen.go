package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"larder.dev/larder/internal/generators/annotate"
)

// ProductAllergen is a join row: an allergen of a product and where it comes from.
type ProductAllergen struct{ ent.Schema }

// Mixin makes the row belong to the product's account.
func (ProductAllergen) Mixin() []ent.Mixin { return []ent.Mixin{AccountMixin{}} }

// Fields of the join row.
func (ProductAllergen) Fields() []ent.Field {
	return []ent.Field{
		field.Int("product_id").
			Immutable().
			Comment("The product."),
		field.Int("allergen_id").
			Immutable().
			Comment("The allergen.").
			Annotations(annotate.Borrow("code", "is_major_allergen", "name")),
		field.String("source").
			Default("declared").
			Comment("Where the allergen comes from: declared (recorded directly on the product) or an ingredient's product code."),
	}
}

// Edges: the product (the row goes with it) and the referenced row (in use
// while the row exists).
func (ProductAllergen) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("product", Product.Type).
			Ref("allergens").
			Field("product_id").
			Unique().
			Required().
			Immutable(),
		edge.To("allergen", Allergen.Type).
			Field("allergen_id").
			Unique().
			Required().
			Immutable().
			Annotations(entsql.OnDelete(entsql.Restrict)),
	}
}

// Indexes: each reference once per product; the reverse lookup of a delete check.
func (ProductAllergen) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("account_id", "product_id", "allergen_id").Unique(),
		index.Fields("allergen_id"),
	}
}
