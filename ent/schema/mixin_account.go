package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
	"entgo.io/ent/schema/mixin"

	"larder.dev/larder/hooks"
	"larder.dev/larder/internal/generators/annotate"
	"larder.dev/larder/policy"
)

// AccountMixin makes a schema a tenant's: every row belongs to one account,
// stamped from the viewer on create and immutable. Shared adds rows that belong
// to no account (is_global), readable by every account and writable by none.
type AccountMixin struct {
	mixin.Schema
	Shared bool
	// Rules are the schema's own privacy rules, decided after the system
	// viewer and before the tenant filter.
	Rules policy.Rules
}

// Fields returns account_id, and is_global for shared schemas.
func (m AccountMixin) Fields() []ent.Field {
	account := field.Int("account_id").
		Immutable().
		Comment("The owning account; set from the caller, never from a body.").
		Annotations(annotate.Hidden())
	if !m.Shared {
		return []ent.Field{account}
	}
	return []ent.Field{
		account.Optional().Nillable(),
		field.Bool("is_global").
			Default(false).
			Immutable().
			Comment("Shared reference row, readable by every account and read-only.").
			Annotations(annotate.Output(), annotate.Locks()),
	}
}

// Edges returns the edge to the owning account.
func (m AccountMixin) Edges() []ent.Edge {
	e := edge.To("account", Account.Type).
		Field("account_id").
		Unique().
		Immutable().
		Annotations(entsql.OnDelete(entsql.Restrict))
	if !m.Shared {
		e = e.Required()
	}
	return []ent.Edge{e}
}

// Indexes returns the index every tenant query starts with. It holds the id
// too, so a list in its default order (id) reads an account's rows in order
// and stops at the page, however many rows other accounts hold.
func (m AccountMixin) Indexes() []ent.Index {
	return []ent.Index{index.Fields("account_id", "id")}
}

// Annotations name the policy's rules for the access report; an account's
// table is distributed by account_id on a distributed PostgreSQL
// (docs/scaling.md), and a shared one, whose global rows belong to no
// account, declares its own class. A shared table's annotations add the
// check that a row is either shared or an account's.
func (m AccountMixin) Annotations() []schema.Annotation {
	as := []schema.Annotation{policy.DescribePolicy(m.Policy())}
	if !m.Shared {
		return append(as, annotate.Place(annotate.Distributed))
	}
	return append(as, entsql.Annotation{Checks: map[string]string{
		"shared_or_owned": "((is_global AND account_id IS NULL) OR (NOT is_global AND account_id IS NOT NULL))",
	}})
}

// Policy is the tenant policy: own rows (and shared rows, for shared schemas)
// are visible; only own rows are writable; read-only rows refuse writes; the
// schema's own rules come first.
func (m AccountMixin) Policy() ent.Policy { return policy.Tenant(m.Shared, m.Rules) }

// Hooks stamp the account on create and refuse references to rows the caller
// cannot see.
func (AccountMixin) Hooks() []ent.Hook {
	return []ent.Hook{hooks.StampAccount(), hooks.CheckReferences()}
}
