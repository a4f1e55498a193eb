package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// ProductBannedCountry is a join row: a country a material may not come from.
type ProductBannedCountry struct{ ent.Schema }

// Mixin makes the row belong to the product's account.
func (ProductBannedCountry) Mixin() []ent.Mixin { return []ent.Mixin{AccountMixin{}} }

// Fields of the join row.
func (ProductBannedCountry) Fields() []ent.Field {
	return []ent.Field{
		field.Int("product_id").
			Immutable().
			Comment("The product."),
		field.Int("country_id").
			Immutable().
			Comment("The country."),
	}
}

// Edges: the product (the row goes with it) and the referenced row (in use
// while the row exists).
func (ProductBannedCountry) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("product", Product.Type).
			Ref("banned_countries").
			Field("product_id").
			Unique().
			Required().
			Immutable(),
		edge.To("country", Country.Type).
			Field("country_id").
			Unique().
			Required().
			Immutable().
			Annotations(entsql.OnDelete(entsql.Restrict)),
	}
}

// Indexes: each reference once per product; the reverse lookup of a delete check.
func (ProductBannedCountry) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("account_id", "product_id", "country_id").Unique(),
		index.Fields("country_id"),
	}
}
