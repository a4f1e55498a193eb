package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"

	"larder.dev/larder/internal/generators/annotate"
)

// TaxRate is a sales tax setting: up to two rates, in percent, with their
// labels (GST and QST, say). The API reads tax rates; they are written in the
// web application (and by seeding).
type TaxRate struct{ ent.Schema }

// Mixin makes tax rates an account's, with audit timestamps.
func (TaxRate) Mixin() []ent.Mixin { return []ent.Mixin{AccountMixin{}, TimeMixin{}} }

// Fields of a tax rate (spec Small resources).
func (TaxRate) Fields() []ent.Field {
	return []ent.Field{
		field.String("code").
			Optional().
			Nillable().
			Comment("Short code, unique within the account.").
			Annotations(annotate.Sortable(), annotate.Searchable()),
		field.String("description").
			Optional().
			Nillable().
			Comment("Free-text description.").
			Annotations(annotate.Searchable()),
		field.String("name").
			Optional().
			Nillable().
			Comment("Display name.").
			Annotations(annotate.PartialFilter(), annotate.Sortable(), annotate.Searchable()),
		decimalField("tax_rate1", "First rate, in percent."),
		field.String("tax_rate1_label").
			Optional().
			Nillable().
			Comment("Label of the first rate (e.g. GST)."),
		decimalField("tax_rate2", "Second rate, in percent."),
		field.String("tax_rate2_label").
			Optional().
			Nillable().
			Comment("Label of the second rate (e.g. QST)."),
	}
}

// Indexes back the filter and sorts; a code is unique within the account
// (rows without one are not constrained), so that the app's list import
// finds a row by it.
func (TaxRate) Indexes() []ent.Index { return append(tenantIndexes("name"), uniqueCode()) }

// Annotations expose tax rates at /tax-rates, read-only.
func (TaxRate) Annotations() []schema.Annotation {
	return []schema.Annotation{
		annotate.Expose("tax-rates", "tax_rate_id", annotate.Sales, annotate.ReadOnlyOps...).
			Describe("Sales tax rates. Read-only through the API; they are managed in the web application."),
	}
}
