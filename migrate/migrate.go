// Package migrate changes database schemas, and only through the committed
// Atlas migration directories (migrations/postgres, migrations/sqlite), which
// are embedded in the binary. Apply runs the pending files, verifying
// atlas.sum first, so a tampered directory is refused. Diff writes the next
// migration of both dialects from the compiled ent schema.
package migrate

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"time"

	"ariga.io/atlas/sql/migrate"
	"ariga.io/atlas/sql/postgres"
	"ariga.io/atlas/sql/sqlite"
	"entgo.io/ent/dialect"
)

//go:embed all:migrations
var embedded embed.FS

// Subdir is the directory of a dialect's migrations under migrations/.
func Subdir(dia string) string {
	if dia == dialect.SQLite {
		return "sqlite"
	}
	return "postgres"
}

// Embedded returns the embedded migration directory of a dialect.
func Embedded(dia string) (migrate.Dir, error) {
	return FromFS(embedded, "migrations/"+Subdir(dia))
}

// FromFS copies the migration directory root of fsys into memory.
func FromFS(fsys fs.FS, root string) (migrate.Dir, error) {
	d := &migrate.MemDir{}
	entries, err := fs.ReadDir(fsys, root)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		b, err := fs.ReadFile(fsys, root+"/"+e.Name())
		if err != nil {
			return nil, err
		}
		if err := d.WriteFile(e.Name(), b); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// Apply runs the pending migrations of the embedded directory, then each of
// then (the shared reference rows) while still holding the migration lock, and
// returns the versions it applied.
func Apply(ctx context.Context, db *sql.DB, dia string, then ...func(context.Context) error) ([]string, error) {
	dir, err := Embedded(dia)
	if err != nil {
		return nil, err
	}
	return ApplyDir(ctx, db, dia, dir, then...)
}

// ApplyDir runs the pending migrations of dir, then each of then. Concurrent
// callers (several servers starting at once) take turns on a database lock.
func ApplyDir(ctx context.Context, db *sql.DB, dia string, dir migrate.Dir, then ...func(context.Context) error) ([]string, error) {
	if err := migrate.Validate(dir); err != nil {
		return nil, fmt.Errorf("migration directory: %w (was a migration edited? atlas.sum no longer matches)", err)
	}
	var (
		drv migrate.Driver
		err error
	)
	switch dia {
	case dialect.Postgres:
		drv, err = postgres.Open(db)
	case dialect.SQLite:
		drv, err = sqlite.Open(db)
	default:
		return nil, fmt.Errorf("migrate: unsupported dialect %q", dia)
	}
	if err != nil {
		return nil, err
	}
	// PostgreSQL serialises servers starting together with an advisory lock.
	// (Atlas's SQLite lock is per process, not per file; SQLite has one writer.)
	if dia == dialect.Postgres {
		unlock, err := lock(ctx, db, LockWait)
		if err != nil {
			return nil, fmt.Errorf("migrate: take the migration lock: %w", err)
		}
		defer unlock()
	}
	rrw := &revisions{db: db, dia: dia}
	if err := rrw.init(ctx); err != nil {
		return nil, err
	}
	if err := unchanged(ctx, rrw, dir); err != nil {
		return nil, err
	}
	ex, err := migrate.NewExecutor(drv, dir, rrw, migrate.WithOperatorVersion("larder"))
	if err != nil {
		return nil, err
	}
	applied := []string{}
	pending, err := ex.Pending(ctx)
	switch {
	case errors.Is(err, migrate.ErrNoPendingFiles):
	case err != nil:
		return nil, fmt.Errorf("migrate: %w", err)
	default:
		for _, f := range pending {
			if err := ex.Execute(ctx, f); err != nil {
				return applied, fmt.Errorf("migrate: apply %s: %w", f.Name(), err)
			}
			applied = append(applied, f.Version())
		}
	}
	for _, f := range then {
		if err := f(ctx); err != nil {
			return applied, err
		}
	}
	return applied, nil
}

// LockWait is how long Apply waits for another process's migration lock.
const LockWait = time.Minute

// lockKey is the migration lock's advisory-lock key: FNV-32 of
// "larder_migrate", the key Atlas's own lock used before, so that a process
// of an earlier release and one of this release take turns too.
var lockKey = func() int64 {
	h := fnv.New32()
	h.Write([]byte("larder_migrate"))
	return int64(h.Sum32())
}()

// lock takes the migration lock on PostgreSQL: a transaction-level advisory
// lock in a transaction of its own, held open until unlock ends it. Ending
// the transaction releases the lock whatever happened meanwhile, and it
// works through PgBouncer in transaction mode, which keeps the transaction
// on one server connection; a session-level lock would stay with whichever
// server connection took it, and the unlock could reach another. The lock is
// tried in short statements, 50 ms to 1 s apart, so that a waiting process
// holds no long-running statement a migration would wait for; after wait,
// lock gives up.
func lock(ctx context.Context, db *sql.DB, wait time.Duration) (unlock func(), err error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(wait)
	pause := 50 * time.Millisecond
	for {
		var got bool
		// Direct SQL: the migration lock, an advisory lock ent has no words for.
		if err := tx.QueryRowContext(ctx, "SELECT pg_try_advisory_xact_lock($1)", lockKey).Scan(&got); err != nil {
			_ = tx.Rollback()
			return nil, err
		}
		if got {
			return func() { _ = tx.Rollback() }, nil
		}
		if time.Now().After(deadline) {
			_ = tx.Rollback()
			return nil, fmt.Errorf("another process has held it for over %s", wait)
		}
		select {
		case <-ctx.Done():
			_ = tx.Rollback()
			return nil, ctx.Err()
		case <-time.After(pause):
		}
		pause = min(2*pause, time.Second)
	}
}

// unchanged refuses a directory whose applied migrations differ from what was
// applied: atlas.sum only proves the files match the sum, and a sum rewritten
// after an edit would pass it.
func unchanged(ctx context.Context, rrw *revisions, dir migrate.Dir) error {
	revs, err := rrw.ReadRevisions(ctx)
	if err != nil {
		return err
	}
	files, err := dir.Files()
	if err != nil {
		return err
	}
	names := map[string]string{}
	for _, f := range files {
		names[f.Version()] = f.Name()
	}
	sums, err := dir.Checksum()
	if err != nil {
		return err
	}
	for _, r := range revs {
		name, ok := names[r.Version]
		if !ok {
			return fmt.Errorf("migrate: migration %s was applied but is missing from the directory", r.Version)
		}
		sum, err := sums.SumByName(name)
		if err != nil {
			return err
		}
		if sum != r.Hash {
			return fmt.Errorf("migrate: %s was changed after it was applied; add a new migration instead", name)
		}
	}
	return nil
}

// Unapplied returns the versions of the embedded migrations the database has
// not applied, oldest first: what /readyz waits for. A database that has
// never been migrated has them all.
func Unapplied(ctx context.Context, db *sql.DB, dia string) ([]string, error) {
	dir, err := Embedded(dia)
	if err != nil {
		return nil, err
	}
	files, err := dir.Files()
	if err != nil {
		return nil, err
	}
	rrw := &revisions{db: db, dia: dia}
	revs, err := rrw.ReadRevisions(ctx)
	if err != nil {
		return nil, err
	}
	applied := map[string]bool{}
	for _, r := range revs {
		applied[r.Version] = true
	}
	var out []string
	for _, f := range files {
		if !applied[f.Version()] {
			out = append(out, f.Version())
		}
	}
	return out, nil
}
