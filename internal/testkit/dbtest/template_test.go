package dbtest

import (
	"context"
	"database/sql"
	"os"
	"testing"

	"larder.dev/larder/ent/unitofmeasure"
	"larder.dev/larder/internal/seed"
	"larder.dev/larder/migrate"
	"larder.dev/larder/policy"
)

func TestMain(m *testing.M) { Main(m) }

// The package's PostgreSQL database is a copy of the server's template,
// with every migration applied and the shared rows.
func TestPackageDatabaseIsACopyOfTheTemplate(t *testing.T) {
	if os.Getenv(EnvPostgres) == "" || os.Getenv(EnvCitusWorkers) != "" {
		t.Skip("SKIPPED: needs " + EnvPostgres + " on a server without Citus workers")
	}
	st := Open(t, Postgres)
	ctx := context.Background()
	applied, err := migrate.Apply(ctx, st.DB, st.Dialect)
	if err != nil {
		t.Fatal(err)
	}
	if len(applied) != 0 {
		t.Errorf("the copy had %d migrations to apply: %v", len(applied), applied)
	}
	units, err := st.Client.UnitOfMeasure.Query().Where(unitofmeasure.IsGlobal(true)).Count(policy.System(ctx))
	if err != nil {
		t.Fatal(err)
	}
	if units != len(seed.Units) {
		t.Errorf("%d shared units, want %d", units, len(seed.Units))
	}
	if pg.template == "" {
		t.Fatal("the package's database was not copied from a template")
	}
	db, err := sql.Open("postgres", AdminURL())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// Without connecting to it: a connection would keep other packages
	// from copying it.
	var exists bool
	if err := db.QueryRow(`SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)`, pg.template).Scan(&exists); err != nil {
		t.Fatal(err)
	}
	if !exists {
		t.Errorf("the template %s is not on the server", pg.template)
	}
}
