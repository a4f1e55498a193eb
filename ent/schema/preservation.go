package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"

	"larder.dev/larder/internal/generators/annotate"
)

// Preservation is a storage or preservation method (refrigerated, frozen).
type Preservation struct{ ent.Schema }

// Mixin makes preservations shared reference rows.
func (Preservation) Mixin() []ent.Mixin {
	return []ent.Mixin{AccountMixin{Shared: true}, TimeMixin{}}
}

// Fields of a preservation.
func (Preservation) Fields() []ent.Field {
	return []ent.Field{
		field.String("code").
			Comment("Short code, unique.").
			Annotations(annotate.Filterable(), annotate.Sortable(), annotate.Searchable()),
		field.String("description").
			Optional().
			Nillable().
			Comment("How the product is kept."),
		field.String("name").
			Optional().
			Nillable().
			Comment("Display name.").
			Annotations(annotate.PartialFilter(), annotate.Sortable(), annotate.Searchable()),
	}
}

// Indexes back the filters and sorts; codes are unique.
func (Preservation) Indexes() []ent.Index {
	return append(tenantIndexes("name"), uniqueCode(), uniqueSharedCode())
}

// Annotations expose preservations at /preservations; on a distributed
// PostgreSQL the table is a reference table (docs/scaling.md).
func (Preservation) Annotations() []schema.Annotation {
	return []schema.Annotation{
		annotate.Expose("preservations", "preservation_id", annotate.Catalog, annotate.ReadOnlyOps...).
			Describe("Preservation and storage methods, shared by every account."),
		annotate.Place(annotate.Reference),
	}
}
