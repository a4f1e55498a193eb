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

// APIRequest is the request log: one row per authenticated API request, and
// per failed authentication (of account 0, which is no account's id: ids
// start at 1), written in batches by a
// background writer after the answer (package reqlog), kept for the
// retention period (--request-log-retention). Bodies are kept as they were
// sent and answered, cut at reqlog.MaxBody, for writes and for answers of 400
// and above; the Authorization header is never kept, and key and secret
// material in a path or a body is replaced before a row is written.
type APIRequest struct{ ent.Schema }

// Fields of a logged request.
func (APIRequest) Fields() []ent.Field {
	return []ent.Field{
		field.Time("created_at").
			Immutable().
			Comment("When the request arrived."),
		field.Int("account_id").
			Immutable().
			Comment("The account of the key; 0 for a failed authentication, which belongs to no account."),
		field.Int("api_key_id").
			Optional().
			Nillable().
			Immutable().
			Comment("The key the request was made with; null for a failed authentication."),
		field.String("method").
			Immutable().
			Comment("The HTTP method."),
		field.String("operation").
			Default("").
			Immutable().
			Comment("The operation id of the route (getTag, …); empty when no route matched."),
		field.String("path").
			Immutable().
			Comment("The path and query string, as sent."),
		field.Int("status").
			Immutable().
			Comment("The status of the answer."),
		field.Int("status_class").
			Immutable().
			Comment("The status's class: 2 for 2xx, … 5 for 5xx; the console's and the CLI's status filter."),
		field.String("error_code").
			Default("").
			Immutable().
			Comment("The problem's code of an answer of 400 and above; empty otherwise."),
		field.String("request_id").
			Immutable().
			Comment("Larder's request id (req_…), as in the X-Request-Id header of the answer."),
		field.String("client_request_id").
			Default("").
			Immutable().
			Comment("The caller's own X-Request-Id, when it sent one."),
		field.Int64("duration_us").
			Immutable().
			Comment("How long the answer took, in microseconds."),
		field.String("client_addr").
			Default("").
			Immutable().
			Comment("The client address (the proxies' X-Forwarded-For for trusted proxies)."),
		field.String("user_agent").
			Default("").
			Immutable().
			Comment("The User-Agent header."),
		field.Bytes("request_body").
			Optional().
			Immutable().
			Comment("The request body, cut at 16 KB; for writes and answers of 400 and above."),
		field.Bytes("response_body").
			Optional().
			Immutable().
			Comment("The answer body, cut at 16 KB; for writes and answers of 400 and above."),
		field.Bool("truncated").
			Default(false).
			Immutable().
			Comment("Whether a body was longer than 16 KB and was cut."),
		field.String("deprecated").
			Default("").
			Immutable().
			Comment("What the request used that the description deprecates, space separated (an operation id, op?param, op:field); empty for nothing. `larder requests --deprecated` lists who still uses what."),
	}
}

// Indexes serve the console's and the CLI's searches newest first, each from
// the account. The account's time index carries the key and the operation
// after the time, so that a search for one key's or one operation's
// requests reads the account's entries newest first and skips the others in
// the index, without a visit to the table (both databases test a condition
// on an index's later columns against the index entry), and each row costs
// one entry where a key's and an operation's own indexes cost three. The
// partial indexes hold a small part of the log, so that their filters end
// at once when nothing matches: the answers other than 2xx by class, the
// errors by code, and the requests whose bodies are kept (the writes and the
// errors) by method, for a write's method and for a write operation, which
// it carries after the time as the account's time index does (reqlog's
// queries repeat each predicate as literal SQL, which both databases need to
// choose a partial index). A request found by its id is searched for in the
// seconds its id's time gives, through the account's time index (reqlog.Find),
// without an index of its own, which cost every row an entry. Then the time
// alone, for pruning: a BRIN index on PostgreSQL, a few pages per day partition that cost a row next to
// nothing (pruning drops whole days there; see reqlog's partitions.go), and
// a B-tree on SQLite, where pruning deletes by time.
func (APIRequest) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("account_id", "created_at", "id", "api_key_id", "operation").
			StorageKey("apirequest_account_time"),
		index.Fields("account_id", "status_class", "created_at", "id").
			Annotations(entsql.IndexWhere(NotOK)).
			StorageKey("apirequest_not_ok"),
		index.Fields("account_id", "error_code", "created_at", "id").
			Annotations(entsql.IndexWhere(Errors)).
			StorageKey("apirequest_errors"),
		index.Fields("account_id", "method", "created_at", "id", "operation").
			Annotations(entsql.IndexWhere(Kept)).
			StorageKey("apirequest_kept"),
		index.Fields("account_id", "api_key_id", "deprecated").
			Annotations(entsql.IndexWhere(Deprecated)).
			StorageKey("apirequest_deprecated"),
		index.Fields("created_at").
			Annotations(entsql.IndexTypes(map[string]string{dialect.Postgres: "BRIN"})),
	}
}

// The predicates of the request log's partial indexes, which reqlog's
// queries repeat word for word (reading them from the generated migration
// schema, ent/migrate).
const (
	NotOK  = "status >= 300"
	Errors = "status >= 400"
	// Kept holds the writes: every write keeps its bodies (reqlog.Keeps).
	Kept = "request_body IS NOT NULL"
	// Deprecated holds the requests that used something deprecated.
	Deprecated = "deprecated <> ''"
)

// Annotations keep the log out of the REST API; on a distributed PostgreSQL
// the table is distributed by account_id (docs/scaling.md), the failed
// authentications of the whole server on account 0's shard.
func (APIRequest) Annotations() []schema.Annotation {
	return []schema.Annotation{annotate.Internal(), annotate.Place(annotate.Distributed)}
}

// Mixin makes it system-only: the console and the CLI read it through
// management functions given the organization.
func (APIRequest) Mixin() []ent.Mixin { return []ent.Mixin{SystemOnlyMixin{}} }
