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

// User is a person who signs in to the console. A user belongs to one
// organization and has one role there; the password is stored only as an
// argon2id hash, the second factor's secret only sealed with the server's
// secret key when one is configured.
type User struct{ ent.Schema }

// Fields of a user.
func (User) Fields() []ent.Field {
	return []ent.Field{
		field.Int("organization_id").
			Immutable().
			Comment("The organization the person belongs to."),
		field.String("email").
			NotEmpty().
			MaxLen(254).
			Unique().
			Comment("The sign-in address, lower case; one person per address across the server."),
		field.Enum("role").
			Values("admin", "developer", "operator", "viewer").
			Comment("What the person may do: admin (people, settings and everything), developer (keys, webhooks, events, test data), operator (the plant's actions), viewer (reads)."),
		field.String("password_hash").
			Optional().
			Nillable().
			Sensitive().
			Comment("argon2id hash of the password in PHC form; empty until the person follows the invitation."),
		field.Time("password_changed_at").
			Optional().
			Nillable().
			Comment("When the password was last set."),
		field.String("totp_secret").
			Optional().
			Nillable().
			Sensitive().
			Comment("The second factor's shared secret (RFC 6238), sealed when a secret key is configured; set once confirmed."),
		field.String("totp_pending_secret").
			Optional().
			Nillable().
			Sensitive().
			Comment("A second factor being set up, until its first code confirms it."),
		field.Int64("totp_last_step").
			Default(0).
			Comment("The last accepted code's time step: a code is accepted once."),
		field.Int("totp_failures").
			Default(0).
			NonNegative().
			Comment("Wrong second-factor codes given in a row since the last right one: each waits longer for the next, and the tenth locks the second factor until an admin unlocks it."),
		field.Time("totp_failed_at").
			Optional().
			Nillable().
			Comment("When the last wrong second-factor code was given (the backoff counts from it)."),
		field.String("invited_by").
			Default("").
			MaxLen(254).
			Immutable().
			Comment("Who invited the person (a user's address or the CLI's actor)."),
		field.Time("created_at").
			Default(now).
			Immutable().
			Comment("When the person was invited."),
		field.Time("last_sign_in_at").
			Optional().
			Nillable().
			Comment("When the person last signed in."),
	}
}

// Edges of a user.
func (User) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("organization", Organization.Type).
			Field("organization_id").
			Unique().
			Required().
			Immutable().
			Annotations(entsql.OnDelete(entsql.Restrict)),
		edge.From("sessions", Session.Type).Ref("user"),
		edge.From("links", UserLink.Type).Ref("user"),
		edge.From("recovery_codes", RecoveryCode.Type).Ref("user"),
	}
}

// Indexes of users: an organization's people.
func (User) Indexes() []ent.Index {
	return []ent.Index{index.Fields("organization_id", "email")}
}

// Annotations keep users out of the API; on a distributed PostgreSQL the
// table is a local table, on the coordinator (docs/scaling.md).
func (User) Annotations() []schema.Annotation {
	return []schema.Annotation{annotate.Internal(), annotate.Place(annotate.Local)}
}

// Mixin makes it system-only.
func (User) Mixin() []ent.Mixin { return []ent.Mixin{SystemOnlyMixin{}} }
