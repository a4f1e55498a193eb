// Package dbtest runs test suites on every database Larder supports: always on
// a fresh SQLite file per test, and on PostgreSQL too when
// LARDER_TEST_POSTGRES_URL names a server, in a fresh database per test
// package copied from a template database that the first package migrated by
// the committed Atlas directory and seeded (createDatabase). Tests isolate
// themselves by creating their own organizations, as tenants would.
//
// LARDER_TEST_BACKENDS narrows the run to some of them: "postgres" runs the
// suites on PostgreSQL alone, "sqlite" on SQLite alone (the few tests that
// are about one database run whatever it says).
package dbtest

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"entgo.io/ent/dialect"

	"larder.dev/larder/internal/platform/config"
	"larder.dev/larder/internal/platform/fastpath"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/restapi"
	"larder.dev/larder/internal/seed"
	"larder.dev/larder/internal/seed/refdata"
	"larder.dev/larder/migrate"
)

// EnvPostgres names the PostgreSQL server to test on (any database of it; the
// tests create their own).
const EnvPostgres = "LARDER_TEST_POSTGRES_URL"

// EnvBackends lists the backends to run the suites on, comma-separated
// (sqlite, postgres); unset, SQLite and, when EnvPostgres is set, PostgreSQL.
const EnvBackends = "LARDER_TEST_BACKENDS"

// EnvCitusWorkers makes EnvPostgres a Citus coordinator whose workers it
// lists (host:port, comma-separated; same user and options): the package's
// database is made on every node, the workers added to it, and its tables
// placed once migrated (migrate.Distribute), so the suites run on a cluster
// (bench/citus.sh's SUITES).
const EnvCitusWorkers = "LARDER_TEST_CITUS_WORKERS"

var pg struct {
	mu    sync.Mutex
	tried bool
	admin string // URL of the server's maintenance database
	name  string // this package's database
	// template is the database the package's is a copy of (createDatabase).
	template string
	url      string // URL of this package's database
	err      error
	once     sync.Once
	st       *store.Store
	sterr    error
}

// Runner runs a package's tests and returns the exit code: a *testing.M, or
// another package's main (browsertest.Main) wrapped in RunFunc.
type Runner interface{ Run() int }

// RunFunc makes a function a Runner, so that Main can wrap another package's
// main that runs the tests itself:
//
//	dbtest.Main(dbtest.RunFunc(func() int { return browsertest.Main(m) }))
type RunFunc func() int

// Run calls f.
func (f RunFunc) Run() int { return f() }

// Main runs a package's tests and drops the package's PostgreSQL database
// afterwards, if one was made, then exits with the tests' code. Call it from
// TestMain, with the *testing.M or a Runner that runs it.
func Main(m Runner) {
	code := m.Run()
	if template.dir != "" {
		os.RemoveAll(template.dir)
	}
	pg.mu.Lock()
	defer pg.mu.Unlock()
	if pg.st != nil {
		pg.st.Close()
	}
	if pg.name != "" {
		for _, admin := range append([]string{pg.admin}, workerAdmins(pg.admin)...) {
			if db, err := sql.Open("postgres", admin); err == nil {
				_, _ = db.Exec(`DROP DATABASE IF EXISTS "` + pg.name + `" WITH (FORCE)`)
				db.Close()
			}
		}
	}
	os.Exit(code)
}

// postgresURL creates the package's database on first use. The variable is
// read here, while tests run, so that go test's cache notices it.
func postgresURL() (string, error) {
	pg.mu.Lock()
	defer pg.mu.Unlock()
	if pg.tried {
		return pg.url, pg.err
	}
	pg.tried = true
	raw := os.Getenv(EnvPostgres)
	if raw == "" {
		return "", nil
	}
	u, err := url.Parse(raw)
	if err != nil {
		pg.err = fmt.Errorf("%s: %w", EnvPostgres, err)
		return "", pg.err
	}
	var b [4]byte
	_, _ = rand.Read(b[:])
	pkg := regexp.MustCompile(`[^a-z0-9]+`).ReplaceAllString(strings.ToLower(strings.TrimSuffix(filepath.Base(os.Args[0]), ".test")), "_")
	name := "larder_test_" + pkg + "_" + hex.EncodeToString(b[:])
	admin := *u
	admin.Path = "/postgres"
	db, err := sql.Open("postgres", admin.String())
	if err != nil {
		pg.err = err
		return "", err
	}
	defer db.Close()
	if err := createDatabase(db, admin.String(), name); err != nil {
		pg.err = fmt.Errorf("create test database: %w", err)
		return "", pg.err
	}
	own := *u
	own.Path = "/" + name
	pg.admin, pg.name, pg.url = admin.String(), name, own.String()
	if err := clusterDatabase(admin.String(), own.String(), name); err != nil {
		pg.err = fmt.Errorf("%s: %w", EnvCitusWorkers, err)
		return "", pg.err
	}
	return pg.url, nil
}

