package schema

import (
	"encoding/json"

	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"larder.dev/larder/internal/generators/annotate"
)

// Event is the transactional outbox: one row per webhook event, written in the
// transaction of the change it reports, delivered later by the dispatcher.
type Event struct{ ent.Schema }

// Fields of an event.
func (Event) Fields() []ent.Field {
	return []ent.Field{
		field.String("event_id").
			Immutable().
			Comment("Public event id (evt_…), stable across retries and resends."),
		field.Int("account_id").
			Immutable().
			Comment("The account whose data changed."),
		field.Enum("environment").
			Values("live", "test").
			Immutable().
			Comment("The account's environment."),
		field.String("type").
			Immutable().
			Comment("Event type, e.g. tag.created."),
		field.String("resource_type").
			Immutable().
			Comment("Resource type, e.g. tag."),
		field.Int("resource_id").
			Immutable().
			Comment("Id of the record the event is about (the parent for a line change)."),
		// Bytes, not JSON: ent would marshal the snapshot, already JSON, a
		// second time through encoding/json on every insert (a bill of a
		// thousand new lots writes a thousand events). The column stays the
		// json of field.JSON on both databases.
		field.Bytes("snapshot").
			GoType(json.RawMessage{}).
			SchemaType(jsonColumn).
			Immutable().
			Comment("The record's top-level fields, without lines and cost fields.").
			Annotations(annotate.Internal()),
		field.Enum("source").
			Values("api", "app", "system").
			Immutable().
			Comment("What caused the change."),
		field.Int("api_key_id").
			Optional().
			Nillable().
			Immutable().
			Comment("The key of the API call that caused the change."),
		field.String("request_id").
			Optional().
			Nillable().
			Immutable().
			Comment("The request id of the API call that caused the change."),
		field.Int("user_id").
			Optional().
			Nillable().
			Immutable().
			Comment("The person who made the change in the web application (source app)."),
		field.Time("created_at").
			Default(now).
			Immutable().
			Comment("When the change was committed."),
		field.Time("dispatched_at").
			Optional().
			Nillable().
			Comment("When the dispatcher fanned the event out to the account's endpoints; null until then."),
	}
}

// Edges of an event.
func (Event) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("account", Account.Type).
			Field("account_id").
			Unique().
			Required().
			Immutable().
			Annotations(entsql.OnDelete(entsql.Restrict)),
		edge.To("deliveries", WebhookDelivery.Type).
			Annotations(entsql.OnDelete(entsql.Restrict)),
	}
}

// Indexes of events.
func (Event) Indexes() []ent.Index {
	return []ent.Index{
		// An event's public id is unique within its account.
		index.Fields("account_id", "event_id").Unique(),
		// An account's, which its deliveries' foreign key refers to.
		index.Fields("account_id", "id"),
		index.Fields("account_id", "created_at"),
		index.Fields("created_at"),
		index.Fields("dispatched_at", "id"),
		// The events of one request, for the request log.
		index.Fields("request_id"),
	}
}

// Annotations keep events out of the REST API; on a distributed PostgreSQL
// the table is distributed by account_id (docs/scaling.md).
func (Event) Annotations() []schema.Annotation {
	return []schema.Annotation{annotate.Internal(), annotate.Place(annotate.Distributed)}
}

// Mixin makes it system-only.
func (Event) Mixin() []ent.Mixin { return []ent.Mixin{SystemOnlyMixin{}} }
