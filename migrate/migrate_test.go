package migrate_test

import (
	"context"
	"errors"
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
