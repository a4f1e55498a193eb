package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"

	"larder.dev/larder/internal/generators/annotate"
)

// Country is an ISO 3166-1 country, shared by every account.
type Country struct{ ent.Schema }

// Mixin makes countries shared reference rows.
func (Country) Mixin() []ent.Mixin { return []ent.Mixin{AccountMixin{Shared: true}, TimeMixin{}} }

// Fields of a country.
func (Country) Fields() []ent.Field {
	return []ent.Field{
		field.String("code").
			Comment("ISO 3166-1 alpha-2 code.").
			Annotations(annotate.Filterable(), annotate.Sortable(), annotate.Searchable()),
		field.String("name").
			Comment("English short name.").
			Annotations(annotate.PartialFilter(), annotate.Sortable(), annotate.Searchable()),
		field.String("name_fr").
			Comment("French short name.").
			Annotations(annotate.Searchable()),
	}
}

// Indexes back the filters and sorts; codes are unique.
func (Country) Indexes() []ent.Index {
	return append(tenantIndexes("name"), uniqueCode(), uniqueSharedCode())
}

// Annotations expose countries at /countries; on a distributed PostgreSQL the
// table is a reference table (docs/scaling.md).
func (Country) Annotations() []schema.Annotation {
	return []schema.Annotation{
		annotate.Expose("countries", "country_id", annotate.Catalog, annotate.ReadOnlyOps...).
			Describe("Countries (ISO 3166-1), shared by every account."),
		annotate.Place(annotate.Reference),
	}
}
