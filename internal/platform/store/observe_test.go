package store

import (
	"context"
	"database/sql"
	"path/filepath"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// observedPools are the pools an observer wraps: modernc.org/sqlite, and the
// guarded lib/pq connections with lib/pq's own cancel requests (the plain
// path) and with the guard's (the fast path, ownCancel), each with the DSN
// and placeholder of its database.
var observedPools = []struct {
	name      string
	driver    string
	ownCancel bool
}{
	{"sqlite", "sqlite", false},
	{"postgres-plain", "postgres", false},
	{"postgres-own-cancel", "postgres", true},
}

// observedDSN is the DSN of a pool of observedPools, or a visible skip.
func observedDSN(t *testing.T, driverName string) string {
	if driverName == "sqlite" {
		return SQLiteDSN(filepath.Join(t.TempDir(), "t.db"))
	}
	return PostgresDSN(postgresURL(t))
}

// recorder keeps the calls an observer reports.
type recorder struct {
	mu    sync.Mutex
	calls []Call
}

func (r *recorder) see(c Call) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, c)
}

// take returns the calls seen since the last take.
func (r *recorder) take() []Call {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.calls
	r.calls = nil
	return out
}

// An observed pool reports each call that reaches the database, as it is
// made, with its SQL and arguments: a query and an exec, a prepare and each
// execution of the prepared statement, BEGIN, COMMIT and ROLLBACK; closing a
// statement or a connection, and the pool's own upkeep, are not reported. A
// pool opened without an observer is not wrapped.
func TestObserverReportsEveryCall(t *testing.T) {
	for _, p := range observedPools {
		t.Run(p.name, func(t *testing.T) {
			ctx := context.Background()
			dsn := observedDSN(t, p.driver)
			ph := "$1"
			if p.driver == "sqlite" {
				ph = "?"
			}
			plain, err := openDB(p.driver, dsn, p.ownCancel, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer plain.Close()
			if observed(t, plain) {
				t.Error("a pool opened without an observer has its connections observed")
			}
			var r recorder
			db, err := openDB(p.driver, dsn, p.ownCancel, r.see)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			conn, err := db.Conn(ctx) // one connection: a temporary table is its own
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if !observed(t, db) {
				t.Fatal("a pool opened with an observer has its connections unobserved")
			}
			r.take()

			exec := func(q string, args ...any) {
				t.Helper()
				if _, err := conn.ExecContext(ctx, q, args...); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			create := "CREATE TEMP TABLE observed (n integer)"
			insert := "INSERT INTO observed (n) VALUES (" + ph + ")"
			exec(create)
			exec(insert, 7)
			var n int
			if err := conn.QueryRowContext(ctx, "SELECT count(*) FROM observed").Scan(&n); err != nil || n != 1 {
				t.Fatalf("count: %d, %v", n, err)
			}
			sel := "SELECT n FROM observed WHERE n = " + ph
			stmt, err := conn.PrepareContext(ctx, sel)
			if err != nil {
				t.Fatal(err)
			}
			for range 2 {
				if err := stmt.QueryRowContext(ctx, 7).Scan(&n); err != nil || n != 7 {
					t.Fatalf("prepared: %d, %v", n, err)
				}
			}
			if err := stmt.Close(); err != nil {
				t.Fatal(err)
			}
			update := "UPDATE observed SET n = n + 1"
			tx, err := conn.BeginTx(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := tx.ExecContext(ctx, update); err != nil {
				t.Fatal(err)
			}
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
			tx, err = conn.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			if err := tx.Rollback(); err != nil {
				t.Fatal(err)
			}

			want := []Call{
				{Op: OpExec, SQL: create},
				{Op: OpExec, SQL: insert, Args: []any{int64(7)}},
				{Op: OpQuery, SQL: "SELECT count(*) FROM observed"},
				{Op: OpPrepare, SQL: sel},
				{Op: OpQuery, SQL: sel, Args: []any{int64(7)}, Prepared: true},
				{Op: OpQuery, SQL: sel, Args: []any{int64(7)}, Prepared: true},
				{Op: OpBegin},
				{Op: OpExec, SQL: update},
				{Op: OpCommit},
				{Op: OpBegin},
				{Op: OpRollback},
			}
			if diff := cmp.Diff(want, r.take()); diff != "" {
				t.Errorf("the calls seen (-want +got):\n%s", diff)
			}
		})
	}
}

// observed reports whether the connections of db are the observer's.
func observed(t *testing.T, db *sql.DB) bool {
	t.Helper()
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var is bool
	if err := conn.Raw(func(dc any) error { _, is = dc.(*observedConn); return nil }); err != nil {
		t.Fatal(err)
	}
	return is
}

// A call as text is its SQL, or what it does.
func TestCallString(t *testing.T) {
	for _, c := range []struct {
		call Call
		want string
	}{
		{Call{Op: OpQuery, SQL: "SELECT 1", Args: []any{1}}, "SELECT 1"},
		{Call{Op: OpExec, SQL: "DELETE FROM t", Prepared: true}, "DELETE FROM t"},
		{Call{Op: OpPrepare, SQL: "SELECT 1"}, "PREPARE SELECT 1"},
		{Call{Op: OpBegin}, "BEGIN"},
		{Call{Op: OpCommit}, "COMMIT"},
		{Call{Op: OpRollback}, "ROLLBACK"},
	} {
		if got := c.call.String(); got != c.want {
			t.Errorf("%+v as text: %q, want %q", c.call, got, c.want)
		}
		if got, want := c.call.Statement(), c.call.Op == OpQuery || c.call.Op == OpExec; got != want {
			t.Errorf("%+v: Statement() = %v", c.call, got)
		}
	}
}
