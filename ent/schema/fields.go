package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
	"github.com/shopspring/decimal"

	"larder.dev/larder/internal/generators/annotate"
	"larder.dev/larder/internal/platform/address"
)

// decimalField is an optional exact decimal (cost, price, rate): numeric in
// PostgreSQL, a JSON number in the API, nil when absent or redacted.
func decimalField(name, comment string, anns ...schema.Annotation) ent.Field {
	return field.Other(name, decimal.Decimal{}).
		SchemaType(map[string]string{
			dialect.Postgres: "numeric(20,6)",
			dialect.SQLite:   "numeric",
		}).
		Optional().
		Nillable().
		Comment(comment).
		Annotations(append([]schema.Annotation{annotate.Decimal(), annotate.Number()}, anns...)...)
}

// addressField is an embedded Address (spec "Address"): a JSON column that
// reads as an object with every part null when nothing was written.
func addressField(name, comment string, anns ...schema.Annotation) ent.Field {
	return field.JSON(name, address.Address{}).
		Optional().
		SchemaType(jsonText).
		Comment(comment).
		Annotations(append([]schema.Annotation{annotate.Address(), annotate.Object()}, anns...)...)
}

// jsonText stores JSON as PostgreSQL json, not jsonb: nothing queries inside
// these documents, and json takes parameters in binary mode as text, which lets
// the driver send a query and its parameters in one round trip
// (binary_parameters, see store.Parse).
var jsonText = map[string]string{dialect.Postgres: "json"}

// tenantIndexes backs list filters and sorts: one (account_id, field) index each.
func tenantIndexes(fields ...string) []ent.Index {
	out := make([]ent.Index, len(fields))
	for i, f := range fields {
		out[i] = index.Fields("account_id", f)
	}
	return out
}

// uniqueCode makes code unique within an account.
func uniqueCode() ent.Index { return index.Fields("account_id", "code").Unique() }

// uniqueSharedCode makes code unique among the shared rows (account_id is
// NULL there, which a unique index on (account_id, code) does not constrain).
func uniqueSharedCode() ent.Index {
	return index.Fields("code").
		Unique().
		Annotations(sharedOnly())
}

// sharedOnly restricts an index to the shared rows.
func sharedOnly() schema.Annotation { return entsql.IndexWhere("is_global") }

// changeOrigin are the fields saying who made an append-only record and when:
// source (api, app or system), the API key and request of an API change.
func changeOrigin() []ent.Field {
	return []ent.Field{
		field.Enum("source").
			Values("api", "app", "system").
			Immutable().
			Comment("What made the change."),
		field.Int("api_key_id").
			Optional().
			Nillable().
			Immutable().
			Comment("The API key of an API change."),
		field.String("request_id").
			Optional().
			Nillable().
			Immutable().
			Comment("The request of an API change."),
		field.Time("created_at").
			Default(now).
			Immutable().
			Comment("When (UTC)."),
	}
}

// jsonColumn is jsonText for a field ent declares as bytes (passed through
// as it is, where field.JSON marshals its value): json on both databases,
// the type field.JSON gives SQLite too.
var jsonColumn = map[string]string{dialect.Postgres: "json", dialect.SQLite: "json"}
