package dberror_test

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/lib/pq"

	"larder.dev/larder/internal/platform/dberror"
	_ "larder.dev/larder/internal/platform/store" // registers the drivers' errors
	"larder.dev/larder/internal/testkit/dbtest"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

// open returns an empty database of backend b with a table of two unique
// keys: a constraint over (account_id, sku) and a single-column one on code.
// SQLite waits for no lock (busy_timeout 0), so that a conflict is reported at once.
func open(t *testing.T, b dbtest.Backend) *sql.DB {
	t.Helper()
	var db *sql.DB
	var err error
	if b == dbtest.Postgres {
		db, err = sql.Open("postgres", dbtest.Scratch(t, "dberror"))
	} else {
		db, err = sql.Open("sqlite", "file:"+filepath.Join(t.TempDir(), "t.db")+"?_pragma=busy_timeout(0)&_pragma=journal_mode(WAL)")
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	_, err = db.Exec(`CREATE TABLE items (
		id integer PRIMARY KEY,
		account_id integer NOT NULL,
		sku text NOT NULL,
		code text,
		CONSTRAINT items_account_id_sku UNIQUE (account_id, sku),
		CONSTRAINT items_code UNIQUE (code))`)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO items (id, account_id, sku, code) VALUES (1, 7, 'A', 'x'), (2, 7, 'B', 'y')`); err != nil {
		t.Fatal(err)
	}
	return db
}

func each(t *testing.T, f func(t *testing.T, b dbtest.Backend, db *sql.DB)) {
	for _, b := range dbtest.Backends(t) {
		t.Run(string(b), func(t *testing.T) { f(t, b, open(t, b)) })
	}
}

// TestUnique: a unique violation names its constraint and its columns
// (PostgreSQL, the columns from its detail) or its columns without their
// table (SQLite); other errors are not one.
func TestUnique(t *testing.T) {
	each(t, func(t *testing.T, b dbtest.Backend, db *sql.DB) {
		_, err := db.Exec(`INSERT INTO items (id, account_id, sku) VALUES (3, 7, 'A')`)
		if err == nil {
			t.Fatal("duplicate (account_id, sku) inserted")
		}
		constraint, cols, ok := dberror.Unique(fmt.Errorf("create item: %w", err))
		if !ok {
			t.Fatalf("Unique(%v) = false", err)
		}
		if b == dbtest.Postgres {
			if constraint != "items_account_id_sku" || !slices.Equal(cols, []string{"account_id", "sku"}) {
				t.Fatalf("Unique(%v) = %q, %q; want the constraint items_account_id_sku on account_id, sku", err, constraint, cols)
			}
		} else if constraint != "" || !slices.Equal(cols, []string{"account_id", "sku"}) {
			t.Fatalf("Unique(%v) = %q, %q; want columns account_id, sku", err, constraint, cols)
		}

		_, err = db.Exec(`UPDATE items SET code = 'x' WHERE id = 2`)
		constraint, cols, ok = dberror.Unique(err)
		if !ok || (b == dbtest.Postgres && constraint != "items_code") || (b == dbtest.SQLite && !slices.Equal(cols, []string{"code"})) {
			t.Fatalf("Unique(%v) = %q, %q, %v; want the code constraint", err, constraint, cols, ok)
		}

		_, err = db.Exec(`INSERT INTO items (id, account_id) VALUES (4, 7)`) // sku NOT NULL
		if err == nil {
			t.Fatal("row without sku inserted")
		}
		if _, _, ok := dberror.Unique(err); ok {
			t.Fatalf("Unique(%v) = true for a NOT NULL violation", err)
		}
		if _, _, ok := dberror.Unique(nil); ok {
			t.Fatal("Unique(nil) = true")
		}
		if dberror.Retryable(err) || dberror.Unavailable(err) {
			t.Fatalf("a NOT NULL violation %v is retryable or unavailable", err)
		}
	})
}

// TestLockNotAvailable: a lock held by another transaction is "not now",
// not a retryable abort: on PostgreSQL a NOWAIT lock (55P03), on SQLite a
// second writer's BEGIN IMMEDIATE without a busy timeout (SQLITE_BUSY).
func TestLockNotAvailable(t *testing.T) {
	each(t, func(t *testing.T, b dbtest.Backend, db *sql.DB) {
		ctx := context.Background()
		holder, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer holder.Close()
		other, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer other.Close()
		if b == dbtest.Postgres {
			mustExec(t, holder, `BEGIN`)
			mustExec(t, holder, `SELECT id FROM items WHERE id = 1 FOR UPDATE`)
			mustExec(t, other, `BEGIN`)
			_, err = other.ExecContext(ctx, `SELECT id FROM items WHERE id = 1 FOR UPDATE NOWAIT`)
			_, _ = other.ExecContext(ctx, `ROLLBACK`)
		} else {
			mustExec(t, holder, `BEGIN IMMEDIATE`)
			_, err = other.ExecContext(ctx, `BEGIN IMMEDIATE`)
		}
		_, _ = holder.ExecContext(ctx, `ROLLBACK`)
		if err == nil {
			t.Fatal("the second transaction had the lock the first holds")
		}
		if !dberror.Unavailable(err) {
			t.Fatalf("Unavailable(%v) = false", err)
		}
		if dberror.Retryable(err) {
			t.Fatalf("Retryable(%v) = true: the statement failed, its transaction did not end", err)
		}
	})
}

// TestDeadlock: PostgreSQL aborts one of two transactions that wait for each
// other (40P01); that one is retryable and unavailable, the other commits.
func TestDeadlock(t *testing.T) {
	if !slices.Contains(dbtest.Backends(t), dbtest.Postgres) {
		t.Skip("PostgreSQL only (SQLite takes the write lock at BEGIN, so it has no deadlocks); set " + dbtest.EnvPostgres)
	}
	db := open(t, dbtest.Postgres)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	txs := make([]*sql.Tx, 2)
	for i := range txs {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		if _, err := tx.ExecContext(ctx, `UPDATE items SET code = code WHERE id = $1`, i+1); err != nil {
			t.Fatal(err)
		}
		txs[i] = tx
	}
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i, tx := range txs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Each takes the row the other holds.
			_, errs[i] = tx.ExecContext(ctx, `UPDATE items SET code = code WHERE id = $1`, 2-i)
			if errs[i] != nil {
				_ = tx.Rollback()
			} else {
				errs[i] = tx.Commit()
			}
		}()
	}
	wg.Wait()
	var aborted []error
	for _, err := range errs {
		if err != nil {
			aborted = append(aborted, err)
		}
	}
	if len(aborted) != 1 {
		t.Fatalf("errors %v, want exactly one transaction aborted", errs)
	}
	err := fmt.Errorf("update item: %w", aborted[0])
	if !dberror.Retryable(err) || !dberror.Unavailable(err) {
		t.Fatalf("Retryable, Unavailable(%v) = %v, %v; want both true", err, dberror.Retryable(err), dberror.Unavailable(err))
	}
	if _, _, ok := dberror.Unique(err); ok {
		t.Fatalf("Unique(%v) = true", err)
	}
}

// TestConnectionRefused: a database nobody answers for is unavailable; a
// cancelled or finished context is neither unavailable nor retryable.
func TestConnectionRefused(t *testing.T) {
	db, err := sql.Open("postgres", "postgres://postgres@127.0.0.1:1/x?sslmode=disable&connect_timeout=5")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.Ping()
	if err == nil {
		t.Fatal("a database on port 1 answered")
	}
	if !dberror.Unavailable(err) || dberror.Retryable(err) {
		t.Fatalf("Unavailable, Retryable(%v) = %v, %v; want true, false", err, dberror.Unavailable(err), dberror.Retryable(err))
	}
	// PgBouncer's own refusals (no server connection in time; shutting
	// down) and a server shutting down are "not now" too.
	for _, code := range []pq.ErrorCode{"08P01", "08006", "57P01", "57P02"} {
		err := &pq.Error{Code: code, Message: "query_wait_timeout"}
		if !dberror.Unavailable(fmt.Errorf("wrapped: %w", err)) || dberror.Retryable(err) {
			t.Errorf("%s: Unavailable, Retryable = %v, %v; want true, false", code, dberror.Unavailable(err), dberror.Retryable(err))
		}
	}
	for _, err := range []error{context.Canceled, context.DeadlineExceeded, errors.New("UNIQUE"), &pq.Error{Code: "23505"}, &pq.Error{Code: "42P01"}, nil} {
		if dberror.Unavailable(err) || dberror.Retryable(err) {
			t.Errorf("%v is unavailable or retryable", err)
		}
	}
}

func mustExec(t *testing.T, c *sql.Conn, q string) {
	t.Helper()
	if _, err := c.ExecContext(context.Background(), q); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// sqlStateError is an error of no driver of Larder's with a SQLSTATE.
type sqlStateError string

func (e sqlStateError) Error() string    { return "state " + string(e) }
func (e sqlStateError) SQLState() string { return string(e) }

// TestSQLStateOfAnyDriver: what a SQLSTATE says is read from any error that
// has one, whatever its driver.
func TestSQLStateOfAnyDriver(t *testing.T) {
	for _, c := range []struct {
		state                  string
		retryable, unavailable bool
	}{
		{"40001", true, true},
		{"40P01", true, true},
		{"08006", false, true},
		{"55P03", false, true},
		{"25006", false, true},
		{"23505", false, false},
		{"42P01", false, false},
	} {
		err := fmt.Errorf("wrapped: %w", sqlStateError(c.state))
		if s, ok := dberror.SQLState(err); !ok || s != c.state {
			t.Errorf("SQLState(%v) = %q, %v", err, s, ok)
		}
		if dberror.Retryable(err) != c.retryable || dberror.Unavailable(err) != c.unavailable {
			t.Errorf("%s: Retryable, Unavailable = %v, %v; want %v, %v", c.state, dberror.Retryable(err), dberror.Unavailable(err), c.retryable, c.unavailable)
		}
	}
	if _, ok := dberror.SQLState(errors.New("no state")); ok {
		t.Error("SQLState found a state in an error without one")
	}
}

// TestGone: the errors after which a connection is dropped from its pool
// (a broken socket, a server shutting down, not ready, or read-only after a
// demotion) against those that leave it usable.
func TestGone(t *testing.T) {
	for _, err := range []error{
		driver.ErrBadConn,
		fmt.Errorf("commit: %w", driver.ErrBadConn),
		io.EOF,
		io.ErrUnexpectedEOF,
		&net.OpError{Op: "read", Net: "tcp", Err: errors.New("connection reset by peer")},
		sqlStateError("25006"),
		sqlStateError("57P01"),
		sqlStateError("57P02"),
		sqlStateError("57P03"),
		sqlStateError("08006"),
		fmt.Errorf("%w: %w", dberror.ErrCommitUnknown, io.EOF),
	} {
		if !dberror.Gone(err) {
			t.Errorf("Gone(%v) = false", err)
		}
	}
	for _, err := range []error{nil, context.Canceled, context.DeadlineExceeded, sqlStateError("23505"), sqlStateError("57014"), sqlStateError("40001"), sqlStateError("55P03"), errors.New("UNIQUE")} {
		if dberror.Gone(err) {
			t.Errorf("Gone(%v) = true", err)
		}
	}
}
