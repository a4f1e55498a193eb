package store

// The fast paths lean on behaviour of ent, lib/pq, database/sql and package
// context that none of them promises. An upgrade that changes one would not
// break a build, and most would not break a functional test either: the
// speed, or the bound on a request's time, would go quietly. Each assumption
// has a test of its own that fails naming it and the file that relies on it:
//
//   - internal/generators/codegen/templates/compiled.tmpl (sqlCompiled) knows every unexported
//     field of ent's query builders and of ent.QueryContext, and compiles a
//     read only when the ones it does not reproduce are empty. A field it does
//     not know would be ignored by the compiled statement.
//     Test: TestTripwireQueryFieldsKnownToCompiledReads (ent/tripwire_test.go).
//   - internal/platform/store/guard.go fullRows forwards the optional driver.Rows interfaces of
//     lib/pq's rows that database/sql uses, each by name; one lib/pq adds is
//     hidden from database/sql behind the guard.
//     Test: TestTripwireDriverRowsInterfaces.
//   - internal/platform/store/observe.go observedConn and observedStmt, the observer of the
//     tests that count statements, forward the optional interfaces of the
//     drivers' connections and statements that database/sql looks for; one a
//     driver adds would be hidden from database/sql behind the observer, and
//     the tests would count calls of a stack production does not run.
//     Test: TestTripwireObserverForwards.
//   - internal/platform/fastpath/pgcancel reads the cancel key out of PostgreSQL's start-up
//     messages itself; a key read wrong cancels nothing, silently.
//     Test: TestTripwireCancelKeyCancels (and TestKeySocketReadsTheCancelKey,
//     TestCutOffStatementIsCancelledOnTheServer in cancel_test.go).
//   - internal/platform/fastpath/stmtcache tells a page deep in a list by " OFFSET " in the SQL
//     text ent writes.
//     Test: TestTripwireOffsetInEntSQL.

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"entgo.io/ent/dialect"
	"github.com/lib/pq"

	"larder.dev/larder/ent"
	"larder.dev/larder/policy"
)

// optionalRows are the optional interfaces of driver.Rows that database/sql
// looks for, by name.
var optionalRows = []struct {
	name string
	typ  reflect.Type
}{
	{"RowsColumnTypeScanType", reflect.TypeFor[driver.RowsColumnTypeScanType]()},
	{"RowsColumnTypeDatabaseTypeName", reflect.TypeFor[driver.RowsColumnTypeDatabaseTypeName]()},
	{"RowsColumnTypeLength", reflect.TypeFor[driver.RowsColumnTypeLength]()},
	{"RowsColumnTypeNullable", reflect.TypeFor[driver.RowsColumnTypeNullable]()},
	{"RowsColumnTypePrecisionScale", reflect.TypeFor[driver.RowsColumnTypePrecisionScale]()},
	{"RowsNextResultSet", reflect.TypeFor[driver.RowsNextResultSet]()},
}

// implemented lists the optional interfaces rows implement.
func implemented(rows driver.Rows) []string {
	var names []string
	for _, o := range optionalRows {
		if reflect.TypeOf(rows).Implements(o.typ) {
			names = append(names, o.name)
		}
	}
	return names
}

// notForwarded are what lib/pq's rows implement that fullRows deliberately
// leaves out: Larder never sends a query of several statements for rows.
var notForwarded = []string{"RowsNextResultSet"}

// rowsQuery selects one column of each kind whose type information differs.
const rowsQuery = "SELECT 1 AS n, 'x' AS s"

