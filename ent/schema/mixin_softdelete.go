package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
	"entgo.io/ent/schema/mixin"

	"larder.dev/larder/internal/generators/annotate"
)

// SoftDeleteMixin makes a DELETE of the resource a soft delete: it sets
// deleted_at instead of removing the row, so the records that reference the row
// keep it, while the API no longer shows it (lists, reads, updates, deletes and
// references from bodies see only rows where deleted_at is null; see
// annotate.SoftDelete). Unique values must be unique among the rows that are not
// deleted: declare them with liveUnique.
type SoftDeleteMixin struct{ mixin.Schema }

// Fields returns deleted_at.
func (SoftDeleteMixin) Fields() []ent.Field {
	return []ent.Field{
		field.Time("deleted_at").
			Optional().
			Nillable().
			Comment("When the record was deleted through the API (UTC); null while it is in use.").
			Annotations(annotate.SoftDelete()),
	}
}

// notDeleted is the predicate of the rows a soft-deleting schema shows.
const notDeleted = "deleted_at IS NULL"

// liveUnique makes fields unique within an account among the rows that are
// not soft-deleted, so a deleted row's name does not block a new row's.
func liveUnique(fields ...string) ent.Index {
	return index.Fields(append([]string{"account_id"}, fields...)...).
		Unique().
		Annotations(entsql.IndexWhere(notDeleted))
}
