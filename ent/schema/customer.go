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

// Customer is a company the account sells to. Deleting one removes it with
// its attached records (tags, shipping addresses); a customer that an order,
// invoice or other record uses is 409 IN_USE and is deactivated instead
// (active false).
type Customer struct{ ent.Schema }

// Mixin makes customers an account's, with exposed timestamps.
func (Customer) Mixin() []ent.Mixin { return []ent.Mixin{AccountMixin{}, TimeMixin{Exposed: true}} }

// refID is an optional reference to one of the account's rows (or a shared one).
func refID(name, comment string, anns ...schema.Annotation) ent.Field {
	return field.Int(name).
		Optional().
		Nillable().
		Comment(comment).
		Annotations(append([]schema.Annotation{annotate.Positive()}, anns...)...)
}

// Fields of a customer (spec Customer, Customers).
func (Customer) Fields() []ent.Field {
	return []ent.Field{
		field.Bool("active").
			Default(true).
			Comment("Whether the customer is in use; false deactivates it (a customer in use cannot be deleted)."),
		addressField("address", "The customer's address."),
		field.String("company").
			Optional().
			Nillable().
			Comment("Company name.").
			Annotations(annotate.Required(), annotate.NotNull(), annotate.Len(1, 100), annotate.PartialFilter(), annotate.Sortable(), annotate.Searchable()),
		field.String("contact").
			Optional().
			Nillable().
			Comment("The contact person.").
			Annotations(annotate.MaxLen(100)),
		field.String("customer_code").
			Optional().
			Nillable().
			Comment("The customer's code: stored trimmed and upper-cased, unique within the account.").
			Annotations(annotate.Required(), annotate.NotNull(), annotate.Len(1, 40), annotate.PartialFilter(), annotate.Sortable(), annotate.Searchable()),
		refID("customer_type_id", "The customer type: one of the account's."),
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
		refID("price_list_id", "The price list: one of the account's.", annotate.Filterable()),
		refID("salesperson_id", "The salesperson: one of the account's."),
		refID("shipping_method_id", "The shipping method: one of the account's."),
		refID("tax_rate_id", "The tax rate: one of the account's."),
		refID("territory_id", "The territory: one of the account's."),
		field.String("website").
			Optional().
			Nillable().
			Comment("Web site.").
			Annotations(annotate.MaxLen(100)),
	}
}

// Edges of a customer: the reference rows it names (in use while it does),
// its shipping addresses and its tags.
func (Customer) Edges() []ent.Edge {
	ref := func(name string, t any, fieldName string) ent.Edge {
		return edge.To(name, t).
			Field(fieldName).
			Unique().
			Annotations(entsql.OnDelete(entsql.Restrict))
	}
	return []ent.Edge{
		ref("customer_type", CustomerType.Type, "customer_type_id"),
		ref("price_list", PriceList.Type, "price_list_id"),
		ref("salesperson", Salesperson.Type, "salesperson_id"),
		ref("shipping_method", ShippingMethod.Type, "shipping_method_id"),
		ref("tax_rate", TaxRate.Type, "tax_rate_id"),
		ref("territory", Territory.Type, "territory_id"),
		edge.To("shipping_addresses", ShippingAddress.Type).
			Comment("The customer's shipping addresses; they go with it.").
			Annotations(entsql.OnDelete(entsql.Cascade)),
		edge.To("tags", CustomerTag.Type).
			Comment("Ids of the customer's tags.").
			Annotations(entsql.OnDelete(entsql.Cascade), annotate.IDs("tag_ids", "tag_id").SingleOnly().Writable(100).Of("ref_type", "CUSTOMER")),
	}
}

// Hooks store the code trimmed and upper-cased.
func (Customer) Hooks() []ent.Hook {
	return []ent.Hook{hooks.NormalizeCustomerCode()}
}

// Indexes back filters and sorts; codes are unique per account.
func (Customer) Indexes() []ent.Index {
	return append(tenantIndexes("company", "email", "price_list_id", "created_at", "updated_at"),
		index.Fields("account_id", "customer_code").Unique(),
	)
}

// Annotations expose customers at /customers.
func (Customer) Annotations() []schema.Annotation {
	return []schema.Annotation{
		annotate.Expose("customers", "customer_id", annotate.Sales, annotate.CRUD...).
			Updated().
			Emits("created", "updated", "deleted").
			DescribeDelete("Removes a customer with its tags and shipping addresses. 409 IN_USE while an order, invoice or other record uses it: deactivate it instead (active false).").
			Describe("Customers: companies the account sells to."),
	}
}
