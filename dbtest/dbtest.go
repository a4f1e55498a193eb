// Package dbtest runs test suites on every database Larder supports: always on
// a fresh SQLite file per test, and on PostgreSQL too when
// LARDER_TEST_POSTGRES_URL names a server, in a fresh database per test
// package migrated by the committed Atlas directory. Tests isolate themselves
// by creating their own organizations, as tenants would.
package dbtest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"larder.dev/larder/migrate"
	"larder.dev/larder/seed"
	"larder.dev/larder/store"
)

// EnvPostgres names the PostgreSQL server to test on (any database of it; the
// tests create their own).
const EnvPostgres = "LARDER_TEST_POSTGRES_URL"

var pg struct {
	admin string // URL of the server's maintenance database
	url   string // URL of this package's database
	once  sync.Once
	st    *store.Store
	err   error
}

// Main runs a package's tests, creating its PostgreSQL database first and
// dropping it after, when LARDER_TEST_POSTGRES_URL is set. Call it from TestMain.
func Main(m *testing.M) {
	code, err := run(m)
	if err != nil {
		fmt.Fprintln(os.Stderr, "dbtest:", err)
		code = 1
	}
	os.Exit(code)
}

func run(m *testing.M) (int, error) {
	raw := os.Getenv(EnvPostgres)
	if raw == "" {
		return m.Run(), nil
	}
	u, err := url.Parse(raw)
	if err != nil {
		return 1, fmt.Errorf("%s: %w", EnvPostgres, err)
	}
	var b [4]byte
	_, _ = rand.Read(b[:])
	pkg := regexp.MustCompile(`[^a-z0-9]+`).ReplaceAllString(strings.ToLower(strings.TrimSuffix(filepath.Base(os.Args[0]), ".test")), "_")
	name := "larder_test_" + pkg + "_" + hex.EncodeToString(b[:])
	admin := *u
	admin.Path = "/postgres"
	pg.admin = admin.String()
	db, err := sql.Open("postgres", pg.admin)
	if err != nil {
		return 1, err
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE DATABASE "` + name + `"`); err != nil {
		return 1, fmt.Errorf("create test database: %w", err)
	}
	defer func() {
		if pg.st != nil {
			pg.st.Close()
		}
		_, _ = db.Exec(`DROP DATABASE IF EXISTS "` + name + `" WITH (FORCE)`)
	}()
	own := *u
	own.Path = "/" + name
	pg.url = own.String()
	return m.Run(), nil
}

// Backend is a database to test on.
type Backend string

// The backends.
const (
	SQLite   Backend = "sqlite"
	Postgres Backend = "postgres"
)

// Backends are the databases this run tests on.
func Backends() []Backend {
	if pg.url != "" {
		return []Backend{SQLite, Postgres}
	}
	return []Backend{SQLite}
}

// Run runs f once per backend as a subtest, with a migrated store.
func Run(t *testing.T, f func(t *testing.T, st *store.Store)) {
	t.Helper()
	for _, b := range Backends() {
		t.Run(string(b), func(t *testing.T) {
			f(t, Open(t, b))
		})
	}
}

// Open returns a migrated store with the shared rows: a new SQLite file for
// this test, or the package's PostgreSQL database (shared by the package's tests).
func Open(t testing.TB, b Backend) *store.Store {
	t.Helper()
	if b == SQLite {
		st, err := prepare(context.Background(), "sqlite://"+filepath.Join(t.TempDir(), "larder.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}
	pg.once.Do(func() { pg.st, pg.err = prepare(context.Background(), pg.url) })
	if pg.err != nil {
		t.Fatal(pg.err)
	}
	return pg.st
}

// URL returns the database URL of backend b for a test that opens its own
// stores (a second server process): the package database, or a new SQLite file.
func URL(t testing.TB, b Backend) string {
	if b == Postgres {
		Open(t, b) // migrated before anyone else connects
		return pg.url
	}
	return "sqlite://" + filepath.Join(t.TempDir(), "larder.db")
}

// AdminURL is the PostgreSQL maintenance database, for tests that create
// databases of their own ("" without PostgreSQL).
func AdminURL() string { return pg.admin }

func prepare(ctx context.Context, dbURL string) (*store.Store, error) {
	st, err := store.Open(ctx, dbURL, store.Options{})
	if err != nil {
		return nil, err
	}
	if _, err := migrate.Apply(ctx, st.DB, st.Dialect); err != nil {
		st.Close()
		return nil, err
	}
	if err := seed.Shared(ctx, st.Client); err != nil {
		st.Close()
		return nil, err
	}
	return st, nil
}
