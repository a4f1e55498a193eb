package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"

	"larder.dev/larder/internal/generators/annotate"
)

// Salesperson is a person who sells for the account. The API reads
// salespersons; they are written in the web application (and by seeding).
type Salesperson struct{ ent.Schema }

// Mixin makes salespersons an account's, with audit timestamps.
func (Salesperson) Mixin() []ent.Mixin { return []ent.Mixin{AccountMixin{}, TimeMixin{}} }

// Fields of a salesperson (spec Small resources).
func (Salesperson) Fields() []ent.Field {
	return []ent.Field{
		field.Bool("active").
			Default(true).
			Comment("Whether the salesperson currently sells for the account.").
			Annotations(annotate.Filterable()),
		field.String("code").
			Optional().
			Nillable().
			Comment("Short code, unique within the account.").
			Annotations(annotate.Sortable(), annotate.Searchable()),
		field.String("email").
			Optional().
			Nillable().
			Comment("E-mail address.").
			Annotations(annotate.PartialFilter(), annotate.Searchable()),
		field.String("first_name").
			Optional().
			Nillable().
			Comment("Given name.").
			Annotations(annotate.PartialFilter(), annotate.Sortable(), annotate.Searchable()),
		field.String("last_name").
			Optional().
			Nillable().
			Comment("Family name.").
			Annotations(annotate.PartialFilter(), annotate.Sortable(), annotate.Searchable()),
	}
}

// Indexes back the filters and sorts; a code is unique within the account
// (rows without one are not constrained), so that the app's list import
// finds a row by it.
func (Salesperson) Indexes() []ent.Index {
	return append(tenantIndexes("active", "email", "first_name", "last_name"), uniqueCode())
}

// Annotations expose salespersons at /salespersons, read-only.
func (Salesperson) Annotations() []schema.Annotation {
	return []schema.Annotation{
		annotate.Expose("salespersons", "salesperson_id", annotate.Sales, annotate.ReadOnlyOps...).
			Describe("Salespersons. Read-only through the API; they are managed in the web application."),
	}
}
