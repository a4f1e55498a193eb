package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"testing"

	"github.com/lib/pq"

	"larder.dev/larder/internal/platform/fastpath/stmtcache"
)

// postgresDB is a guarded pool on the test server's admin database, whose
// guard sends the cancel requests itself, or a visible skip without one.
func postgresDB(t *testing.T) *sql.DB { return postgresPool(t, true) }

// postgresPool is a guarded pool on the test server's admin database, whose
// cancel requests the guard sends (ownCancel) or lib/pq does, or a visible
// skip.
func postgresPool(t *testing.T, ownCancel bool) *sql.DB {
	t.Helper()
	db, err := openDB("postgres", PostgresDSN(postgresURL(t)), ownCancel, nil)
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
// cache, whether the guard sends the cancel request or lib/pq does, and the
// pool serves the next query.
func TestRowsEndWithTheirContext(t *testing.T) {
	const total = 10_000_000
	for _, ownCancel := range []bool{true, false} {
		db := postgresPool(t, ownCancel)
		p := stmtcache.New(db, 4).Pool()
		ctx, cancel := context.WithCancel(context.Background())
		rows, err := p.QueryContext(ctx, "SELECT g FROM generate_series(1, $1::int) g", total)
		if err != nil {
			t.Fatal(err)
		}
		if !rows.Next() {
			t.Fatalf("own-cancel=%v: no first row: %v", ownCancel, rows.Err())
		}
		cancel()
		read := 1
		for rows.Next() {
			read++
		}
		if rows.Err() == nil || read == total {
			t.Errorf("own-cancel=%v: read %d rows of %d after the context ended, error %v; want an error before the end", ownCancel, read, total, rows.Err())
		}
		_ = rows.Close()
		var one int
		if err := db.QueryRowContext(context.Background(), "SELECT 1").Scan(&one); err != nil || one != 1 {
			t.Errorf("own-cancel=%v: the pool after a cancelled query: %d, %v", ownCancel, one, err)
		}
	}
}

// A BEGIN refused by a standby (0A000) or on a connection that broke before
// an answer begins again on another connection (database/sql's ErrBadConn);
// one the server refused for any other reason, or a connection error the
// server answered, is the caller's.
func TestBadBegin(t *testing.T) {
	standby := &pq.Error{Code: "0A000", Message: "cannot set transaction read-write mode during recovery"}
	for _, tc := range []struct {
		err   error
		again bool
	}{
		{standby, true},
		{fmt.Errorf("begin: %w", standby), true},
		{io.ErrUnexpectedEOF, true},
		{&pq.Error{Code: "57P01"}, false},
		{&pq.Error{Code: "25P02"}, false},
		{errors.New("something else"), false},
	} {
		err := badBegin(tc.err)
		if got := errors.Is(err, driver.ErrBadConn); got != tc.again {
			t.Errorf("badBegin(%v): begins again %v, want %v", tc.err, got, tc.again)
		}
		if !errors.Is(err, tc.err) {
			t.Errorf("badBegin(%v) = %v, which lost the error", tc.err, err)
		}
	}
}
