package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"larder.dev/larder/internal/generators/annotate"
)

// RateWindow counts requests of one bucket (an account, or a client IP's failed
// authentications) in one fixed one-minute window. PostgreSQL keeps the table
// UNLOGGED: counters are worth less than the writes a WAL would cost.
type RateWindow struct{ ent.Schema }

// Fields of a rate window.
func (RateWindow) Fields() []ent.Field {
	return []ent.Field{
		field.String("bucket").
			Immutable().
			Comment("What is counted: acct:<id> or ip:<address>."),
		field.Int64("window_start").
			Immutable().
			Comment("Unix second at which the window opened."),
		field.Int("hits").
			Default(0).
			Comment("Requests counted in the window."),
	}
}

// Indexes: one counter per bucket and window.
func (RateWindow) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("bucket", "window_start").Unique(),
		index.Fields("window_start"),
	}
}

// Annotations keep the counters out of the API; on a distributed PostgreSQL
// the table is a local table, on the coordinator (docs/scaling.md).
func (RateWindow) Annotations() []schema.Annotation {
	return []schema.Annotation{annotate.Internal(), annotate.Place(annotate.Local)}
}

// Mixin makes it system-only.
func (RateWindow) Mixin() []ent.Mixin { return []ent.Mixin{SystemOnlyMixin{}} }
