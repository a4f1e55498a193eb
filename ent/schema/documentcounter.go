package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"larder.dev/larder/internal/generators/annotate"
)

// DocumentCounter is the last number an account gave a kind of document
// (production_no). The creating transaction increments it with an upsert that
// locks the row until it ends, so numbers are increasing and without gaps:
// concurrent creations wait for each other and a rolled-back creation gives
// its number back.
type DocumentCounter struct{ ent.Schema }

// Mixin makes counters an account's.
func (DocumentCounter) Mixin() []ent.Mixin { return []ent.Mixin{AccountMixin{}} }

// Fields of a counter.
func (DocumentCounter) Fields() []ent.Field {
	return []ent.Field{
		field.String("document").
			Immutable().
			Comment("The numbered field (production_no)."),
		field.Int("last").
			Default(0).
			Comment("The last number given."),
	}
}

// Indexes: one counter per account and document.
func (DocumentCounter) Indexes() []ent.Index {
	return []ent.Index{index.Fields("account_id", "document").Unique()}
}

// Annotations keep counters out of the API.
func (DocumentCounter) Annotations() []schema.Annotation {
	return []schema.Annotation{annotate.Internal()}
}
