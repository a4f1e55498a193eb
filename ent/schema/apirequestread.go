package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"larder.dev/larder/internal/generators/annotate"
)

// APIRequestRead is the part of the request log that most of a busy API's
// requests fall in, stored compactly: the plain reads (GET or HEAD, answered
// 2xx, nothing deprecated used, no body kept) of one key and one operation
// that one batch of the log's writer holds, as one row whose entries field
// holds each request's own fields side by side (package reqlog encodes and
// reads them). Every other request is a row of api_requests. Each request
// in a row has its own id, drawn from api_requests' ids, so that the
// console's and the CLI's row ids and cursors name either kind; the row
// keeps the first of them and the times of its first and last request, by
// which the log's searches find it, and its first and last id, by which a
// request is found by its id. A row spans at most reqlog's maxSpan of time
// and maxIDSpan of ids. The searches, the lookups by id and by request id, and
// pruning read both tables (package reqlog).
type APIRequestRead struct{ ent.Schema }

// Fields of a batch's plain reads of one key and operation.
func (APIRequestRead) Fields() []ent.Field {
	return []ent.Field{
		field.Int("account_id").
			Immutable().
			Comment("The account of the key."),
		field.Int("api_key_id").
			Immutable().
			Comment("The key the requests were made with."),
		field.String("method").
			Immutable().
			Comment("The HTTP method: GET or HEAD."),
		field.String("operation").
			Immutable().
			Comment("The operation id of the route (getTag, …)."),
		field.Time("first_at").
			Immutable().
			Comment("When the first request arrived."),
		field.Time("last_at").
			Immutable().
			Comment("When the last request arrived."),
		field.Int("first_id").
			Immutable().
			Comment("The smallest id of the requests held."),
		field.Int("last_id").
			Immutable().
			Comment("The largest id of the requests held."),
		field.Int("requests").
			Immutable().
			Comment("How many requests the row holds."),
		field.Bytes("entries").
			Immutable().
			Comment("The requests' own fields (id, time, status, duration, path and query, request ids, client address, user agent), encoded by package reqlog."),
	}
}

// Indexes serve the log's searches newest first as api_requests' do: the
// account's time index carries the key and the operation after the time,
// so that a search for one key's or one operation's requests tests them on
// the index entry. The account's first and last ids find the row that
// holds a request's id (a console link, a cursor). The time alone serves pruning: a
// BRIN index on PostgreSQL, where pruning drops whole days, a B-tree on
// SQLite.
func (APIRequestRead) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("account_id", "last_at", "id", "api_key_id", "operation").
			StorageKey("apirequestread_account_time"),
		index.Fields("account_id", "first_id", "last_id").
			StorageKey("apirequestread_account_ids"),
		index.Fields("last_at").
			Annotations(entsql.IndexTypes(map[string]string{dialect.Postgres: "BRIN"})),
	}
}

// Annotations keep the rows out of the REST API; on a distributed
// PostgreSQL the table is distributed by account_id (docs/scaling.md).
func (APIRequestRead) Annotations() []schema.Annotation {
	return []schema.Annotation{annotate.Internal(), annotate.Place(annotate.Distributed)}
}

// Mixin makes it system-only: the console and the CLI read it through
// package reqlog given the organization.
func (APIRequestRead) Mixin() []ent.Mixin { return []ent.Mixin{SystemOnlyMixin{}} }
