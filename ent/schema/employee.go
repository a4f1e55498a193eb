package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"

	"larder.dev/larder/internal/generators/annotate"
)

// Employee is a person working in the plant. The API reads employees; they
// are written in the web application (and by seeding).
type Employee struct{ ent.Schema }

// Mixin makes employees an account's, with audit timestamps.
func (Employee) Mixin() []ent.Mixin { return []ent.Mixin{AccountMixin{}, TimeMixin{}} }

// Fields of an employee.
func (Employee) Fields() []ent.Field {
	return []ent.Field{
		field.Bool("active").
			Default(true).
			Comment("Whether the employee currently works in the plant."),
		field.String("code").
			Comment("Employee code, unique within the account.").
			Annotations(annotate.Sortable(), annotate.Searchable()),
		field.String("email").
			Optional().
			Nillable().
			Comment("Work e-mail address.").
			Annotations(annotate.Searchable()),
		field.String("first_name").
			Comment("Given name.").
			Annotations(annotate.Searchable()),
		field.String("last_name").
			Comment("Family name.").
			Annotations(annotate.Sortable(), annotate.Searchable()),
	}
}

// Indexes back the sorts; codes are unique per account.
func (Employee) Indexes() []ent.Index {
	return append(tenantIndexes("last_name"), uniqueCode())
}

// Annotations expose employees at /employees, read-only.
func (Employee) Annotations() []schema.Annotation {
	return []schema.Annotation{
		annotate.Expose("employees", "employee_id", annotate.Manufacturing, annotate.ReadOnlyOps...).
			Describe("Employees of the plant. Read-only through the API; they are managed in the web application."),
	}
}
