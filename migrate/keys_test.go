package migrate_test

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	atlas "ariga.io/atlas/sql/migrate"

	entmigrate "larder.dev/larder/ent/migrate"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/migrate"
)

// foreignKey is a foreign key as the database reports it.
type foreignKey struct {
	table, ref    string
	cols, refCols []string
}

func (fk foreignKey) String() string {
	return fmt.Sprintf("%s (%s) -> %s (%s)", fk.table, strings.Join(fk.cols, ", "), fk.ref, strings.Join(fk.refCols, ", "))
}

// TestAccountForeignKeysCarryTheAccount: on both databases, once migrated,
// every foreign key from a table of one account's rows (classed distributed
// by the schemas) to another such table is on (account_id, column) and
// refers to (account_id, id), and every other foreign key is on one column. So a row can only refer to a
// row of its own account, whatever the code above the database does, and a
// database that spreads accounts over shards can keep the keys.
func TestAccountForeignKeysCarryTheAccount(t *testing.T) {
	t.Parallel()
	for _, b := range dbtest.Backends(t) {
		t.Run(string(b), func(t *testing.T) {
			st := freshStore(t, b)
			ctx := context.Background()
			if _, err := migrate.Apply(ctx, st.DB, st.Dialect); err != nil {
				t.Fatal(err)
			}
			fks := foreignKeys(t, st.DB, b)
			accountTables := map[string]bool{}
			for table, class := range entmigrate.Classes {
				accountTables[table] = class == entmigrate.Distributed
			}
			composite := 0
			for _, fk := range fks {
				want := len(fk.cols) == 1
				if accountTables[fk.table] && accountTables[fk.ref] {
					want = slices.Equal(fk.cols[:1], []string{"account_id"}) && len(fk.cols) == 2 &&
						slices.Equal(fk.refCols, []string{"account_id", "id"})
					composite++
				}
				if !want {
					t.Errorf("foreign key %s: want (account_id, column) -> (account_id, id) between two account tables, one column otherwise", fk)
				}
			}
			// Products alone are referred to by a dozen tables.
			if composite < 40 {
				t.Fatalf("only %d foreign keys between account tables; the test no longer reads the schema's", composite)
			}
			if b == dbtest.Postgres {
				checkAccountPrimaryKeys(t, st.DB, accountTables)
			}
		})
	}
}

// checkAccountPrimaryKeys: on PostgreSQL every account table's primary key
// is (account_id, id), and an index on id alone finds a row by its id, but
// in the partitioned request log, which is read by account alone.
func checkAccountPrimaryKeys(t *testing.T, db *sql.DB, accountTables map[string]bool) {
	t.Helper()
	keys := map[string][2]string{} // table -> primary key columns, and whether an index on id alone exists
	// Direct SQL: the test reads the catalog of the database it migrated.
	for _, r := range query(t, db, `SELECT c.relname,
		  (SELECT string_agg(a.attname, ',' ORDER BY k.n) FROM pg_index i CROSS JOIN LATERAL unnest(i.indkey::int2[]) WITH ORDINALITY k(num, n)
		     JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.num WHERE i.indrelid = c.oid AND i.indisprimary),
		  EXISTS (SELECT 1 FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0]
		     WHERE i.indrelid = c.oid AND i.indnatts = 1 AND a.attname = 'id')
		FROM pg_class c WHERE c.relkind IN ('r', 'p') AND c.relnamespace = current_schema()::regnamespace`) {
		keys[r[0]] = [2]string{r[1], r[2]}
	}
	n := 0
	for table, account := range accountTables {
		if !account {
			continue
		}
		n++
		// A partitioned table's key holds its partition column after them.
		want, byID := "account_id,id", "true"
		for _, p := range migrate.Partitioned {
			if p.Table == table {
				want, byID = want+","+p.Column, "false"
			}
		}
		if got := keys[table]; got[0] != want || got[1] != byID {
			t.Errorf("%s: primary key (%s), an index on id alone: %s; want (%s), %s", table, got[0], got[1], want, byID)
		}
	}
	if n < 50 {
		t.Fatalf("only %d account tables", n)
	}
}

// foreignKeys reads every foreign key, with its columns in order.
func foreignKeys(t *testing.T, db *sql.DB, b dbtest.Backend) []foreignKey {
	t.Helper()
	var fks []foreignKey
	// Direct SQL: the test reads the catalog of the database it migrated.
	if b == dbtest.Postgres {
		for _, r := range query(t, db, `SELECT c.conrelid::regclass::text, c.confrelid::regclass::text,
			  (SELECT string_agg(a.attname, ',' ORDER BY k.n) FROM unnest(c.conkey) WITH ORDINALITY k(num, n)
			     JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.num),
			  (SELECT string_agg(a.attname, ',' ORDER BY k.n) FROM unnest(c.confkey) WITH ORDINALITY k(num, n)
			     JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.num)
			FROM pg_constraint c WHERE c.contype = 'f' AND c.connamespace = current_schema()::regnamespace`) {
			fks = append(fks, foreignKey{strings.Trim(r[0], `"`), strings.Trim(r[1], `"`), strings.Split(r[2], ","), strings.Split(r[3], ",")})
		}
		return fks
	}
	for _, r := range query(t, db, `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`) {
		table := r[0]
		byID := map[string]*foreignKey{}
		var order []string
		for _, k := range query(t, db, `SELECT id, "table", "from", "to" FROM pragma_foreign_key_list(?) ORDER BY id, seq`, table) {
			fk := byID[k[0]]
			if fk == nil {
				fk = &foreignKey{table: table, ref: k[1]}
				byID[k[0]] = fk
				order = append(order, k[0])
			}
			fk.cols, fk.refCols = append(fk.cols, k[2]), append(fk.refCols, k[3])
		}
		for _, id := range order {
			fks = append(fks, *byID[id])
		}
	}
	return fks
}

