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
func postgresDB(t *testing.T) *sql.DB { return postgresPool(t, true) }

// postgresPool is a pool on the test server's admin database, guarded or
// plain (lib/pq as it comes), or a visible skip.
func postgresPool(t *testing.T, guarded bool) *sql.DB {
	t.Helper()
	db, err := openDB("postgres", PostgresDSN(postgresURL(t)), guarded, nil)
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

// A query's rows end as soon as their context ends, through the statement
// cache, on a guarded connection (whose socket the guard cuts) as on a plain
// one (where database/sql closes them), and the pool serves the next query.
func TestRowsEndWithTheirContext(t *testing.T) {
	const total = 10_000_000
	for _, guarded := range []bool{true, false} {
		db := postgresPool(t, guarded)
		p := pool{c: newStmtCache(db, 4)}
		ctx, cancel := context.WithCancel(context.Background())
		rows, err := p.QueryContext(ctx, "SELECT g FROM generate_series(1, $1::int) g", total)
		if err != nil {
			t.Fatal(err)
		}
		if !rows.Next() {
			t.Fatalf("guarded=%v: no first row: %v", guarded, rows.Err())
		}
		cancel()
		read := 1
		for rows.Next() {
			read++
		}
		if rows.Err() == nil || read == total {
			t.Errorf("guarded=%v: read %d rows of %d after the context ended, error %v; want an error before the end", guarded, read, total, rows.Err())
		}
		_ = rows.Close()
		var one int
		if err := db.QueryRowContext(context.Background(), "SELECT 1").Scan(&one); err != nil || one != 1 {
			t.Errorf("guarded=%v: the pool after a cancelled query: %d, %v", guarded, one, err)
		}
	}
}
