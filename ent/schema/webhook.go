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

// WebhookEndpoint is a URL of one account that receives that account's events,
// registered in the web application (the admin CLI).
type WebhookEndpoint struct{ ent.Schema }

// Fields of an endpoint.
func (WebhookEndpoint) Fields() []ent.Field {
	return []ent.Field{
		field.Int("account_id").
			Immutable().
			Comment("The account whose events the endpoint receives."),
		field.String("url").
			Comment("Where events are posted: HTTPS, never a private address."),
		field.String("description").
			Default("").
			Comment("A label for people managing endpoints."),
		field.String("email").
			Default("").
			Comment("The owner, told by e-mail when the endpoint is disabled for failing."),
		field.String("secret").
			Sensitive().
			Comment("Signing secret, whsec_<base64>; stored encrypted (enc:v1:…) under LARDER_SECRET_KEY when it is set (webhooks.Encrypted)."),
		field.String("previous_secret").
			Optional().
			Nillable().
			Sensitive().
			Comment("The secret before the last rotation, still signing until previous_secret_expires_at; stored as secret is."),
		field.Time("previous_secret_expires_at").
			Optional().
			Nillable().
			Comment("When deliveries stop being signed with the previous secret."),
		field.JSON("event_types", []string{}).
			SchemaType(jsonText).
			Optional().
			Comment("The event types the endpoint receives, sorted; empty or null for every type. A ping always reaches it.").
			Annotations(annotate.Internal()),
		field.Bool("enabled").
			Default(true).
			Comment("Whether deliveries are sent."),
		field.Enum("disabled_reason").
			Values("manual", "failing").
			Optional().
			Nillable().
			Comment("Why the endpoint is disabled: by a person, or for failing every delivery."),
		field.Time("disabled_at").
			Optional().
			Nillable().
			Comment("When the endpoint was disabled."),
		field.Time("failing_since").
			Optional().
			Nillable().
			Comment("First failed attempt since the last success; null while healthy."),
		field.Time("created_at").
			Default(now).
			Immutable().
			Comment("When the endpoint was registered."),
		field.Time("updated_at").
			Default(now).
			UpdateDefault(now).
			Comment("When the endpoint last changed."),
	}
}

// Edges of an endpoint.
func (WebhookEndpoint) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("account", Account.Type).
			Field("account_id").
			Unique().
			Required().
			Immutable().
			Annotations(entsql.OnDelete(entsql.Restrict)),
		edge.To("deliveries", WebhookDelivery.Type).
			Annotations(entsql.OnDelete(entsql.Cascade)),
	}
}

// Indexes of endpoints: an account's, which its deliveries' foreign key
// refers to (account_id, id).
func (WebhookEndpoint) Indexes() []ent.Index {
	return []ent.Index{index.Fields("account_id", "id")}
}

// Annotations keep endpoints out of the REST API; on a distributed PostgreSQL
// the table is distributed by account_id (docs/scaling.md).
func (WebhookEndpoint) Annotations() []schema.Annotation {
	return []schema.Annotation{annotate.Internal(), annotate.Place(annotate.Distributed)}
}

// Mixin makes it system-only.
func (WebhookEndpoint) Mixin() []ent.Mixin { return []ent.Mixin{SystemOnlyMixin{}} }

// WebhookDelivery is one event on its way to one endpoint: its state and
// schedule. Its attempts are the delivery log.
type WebhookDelivery struct{ ent.Schema }

// Fields of a delivery.
func (WebhookDelivery) Fields() []ent.Field {
	return []ent.Field{
		field.Int("account_id").
			Immutable().
			Comment("The account of the event and the endpoint."),
		field.Int("endpoint_id").
			Immutable().
			Comment("The endpoint."),
		field.Int("event_id").
			Immutable().
			Comment("The outbox event (events.id)."),
		field.Enum("status").
			Values("pending", "succeeded", "abandoned").
			Default("pending").
			Comment("pending until an attempt gets a 2xx (succeeded) or the schedule runs out (abandoned)."),
		field.Int("attempt_count").
			Default(0).
			Comment("Scheduled attempts made (resends not counted)."),
		field.Time("next_attempt_at").
			Comment("When the next scheduled attempt is due."),
		field.Time("locked_until").
			Optional().
			Nillable().
			Comment("Lease of the dispatcher posting it; another may take it after this."),
		field.Time("created_at").
			Default(now).
			Immutable().
			Comment("When the event was fanned out to the endpoint."),
		field.Time("finished_at").
			Optional().
			Nillable().
			Comment("When it succeeded or was abandoned; retention counts from here."),
	}
}

