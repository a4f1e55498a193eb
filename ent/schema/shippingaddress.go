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
	"larder.dev/larder/internal/platform/address"
)

// ShippingAddress is a place a customer's orders ship to, served under the
// customer (/customers/{customer_id}/shipping-addresses). A customer has at
// most one default. Orders stamp the address they are raised with, so
// changing or deleting one leaves them as they were.
type ShippingAddress struct{ ent.Schema }

// Mixin makes shipping addresses an account's, with audit timestamps.
func (ShippingAddress) Mixin() []ent.Mixin { return []ent.Mixin{AccountMixin{}, TimeMixin{}} }

// Fields of a shipping address (spec Customer shipping address).
func (ShippingAddress) Fields() []ent.Field {
	return []ent.Field{
		field.JSON("address", address.Address{}).
			SchemaType(jsonText).
			Comment("The address: required on create, replaced whole on update.").
			Annotations(annotate.Address(), annotate.Object(), annotate.NotNull()),
		field.String("contact").
			Optional().
			Nillable().
			Comment("The person to deliver to.").
			Annotations(annotate.MaxLen(100)),
		field.Int("customer_id").
			Immutable().
			Comment("The customer, from the path.").
			Annotations(annotate.Output()),
		field.Bool("is_default").
			Default(false).
			Comment("Whether this is the customer's default address; a customer has at most one (409 DEFAULT_ADDRESS_EXISTS)."),
		field.String("phone").
			Optional().
			Nillable().
			Comment("Telephone number.").
			Annotations(annotate.MaxLen(50)),
	}
}

// Edges: the customer, whose delete takes its addresses along.
func (ShippingAddress) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("customer", Customer.Type).
			Ref("shipping_addresses").
			Field("customer_id").
			Unique().
			Required().
			Immutable(),
	}
}

// Hooks give a second default its own refusal.
func (ShippingAddress) Hooks() []ent.Hook {
	return []ent.Hook{hooks.OneDefaultAddress()}
}

// Indexes: a customer's addresses, and at most one default each; a second
// default the index refuses is a 409 DEFAULT_ADDRESS_EXISTS.
func (ShippingAddress) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("customer_id"),
		index.Fields("account_id", "customer_id").
			Unique().
			StorageKey("shipping_addresses_one_default").
			Annotations(
				entsql.IndexWhere("is_default"),
				annotate.Conflict("DEFAULT_ADDRESS_EXISTS", "is_default", "The customer has a default shipping address already; set its is_default to false first."),
			),
	}
}

// Annotations expose shipping addresses under their customer, unpaginated;
// a change is reported as the customer's customer.updated.
func (ShippingAddress) Annotations() []schema.Annotation {
	return []schema.Annotation{
		annotate.Expose("shipping-addresses", "shipping_address_id", annotate.Sales, annotate.CRUD...).
			Under("customers", "customer_id", "customer_id").
			All("id").
			Describe("A customer's shipping addresses, at most one of them the default. Orders keep the address they were raised with."),
		annotate.LineOf("Customer", "customer_id"),
	}
}
