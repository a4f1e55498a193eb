package store_test

import (
	"context"
	"testing"

	"entgo.io/ent/dialect"

	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/dbtest"
)

// TestDedicated: on PostgreSQL a worker's pool is one connection of its own,
// apart from the store's, which PostgreSQL shows under the worker's name;
// on SQLite there is none and the worker writes through the store's pool.
func TestDedicated(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		db, err := st.Dedicated(ctx, "larder test worker")
		if err != nil {
			t.Fatal(err)
		}
		if st.Dialect != dialect.Postgres {
			if db != nil {
				db.Close()
				t.Fatal("SQLite: a dedicated pool, want none")
			}
			return
		}
		defer db.Close()
		if n := db.Stats().MaxOpenConnections; n != 1 {
			t.Errorf("the pool opens at most %d connections, want 1", n)
		}
		var name string
		var mine, shared int
		// Direct SQL: the dedicated connection's own name and backend, and the store's pool's, from PostgreSQL's session views.
		if err := db.QueryRowContext(ctx, `SELECT current_setting('application_name'), pg_backend_pid()`).Scan(&name, &mine); err != nil {
			t.Fatal(err)
		}
		if name != "larder test worker" {
			t.Errorf("application_name %q, want the worker's name", name)
		}
		if err := st.DB.QueryRowContext(ctx, `SELECT pg_backend_pid()`).Scan(&shared); err != nil {
			t.Fatal(err)
		}
		if mine == shared {
			t.Errorf("the dedicated connection is the store's (backend %d)", mine)
		}
	})
}
