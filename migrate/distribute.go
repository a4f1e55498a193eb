package migrate

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	entmigrate "larder.dev/larder/ent/migrate"
)

// Placed is what Distribute did: the tables it made reference tables and
// distributed tables, the tables it left on the coordinator, and the
// foreign keys it added again once the tables were placed.
type Placed struct {
	Reference   []string `json:"reference"`
	Distributed []string `json:"distributed"`
	Local       []string `json:"local"`
	ForeignKeys int      `json:"foreign_keys"`
	// Triggers are the triggers dropped from tables before they were
	// distributed (TABLE.TRIGGER).
	Triggers []string `json:"triggers_dropped"`
}

// colocation is the distributed table the others are co-located with: the
// rows of one account, in every distributed table, on one shard.
const colocation = "products"

// Distribute places the tables of a migrated database on a Citus cluster
// (db is its coordinator, with the workers added) as the schemas class them
// (entmigrate.Classes): reference tables on every node
// (create_reference_table), distributed tables sharded by account_id and
// co-located (create_distributed_table), the local ones left on the
// coordinator. A table already placed is left as it is, so Distribute can
// run again after later migrations, which Citus applies to every shard.
//
// Citus turns a plain table that refers to a reference table into a table
// of its own kind, which cannot then be distributed; so the foreign keys
// between the tables to be placed are dropped first, in one transaction
// with the placing, and added again, as they were, once every table is
// placed. The local tables' keys to reference tables are added too; Citus
// keeps those local tables in its metadata.
//
// A distributed table's triggers would run on the workers' shards; the one
// Larder has, events_notify (NOTIFY larder_events at the commit of a
// transaction that wrote events), would notify the workers, where no
// dispatcher listens. Distribute drops it: on a cluster, a dispatcher in
// the process that wrote the events is woken at once as everywhere
// (hooks.EventsCommitted), and one in another process finds them at its
// next poll (--webhook-poll-interval, 2 s).
func Distribute(ctx context.Context, db *sql.DB) (Placed, error) {
	var out Placed
	var version string
	// Direct SQL: Citus's own functions and catalog, which ent has no words for.
	if err := db.QueryRowContext(ctx, `SELECT extversion FROM pg_extension WHERE extname = 'citus'`).Scan(&version); err != nil {
		if err == sql.ErrNoRows {
			return out, fmt.Errorf("the database has no citus extension: run CREATE EXTENSION citus on the coordinator and the workers first")
		}
		return out, err
	}
	placed, err := placedTables(ctx, db)
	if err != nil {
		return out, err
	}
	tables := make([]string, 0, len(entmigrate.Classes))
	for t := range entmigrate.Classes {
		tables = append(tables, t)
	}
	slices.Sort(tables)
	// The colocation group's first table goes first.
	slices.SortStableFunc(tables, func(a, b string) int {
		switch {
		case a == colocation:
			return -1
		case b == colocation:
			return 1
		}
		return 0
	})
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return out, err
	}
	defer func() { _ = tx.Rollback() }()
	// Citus creates shards over connections of its own; in one transaction
	// with DDL it must use them one after another.
	if _, err := tx.ExecContext(ctx, `SET LOCAL citus.multi_shard_modify_mode TO 'sequential'`); err != nil {
		return out, err
	}
	fks, err := dropForeignKeys(ctx, tx)
	if err != nil {
		return out, err
	}
	for _, t := range tables {
		class := entmigrate.Classes[t]
		if class == entmigrate.Distributed && !placed[t] {
			dropped, err := dropTriggers(ctx, tx, t)
			if err != nil {
				return out, err
			}
			out.Triggers = append(out.Triggers, dropped...)
		}
		var q string
		switch {
		case placed[t]:
		case class == entmigrate.Reference:
			q = `SELECT create_reference_table($1)`
		case class == entmigrate.Distributed && t == colocation:
			q = `SELECT create_distributed_table($1, 'account_id', colocate_with => 'none')`
		case class == entmigrate.Distributed:
			q = `SELECT create_distributed_table($1, 'account_id', colocate_with => '` + colocation + `')`
		}
		if q != "" {
			if _, err := tx.ExecContext(ctx, q, t); err != nil {
				return out, fmt.Errorf("place %s (%s): %w", t, class, err)
			}
		}
		switch class {
		case entmigrate.Reference:
			out.Reference = append(out.Reference, t)
		case entmigrate.Distributed:
			out.Distributed = append(out.Distributed, t)
		default:
			out.Local = append(out.Local, t)
		}
	}
	for _, fk := range fks {
		if _, err := tx.ExecContext(ctx, `ALTER TABLE `+fk.table+` ADD CONSTRAINT `+fk.name+` `+fk.def); err != nil {
			return out, fmt.Errorf("foreign key %s of %s: %w", fk.name, fk.table, err)
		}
	}
	out.ForeignKeys = len(fks)
	return out, tx.Commit()
}

// placedTables are the tables Citus already has in its metadata.
func placedTables(ctx context.Context, db *sql.DB) (map[string]bool, error) {
	// Direct SQL: Citus's catalog of the tables it placed.
	names, err := column(db.QueryContext(ctx, `SELECT logicalrelid::regclass::text FROM pg_dist_partition`))
	out := map[string]bool{}
	for _, n := range names {
		out[n] = true
	}
	return out, err
}

// column is the first column of rows, as strings, rows closed.
func column(rows *sql.Rows, err error) ([]string, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// dropTriggers drops table's own triggers and returns them as TABLE.TRIGGER.
func dropTriggers(ctx context.Context, tx *sql.Tx, table string) ([]string, error) {
	// Direct SQL: triggers are outside ent's schema.
	names, err := column(tx.QueryContext(ctx, `SELECT tgname FROM pg_trigger
		WHERE tgrelid = to_regclass(quote_ident($1)) AND NOT tgisinternal ORDER BY 1`, table))
	if err != nil {
		return nil, err
	}
	var out []string
	for _, n := range names {
		if _, err := tx.ExecContext(ctx, `DROP TRIGGER `+quoteIdent(n)+` ON `+quoteIdent(table)); err != nil {
			return nil, err
		}
		out = append(out, table+"."+n)
	}
	return out, nil
}

// quoteIdent quotes an identifier for PostgreSQL.
func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

type foreignKey struct{ table, name, def string }

// dropForeignKeys drops the foreign keys of the current schema's tables that
// Citus does not have yet, and returns them, quoted, to be added again.
func dropForeignKeys(ctx context.Context, tx *sql.Tx) ([]foreignKey, error) {
	// Direct SQL: the catalog's foreign keys, dropped and added again as they were.
	rows, err := tx.QueryContext(ctx, `SELECT quote_ident(c.relname), quote_ident(k.conname), pg_get_constraintdef(k.oid)
		FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid
		WHERE k.contype = 'f' AND c.relnamespace = current_schema()::regnamespace
		  AND NOT EXISTS (SELECT 1 FROM pg_dist_partition p WHERE p.logicalrelid = k.conrelid)
		ORDER BY 1, 2`)
	if err != nil {
		return nil, err
	}
	var fks []foreignKey
	for rows.Next() {
		var fk foreignKey
		if err := rows.Scan(&fk.table, &fk.name, &fk.def); err != nil {
			rows.Close()
			return nil, err
		}
		fks = append(fks, fk)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for _, fk := range fks {
		if _, err := tx.ExecContext(ctx, `ALTER TABLE `+fk.table+` DROP CONSTRAINT `+fk.name); err != nil {
			return nil, err
		}
	}
	return fks, nil
}
