package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"larder.dev/larder/internal/generators/annotate"
)

// IdempotencyKey records a create made with an Idempotency-Key header (spec
// Common rules): inserted before the work starts, so a concurrent duplicate
// finds it; completed in the work's transaction with the first answer, which
// a retry with the same body replays. Kept 24 hours.
type IdempotencyKey struct{ ent.Schema }

// Mixin makes keys an account's: the same key in two accounts is two keys.
func (IdempotencyKey) Mixin() []ent.Mixin { return []ent.Mixin{AccountMixin{}} }

// Fields of a key record.
func (IdempotencyKey) Fields() []ent.Field {
	return []ent.Field{
		field.String("key").
			Immutable().
			Comment("The Idempotency-Key header, at most 200 characters."),
		field.String("operation").
			Immutable().
			Comment("The operation the key was first used with."),
		field.String("fingerprint").
			Immutable().
			Comment("SHA-256 of the first request's body: a retry must send the same."),
		field.Bool("done").
			Default(false).
			Comment("Whether the first request's work committed."),
		field.Int("status").
			Optional().
			Nillable().
			Comment("HTTP status of the first answer."),
		field.Bytes("response").
			Optional().
			Nillable().
			Comment("Body of the first answer."),
		field.Time("started_at").
			Comment("When the work (last) started."),
		field.String("holder").
			Default("").
			Comment("The claim of the request doing the work: only it may complete or release the key."),
		field.Time("lease_until").
			Optional().
			Nillable().
			Comment("When the claim lapses: its request's deadline plus the release's grace; a retry takes over a claim past it, or sooner one whose request has ended. Unset on keys claimed before leases: a minute after started_at."),
		field.Time("created_at").
			Immutable().
			Comment("When the key was first used; it expires 24 hours later."),
	}
}

// Indexes: one record per account and key; pruning by age.
func (IdempotencyKey) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("account_id", "key").Unique(),
		index.Fields("created_at"),
	}
}

// Annotations keep key records out of the API.
func (IdempotencyKey) Annotations() []schema.Annotation {
	return []schema.Annotation{annotate.Internal()}
}
