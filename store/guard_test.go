package store

import (
	"context"
	"database/sql"
	"os"
	"runtime"
	"testing"
)

// postgresDB is a guarded pool on the test server's admin database, or a
// visible skip without one.
func postgresDB(t *testing.T) *sql.DB {
	t.Helper()
	db, err := openDB("postgres", PostgresDSN(postgresURL(t)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// postgresURL is the test server's admin URL, or a visible skip.
func postgresURL(t *testing.T) string {
	t.Helper()
	u := os.Getenv("LARDER_TEST_POSTGRES_URL")
	if u == "" {
		t.Skip("needs PostgreSQL (LARDER_TEST_POSTGRES_URL): the guard is lib/pq's")
	}
	return u
}

// stacks is every goroutine's stack.
func stacks() string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return string(buf[:n])
		}
		buf = make([]byte, 2*len(buf))
	}
}

// rowWatchers counts database/sql's goroutines that wait to close a result
// set when its context ends.
func rowWatchers() int {
	return goroutinesOf("database/sql.(*Rows).initContextClose")
}

// A query's rows on the quiet pool are watched by the guard alone: database/sql
// starts no goroutine for them, and the end of the query's context still ends
// them at once, as it does on a pool that is not quiet.
func TestQuietRowsEndWithTheirContext(t *testing.T) {
	db := postgresDB(t)
	const total = 10_000_000
	for _, quiet := range []bool{false, true} {
		p := pool{c: newStmtCache(db, 4), quiet: quiet}
		ctx, cancel := context.WithCancel(context.Background())
		before := rowWatchers()
		rows, err := p.QueryContext(ctx, "SELECT g FROM generate_series(1, $1::int) g", total)
		if err != nil {
			t.Fatal(err)
		}
		watching := rowWatchers() - before
		if quiet && watching != 0 {
			t.Errorf("quiet pool: %d goroutines watch the rows, want 0", watching)
		}
		if !quiet && watching != 1 {
			t.Errorf("pool: %d goroutines watch the rows, want database/sql's 1 (the count is wrong)", watching)
		}
		if !rows.Next() {
			t.Fatalf("quiet=%v: no first row: %v", quiet, rows.Err())
		}
		cancel()
		read := 1
		for rows.Next() {
			read++
		}
		if rows.Err() == nil || read == total {
			t.Errorf("quiet=%v: read %d rows of %d after the context ended, error %v; want an error before the end", quiet, read, total, rows.Err())
		}
		_ = rows.Close()
		var one int
		if err := db.QueryRowContext(context.Background(), "SELECT 1").Scan(&one); err != nil || one != 1 {
			t.Errorf("quiet=%v: the pool after a cancelled query: %d, %v", quiet, one, err)
		}
	}
}
