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

// Session is a signed-in person's session in the console. The cookie holds a
// random 256-bit token; only its SHA-256 is stored, so the table's contents
// sign nobody in.
type Session struct{ ent.Schema }

// Fields of a session.
func (Session) Fields() []ent.Field {
	return []ent.Field{
		field.String("token_hash").
			Immutable().
			Unique().
			Sensitive().
			Comment("Hex SHA-256 of the cookie's token."),
		field.Int("user_id").
			Immutable().
			Comment("The person signed in."),
		field.Time("created_at").
			Default(now).
			Immutable().
			Comment("When the session began."),
		field.Time("last_seen_at").
			Comment("When the session was last used (to the minute): it ends after the idle lifetime without use."),
		field.Time("expires_at").
			Immutable().
			Comment("When the session ends however it is used (the absolute lifetime)."),
		field.Time("verified_at").
			Optional().
			Nillable().
			Comment("When the second factor was given; empty while the session waits for it (it then opens no page)."),
		field.String("address").
			Default("").
			MaxLen(64).
			Immutable().
			Comment("The client address the session began from."),
		field.String("user_agent").
			Default("").
			MaxLen(256).
			Immutable().
			Comment("The browser the session began in."),
		field.Enum("env").
			Values("live", "test").
			Optional().
			Nillable().
			Comment("The environment (live or test) the person chose to see in the console; empty until they choose, when the console shows test data while the organization has no live key."),
	}
}

// Edges of a session.
func (Session) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("user", User.Type).
			Field("user_id").
			Unique().
			Required().
			Immutable().
			Annotations(entsql.OnDelete(entsql.Cascade)),
	}
}

// Indexes of sessions: a person's sessions, and the expired ones to prune.
func (Session) Indexes() []ent.Index {
	return []ent.Index{index.Fields("user_id"), index.Fields("expires_at")}
}

// Annotations keep sessions out of the API; on a distributed PostgreSQL the
// table is a local table, on the coordinator (docs/scaling.md).
func (Session) Annotations() []schema.Annotation {
	return []schema.Annotation{annotate.Internal(), annotate.Place(annotate.Local)}
}

// Mixin makes it system-only.
func (Session) Mixin() []ent.Mixin { return []ent.Mixin{SystemOnlyMixin{}} }
