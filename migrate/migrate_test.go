package migrate_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	atlas "ariga.io/atlas/sql/migrate"

	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/migrate"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

// The committed migrations produce exactly the schema the code expects: a
// fresh diff of each dialect is empty. CI fails otherwise.
func TestMigrationsMatchTheSchema(t *testing.T) {
	t.Parallel()
	for _, b := range dbtest.Backends(t) {
		t.Run(string(b), func(t *testing.T) {
			dia := "sqlite3"
			dev := ""
			if b == dbtest.Postgres {
				dia = "postgres"
				dev = devDatabase(t)
			}
			pending, err := migrate.Pending(context.Background(), dia, dev)
			if err != nil {
				t.Fatal(err)
			}
			if pending != "" {
				t.Fatalf("the migrations are behind the schema; run `larder migrate diff NAME`:\n%s", pending)
			}
		})
	}
}

// Apply runs every migration once and is idempotent.
func TestApplyIsIdempotent(t *testing.T) {
	t.Parallel()
	for _, b := range dbtest.Backends(t) {
		t.Run(string(b), func(t *testing.T) {
			st := freshStore(t, b)
			first, err := migrate.Apply(context.Background(), st.DB, st.Dialect)
			if err != nil || len(first) == 0 {
				t.Fatalf("first apply: %v %v", first, err)
			}
			again, err := migrate.Apply(context.Background(), st.DB, st.Dialect)
			if err != nil || len(again) != 0 {
				t.Fatalf("second apply: %v %v", again, err)
			}
		})
	}
}

// A migration edited after it was hashed is refused before anything runs.
func TestTamperedMigrationIsRefused(t *testing.T) {
	t.Parallel()
	for _, b := range dbtest.Backends(t) {
		t.Run(string(b), func(t *testing.T) {
			st := freshStore(t, b)
			tampered := edited(t, st.Dialect, "\nDROP TABLE tags;\n", false)
			_, err := migrate.ApplyDir(context.Background(), st.DB, st.Dialect, tampered)
			if !errors.Is(err, atlas.ErrChecksumMismatch) {
				t.Fatalf("error %v, want a checksum mismatch", err)
			}
			var n int
			if err := st.DB.QueryRow(`SELECT count(*) FROM ` + migrate.RevisionTable).Scan(&n); err == nil && n != 0 {
				t.Fatalf("%d migrations ran", n)
			}
		})
	}
}

// freshStore is an empty, unmigrated database.
func freshStore(t *testing.T, b dbtest.Backend) *store.Store {
	if b == dbtest.SQLite {
		return dbtest.OpenURL(t, dbtest.URL(t, b))
	}
	return dbtest.OpenURL(t, dbtest.Scratch(t, "fresh"))
}

// devDatabase is a scratch database the diff may recreate (its name ends in _dev).
func devDatabase(t *testing.T) string { return dbtest.Scratch(t, "dev") }

// A migration edited after it was applied is refused even when atlas.sum was
// rewritten to match the edit.
func TestEditedAppliedMigrationIsRefused(t *testing.T) {
	t.Parallel()
	for _, b := range dbtest.Backends(t) {
		t.Run(string(b), func(t *testing.T) {
			st := freshStore(t, b)
			ctx := context.Background()
			if _, err := migrate.Apply(ctx, st.DB, st.Dialect); err != nil {
				t.Fatal(err)
			}
			changed := edited(t, st.Dialect, "\n-- an innocent-looking edit\n", true)
			_, err := migrate.ApplyDir(ctx, st.DB, st.Dialect, changed)
			if err == nil || !strings.Contains(err.Error(), "changed after it was applied") {
				t.Fatalf("error %v, want a refusal of the edited migration", err)
			}
		})
	}
}

// edited is the embedded directory of dia with extra appended to its first
// migration, and atlas.sum either kept (tampering) or rewritten to match.
func edited(t *testing.T, dia, extra string, rehash bool) *atlas.MemDir {
	t.Helper()
	dir, err := migrate.Embedded(dia)
	if err != nil {
		t.Fatal(err)
	}
	files, err := dir.Files()
	if err != nil {
		t.Fatal(err)
	}
	out := &atlas.MemDir{}
	for i, f := range files {
		body := f.Bytes()
		if i == 0 {
			body = append(body, []byte(extra)...)
		}
		if err := out.WriteFile(f.Name(), body); err != nil {
			t.Fatal(err)
		}
	}
	sumOf := dir
	if rehash {
		sumOf = out
	}
	sum, err := sumOf.Checksum()
	if err != nil {
		t.Fatal(err)
	}
	if err := atlas.WriteSumFile(out, sum); err != nil {
		t.Fatal(err)
	}
	return out
}

