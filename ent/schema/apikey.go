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

// APIKey is a secret that authenticates API calls for one account. Only the
// SHA-256 of the key is stored; the key itself is shown once, at creation.
type APIKey struct{ ent.Schema }

// Fields of an API key.
func (APIKey) Fields() []ent.Field {
	return []ent.Field{
		field.Int("account_id").
			Immutable().
			Comment("The account the key works against."),
		field.String("name").
			Default("").
			Comment("A label for people managing keys."),
		field.String("prefix").
			Immutable().
			Comment("The environment prefix, key_live_ or key_test_."),
		field.String("last4").
			Immutable().
			Comment("The key's last four characters, for recognising it."),
		field.String("secret_hash").
			Immutable().
			Unique().
			Sensitive().
			Comment("Hex SHA-256 of the whole key."),
		field.Strings("scopes").
			SchemaType(jsonText).
			Comment("Granted scopes.").
			Annotations(annotate.Internal()),
		field.Time("created_at").
			Default(now).
			Immutable().
			Comment("When the key was created."),
		field.Time("last_used_at").
			Optional().
			Nillable().
			Comment("When the key last authenticated a request (minute precision)."),
		field.Time("expires_at").
			Optional().
			Nillable().
			Comment("When the key stops working (end of a rotation's grace period)."),
		field.Time("revoked_at").
			Optional().
			Nillable().
			Comment("When the key was revoked; a revoked key never works again."),
		field.Int("replaces_id").
			Optional().
			Nillable().
			Immutable().
			Comment("The key this one replaced by rotation."),
	}
}

// Edges of an API key.
func (APIKey) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("account", Account.Type).
			Field("account_id").
			Unique().
			Required().
			Immutable().
			Annotations(entsql.OnDelete(entsql.Restrict)),
		// A rotation links the new key to the old one; a key is replaced at most
		// once, which the unique column enforces even against concurrent rotations.
		edge.To("replaced_by", APIKey.Type).
			Unique().
			Annotations(entsql.OnDelete(entsql.Restrict)).
			From("replaces").
			Unique().
			Field("replaces_id").
			Immutable(),
	}
}

// Indexes of API keys.
func (APIKey) Indexes() []ent.Index {
	return []ent.Index{index.Fields("account_id", "created_at")}
}

// Annotations keep keys out of the API; on a distributed PostgreSQL the table
// is a reference table (docs/scaling.md).
func (APIKey) Annotations() []schema.Annotation {
	return []schema.Annotation{annotate.Internal(), entsql.Annotation{Table: "api_keys"}, annotate.Place(annotate.Reference)}
}

// Mixin makes it system-only.
func (APIKey) Mixin() []ent.Mixin { return []ent.Mixin{SystemOnlyMixin{}} }
