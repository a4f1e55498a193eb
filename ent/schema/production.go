package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"larder.dev/larder/hooks"
	"larder.dev/larder/internal/generators/annotate"
)

// Production is a production run: a quantity of a product made on a line
// into a lot, from planned component steps, consuming component lots when it
// completes. The API reads runs and changes their status; starting,
// completing and signing happen on the floor (the web application).
type Production struct{ ent.Schema }

// Mixin makes runs an account's, with audit timestamps.
func (Production) Mixin() []ent.Mixin { return []ent.Mixin{AccountMixin{}, TimeMixin{}} }

// productionStatuses are the statuses of a run (spec Production run).
var productionStatuses = []string{"PLANNED", "IN_PROGRESS", "IN_PROGRESS_TRANSFORMATION", "COMPLETED", "CANCELLED", "ON_HOLD", "QUARANTINE"}

// Fields of a run.
func (Production) Fields() []ent.Field {
	return []ent.Field{
		field.Int("production_no").
			Immutable().
			Comment("The run's number: per account, increasing and without gaps, given at creation.").
			Annotations(annotate.Output(), annotate.Sortable(), annotate.Searchable()),
		field.Enum("status").
			Values(productionStatuses...).
			Default("PLANNED").
			Comment("Where the run is. The status-change operation requests PLANNED, ON_HOLD, QUARANTINE or CANCELLED; starting and completing happen on the floor. Nothing leaves COMPLETED or CANCELLED, and a signed run no longer changes.").
			Annotations(
				annotate.RepeatableFilter("status"),
				annotate.Sortable(),
				annotate.States(
					annotate.From("PLANNED", "IN_PROGRESS", "IN_PROGRESS_TRANSFORMATION", "ON_HOLD", "QUARANTINE").
						To("PLANNED", "ON_HOLD", "QUARANTINE", "CANCELLED"),
					annotate.From("PLANNED", "ON_HOLD", "QUARANTINE").To("IN_PROGRESS"),
					annotate.From("IN_PROGRESS").To("IN_PROGRESS_TRANSFORMATION"),
					annotate.From("IN_PROGRESS", "IN_PROGRESS_TRANSFORMATION").To("COMPLETED"),
				).LockedBy("signed"),
			),
		field.Bool("signed").
			Default(false).
			Comment("Signed and locked in the web application: the run no longer changes.").
			Annotations(annotate.Hidden()),
		field.Int("product_id").
			Immutable().
			Comment("The product the run makes.").
			Annotations(annotate.Filterable()),
		field.Int("production_line_id").
			Optional().
			Nillable().
			Comment("The production line the run is made on.").
			Annotations(annotate.Filterable()),
		field.Int("location_id").
			Optional().
			Nillable().
			Comment("Where the run's output lot is placed."),
		field.String("lot_number").
			Optional().
			Nillable().
			Comment("The number of the lot the run makes.").
			Annotations(annotate.Len(1, 100), annotate.Filterable(), annotate.Searchable()),
		field.Time("start_date").
			Optional().
			Nillable().
			Comment("When the run started (UTC).").
			Annotations(annotate.Sortable()),
		field.Time("end_date").
			Optional().
			Nillable().
			Comment("When the run completed (UTC).").
			Annotations(annotate.Sortable()),
		field.Time("expiration_date").
			Optional().
			Nillable().
			Comment("When the run's output expires (UTC)."),
		decimalField("production_qty_display_units", "Planned quantity, in the product's display unit."),
		decimalField("produced_qty_display_units", "Produced quantity, in the product's display unit."),
	}
}

// Edges of a run: its product, line and place, its planned and consumed
// steps, and its routing. Every reference restricts deletion, so a product,
// line, location, lot, operation or equipment a run uses is in use.
func (Production) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("product", Product.Type).
			Field("product_id").
			Unique().
			Required().
			Immutable().
			Annotations(entsql.OnDelete(entsql.Restrict)),
		edge.To("production_line", ProductionLine.Type).
			Field("production_line_id").
			Unique().
			Annotations(entsql.OnDelete(entsql.Restrict)),
		edge.To("location", Location.Type).
			Field("location_id").
			Unique().
			Annotations(entsql.OnDelete(entsql.Restrict)),
		edge.To("planned_steps", ProductionPlannedStep.Type).
			Comment("The components the run plans to consume.").
			Annotations(entsql.OnDelete(entsql.Restrict), annotate.Entries("planned_steps").SingleOnly()),
		edge.To("consumed_steps", ProductionConsumedStep.Type).
			Comment("The component lots the run consumed.").
			Annotations(entsql.OnDelete(entsql.Restrict), annotate.Entries("consumed_steps").SingleOnly()),
		edge.To("operations", ProductionOperation.Type).
			Comment("The run's routing, copied from the recipe when planned (internal).").
			Annotations(entsql.OnDelete(entsql.Restrict)),
	}
}

// Hooks number a new run.
func (Production) Hooks() []ent.Hook {
	return []ent.Hook{hooks.NumberDocument("production_no")}
}

// Indexes back filters and sorts; numbers are unique per account.
func (Production) Indexes() []ent.Index {
	return append(tenantIndexes("status", "product_id", "production_line_id", "lot_number", "start_date", "end_date"),
		index.Fields("account_id", "production_no").Unique(),
		index.Fields("location_id"),
	)
}

// Annotations expose runs at /productions with their status-change operation.
func (Production) Annotations() []schema.Annotation {
	return []schema.Annotation{
		annotate.Expose("productions", "production_id", annotate.Manufacturing, annotate.List, annotate.Read).
			Emits("created", "updated", "status_changed", "completed", "cancelled").
			With(
				annotate.Act("status", "changeProductionStatus", "Change a production run's status").
					Taking("status").
					Requesting("PLANNED", "ON_HOLD", "QUARANTINE", "CANCELLED").
					Describe("Moves the run to PLANNED, ON_HOLD, QUARANTINE or CANCELLED. 409 INVALID_STATE from COMPLETED or CANCELLED and for a signed run; starting and completing happen on the floor. The answer carries no steps."),
			).
			Describe("Production runs: a product made on a line into a lot, with planned and consumed steps. Starting, completing and signing happen in the web application."),
	}
}
