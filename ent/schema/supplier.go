package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"larder.dev/larder/hooks"
	"larder.dev/larder/internal/generators/annotate"
)

// Supplier is a company the account buys from. Approval and certification
// are recorded in the web application (the admin CLI), never through the API.
type Supplier struct{ ent.Schema }

// Mixin makes suppliers an account's, with exposed timestamps.
func (Supplier) Mixin() []ent.Mixin { return []ent.Mixin{AccountMixin{}, TimeMixin{Exposed: true}} }

// Approval statuses (spec Supplier): a new supplier is PENDING.
var approvalStatuses = []string{"PENDING", "APPROVED", "REJECTED", "SUSPENDED"}

// Certification schemes (spec Supplier): NONE means the supplier holds none;
// null means not recorded.
var certificationSchemes = []string{"SQF", "BRC", "GFSI", "SSC22000", "IFS", "GLOBALGAP", "PRIMUS", "GFSCANADA", "GAP", "OTHER", "NONE"}

// Fields of a supplier.
func (Supplier) Fields() []ent.Field {
	return []ent.Field{
		field.Bool("active").
			Default(true).
			Comment("Whether the supplier is in use. Deleting a supplier with purchasing history sets it to false.").
			Annotations(annotate.Filterable()),
		addressField("address", "The supplier's address."),
		field.Time("approval_expiry").
			Optional().
			Nillable().
			Comment("When the approval ends (UTC); after it the supplier reads PENDING. Set in the web application.").
			Annotations(annotate.Output()),
		field.Enum("approval_status").
			Values(approvalStatuses...).
			Default("PENDING").
			Comment("Approval, computed when read: an expired approval reads PENDING. Set in the web application; a new supplier starts PENDING.").
			Annotations(annotate.Output()),
		field.Time("certification_expires_on").
			Optional().
			Nillable().
			Comment("When the certification expires. Set in the web application.").
			Annotations(annotate.Output(), annotate.Date()),
		field.Enum("certification_scheme").
			Values(certificationSchemes...).
			Optional().
			Nillable().
			Comment("The food-safety certification the supplier holds: NONE means it holds none; null means not recorded. Set in the web application.").
			Annotations(annotate.Output()),
		field.String("company").
			Optional().
			Nillable().
			Comment("Company name.").
			Annotations(annotate.Required(), annotate.NotNull(), annotate.Len(1, 100), annotate.PartialFilter(), annotate.Sortable(), annotate.Searchable()),
		field.String("contact_name").
			Optional().
			Nillable().
			Comment("The contact person.").
			Annotations(annotate.MaxLen(100)),
		field.String("email").
			Optional().
			Nillable().
			Comment("E-mail address.").
			Annotations(annotate.MaxLen(100), annotate.PartialFilter()),
		field.String("phone").
			Optional().
			Nillable().
			Comment("Telephone number.").
			Annotations(annotate.MaxLen(50)),
		field.String("supplier_code").
			Optional().
			Nillable().
			Comment("The supplier's code, unique within the account.").
			Annotations(annotate.Required(), annotate.NotNull(), annotate.Len(1, 40), annotate.PartialFilter(), annotate.Sortable(), annotate.Searchable()),
		field.String("website").
			Optional().
			Nillable().
			Comment("Web site.").
			Annotations(annotate.MaxLen(100)),
	}
}

// Interceptors read an expired approval as PENDING.
func (Supplier) Interceptors() []ent.Interceptor {
	return []ent.Interceptor{hooks.ExpireApprovals()}
}

// Hooks compute the approval of the supplier a write returns.
func (Supplier) Hooks() []ent.Hook {
	return []ent.Hook{hooks.ExpireApprovalOnWrite()}
}

// Indexes back filters and sorts; codes are unique per account.
func (Supplier) Indexes() []ent.Index {
	return append(tenantIndexes("active", "company", "email", "created_at", "updated_at"),
		index.Fields("account_id", "supplier_code").Unique(),
	)
}

// Annotations expose suppliers at /suppliers; a delete of a supplier with
// purchasing history deactivates it instead.
func (Supplier) Annotations() []schema.Annotation {
	return []schema.Annotation{
		annotate.Expose("suppliers", "supplier_id", annotate.Purchasing, annotate.CRUD...).
			Updated().
			HandWritten(annotate.Delete).
			DescribeDelete("Removes a supplier without purchasing history (any purchase order, bill or material that names it). One with history is kept and deactivated instead (active false; supplier.updated); check active in the answer.").
			Emits("created", "updated", "deleted", "approval_changed").
			Describe("Suppliers: companies the account buys from. Approval and certification are recorded in the web application."),
	}
}
