package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"larder.dev/larder/internal/generators/annotate"
)

// UserLink is a one-time link where a person sets a password: an invitation
// or a password reset. The link holds a random token; only its SHA-256 is
// stored. It works once, before it expires.
type UserLink struct{ ent.Schema }

// Fields of a one-time link.
func (UserLink) Fields() []ent.Field {
	return []ent.Field{
		field.String("token_hash").
			Immutable().
			Unique().
			Sensitive().
			Comment("Hex SHA-256 of the link's token."),
		field.Int("user_id").
			Immutable().
			Comment("The person the link is for."),
		field.Enum("purpose").
			Values("invitation", "password_reset").
			Immutable().
			Comment("Why the link was made."),
		field.Time("created_at").
			Default(now).
			Immutable().
			Comment("When the link was made."),
		field.Time("expires_at").
			Immutable().
			Comment("When the link stops working."),
		field.Time("used_at").
			Optional().
			Nillable().
			Comment("When the link was followed; a used link never works again."),
	}
}

// Edges of a one-time link.
func (UserLink) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("user", User.Type).
			Field("user_id").
			Unique().
			Required().
			Immutable().
			Annotations(entsql.OnDelete(entsql.Cascade)),
	}
}

// Indexes of one-time links: a person's links.
func (UserLink) Indexes() []ent.Index {
	return []ent.Index{index.Fields("user_id")}
}

// Annotations keep the links out of the API; on a distributed PostgreSQL the
// table is a local table, on the coordinator (docs/scaling.md).
func (UserLink) Annotations() []schema.Annotation {
	return []schema.Annotation{annotate.Internal(), annotate.Place(annotate.Local)}
}

// Mixin makes it system-only.
func (UserLink) Mixin() []ent.Mixin { return []ent.Mixin{SystemOnlyMixin{}} }
