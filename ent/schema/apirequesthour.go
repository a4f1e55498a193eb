package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"larder.dev/larder/internal/generators/annotate"
)

// APIRequestHour is the request log counted per account and UTC hour: how
// many of the account's requests arrived in the hour, and how many of them
// were answered with an error (400 and above). The log's writer adds each
// batch's counts in the transaction that writes its rows, and pruning
// deletes the hours whose rows it deletes (package reqlog), so that the
// counts are always those of the rows the log holds. The console's charts
// read it instead of the log: at most 720 rows for 30 days. Failed
// authentications (rows without an account) are not counted.
type APIRequestHour struct{ ent.Schema }

// Fields of an hour's count.
func (APIRequestHour) Fields() []ent.Field {
	return []ent.Field{
		field.Int("account_id").
			Immutable().
			Comment("The account whose requests are counted."),
		field.Time("hour").
			Immutable().
			Comment("The start of the UTC hour counted."),
		field.Int("requests").
			Default(0).
			Comment("The account's requests that arrived in the hour."),
		field.Int("errors").
			Default(0).
			Comment("Of those, the ones answered with an error (status 400 and above)."),
	}
}

// Indexes: one count per account and hour, which also serves the charts'
// read of an account's hours in a range.
func (APIRequestHour) Indexes() []ent.Index {
	return []ent.Index{index.Fields("account_id", "hour").Unique()}
}

// Annotations keep the counts out of the REST API; on a distributed
// PostgreSQL the table is distributed by account_id (docs/scaling.md).
func (APIRequestHour) Annotations() []schema.Annotation {
	return []schema.Annotation{annotate.Internal(), annotate.Place(annotate.Distributed)}
}

// Mixin makes it system-only: the console reads it through reqlog.Activity
// given the organization.
func (APIRequestHour) Mixin() []ent.Mixin { return []ent.Mixin{SystemOnlyMixin{}} }
