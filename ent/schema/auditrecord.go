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

// AuditRecord is one administrative change of an organization (a key, a
// webhook endpoint, a person, a plan or setting, a reset of test data) or
// one sign-in event of its people (signed in or out, a wrong password or
// code, a second factor locked),
// written in the transaction of the change, with who made it, when and from
// where. Records are never changed or deleted.
type AuditRecord struct{ ent.Schema }

// Fields of an audit record.
func (AuditRecord) Fields() []ent.Field {
	return []ent.Field{
		field.Int("organization_id").
			Immutable().
			Comment("The organization changed."),
		field.Enum("action").
			Values(
				"key_created", "key_rotated", "key_revoked",
				"plan_changed", "settings_changed",
				"endpoint_created", "endpoint_updated", "endpoint_disabled", "endpoint_enabled",
				"endpoint_deleted", "endpoint_secret_rotated", "deliveries_resent",
				"user_invited", "user_role_changed", "user_removed", "password_reset_issued",
				"password_set", "second_factor_enabled", "second_factor_disabled",
				"signed_in", "sign_in_failed", "second_factor_failed", "second_factor_locked",
				"second_factor_unlocked", "signed_out",
				"recovery_codes_generated", "recovery_code_used", "signature_failed",
				"test_data_reset",
				"supplier_approval_changed", "supplier_certification_changed", "lot_qc_decided",
				"production_planned", "production_started", "production_completed", "production_signed",
				"invoice_cancelled", "bill_cancelled", "products_imported", "reference_list_imported",
			).
			Immutable().
			Comment("What was done."),
		field.Int("api_key_id").
			Optional().
			Nillable().
			Immutable().
			Comment("The key acted on (key actions only)."),
		field.Enum("environment").
			Values("live", "test").
			Optional().
			Nillable().
			Immutable().
			Comment("The environment acted in: the key's for key actions, the account's for the plant's actions (suppliers, lots, runs, documents, imports)."),
		field.String("actor").
			NotEmpty().
			MaxLen(200).
			Immutable().
			Comment("Who made the change: a signed-in person's address, or the admin CLI's --actor (by default user@host)."),
		field.Int("user_id").
			Optional().
			Nillable().
			Immutable().
			Comment("The signed-in person who made the change in the console; none for the admin CLI."),
		field.String("address").
			Default("").
			MaxLen(64).
			Immutable().
			Comment("Where the change came from: the client address of a console request; empty for the CLI."),
		field.JSON("detail", map[string]any{}).
			SchemaType(jsonText).
			Optional().
			Immutable().
			Comment("Particulars of the change: the new key and grace of a rotation, the old and new plan, …").
			Annotations(annotate.Internal()),
		field.Time("created_at").
			Default(now).
			Immutable().
			Comment("When the change was made."),
	}
}

// Edges of an audit record.
func (AuditRecord) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("organization", Organization.Type).
			Field("organization_id").
			Unique().
			Required().
			Immutable().
			Annotations(entsql.OnDelete(entsql.Restrict)),
		edge.To("api_key", APIKey.Type).
			Field("api_key_id").
			Unique().
			Immutable().
			Annotations(entsql.OnDelete(entsql.Restrict)),
	}
}

// Indexes of audit records: an organization's history in order.
func (AuditRecord) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("organization_id", "created_at"),
		index.Fields("api_key_id"),
	}
}

// Annotations keep audit records out of the API; on a distributed PostgreSQL
// the table is a local table, on the coordinator (docs/scaling.md).
func (AuditRecord) Annotations() []schema.Annotation {
	return []schema.Annotation{annotate.Internal(), annotate.Place(annotate.Local)}
}

// Mixin makes it system-only.
func (AuditRecord) Mixin() []ent.Mixin { return []ent.Mixin{SystemOnlyMixin{}} }
