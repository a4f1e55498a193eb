package migrate

import (
	"fmt"
	"slices"

	atlasschema "ariga.io/atlas/sql/schema"
	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql/schema"

	entmigrate "larder.dev/larder/ent/migrate"
)

// The keys of an account's tables carry the account. The tables the schemas
// class distributed (annotate.Place; every table of the account mixin) hold
// one account's rows each; on a distributed PostgreSQL they are spread over
// shards by account_id, and a key there must hold that column. So, on every
// database, the compiled schema's
//
//   - index on (account_id, id) of a table another refers to (the account
//     mixin's) is unique: the target of the foreign keys below;
//   - foreign keys from such a table to another such table are on
//     (account_id, column) and refer to (account_id, id): a row can only
//     refer to a row of its own account, which the hooks check before any
//     write (hooks.CheckReferences) and the database now holds to as well.
//
// Foreign keys to the tables of other classes (accounts, the keys, the
// shared units of measure, allergens, …) stay on one column. The unique
// indexes of the account tables lead with account_id in the schemas
// themselves.
//
// On PostgreSQL each account table's primary key is (account_id, id), in
// place of its index on those columns (a distributed PostgreSQL accepts no
// primary key without the distribution column), and an index on id alone
// serves the statements that find a row by its id without its account (the
// webhook dispatcher's, the console's and the CLI's by an id they were
// given); the request log's tables (Partitioned), which every statement
// reads by account, have none, which would cost each row an entry. SQLite keeps id as the primary key, which its AUTOINCREMENT
// needs, and the unique index on (account_id, id) as the foreign keys'
// target.
//
// accountKeys is the diff hook that gives the compiled schema of dialect
// dia these keys, as the migrations create them.
func accountKeys(dia string) schema.DiffHook {
	return func(next schema.Differ) schema.Differ {
		return schema.DiffFunc(func(current, desired *atlasschema.Schema) ([]atlasschema.Change, error) {
			if err := withAccountKeys(desired); err != nil {
				return nil, err
			}
			if dia == dialect.Postgres {
				if err := withAccountPrimaryKeys(desired); err != nil {
					return nil, err
				}
			}
			return next.Diff(current, desired)
		})
	}
}

// accountTable reports whether t holds one account's rows: the schemas
// class it distributed by account_id (entmigrate.Classes).
func accountTable(t *atlasschema.Table) bool {
	return entmigrate.Classes[t.Name] == entmigrate.Distributed
}

const accountColumn = "account_id"

// withAccountKeys rewrites s's indexes on (account_id, id) and foreign keys
// between account tables as accountKeys says.
func withAccountKeys(s *atlasschema.Schema) error {
	for _, t := range s.Tables {
		if !accountTable(t) {
			continue
		}
		acct, _ := t.Column(accountColumn)
		for _, fk := range t.ForeignKeys {
			if fk.RefTable == nil || !accountTable(fk.RefTable) {
				continue
			}
			if len(fk.Columns) != 1 || len(fk.RefColumns) != 1 || fk.RefColumns[0].Name != "id" {
				return fmt.Errorf("foreign key %s of %s is not on one column referring to id", fk.Symbol, t.Name)
			}
			target := accountIDIndex(fk.RefTable)
			if target == nil {
				return fmt.Errorf("table %s has no index on (account_id, id) for foreign key %s of %s to refer to", fk.RefTable.Name, fk.Symbol, t.Name)
			}
			target.Unique = true
			refAcct, _ := fk.RefTable.Column(accountColumn)
			fk.Columns = []*atlasschema.Column{acct, fk.Columns[0]}
			fk.RefColumns = []*atlasschema.Column{refAcct, fk.RefColumns[0]}
		}
	}
	return nil
}

// withAccountPrimaryKeys gives every account table of s the primary key
// (account_id, id) in place of its index on those columns, and an index on
// id alone (named TABLE_by_id) but to the partitioned request log's.
func withAccountPrimaryKeys(s *atlasschema.Schema) error {
	for _, t := range s.Tables {
		if !accountTable(t) {
			continue
		}
		acct, _ := t.Column(accountColumn)
		id, ok := t.Column("id")
		if !ok || t.PrimaryKey == nil || len(t.PrimaryKey.Parts) != 1 || t.PrimaryKey.Parts[0].C != id {
			return fmt.Errorf("account table %s has no primary key on id", t.Name)
		}
		if ix := accountIDIndex(t); ix != nil {
			t.Indexes = slices.DeleteFunc(t.Indexes, func(i *atlasschema.Index) bool { return i == ix })
		}
		t.PrimaryKey.Parts = []*atlasschema.IndexPart{{SeqNo: 0, C: acct}, {SeqNo: 1, C: id}}
		if slices.ContainsFunc(Partitioned, func(p PartitionedTable) bool { return p.Table == t.Name }) {
			continue
		}
		t.Indexes = append(t.Indexes, &atlasschema.Index{Name: t.Name + "_by_id", Table: t,
			Parts: []*atlasschema.IndexPart{{SeqNo: 0, C: id}}})
	}
	return nil
}

// accountIDIndex is t's index on exactly (account_id, id), or nil.
func accountIDIndex(t *atlasschema.Table) *atlasschema.Index {
	for _, ix := range t.Indexes {
		if len(ix.Parts) == 2 && ix.Parts[0].C != nil && ix.Parts[1].C != nil &&
			ix.Parts[0].C.Name == accountColumn && ix.Parts[1].C.Name == "id" {
			return ix
		}
	}
	return nil
}
