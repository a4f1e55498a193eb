package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"

	"larder.dev/larder/internal/generators/annotate"
)

// QCCheckpoint is a quality check a recipe's batches go through.
type QCCheckpoint struct{ ent.Schema }

// Mixin makes QC checkpoints an account's, with audit timestamps.
func (QCCheckpoint) Mixin() []ent.Mixin { return []ent.Mixin{AccountMixin{}, TimeMixin{}} }

// Fields of a QC checkpoint.
func (QCCheckpoint) Fields() []ent.Field {
	return []ent.Field{
		field.String("code").
			Comment("Short code, unique within the account.").
			Annotations(annotate.Filterable(), annotate.Sortable(), annotate.Searchable()),
		field.String("description").
			Optional().
			Nillable().
			Comment("What to check and how."),
		field.Enum("input_type").
			Values("RANGE", "YES_NO", "CHECKBOX", "RADIO", "TEXTAREA", "NUMBER").
			Optional().
			Nillable().
			Comment("How the result is entered.").
			Annotations(annotate.Filterable()),
		field.Bool("is_critical").
			Default(false).
			Comment("Failing the checkpoint blocks the batch."),
		field.String("name").
			Comment("Display name.").
			Annotations(annotate.PartialFilter(), annotate.Sortable(), annotate.Searchable()),
		field.Enum("pass_value").
			Values("YES", "NO").
			Optional().
			Nillable().
			Comment("The passing answer of a YES_NO checkpoint."),
		field.Int("qc_unit_of_measure_id").
			Optional().
			Nillable().
			Comment("Unit the result is measured in."),
	}
}

// Edges of a QC checkpoint.
func (QCCheckpoint) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("qc_unit_of_measure", QCUnitOfMeasure.Type).
			Field("qc_unit_of_measure_id").
			Unique().
			Annotations(entsql.OnDelete(entsql.Restrict)),
	}
}

// Indexes back the filters and sorts; codes are unique per account.
func (QCCheckpoint) Indexes() []ent.Index {
	return append(tenantIndexes("name", "input_type", "qc_unit_of_measure_id"), uniqueCode())
}

// Annotations expose QC checkpoints at /qc-checkpoints, read-only.
func (QCCheckpoint) Annotations() []schema.Annotation {
	return []schema.Annotation{
		annotate.Expose("qc-checkpoints", "qc_id", annotate.Catalog, annotate.ReadOnlyOps...).
			Named("QCCheckpoint").
			SearchNotCombinable().
			Describe("Quality-control checkpoints of the account's recipes."),
	}
}