// Edges of a delivery.
func (WebhookDelivery) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("account", Account.Type).
			Field("account_id").
			Unique().
			Required().
			Immutable().
			Annotations(entsql.OnDelete(entsql.Restrict)),
		edge.From("endpoint", WebhookEndpoint.Type).
			Ref("deliveries").
			Field("endpoint_id").
			Unique().
			Required().
			Immutable(),
		edge.From("event", Event.Type).
			Ref("deliveries").
			Field("event_id").
			Unique().
			Required().
			Immutable(),
		edge.To("attempts", WebhookAttempt.Type).
			Annotations(entsql.OnDelete(entsql.Cascade)),
	}
}

// Indexes: one delivery per event and endpoint; an account's, which its
// attempts' foreign key refers to (account_id, id); the dispatcher's due
// scan; the log.
func (WebhookDelivery) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("account_id", "event_id", "endpoint_id").Unique(),
		index.Fields("account_id", "id"),
		index.Fields("status", "next_attempt_at"),
		index.Fields("endpoint_id", "created_at"),
		index.Fields("status", "finished_at"),
	}
}

// Annotations keep deliveries out of the REST API; on a distributed
// PostgreSQL the table is distributed by account_id (docs/scaling.md).
func (WebhookDelivery) Annotations() []schema.Annotation {
	return []schema.Annotation{annotate.Internal(), annotate.Place(annotate.Distributed)}
}

// Mixin makes it system-only.
func (WebhookDelivery) Mixin() []ent.Mixin { return []ent.Mixin{SystemOnlyMixin{}} }

// WebhookAttempt is one POST of a delivery: what was sent and what came back.
type WebhookAttempt struct{ ent.Schema }

// Fields of an attempt.
func (WebhookAttempt) Fields() []ent.Field {
	return []ent.Field{
		field.Int("account_id").
			Immutable().
			Comment("The account of the delivery."),
		field.Int("delivery_id").
			Immutable().
			Comment("The delivery."),
		field.Enum("trigger").
			Values("schedule", "resend", "ping").
			Immutable().
			Comment("What sent it: the retry schedule, a resend, or the test button."),
		field.Time("attempted_at").
			Immutable().
			Comment("When the request started."),
		field.JSON("request_headers", map[string]string{}).
			SchemaType(jsonText).
			Immutable().
			Comment("The headers sent, signature included.").
			Annotations(annotate.Internal()),
		field.Text("request_body").
			Immutable().
			Comment("The envelope sent."),
		field.Int("response_status").
			Optional().
			Nillable().
			Immutable().
			Comment("HTTP status of the answer; null without one."),
		field.Text("response_body").
			Default("").
			Immutable().
			Comment("The start of the answer's body (bounded)."),
		field.Int("duration_ms").
			Immutable().
			Comment("Time to the answer, or to the failure."),
		field.String("error").
			Optional().
			Nillable().
			Immutable().
			Comment("Why no answer was had (refused address, timeout, …)."),
		field.Bool("success").
			Immutable().
			Comment("Whether the answer was a 2xx."),
	}
}

// Edges of an attempt.
func (WebhookAttempt) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("account", Account.Type).
			Field("account_id").
			Unique().
			Required().
			Immutable().
			Annotations(entsql.OnDelete(entsql.Restrict)),
		edge.From("delivery", WebhookDelivery.Type).
			Ref("attempts").
			Field("delivery_id").
			Unique().
			Required().
			Immutable(),
	}
}

// Indexes: the log of a delivery, and pruning by age.
func (WebhookAttempt) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("delivery_id", "attempted_at"),
		index.Fields("attempted_at"),
	}
}

// Annotations keep attempts out of the REST API; on a distributed PostgreSQL
// the table is distributed by account_id (docs/scaling.md).
func (WebhookAttempt) Annotations() []schema.Annotation {
	return []schema.Annotation{annotate.Internal(), annotate.Place(annotate.Distributed)}
}

// Mixin makes it system-only.
func (WebhookAttempt) Mixin() []ent.Mixin { return []ent.Mixin{SystemOnlyMixin{}} }