// query returns every row of q as strings.
func query(t *testing.T, db *sql.DB, q string, args ...any) [][]string {
	t.Helper()
	rows, err := db.Query(q, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out [][]string
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		row := make([]string, len(cols))
		for i, v := range vals {
			row[i] = v.String
		}
		out = append(out, row)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestWebhookRowsTakeTheirEventsAccount: the migration that gives webhook
// deliveries and attempts their account fills it, on both databases, from
// each delivery's event, for the rows written before it.
func TestWebhookRowsTakeTheirEventsAccount(t *testing.T) {
	t.Parallel()
	const before = "20261206075636" // the migration that adds the column
	for _, b := range dbtest.Backends(t) {
		t.Run(string(b), func(t *testing.T) {
			st := freshStore(t, b)
			ctx := context.Background()
			dir, err := migrate.Embedded(st.Dialect)
			if err != nil {
				t.Fatal(err)
			}
			files, err := dir.Files()
			if err != nil {
				t.Fatal(err)
			}
			earlier, found := &atlas.MemDir{}, false
			for _, f := range files {
				if f.Version() >= before {
					found = found || f.Version() == before
					continue
				}
				if err := earlier.WriteFile(f.Name(), f.Bytes()); err != nil {
					t.Fatal(err)
				}
			}
			if !found {
				t.Fatalf("no migration %s", before)
			}
			sum, err := earlier.Checksum()
			if err != nil {
				t.Fatal(err)
			}
			if err := atlas.WriteSumFile(earlier, sum); err != nil {
				t.Fatal(err)
			}
			if _, err := migrate.ApplyDir(ctx, st.DB, st.Dialect, earlier); err != nil {
				t.Fatal(err)
			}
			now := time.Now().UTC()
			// Direct SQL: rows of the schema before the migration, which the code no longer writes.
			for _, q := range []struct {
				sql  string
				args []any
			}{
				{`INSERT INTO organizations (id, name, created_at, updated_at) VALUES (1, 'Org', $1, $1)`, []any{now}},
				{`INSERT INTO accounts (id, organization_id, environment, created_at, updated_at) VALUES (7, 1, 'live', $1, $1), (8, 1, 'test', $1, $1)`, []any{now}},
				{`INSERT INTO events (id, account_id, event_id, environment, type, resource_type, resource_id, snapshot, source, created_at)
					VALUES (11, 7, 'evt_a', 'live', 'tag.created', 'tag', 1, '{}', 'api', $1), (12, 8, 'evt_b', 'test', 'tag.created', 'tag', 1, '{}', 'api', $1)`, []any{now}},
				{`INSERT INTO webhook_endpoints (id, account_id, url, secret, created_at, updated_at)
					VALUES (21, 7, 'https://a.example', 's', $1, $1), (22, 8, 'https://b.example', 's', $1, $1)`, []any{now}},
				{`INSERT INTO webhook_deliveries (id, event_id, endpoint_id, next_attempt_at, created_at) VALUES (31, 11, 21, $1, $1), (32, 12, 22, $1, $1)`, []any{now}},
				{`INSERT INTO webhook_attempts (id, delivery_id, trigger, attempted_at, request_headers, request_body, duration_ms, success)
					VALUES (41, 31, 'schedule', $1, '{}', '{}', 5, true), (42, 32, 'schedule', $1, '{}', '{}', 5, false), (43, 32, 'resend', $1, '{}', '{}', 5, true)`, []any{now}},
			} {
				if _, err := st.DB.ExecContext(ctx, q.sql, q.args...); err != nil {
					t.Fatalf("%s: %v", q.sql, err)
				}
			}
			if _, err := migrate.Apply(ctx, st.DB, st.Dialect); err != nil {
				t.Fatal(err)
			}
			got := query(t, st.DB, `SELECT 'delivery', id, account_id FROM webhook_deliveries
				UNION ALL SELECT 'attempt', id, account_id FROM webhook_attempts ORDER BY 1, 2`)
			want := [][]string{{"attempt", "41", "7"}, {"attempt", "42", "8"}, {"attempt", "43", "8"}, {"delivery", "31", "7"}, {"delivery", "32", "8"}}
			if !slices.EqualFunc(got, want, slices.Equal) {
				t.Fatalf("rows after the migration: %v, want %v", got, want)
			}
		})
	}
}
