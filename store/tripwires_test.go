package store

// The fast paths lean on behaviour of ent, lib/pq, database/sql and package
// context that none of them promises. An upgrade that changes one would not
// break a build, and most would not break a functional test either: the
// speed, or the bound on a request's time, would go quietly. Each assumption
// has a test of its own that fails naming it and the file that relies on it:
//
//   - codegen/templates/compiled.tmpl (sqlCompiled) knows every unexported
//     field of ent's query builders and of ent.QueryContext, and compiles a
//     read only when the ones it does not reproduce are empty. A field it does
//     not know would be ignored by the compiled statement.
//     Test: TestTripwireQueryFieldsKnownToCompiledReads (ent/tripwire_test.go).
//   - store/guard.go fullRows forwards the optional driver.Rows interfaces of
//     lib/pq's rows that database/sql uses, each by name; one lib/pq adds is
//     hidden from database/sql behind the guard.
//     Test: TestTripwireDriverRowsInterfaces.
//   - store/cancel.go reads the cancel key out of PostgreSQL's start-up
//     messages itself; a key read wrong cancels nothing, silently.
//     Test: TestTripwireCancelKeyCancels (and TestKeySocketReadsTheCancelKey,
//     TestCutOffStatementIsCancelledOnTheServer in cancel_test.go).
//   - store/stmtcache.go tells a page deep in a list by " OFFSET " in the SQL
//     text ent writes.
//     Test: TestTripwireOffsetInEntSQL.
//   - handlers/timeout.go bounded.Value hands package context's private
//     cancel-context key on to the deadline's context, so that a context
//     derived from a request's finds it and starts no goroutine.
//     Test: TestTripwireDerivedContextsFindTheDeadline
//     (handlers/tripwire_internal_test.go).

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"math/rand/v2"
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

// fullRows (store/guard.go) forwards, by name, the optional interfaces of
// lib/pq's rows; one it does not name is hidden from database/sql behind the
// guard. The rows lib/pq returns, and the guarded ones, must show the same
// set but for notForwarded. On SQLite the pool's connections are not guarded,
// so database/sql sees the driver's rows as they are; compiled reads (ent's
// sql.ScanTypeOf) need ColumnTypeScanType of both drivers' rows.
func TestTripwireDriverRowsInterfaces(t *testing.T) {
	ctx := context.Background()
	t.Run("sqlite", func(t *testing.T) {
		db := sqliteDB(t)
		if pkg := reflect.TypeOf(db.Driver()).Elem().PkgPath(); pkg != "modernc.org/sqlite" {
			t.Fatalf("the SQLite pool's driver is %s's: its rows would pass through a wrapper such as fullRows (store/guard.go), which knows only lib/pq's", pkg)
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
			t.Errorf("modernc.org/sqlite's rows implement %v, without RowsColumnTypeScanType: compiled reads (codegen/templates/compiled.tmpl, sql.ScanTypeOf) scan columns of unknown type by it", got)
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
			t.Errorf("lib/pq's rows implement %v; the guarded rows (fullRows, store/guard.go) show %v, want %v: forward each new one in fullRows and pqRows, or add it to notForwarded saying why database/sql may not see it", driverHas, forwarded, want)
		}
		// The forwarded methods answer as lib/pq's own do.
		if f, ok := grows.(driver.RowsColumnTypeDatabaseTypeName); ok {
			if got := f.ColumnTypeDatabaseTypeName(1); got != "TEXT" {
				t.Errorf("the guarded rows name column 2's type %q, want lib/pq's TEXT", got)
			}
		}
	})
}

// store/cancel.go reads the connection's cancel key from the server's
// start-up messages and sends the cancel request itself. A statement it
// cancels must end at once with the server's cancel error: a key read wrong
// is ignored by the server without a word, and pg_sleep(30) would run on.
func TestTripwireCancelKeyCancels(t *testing.T) {
	u := postgresURL(t)
	if !strings.Contains(u, "sslmode=disable") {
		t.Skip("the test server's URL does not disable TLS: lib/pq cancels its statements itself, without store/cancel.go")
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
		t.Fatal("no cancel key was read from a plain-text connection's start-up (keySocket, store/cancel.go): its statements are never cancelled on the server")
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
	if err := g.cancel.send(); err != nil {
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
		t.Fatalf("pg_sleep(30) still runs 1 s after the cancel request: the cancel key read by keySocket (store/cancel.go) is not the server's")
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

// The statement cache (store/stmtcache.go) tells a page deep in a list by
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
				t.Errorf("%s, %s: ent's SQL %q has \" OFFSET \": %v, want %v; the statement cache (store/stmtcache.go) tells deep pages by it", dia, c.name, d.queries[0], got, c.offset)
			}
		}
	}
}
