package migrate

import (
	"fmt"

	atlasschema "ariga.io/atlas/sql/schema"
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
// accountKeys is the diff hook that gives the compiled schema these keys,
// as the migrations create them on both databases.
func accountKeys(next schema.Differ) schema.Differ {
	return schema.DiffFunc(func(current, desired *atlasschema.Schema) ([]atlasschema.Change, error) {
		if err := withAccountKeys(desired); err != nil {
			return nil, err
		}
		return next.Diff(current, desired)
	})
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
