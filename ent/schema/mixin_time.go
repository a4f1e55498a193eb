package schema

import (
	"time"

	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/mixin"

	"larder.dev/larder/internal/generators/annotate"
)

// now is the clock of every timestamp: UTC, at the microsecond precision both
// databases keep, so a value read back equals the value written.
func now() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }

// TimeMixin records when a row was created and last changed. Exposed adds both
// to the API (output only, sortable); otherwise they are kept for audit only.
type TimeMixin struct {
	mixin.Schema
	Exposed bool
}

// Fields returns created_at and updated_at.
func (m TimeMixin) Fields() []ent.Field {
	ann := annotate.Hidden()
	if m.Exposed {
		ann = annotate.Field{ReadOnly: true, Sort: true}
	}
	return []ent.Field{
		field.Time("created_at").
			Default(now).
			Immutable().
			Comment("When the record was created (UTC).").
			Annotations(ann),
		field.Time("updated_at").
			Default(now).
			UpdateDefault(now).
			Comment("When the record last changed (UTC).").
			Annotations(ann),
	}
}