// createDatabase creates the package's database name on the server of
// admin (db): a copy of the server's template for this build
// (templateDatabase), which saves every package migrating a database of
// its own; an empty database on a Citus cluster, which prepare migrates and
// distributes. Test packages that run at once take turns on an advisory
// lock, held until the copy is made, so no package drops a template another
// is copying.
func createDatabase(db *sql.DB, admin, name string) error {
	if len(workerAdmins(admin)) > 0 {
		_, err := db.Exec(`CREATE DATABASE "` + name + `"`)
		return err
	}
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	// Direct SQL: the test server's databases, which ent has no words for.
	if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock(hashtext($1))`, templatePrefix); err != nil {
		return err
	}
	defer conn.ExecContext(ctx, `SELECT pg_advisory_unlock(hashtext($1))`, templatePrefix)
	tmpl, err := templateDatabase(ctx, conn, admin)
	if err != nil {
		return fmt.Errorf("the template database: %w", err)
	}
	if _, err := conn.ExecContext(ctx, `CREATE DATABASE "`+name+`" TEMPLATE "`+tmpl+`"`); err != nil {
		return err
	}
	pg.template = tmpl
	return nil
}

// templatePrefix begins the names of the template databases.
const templatePrefix = "larder_test_template_"

// templateKey names what a template holds: the PostgreSQL migrations (their
// directory's checksum), the shared rows seed.Shared writes, and the UTC day,
// because the migrations create the request log's partitions of the days
// around the one they run on. prepare runs seed.Shared again on every copy,
// as an upgrade does, so a change of seed's code alone is applied on top of
// the copy.
func templateKey() (string, error) {
	dir, err := migrate.Embedded(dialect.Postgres)
	if err != nil {
		return "", err
	}
	sum, err := dir.Checksum()
	if err != nil {
		return "", err
	}
	h := sha256.New()
	h.Write([]byte(sum.Sum() + time.Now().UTC().Format(time.DateOnly)))
	countries, err1 := refdata.Countries()
	nutrients, err2 := refdata.Nutrients()
	preservations, err3 := refdata.Preservations()
	qcUnits, err4 := refdata.QCUnits()
	foods, err5 := refdata.Foods()
	if err := errors.Join(err1, err2, err3, err4, err5); err != nil {
		return "", err
	}
	if err := json.NewEncoder(h).Encode([]any{seed.Units, seed.Allergens, countries, nutrients, preservations, qcUnits, foods}); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)[:8]), nil
}

// templateDatabase returns the name of the server's template database for
// this build (templateKey), migrated and seeded as prepare leaves a
// database, making it first when the server has none; conn holds the
// templates' lock. The template is made under another name and renamed once
// complete, so a name that exists is a complete template. Templates of
// other builds are dropped as one is made.
func templateDatabase(ctx context.Context, conn *sql.Conn, admin string) (string, error) {
	key, err := templateKey()
	if err != nil {
		return "", err
	}
	name := templatePrefix + key
	// Direct SQL: the test server's databases, which ent has no words for.
	rows, err := conn.QueryContext(ctx, `SELECT datname FROM pg_database WHERE starts_with(datname, $1)`, templatePrefix)
	if err != nil {
		return "", err
	}
	var templates []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			rows.Close()
			return "", err
		}
		templates = append(templates, n)
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return "", err
	}
	if slices.Contains(templates, name) {
		return name, nil
	}
	// What is left is stale: another build's, or one a run stopped making.
	for _, n := range templates {
		if _, err := conn.ExecContext(ctx, `DROP DATABASE IF EXISTS "`+n+`" WITH (FORCE)`); err != nil {
			return "", err
		}
	}
	building := name + "_new"
	if _, err := conn.ExecContext(ctx, `CREATE DATABASE "`+building+`"`); err != nil {
		return "", err
	}
	u, err := url.Parse(admin)
	if err != nil {
		return "", err
	}
	u.Path = "/" + building
	st, err := prepare(ctx, u.String())
	if err == nil {
		err = st.Close()
	}
	if err != nil {
		return "", err
	}
	if _, err := conn.ExecContext(ctx, `ALTER DATABASE "`+building+`" RENAME TO "`+name+`"`); err != nil {
		return "", err
	}
	return name, nil
}

// workerAdmins are the maintenance databases of EnvCitusWorkers' nodes, as
// admin names the coordinator's with another host and port.
func workerAdmins(admin string) []string {
	var out []string
	for w := range strings.SplitSeq(os.Getenv(EnvCitusWorkers), ",") {
		if w = strings.TrimSpace(w); w == "" {
			continue
		}
		u, err := url.Parse(admin)
		if err != nil {
			continue
		}
		u.Host = w
		out = append(out, u.String())
	}
	return out
}

// clusterDatabase makes the database name, just made on the coordinator
// (own), a Citus database over EnvCitusWorkers: the database and the
// extension on every worker, the extension on the coordinator, the workers
// added. Nothing without EnvCitusWorkers.
func clusterDatabase(admin, own, name string) error {
	workers := workerAdmins(admin)
	if len(workers) == 0 {
		return nil
	}
	// Direct SQL: a test cluster's databases and Citus's node functions.
	for _, w := range workers {
		if err := execAll(w, `CREATE DATABASE "`+name+`"`); err != nil {
			return err
		}
		u, _ := url.Parse(w)
		u.Path = "/" + name
		if err := execAll(u.String(), `CREATE EXTENSION citus`); err != nil {
			return err
		}
	}
	c, _ := url.Parse(own)
	host, port, _ := strings.Cut(c.Host, ":")
	stmts := []string{`CREATE EXTENSION citus`, `SELECT citus_set_coordinator_host('` + host + `', ` + port + `)`}
	for _, w := range workers {
		u, _ := url.Parse(w)
		h, p, _ := strings.Cut(u.Host, ":")
		stmts = append(stmts, `SELECT citus_add_node('`+h+`', `+p+`)`)
	}
	return execAll(own, stmts...)
}

// execAll runs stmts on the database of dbURL, one after another.
func execAll(dbURL string, stmts ...string) error {
	db, err := sql.Open("postgres", dbURL)
	if err != nil {
		return err
	}
	defer db.Close()
	for _, q := range stmts {
		if _, err := db.Exec(q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	return nil
}

// template is the package's migrated and seeded SQLite file, made once and
// copied for every test that opens SQLite: migrating a new file costs more
// than most tests do.
var template struct {
	once sync.Once
	dir  string
	path string
	err  error
}

// sqliteCopy returns the URL of a new SQLite file for this test, migrated
// and seeded as prepare leaves one: a copy of the package's template.
func sqliteCopy(t testing.TB) string {
	t.Helper()
	template.once.Do(func() {
		template.dir, template.err = os.MkdirTemp("", "larder-dbtest-")
		if template.err != nil {
			return
		}
		template.path = filepath.Join(template.dir, "larder.db")
		st, err := prepare(context.Background(), "sqlite://"+template.path)
		if err != nil {
			template.err = err
			return
		}
		// Closing the last connection checkpoints the write-ahead log into
		// the file, so the file alone is the whole database.
		template.err = st.Close()
	})
	if template.err != nil {
		t.Fatalf("the SQLite template: %v", template.err)
	}
	dst := filepath.Join(t.TempDir(), "larder.db")
	for _, suffix := range []string{"", "-wal"} {
		b, err := os.ReadFile(template.path + suffix)
		if errors.Is(err, fs.ErrNotExist) && suffix != "" {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst+suffix, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return "sqlite://" + dst
}

// Backend is a database to test on.
type Backend string

// The backends.
const (
	SQLite   Backend = "sqlite"
	Postgres Backend = "postgres"
)

// Backends are the databases this run tests on.
func Backends(t testing.TB) []Backend {
	bs, err := backends(os.Getenv(EnvBackends), postgresURL)
	if err != nil {
		t.Fatal(err)
	}
	return bs
}

// backends reads EnvBackends (list) and, when PostgreSQL may be wanted, the
// server to test on (pgURL).
func backends(list string, pgURL func() (string, error)) ([]Backend, error) {
	want := map[Backend]bool{SQLite: true, Postgres: true}
	if list != "" {
		want = map[Backend]bool{}
		for _, f := range strings.Split(list, ",") {
			switch b := Backend(strings.TrimSpace(f)); b {
			case SQLite, Postgres:
				want[b] = true
			default:
				return nil, fmt.Errorf("%s=%q: %q is not a backend (sqlite, postgres)", EnvBackends, list, f)
			}
		}
	}
	var bs []Backend
	if want[SQLite] {
		bs = append(bs, SQLite)
	}
	if want[Postgres] {
		u, err := pgURL()
		if err != nil {
			return nil, err
		}
		switch {
		case u != "":
			bs = append(bs, Postgres)
		case list != "":
			return nil, fmt.Errorf("%s=%q asks for PostgreSQL, and %s is unset", EnvBackends, list, EnvPostgres)
		}
	}
	return bs, nil
}

// Run runs f once per backend as a subtest, with a migrated store.
func Run(t *testing.T, f func(t *testing.T, st *store.Store)) {
	t.Helper()
	for _, b := range Backends(t) {
		t.Run(string(b), func(t *testing.T) {
			f(t, Open(t, b))
		})
	}
}

// RunBoth is Run with the backends' subtests at the same time: for the
// tests that spend most of their time waiting (on a browser, a poller, a
// receiver), so that the two backends' waits overlap. The test returns once
// both have ended. f must share nothing between its two runs but what is
// safe to share (the package's browser, counters made for it).
func RunBoth(t *testing.T, f func(t *testing.T, st *store.Store)) {
	t.Helper()
	for _, b := range Backends(t) {
		t.Run(string(b), func(t *testing.T) {
			t.Parallel()
			f(t, Open(t, b))
		})
	}
}

// RunFast is Run with every speed mechanism on, whatever LARDER_FAST_PATH
// says: for the tests of the mechanisms themselves. On PostgreSQL its store
// is a second pool on the package's database.
func RunFast(t *testing.T, f func(t *testing.T, st *store.Store)) {
	t.Helper()
	for _, b := range Backends(t) {
		t.Run(string(b), func(t *testing.T) {
			if b == SQLite {
				f(t, openWith(t, sqliteCopy(t), fastpath.All))
				return
			}
			f(t, openWith(t, URL(t, b), fastpath.All))
		})
	}
}

// Open returns a migrated store with the shared rows: a new SQLite file for
// this test, or the package's PostgreSQL database (shared by the package's tests).
func Open(t testing.TB, b Backend) *store.Store {
	t.Helper()
	if b == SQLite {
		return OpenURL(t, sqliteCopy(t))
	}
	u, err := postgresURL()
	if err != nil || u == "" {
		t.Fatalf("no PostgreSQL to test on (%s unset?): %v", EnvPostgres, err)
	}
	pg.once.Do(func() { pg.st, pg.sterr = prepare(context.Background(), u) })
	if pg.sterr != nil {
		t.Fatal(pg.sterr)
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

// MigratedURL is URL with the database migrated and its shared rows in:
// the package database, or a copy of the migrated SQLite template. For the
// commands that open an existing database only (every one but migrate and
// serve --demo).
func MigratedURL(t testing.TB, b Backend) string {
	if b == Postgres {
		return URL(t, b)
	}
	return sqliteCopy(t)
}

// AdminURL is the PostgreSQL maintenance database, for tests that create
// databases of their own ("" without PostgreSQL).
func AdminURL() string {
	if _, err := postgresURL(); err != nil {
		return ""
	}
	return pg.admin
}

func prepare(ctx context.Context, dbURL string) (*store.Store, error) {
	return prepareWith(ctx, dbURL, config.Defaults().FastPath)
}

// prepareWith is prepare with the speed mechanisms of fast.
func prepareWith(ctx context.Context, dbURL string, fast fastpath.Set) (*store.Store, error) {
	st, err := store.Open(ctx, dbURL, store.Options{Statements: config.Defaults().Statements, Snapshots: restapi.Snapshots{}, Fast: fast})
	if err != nil {
		return nil, err
	}
	_, err = migrate.Apply(ctx, st.DB, st.Dialect, func(ctx context.Context) error { return seed.Shared(ctx, st.Client) })
	if err == nil && st.Dialect == dialect.Postgres && len(workerAdmins(pg.admin)) > 0 {
		_, err = migrate.Distribute(ctx, st.DB)
	}
	if err != nil {
		st.Close()
		return nil, err
	}
	return st, nil
}

// Pair returns two separately pooled stores over one migrated database of
// backend b (a new SQLite file, or the package's PostgreSQL database), the
// first with the speed mechanisms of one and the second with those of other:
// two server processes side by side, on the fast and the plain path.
func Pair(t testing.TB, b Backend, one, other fastpath.Set) (*store.Store, *store.Store) {
	t.Helper()
	if b == SQLite {
		u := sqliteCopy(t)
		return openWith(t, u, one), openWith(t, u, other)
	}
	u := URL(t, b)
	first, err := prepareWith(context.Background(), u, one)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { first.Close() })
	return first, openWith(t, u, other)
}

// OpenURL opens a second, separately pooled store on a database another
// store already migrated, as a second server process would.
func OpenURL(t testing.TB, dbURL string) *store.Store {
	t.Helper()
	return openWith(t, dbURL, config.Defaults().FastPath)
}

// openWith is OpenURL with the speed mechanisms of fast.
func openWith(t testing.TB, dbURL string, fast fastpath.Set) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), dbURL, store.Options{Statements: config.Defaults().Statements, Snapshots: restapi.Snapshots{}, Fast: fast})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// Observed opens a second, separately pooled store on the database of st
// with the options production uses (the statement cache, and the speed
// mechanisms LARDER_FAST_PATH sets, as Open's) whose pool reports every call
// it makes to the database driver to see (store.Options.Observe): what a
// request costs on the stack a server runs, the authentication's own
// statements included. see is called from several goroutines at once.
func Observed(t testing.TB, st *store.Store, see func(store.Call)) *store.Store {
	t.Helper()
	return ObservedKeeping(t, st, config.Defaults().Statements, see)
}

// ObservedKeeping is Observed keeping up to statements prepared statements
// (`--db-statements`; 0 prepares none).
func ObservedKeeping(t testing.TB, st *store.Store, statements int, see func(store.Call)) *store.Store {
	t.Helper()
	o := store.Options{Statements: statements, Snapshots: restapi.Snapshots{}, Fast: config.Defaults().FastPath, Observe: see}
	obs, err := store.Open(context.Background(), urlOf(t, st), o)
	if err != nil {
		t.Fatal(err)
	}
	observedOf.Store(obs, st)
	t.Cleanup(func() { observedOf.Delete(obs); obs.Close() })
	return obs
}

// observedOf maps each observed store to the store it observes.
var observedOf sync.Map

// Unobserved is the store an observed store (Observed) watches the database
// of, and any other store itself. A test server writes its request log
// through it: the writer is background work on its own schedule, whose
// transactions would otherwise fall among the statements a test counts as
// one request's.
func Unobserved(st *store.Store) *store.Store {
	if base, ok := observedOf.Load(st); ok {
		return base.(*store.Store)
	}
	return st
}

// URLOf is the database URL of st, for a second server process on its
// database (as urlOf).
func URLOf(t testing.TB, st *store.Store) string {
	t.Helper()
	return urlOf(t, st)
}

// urlOf is the database URL of a store: its PostgreSQL DSN without the
// binary parameters store.Open adds on the fast path (the options of the
// store opened with it decide), or its SQLite file.
func urlOf(t testing.TB, st *store.Store) string {
	t.Helper()
	if st.Dialect == dialect.Postgres {
		u, err := url.Parse(st.DSN)
		if err != nil {
			t.Fatal(err)
		}
		q := u.Query()
		q.Del("binary_parameters")
		u.RawQuery = q.Encode()
		return u.String()
	}
	path, _, _ := strings.Cut(strings.TrimPrefix(st.DSN, "file:"), "?")
	return "sqlite://" + path
}

// Scratch creates an empty PostgreSQL database for this test, dropped at its
// end, and returns its URL; the name ends in _<suffix>.
func Scratch(t testing.TB, suffix string) string {
	t.Helper()
	if _, err := postgresURL(); err != nil || pg.admin == "" {
		t.Fatalf("no PostgreSQL (%s): %v", EnvPostgres, err)
	}
	var b [4]byte
	_, _ = rand.Read(b[:])
	name := pg.name + "_" + hex.EncodeToString(b[:]) + "_" + suffix
	db, err := sql.Open("postgres", pg.admin)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE DATABASE "` + name + `"`); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if db, err := sql.Open("postgres", pg.admin); err == nil {
			_, _ = db.Exec(`DROP DATABASE IF EXISTS "` + name + `" WITH (FORCE)`)
			db.Close()
		}
	})
	u, err := url.Parse(pg.admin)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}
