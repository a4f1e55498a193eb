package migrate

import (
	"fmt"

	atlasschema "ariga.io/atlas/sql/schema"

	"ariga.io/atlas/sql/postgres"
	"entgo.io/ent/dialect/sql/schema"
)

// A PartitionedTable is a table that is partitioned by range on PostgreSQL,
// which ent's schema has no words for: its hand-written migration creates it
// PARTITION BY RANGE (Column) with Column in its primary key (PostgreSQL
// requires the partition key in every unique index), and the code that
// writes it keeps its partitions (package reqlog's partitions.go). On SQLite
// it stays a plain table.
type PartitionedTable struct {
	Table, Column string
}

// Partitioned are the tables partitioned on PostgreSQL: the request log, by
// day of created_at, and its plain reads, by day of last_at. Diff and Pending expect them so, and a migration that
// drops the partitioning, or a schema that changes the table's key, shows
// as drift.
var Partitioned = []PartitionedTable{{Table: "api_requests", Column: "created_at"}, {Table: "api_request_reads", Column: "last_at"}}

// RequestIDStep is the increment of api_requests' identity on PostgreSQL:
// a value drawn from its sequence reserves that many ids, which the request
// log's writer gives a batch's plain reads (package reqlog's drawIDs reads
// the increment from the database). Diff and Pending expect it, so a
// migration that resets it shows as drift.
const RequestIDStep = 1024

// partitioned is the diff hook that gives the compiled schema's Partitioned
// tables their partition key, and the key's column in their primary key, as
// the migrations create them on PostgreSQL.
func partitioned(next schema.Differ) schema.Differ {
	return schema.DiffFunc(func(current, desired *atlasschema.Schema) ([]atlasschema.Change, error) {
		for _, p := range Partitioned {
			t, ok := desired.Table(p.Table)
			if !ok {
				return nil, fmt.Errorf("partitioned table %s is not in the schema", p.Table)
			}
			c, ok := t.Column(p.Column)
			if !ok {
				return nil, fmt.Errorf("partitioned table %s has no column %s", p.Table, p.Column)
			}
			if t.PrimaryKey == nil {
				return nil, fmt.Errorf("partitioned table %s has no primary key", p.Table)
			}
			t.PrimaryKey.Parts = append(t.PrimaryKey.Parts, &atlasschema.IndexPart{SeqNo: len(t.PrimaryKey.Parts), C: c})
			atlasschema.ReplaceOrAppend(&t.Attrs, &postgres.Partition{
				T:     postgres.PartitionTypeRange,
				Parts: []*postgres.PartitionPart{{C: c}},
			})
		}
		if err := stepRequestIDs(desired); err != nil {
			return nil, err
		}
		return next.Diff(current, desired)
	})
}

// stepRequestIDs gives the desired api_requests' identity its increment,
// RequestIDStep, which ent's schema has no words for.
func stepRequestIDs(desired *atlasschema.Schema) error {
	t, ok := desired.Table("api_requests")
	if !ok {
		return fmt.Errorf("table api_requests is not in the schema")
	}
	c, ok := t.Column("id")
	if !ok {
		return fmt.Errorf("table api_requests has no column id")
	}
	for _, a := range c.Attrs {
		if id, ok := a.(*postgres.Identity); ok {
			var seq postgres.Sequence
			if id.Sequence != nil {
				seq = *id.Sequence
			}
			seq.Start, seq.Increment = max(seq.Start, 1), RequestIDStep
			id.Sequence = &seq
			return nil
		}
	}
	return fmt.Errorf("api_requests.id is not an identity column")
}