// fullRows (internal/platform/store/guard.go) forwards, by name, the optional interfaces of
// lib/pq's rows; one it does not name is hidden from database/sql behind the
// guard. The rows lib/pq returns, and the guarded ones, must show the same
// set but for notForwarded. On SQLite the pool's connections are not guarded,
// so database/sql sees the driver's rows as they are; compiled reads (ent's
// sql.ScanTypeOf) need ColumnTypeScanType of both drivers' rows.
func TestTripwireDriverRowsInterfaces(t *testing.T) {
	ctx := context.Background()
	t.Run("sqlite", func(t *testing.T) {
		db, err := sql.Open("sqlite", SQLiteDSN(filepath.Join(t.TempDir(), "t.db")))
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if pkg := reflect.TypeOf(db.Driver()).Elem().PkgPath(); pkg != "modernc.org/sqlite" {
			t.Fatalf("the SQLite pool's driver is %s's: its rows would pass through a wrapper such as fullRows (internal/platform/store/guard.go), which knows only lib/pq's", pkg)
		}
		conn, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		var got []string
		err = conn.Raw(func(dc any) error {
			rows, err := dc.(driver.QueryerContext).QueryContext(ctx, rowsQuery, nil)
			if err != nil {
				return err
			}
			defer rows.Close()
			got = implemented(rows)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(got, "RowsColumnTypeScanType") {
			t.Errorf("modernc.org/sqlite's rows implement %v, without RowsColumnTypeScanType: compiled reads (internal/generators/codegen/templates/compiled.tmpl, sql.ScanTypeOf) scan columns of unknown type by it", got)
		}
	})
	t.Run("postgres", func(t *testing.T) {
		dsn := PostgresDSN(postgresURL(t))
		plain, err := pq.NewConnector(dsn)
		if err != nil {
			t.Fatal(err)
		}
		raw, err := plain.Connect(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer raw.Close()
		rows, err := raw.(driver.QueryerContext).QueryContext(ctx, rowsQuery, nil)
		if err != nil {
			t.Fatal(err)
		}
		driverHas := implemented(rows)
		_ = rows.Close()

		guarded, err := newGuardedConnector(dsn, true)
		if err != nil {
			t.Fatal(err)
		}
		gc, err := guarded.Connect(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer gc.Close()
		grows, err := gc.(driver.QueryerContext).QueryContext(ctx, rowsQuery, nil)
		if err != nil {
			t.Fatal(err)
		}
		forwarded := implemented(grows)
		defer grows.Close()

		want := slices.DeleteFunc(slices.Clone(driverHas), func(n string) bool { return slices.Contains(notForwarded, n) })
		if !slices.Equal(forwarded, want) {
			t.Errorf("lib/pq's rows implement %v; the guarded rows (fullRows, internal/platform/store/guard.go) show %v, want %v: forward each new one in fullRows and pqRows, or add it to notForwarded saying why database/sql may not see it", driverHas, forwarded, want)
		}
		// The forwarded methods answer as lib/pq's own do.
		if f, ok := grows.(driver.RowsColumnTypeDatabaseTypeName); ok {
			if got := f.ColumnTypeDatabaseTypeName(1); got != "TEXT" {
				t.Errorf("the guarded rows name column 2's type %q, want lib/pq's TEXT", got)
			}
		}
	})
}

// internal/platform/fastpath/pgcancel reads the connection's cancel key from the server's
// start-up messages and sends the cancel request itself. A statement it
// cancels must end at once with the server's cancel error: a key read wrong
// is ignored by the server without a word, and pg_sleep(30) would run on.
func TestTripwireCancelKeyCancels(t *testing.T) {
	u := postgresURL(t)
	if !strings.Contains(u, "sslmode=disable") {
		t.Skip("the test server's URL does not disable TLS: lib/pq cancels its statements itself, without internal/platform/fastpath/pgcancel")
	}
	ctx := context.Background()
	c, err := newGuardedConnector(PostgresDSN(u), true)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := c.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	g := conn.(*guardedConn)
	if g.cancel == nil {
		t.Fatal("no cancel key was read from a plain-text connection's start-up (pgcancel.Socket): its statements are never cancelled on the server")
	}
	watch := postgresDB(t)
	tag := fmt.Sprintf("larder-tripwire-%d", rand.Int64())
	done := make(chan error, 1)
	go func() {
		_, err := g.ExecContext(ctx, "SELECT pg_sleep(30) -- "+tag, nil)
		done <- err
	}()
	for i := 0; ; i++ {
		var running int
		if err := watch.QueryRow("SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND query LIKE '%' || $1", tag).Scan(&running); err != nil {
			t.Fatal(err)
		}
		if running == 1 {
			break
		}
		if i == 100 {
			t.Fatal("pg_sleep(30) did not start within 5 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	start := time.Now()
	if err := g.cancel.Send(); err != nil {
		t.Fatalf("cancel request: %v", err)
	}
	select {
	case err := <-done:
		var pqErr *pq.Error
		if !errors.As(err, &pqErr) || pqErr.Code != "57014" {
			t.Fatalf("the cancelled pg_sleep(30) ended with %v, want the server's query_canceled (57014)", err)
		}
		if took := time.Since(start); took > time.Second {
			t.Fatalf("the cancelled statement ended %v after the cancel request, want within 1 s", took)
		}
	case <-time.After(time.Second):
		_ = g.sock.SetDeadline(past) // end the sleep's wait
		<-done
		t.Fatalf("pg_sleep(30) still runs 1 s after the cancel request: the cancel key read by pgcancel.Socket is not the server's")
	}
}

// captureSQL is an ent driver that keeps the text of the queries it is given
// and runs none.
type captureSQL struct {
	dialect string
	queries []string
}

func (d *captureSQL) Dialect() string { return d.dialect }
func (d *captureSQL) Close() error    { return nil }
func (d *captureSQL) Exec(context.Context, string, any, any) error {
	return errors.New("captured")
}
func (d *captureSQL) Tx(context.Context) (dialect.Tx, error) { return nil, errors.New("captured") }
func (d *captureSQL) Query(_ context.Context, query string, _, _ any) error {
	d.queries = append(d.queries, query)
	return errors.New("captured")
}

// The statement cache (internal/platform/fastpath/stmtcache) tells a page deep in a list by
// " OFFSET " in ent's SQL and runs it unprepared. ent's SQL of a query with
// an offset must have it, and that of a first page (limit only) or of a
// query without either must not, on both dialects.
func TestTripwireOffsetInEntSQL(t *testing.T) {
	ctx := policy.System(context.Background())
	for _, dia := range []string{dialect.SQLite, dialect.Postgres} {
		cases := []struct {
			name   string
			build  func(*ent.TagQuery) *ent.TagQuery
			offset bool
		}{
			{"limit and offset", func(q *ent.TagQuery) *ent.TagQuery { return q.Limit(10).Offset(20) }, true},
			{"offset only", func(q *ent.TagQuery) *ent.TagQuery { return q.Offset(20) }, true},
			{"limit only", func(q *ent.TagQuery) *ent.TagQuery { return q.Limit(10) }, false},
			{"neither", func(q *ent.TagQuery) *ent.TagQuery { return q }, false},
		}
		for _, c := range cases {
			d := &captureSQL{dialect: dia}
			client := ent.NewClient(ent.Driver(d))
			_, _ = c.build(client.Tag.Query()).All(ctx)
			if len(d.queries) != 1 {
				t.Fatalf("%s, %s: ent sent %d queries, want 1: %q", dia, c.name, len(d.queries), d.queries)
			}
			if got := strings.Contains(d.queries[0], " OFFSET "); got != c.offset {
				t.Errorf("%s, %s: ent's SQL %q has \" OFFSET \": %v, want %v; the statement cache (internal/platform/fastpath/stmtcache) tells deep pages by it", dia, c.name, d.queries[0], got, c.offset)
			}
		}
	}
}

// driverInterfaces are the interfaces package database/sql/driver declares,
// each with its methods' names (those of the interfaces it embeds
// included), read from the source of the Go that runs the test: an
// interface a new Go adds is among them.
func driverInterfaces(t *testing.T) map[string][]string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatalf("go env GOROOT: %v", err)
	}
	dir := filepath.Join(strings.TrimSpace(string(out)), "src", "database", "sql", "driver")
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no source of database/sql/driver in %s: %v", dir, err)
	}
	decls := map[string]*ast.InterfaceType{}
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range file.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.TYPE {
				continue
			}
			for _, sp := range g.Specs {
				ts := sp.(*ast.TypeSpec)
				if it, ok := ts.Type.(*ast.InterfaceType); ok && ts.Name.IsExported() {
					decls[ts.Name.Name] = it
				}
			}
		}
	}
	var methods func(it *ast.InterfaceType) []string
	methods = func(it *ast.InterfaceType) []string {
		var names []string
		for _, f := range it.Methods.List {
			switch {
			case len(f.Names) > 0:
				names = append(names, f.Names[0].Name)
			default: // an embedded interface of the package
				if id, ok := f.Type.(*ast.Ident); ok && decls[id.Name] != nil {
					names = append(names, methods(decls[id.Name])...)
				}
			}
		}
		return names
	}
	ifaces := map[string][]string{}
	for name, it := range decls {
		if m := methods(it); len(m) > 0 {
			ifaces[name] = m
		}
	}
	if len(ifaces["QueryerContext"]) != 1 || len(ifaces["RowsColumnTypeScanType"]) != 4 {
		t.Fatalf("database/sql/driver's interfaces read wrong: %v", ifaces)
	}
	return ifaces
}

// implementedBy lists the interfaces of ifaces whose methods v has, by name.
func implementedBy(v any, ifaces map[string][]string) []string {
	typ := reflect.TypeOf(v)
	var names []string
	for name, methods := range ifaces {
		if !slices.ContainsFunc(methods, func(m string) bool { _, ok := typ.MethodByName(m); return !ok }) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// notObserved are the interfaces of the drivers' connections and statements
// the observer leaves out, each with the reason database/sql never misses it.
var notObserved = map[string]string{
	"Execer":  "database/sql calls it only on a connection without ExecerContext, which the observer has",
	"Queryer": "database/sql calls it only on a connection without QueryerContext, which the observer has",
	"Tx":      "lib/pq's connection is its own transaction; database/sql commits the Tx BeginTx returns, which the observer wraps",
}

// takenForGranted are the interfaces the observer calls on the connections
// and statements it wraps without a stand-in (observe.go).
var takenForGranted = map[string][]string{
	"connection": {"ConnBeginTx", "ConnPrepareContext", "ExecerContext", "QueryerContext"},
	"statement":  {"StmtExecContext", "StmtQueryContext"},
}

// The observer (internal/platform/store/observe.go) stands between database/sql and the
// connections of lib/pq, of the guard and of modernc.org/sqlite. Every
// interface of package database/sql/driver that one of their connections or
// prepared statements implements must be implemented by the observer's (it
// forwards them), but for notObserved; the context calls it takes for
// granted must be there; and the rows it returns are the driver's own.
func TestTripwireObserverForwards(t *testing.T) {
	ifaces := driverInterfaces(t)
	for _, p := range observedPools {
		t.Run(p.name, func(t *testing.T) {
			ctx := context.Background()
			dsn := observedDSN(t, p.driver)
			var inner driver.Connector
			var err error
			if p.driver == "postgres" {
				inner, err = newGuardedConnector(dsn, p.ownCancel)
			} else {
				inner, err = connectorOf(p.driver, dsn)
			}
			if err != nil {
				t.Fatal(err)
			}
			raw, err := inner.Connect(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer raw.Close()
			obs, err := (&observingConnector{inner: inner, see: func(Call) {}}).Connect(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer obs.Close()
			rawStmt, err := raw.(driver.ConnPrepareContext).PrepareContext(ctx, rowsQuery)
			if err != nil {
				t.Fatal(err)
			}
			defer rawStmt.Close()
			obsStmt, err := obs.(driver.ConnPrepareContext).PrepareContext(ctx, rowsQuery)
			if err != nil {
				t.Fatal(err)
			}
			defer obsStmt.Close()

			for _, level := range []struct {
				name     string
				raw, obs any
			}{{"connection", raw, obs}, {"statement", rawStmt, obsStmt}} {
				has := implementedBy(level.raw, ifaces)
				shown := implementedBy(level.obs, ifaces)
				for _, name := range has {
					if _, left := notObserved[name]; !left && !slices.Contains(shown, name) {
						t.Errorf("the %s's %s %s implements driver.%s, which the observer's (internal/platform/store/observe.go) hides from database/sql: forward it, or add it to notObserved saying why database/sql never misses it", p.name, level.name, reflect.TypeOf(level.raw), name)
					}
				}
				for _, name := range takenForGranted[level.name] {
					if !slices.Contains(has, name) {
						t.Errorf("the %s's %s %s lacks driver.%s, which the observer (internal/platform/store/observe.go) calls without a stand-in", p.name, level.name, reflect.TypeOf(level.raw), name)
					}
				}
			}

			rawRows, err := raw.(driver.QueryerContext).QueryContext(ctx, rowsQuery, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer rawRows.Close()
			for _, q := range []func() (driver.Rows, error){
				func() (driver.Rows, error) { return obs.(driver.QueryerContext).QueryContext(ctx, rowsQuery, nil) },
				func() (driver.Rows, error) { return obsStmt.(driver.StmtQueryContext).QueryContext(ctx, nil) },
			} {
				rows, err := q()
				if err != nil {
					t.Fatal(err)
				}
				if reflect.TypeOf(rows) != reflect.TypeOf(rawRows) {
					t.Errorf("the observer's rows are %s, not the driver's %s: their optional interfaces may be hidden", reflect.TypeOf(rows), reflect.TypeOf(rawRows))
				}
				_ = rows.Close()
			}
		})
	}
}
