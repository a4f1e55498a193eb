package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"

	"larder.dev/larder/hooks"
	"larder.dev/larder/internal/generators/annotate"
)

// UnitOfMeasure is a unit quantities are counted in. Shared units are supplied
// to every account; an account adds its own.
type UnitOfMeasure struct{ ent.Schema }

// Mixin makes units an account's or shared, with audit timestamps.
func (UnitOfMeasure) Mixin() []ent.Mixin {
	return []ent.Mixin{AccountMixin{Shared: true}, TimeMixin{}}
}

// Fields of a unit of measure.
func (UnitOfMeasure) Fields() []ent.Field {
	return []ent.Field{
		field.String("code").
			Immutable().
			Comment("Short code, unique across the account's own and the shared units; cannot change.").
			Annotations(annotate.Len(1, 40), annotate.Sortable(), annotate.Searchable()),
		field.String("name").
			Comment("Display name.").
			Annotations(annotate.Len(1, 100), annotate.Sortable(), annotate.Searchable()),
		field.Bool("read_only").
			Default(false).
			Immutable().
			Comment("Supplied unit that cannot be changed.").
			Annotations(annotate.Output(), annotate.Locks()),
		field.Float("weight_in_grams").
			Optional().
			Nillable().
			Comment("Grams per unit; 0 or null if the unit is not a weight.").
			Annotations(annotate.Required(), annotate.Min(0)),
	}
}

// Edges of a unit of measure: the records that count in it.
func (UnitOfMeasure) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("operations", Operation.Type).
			Ref("unit_of_measure"),
	}
}

// Hooks keep codes unique across own and shared units.
func (UnitOfMeasure) Hooks() []ent.Hook { return []ent.Hook{hooks.UnitCodeUnique()} }

// Indexes back the sorts; codes are unique per account.
func (UnitOfMeasure) Indexes() []ent.Index {
	return append(tenantIndexes("name"), uniqueCode(), uniqueSharedCode())
}

// Annotations expose units at /units-of-measure; on a distributed PostgreSQL
// the table is a reference table (docs/scaling.md).
func (UnitOfMeasure) Annotations() []schema.Annotation {
	return []schema.Annotation{
		entsql.Annotation{Table: "units_of_measure"},
		annotate.Expose("units-of-measure", "uom_id", annotate.Catalog, annotate.CRUD...).
			Emits("created", "updated", "deleted").
			Describe("Units of measure: the account's own plus the shared ones."),
		annotate.Place(annotate.Reference),
	}
}
