package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// Supplier is a company the account buys from. Its REST resource arrives with
// purchasing; materials already name their suppliers.
type Supplier struct{ ent.Schema }

// Mixin makes suppliers an account's, with audit timestamps.
func (Supplier) Mixin() []ent.Mixin { return []ent.Mixin{AccountMixin{}, TimeMixin{Exposed: true}} }

// Fields of a supplier known so far.
func (Supplier) Fields() []ent.Field {
	return []ent.Field{
		field.Bool("active").
			Default(true).
			Comment("Whether the supplier is in use."),
		field.String("company").
			Optional().
			Nillable().
			Comment("Company name."),
		field.String("supplier_code").
			Optional().
			Nillable().
			Comment("The supplier's code, unique within the account."),
	}
}

// Indexes: codes are unique per account.
func (Supplier) Indexes() []ent.Index {
	return []ent.Index{index.Fields("account_id", "supplier_code").Unique()}
}
