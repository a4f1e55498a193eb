package store

import (
	"context"
	"fmt"
	"testing"

	"larder.dev/larder/internal/platform/dberror"
)

// A connection whose server takes no writes any more (a primary demoted by
// a failover refuses them with 25006) is dropped by the pool at the first
// refusal: the next write gets a new connection, which reaches a server
// that takes it. Without the guard's retirement the pool would hand the
// read-only connection out again and every write on it would fail. Here a
// session set read-only stands in for the demoted server.
func TestReadOnlyConnectionIsDropped(t *testing.T) {
	for _, ownCancel := range []bool{true, false} {
		t.Run(fmt.Sprintf("own-cancel=%v", ownCancel), func(t *testing.T) {
			db := postgresPool(t, ownCancel)
			db.SetMaxOpenConns(1)
			db.SetMaxIdleConns(1)
			ctx := context.Background()
			var before, after int
			if err := db.QueryRowContext(ctx, "SELECT pg_backend_pid()").Scan(&before); err != nil {
				t.Fatal(err)
			}
			if _, err := db.ExecContext(ctx, "SET default_transaction_read_only = on"); err != nil {
				t.Fatal(err)
			}
			_, err := db.ExecContext(ctx, "CREATE TEMP TABLE failover_probe (x int)")
			if s, _ := dberror.SQLState(err); s != "25006" {
				t.Fatalf("a write on the read-only connection: %v, want SQLSTATE 25006", err)
			}
			if !dberror.Unavailable(err) {
				t.Errorf("Unavailable(%v) = false: a write refused by a demoted server is answered 503", err)
			}
			if _, err := db.ExecContext(ctx, "CREATE TEMP TABLE failover_probe (x int)"); err != nil {
				t.Fatalf("the write after the refusal: %v (the read-only connection was handed out again)", err)
			}
			if err := db.QueryRowContext(ctx, "SELECT pg_backend_pid()").Scan(&after); err != nil {
				t.Fatal(err)
			}
			if after == before {
				t.Errorf("the same server process %d after the refusal: the connection was kept", before)
			}
		})
	}
}

// A connection its server ended (pg_terminate_backend, as a server
// shutting down for a failover does: 57P01) is replaced without a restart:
// the next statements, a transaction's included, run on a new connection.
func TestTerminatedConnectionsAreReplaced(t *testing.T) {
	for _, ownCancel := range []bool{true, false} {
		t.Run(fmt.Sprintf("own-cancel=%v", ownCancel), func(t *testing.T) {
			db := postgresPool(t, ownCancel)
			db.SetMaxOpenConns(2)
			db.SetMaxIdleConns(2)
			ctx := context.Background()
			var pid int
			if err := db.QueryRowContext(ctx, "SELECT pg_backend_pid()").Scan(&pid); err != nil {
				t.Fatal(err)
			}
			admin := postgresPool(t, false)
			var ok bool
			if err := admin.QueryRowContext(ctx, "SELECT pg_terminate_backend($1)", pid).Scan(&ok); err != nil || !ok {
				t.Fatalf("terminate %d: %v %v", pid, ok, err)
			}
			for i := range 3 {
				tx, err := db.BeginTx(ctx, nil)
				if err != nil {
					t.Fatalf("begin %d after the termination: %v", i, err)
				}
				var got int
				if err := tx.QueryRowContext(ctx, "SELECT pg_backend_pid()").Scan(&got); err != nil {
					t.Fatalf("query %d after the termination: %v", i, err)
				}
				if got == pid {
					t.Fatalf("the terminated server process %d still serves", pid)
				}
				if err := tx.Commit(); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}
