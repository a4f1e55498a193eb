package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"

	"larder.dev/larder/internal/generators/annotate"
)

// QCUnitOfMeasure is a unit a QC checkpoint measures in (°C, pH, °Bx).
type QCUnitOfMeasure struct{ ent.Schema }

// Mixin makes QC units shared reference rows.
func (QCUnitOfMeasure) Mixin() []ent.Mixin {
	return []ent.Mixin{AccountMixin{Shared: true}, TimeMixin{}}
}

// Fields of a QC unit of measure.
func (QCUnitOfMeasure) Fields() []ent.Field {
	return []ent.Field{
		field.String("code").
			Comment("Short code, unique.").
			Annotations(annotate.Filterable(), annotate.Sortable(), annotate.Searchable()),
		field.String("name").
			Comment("Display name.").
			Annotations(annotate.PartialFilter(), annotate.Sortable(), annotate.Searchable()),
	}
}

// Indexes back the filters and sorts; codes are unique.
func (QCUnitOfMeasure) Indexes() []ent.Index {
	return append(tenantIndexes("name"), uniqueCode(), uniqueSharedCode())
}

// Annotations expose QC units at /qc-units-of-measure; on a distributed
// PostgreSQL the table is a reference table (docs/scaling.md).
func (QCUnitOfMeasure) Annotations() []schema.Annotation {
	return []schema.Annotation{
		annotate.Expose("qc-units-of-measure", "qc_uom_id", annotate.Catalog, annotate.ReadOnlyOps...).
			Named("QCUnitOfMeasure").
			Describe("Units QC checkpoints measure in, shared by every account."),
		entsql.Annotation{Table: "qc_units_of_measure"},
		annotate.Place(annotate.Reference),
	}
}
