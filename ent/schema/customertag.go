package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// CustomerTag is a join row: a tag on a customer.
type CustomerTag struct{ ent.Schema }

// Mixin makes the row belong to the customer's account.
func (CustomerTag) Mixin() []ent.Mixin { return []ent.Mixin{AccountMixin{}} }

// Fields of the join row.
func (CustomerTag) Fields() []ent.Field {
	return []ent.Field{
		field.Int("customer_id").
			Immutable().
			Comment("The customer."),
		field.Int("tag_id").
			Immutable().
			Comment("The tag."),
	}
}

// Edges: the product (the row goes with it) and the referenced row (in use
// while the row exists).
func (CustomerTag) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("customer", Customer.Type).
			Ref("tags").
			Field("customer_id").
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

// Indexes: each reference once per customer; the reverse lookup of a delete check.
func (CustomerTag) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("account_id", "customer_id", "tag_id").Unique(),
		index.Fields("tag_id"),
	}
}
