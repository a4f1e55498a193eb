package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"larder.dev/larder/internal/generators/annotate"
)

// RecoveryCode is one of a person's ten recovery codes, each good for one
// sign-in in place of the second factor's code. The codes are random (80
// bits), so their SHA-256 is stored: the table's contents sign nobody in.
type RecoveryCode struct{ ent.Schema }

// Fields of a recovery code.
func (RecoveryCode) Fields() []ent.Field {
	return []ent.Field{
		field.Int("organization_id").
			Immutable().
			Comment("The organization of the person."),
		field.Int("user_id").
			Immutable().
			Comment("The person the code is for."),
		field.String("code_hash").
			Immutable().
			Unique().
			Sensitive().
			Comment("Hex SHA-256 of the code in its canonical form (lower case, no separators)."),
		field.Time("created_at").
			Default(now).
			Immutable().
			Comment("When the code was made."),
		field.Time("used_at").
			Optional().
			Nillable().
			Comment("When the code signed the person in; a used code never works again."),
	}
}

// Edges of a recovery code.
func (RecoveryCode) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("organization", Organization.Type).
			Field("organization_id").
			Unique().
			Required().
			Immutable().
			Annotations(entsql.OnDelete(entsql.Cascade)),
		edge.To("user", User.Type).
			Field("user_id").
			Unique().
			Required().
			Immutable().
			Annotations(entsql.OnDelete(entsql.Cascade)),
	}
}

// Indexes of recovery codes: a person's codes.
func (RecoveryCode) Indexes() []ent.Index {
	return []ent.Index{index.Fields("user_id")}
}

// Annotations keep the codes out of the API; on a distributed PostgreSQL the
// table is a local table, on the coordinator (docs/scaling.md).
func (RecoveryCode) Annotations() []schema.Annotation {
	return []schema.Annotation{annotate.Internal(), annotate.Place(annotate.Local)}
}

// Mixin makes it system-only.
func (RecoveryCode) Mixin() []ent.Mixin { return []ent.Mixin{SystemOnlyMixin{}} }