// Unapplied (what /readyz waits for) lists the embedded migrations a
// database has not applied: none after Apply, the one whose record is gone.
func TestUnapplied(t *testing.T) {
	t.Parallel()
	for _, b := range dbtest.Backends(t) {
		t.Run(string(b), func(t *testing.T) {
			st := freshStore(t, b)
			ctx := context.Background()
			if got, err := migrate.Unapplied(ctx, st.DB, st.Dialect); err == nil && len(got) == 0 {
				t.Fatal("a database never migrated has nothing unapplied")
			}
			applied, err := migrate.Apply(ctx, st.DB, st.Dialect)
			if err != nil {
				t.Fatal(err)
			}
			if got, err := migrate.Unapplied(ctx, st.DB, st.Dialect); err != nil || len(got) != 0 {
				t.Fatalf("after Apply: %v %v", got, err)
			}
			last := applied[len(applied)-1]
			if _, err := st.DB.ExecContext(ctx, "DELETE FROM "+migrate.RevisionTable+" WHERE version = '"+last+"'"); err != nil {
				t.Fatal(err)
			}
			if got, err := migrate.Unapplied(ctx, st.DB, st.Dialect); err != nil || len(got) != 1 || got[0] != last {
				t.Fatalf("with %s's record gone: %v %v", last, got, err)
			}
		})
	}
}

