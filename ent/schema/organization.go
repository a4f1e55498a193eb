package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"

	"larder.dev/larder/internal/generators/annotate"
)

// Organization is a customer of Larder: it has a plan, a currency and exactly
// two accounts, live and test.
type Organization struct{ ent.Schema }

// Mixin adds timestamps and makes it system-only.
func (Organization) Mixin() []ent.Mixin { return []ent.Mixin{TimeMixin{}, SystemOnlyMixin{}} }

// Fields of an organization.
func (Organization) Fields() []ent.Field {
	return []ent.Field{
		field.String("name").
			NotEmpty().
			Comment("Display name."),
		field.Enum("plan").
			Values("enterprise", "professional", "starter", "lapsed").
			Default("enterprise").
			Comment("Subscription plan; only enterprise includes the API."),
		field.String("currency").
			Default("CAD").
			Immutable().
			Comment("ISO 4217 currency of amounts; set when the organization is created, never changed (tenancy.CurrencyOf relies on it)."),
		field.Bool("block_unapproved_suppliers").
			Default(false).
			Comment("Purchasing setting: a purchase order for a SUSPENDED or REJECTED supplier is refused (409 SUPPLIER_BLOCKED)."),
		field.Bool("manual_costing").
			Default(false).
			Comment("Purchasing setting: the account costs products by hand, so bills do not recalculate product costs."),
		field.Bool("require_second_factor").
			Default(false).
			Comment("Console setting: every person signs in with a one-time code (TOTP) as well as the password."),
	}
}

// Edges of an organization.
func (Organization) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("accounts", Account.Type).
			Annotations(entsql.OnDelete(entsql.Restrict)),
	}
}

// Annotations keep the organization out of the API; on a distributed
// PostgreSQL the table is a reference table (docs/scaling.md).
func (Organization) Annotations() []schema.Annotation {
	return []schema.Annotation{annotate.Internal(), annotate.Place(annotate.Reference)}
}