// A failed authentication logged before the request log held account_id
// NOT NULL moves to account 0 (no account's id), and on SQLite the ids'
// counter the rows of plain reads draw from survives the table's rebuild.
func TestFailedAuthenticationsMoveToAccountZero(t *testing.T) {
	t.Parallel()
	for _, b := range dbtest.Backends(t) {
		t.Run(string(b), func(t *testing.T) {
			st := freshStore(t, b)
			ctx := context.Background()
			applyBefore(t, st, "_request_log_distributed.sql")
			// Direct SQL: the test writes the log as the writer did before the migration.
			setup := []string{`INSERT INTO api_requests (created_at, account_id, api_key_id, method, path, status, status_class, request_id, duration_us)
				VALUES ('2026-01-01 10:00:00+00:00', NULL, NULL, 'GET', '/v1/tags', 401, 4, 'req_failed', 5),
				('2026-01-01 10:00:01+00:00', 7, 3, 'POST', '/v1/tags', 201, 2, 'req_write', 5)`}
			if b == dbtest.Postgres {
				setup = append([]string{`CREATE TABLE api_requests_day PARTITION OF api_requests FOR VALUES FROM ('2026-01-01') TO ('2026-01-02')`}, setup...)
			} else {
				setup = append(setup, `UPDATE sqlite_sequence SET seq = 5000 WHERE name = 'api_requests'`)
			}
			for _, q := range setup {
				if _, err := st.DB.ExecContext(ctx, q); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := migrate.Apply(ctx, st.DB, st.Dialect); err != nil {
				t.Fatal(err)
			}
			got := map[string]int{}
			rows, err := st.DB.QueryContext(ctx, `SELECT request_id, account_id FROM api_requests`)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			for rows.Next() {
				var rid string
				var acct int
				if err := rows.Scan(&rid, &acct); err != nil {
					t.Fatal(err)
				}
				got[rid] = acct
			}
			if len(got) != 2 || got["req_failed"] != 0 || got["req_write"] != 7 {
				t.Errorf("after the migration: %v, want req_failed of account 0 and req_write of 7", got)
			}
			if b == dbtest.SQLite {
				var seq int
				if err := st.DB.QueryRowContext(ctx, `SELECT seq FROM sqlite_sequence WHERE name = 'api_requests'`).Scan(&seq); err != nil || seq != 5000 {
					t.Errorf("the ids' counter after the rebuild: %d (%v), want 5000", seq, err)
				}
			}
		})
	}
}

// applyBefore applies to st the embedded migrations that come before the
// one whose name ends in suffix, which must be among them.
func applyBefore(t *testing.T, st *store.Store, suffix string) {
	t.Helper()
	all, err := migrate.Embedded(st.Dialect)
	if err != nil {
		t.Fatal(err)
	}
	files, err := all.Files()
	if err != nil {
		t.Fatal(err)
	}
	before := &atlas.MemDir{}
	found := false
	for _, f := range files {
		if strings.HasSuffix(f.Name(), suffix) {
			found = true
			break
		}
		if err := before.WriteFile(f.Name(), f.Bytes()); err != nil {
			t.Fatal(err)
		}
	}
	if !found {
		t.Fatalf("no migration *%s among the embedded ones", suffix)
	}
	sum, err := before.Checksum()
	if err != nil {
		t.Fatal(err)
	}
	if err := atlas.WriteSumFile(before, sum); err != nil {
		t.Fatal(err)
	}
	if _, err := migrate.ApplyDir(context.Background(), st.DB, st.Dialect, before); err != nil {
		t.Fatal(err)
	}
}

// The rows of plain reads' encoded entries are compressed with LZ4 on
// PostgreSQL: in the day partitions there were before the migration, and in
// those made after it.
func TestRequestLogReadsCompressWithLZ4(t *testing.T) {
	t.Parallel()
	if !slices.Contains(dbtest.Backends(t), dbtest.Postgres) {
		t.Skip("column compression is PostgreSQL's, which this run leaves out")
	}
	st := freshStore(t, dbtest.Postgres)
	ctx := context.Background()
	var lz4 bool
	// Direct SQL: whether this PostgreSQL was built with LZ4.
	if err := st.DB.QueryRowContext(ctx, `SELECT 'lz4' = ANY(enumvals) FROM pg_settings WHERE name = 'default_toast_compression'`).Scan(&lz4); err != nil {
		t.Fatal(err)
	}
	if !lz4 {
		t.Skip("this PostgreSQL was built without LZ4: the migration keeps pglz")
	}
	applyBefore(t, st, "_request_log_reads_lz4.sql")
	// Direct SQL: a day partition made before the migration, and one after.
	if _, err := st.DB.ExecContext(ctx, `CREATE TABLE api_request_reads_before PARTITION OF api_request_reads FOR VALUES FROM ('2026-01-01') TO ('2026-01-02')`); err != nil {
		t.Fatal(err)
	}
	if _, err := migrate.Apply(ctx, st.DB, st.Dialect); err != nil {
		t.Fatal(err)
	}
	if _, err := st.DB.ExecContext(ctx, `CREATE TABLE api_request_reads_after PARTITION OF api_request_reads FOR VALUES FROM ('2026-01-02') TO ('2026-01-03')`); err != nil {
		t.Fatal(err)
	}
	for _, table := range []string{"api_request_reads", "api_request_reads_before", "api_request_reads_after"} {
		var method string
		if err := st.DB.QueryRowContext(ctx, `SELECT attcompression::text FROM pg_attribute WHERE attrelid = $1::regclass AND attname = 'entries'`, table).Scan(&method); err != nil {
			t.Fatal(err)
		}
		if method != "l" {
			t.Errorf("%s.entries is compressed with %q, want LZ4 (l)", table, method)
		}
	}
	// A row's large entries are stored compressed with it.
	if _, err := st.DB.ExecContext(ctx, `INSERT INTO api_request_reads (account_id, api_key_id, method, operation, first_at, last_at, first_id, last_id, requests, entries)
		VALUES (1, 1, 'GET', 'getTag', '2026-01-02 10:00:00+00', '2026-01-02 10:00:01+00', 1, 500, 500, convert_to(repeat('/v1/tags/1 200 ', 2000), 'UTF8'))`); err != nil {
		t.Fatal(err)
	}
	var method string
	if err := st.DB.QueryRowContext(ctx, `SELECT pg_column_compression(entries) FROM api_request_reads`).Scan(&method); err != nil {
		t.Fatal(err)
	}
	if method != "lz4" {
		t.Errorf("a row's entries were stored compressed with %q, want lz4", method)
	}
}
