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
//   - store/guard.go quietCtx counts on database/sql handing the driver the
//     caller's very context and deciding whether to watch a result set from
//     a Done call made after the driver's call has returned.
//     Test: TestTripwireDoneReadAfterTheDriverCall.
//   - store/cancel.go reads the cancel key out of PostgreSQL's start-up
//     messages itself; a key read wrong cancels nothing, silently.
//     Test: TestTripwireCancelKeyCancels (and TestKeySocketReadsTheCancelKey,
//     TestCutOffStatementIsCancelledOnTheServer in cancel_test.go).
//   - store/stmtcache.go tells a page deep in a list by " OFFSET " in the SQL
//     text ent writes.
//     Test: TestTripwireOffsetInEntSQL.
//   - handlers/middleware.go bounded.Value hands package context's private
//     cancel-context key on to the deadline's context, so that a context
//     derived from a request's finds it and starts no goroutine.
//     Test: TestTripwireDerivedContextsFindTheDeadline
//     (handlers/tripwire_internal_test.go).

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"sync"
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

		guarded, err := newGuardedConnector(dsn)
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

// settled is count once it holds still: goroutines of earlier tests, and of
// earlier rounds, that are ending are not counted as the next round's.
func settled(count func() int) int {
	n := count()
	for range 200 {
		time.Sleep(10 * time.Millisecond)
		m := count()
		if m == n {
			return n
		}
		n = m
	}
	return n
}

// orderLog records, in order, the Done calls on a context and the driver's
// calls.
type orderLog struct {
	mu     sync.Mutex
	events []string
}

func (l *orderLog) add(e string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, e)
}

func (l *orderLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.events, " ")
}

// lastIndex is the position of e's last occurrence, or -1.
func (l *orderLog) lastIndex(e string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i := len(l.events) - 1; i >= 0; i-- {
		if l.events[i] == e {
			return i
		}
	}
	return -1
}

// recordingCtx records each call of its Done.
type recordingCtx struct {
	context.Context
	log *orderLog
}

func (c recordingCtx) Done() <-chan struct{} {
	c.log.add("Done")
	return c.Context.Done()
}

// orderDriver's connections behave as a guarded connection does towards
// quietCtx (unquiet, then arm once the call has returned) when arm is set,
// and record their calls and the context they were given.
type orderDriver struct {
	log  *orderLog
	arm  bool
	seen []context.Context
	mu   sync.Mutex
}

func (d *orderDriver) Open(string) (driver.Conn, error) { return orderConn{d}, nil }

func (d *orderDriver) query(ctx context.Context) (driver.Rows, error) {
	d.log.add("driver")
	d.mu.Lock()
	d.seen = append(d.seen, ctx)
	d.mu.Unlock()
	if d.arm {
		_, q := unquiet(ctx)
		q.arm()
	}
	return &orderRows{}, nil
}

type orderConn struct{ d *orderDriver }

func (c orderConn) Prepare(string) (driver.Stmt, error) { return orderStmt(c), nil }
func (c orderConn) Close() error                        { return nil }
func (c orderConn) Begin() (driver.Tx, error)           { return nil, errors.New("no transactions") }
func (c orderConn) QueryContext(ctx context.Context, _ string, _ []driver.NamedValue) (driver.Rows, error) {
	return c.d.query(ctx)
}

type orderStmt struct{ d *orderDriver }

func (s orderStmt) Close() error                               { return nil }
func (s orderStmt) NumInput() int                              { return 0 }
func (s orderStmt) Exec([]driver.Value) (driver.Result, error) { return nil, errors.New("no exec") }
func (s orderStmt) Query([]driver.Value) (driver.Rows, error)  { return s.d.query(context.Background()) }
func (s orderStmt) QueryContext(ctx context.Context, _ []driver.NamedValue) (driver.Rows, error) {
	return s.d.query(ctx)
}

// orderRows is one row of one column.
type orderRows struct{ done bool }

func (r *orderRows) Columns() []string { return []string{"n"} }
func (r *orderRows) Close() error      { return nil }
func (r *orderRows) Next(dest []driver.Value) error {
	if r.done {
		return io.EOF
	}
	r.done = true
	dest[0] = int64(1)
	return nil
}

// orderConnector opens orderDriver's connections.
type orderConnector struct{ d *orderDriver }

func (c orderConnector) Connect(context.Context) (driver.Conn, error) { return orderConn{c.d}, nil }
func (c orderConnector) Driver() driver.Driver                        { return c.d }

// quietCtx (store/guard.go) spares a query's rows database/sql's watching
// goroutine only because database/sql passes the driver the caller's very
// context, and asks it for Done, to decide on that goroutine, after the
// driver's call has returned (when the guard has armed it). A database/sql
// that wrapped the context, or decided before the call, would watch every
// result set again. Checked for a plain query and for a prepared statement's
// (the statement cache's), against the same driver not arming the context,
// which is watched as always (the count is right).
func TestTripwireDoneReadAfterTheDriverCall(t *testing.T) {
	ctx := context.Background()
	for _, prepared := range []bool{false, true} {
		for _, arm := range []bool{true, false} {
			name := fmt.Sprintf("prepared=%v,arm=%v", prepared, arm)
			log := &orderLog{}
			d := &orderDriver{log: log, arm: arm}
			db := sql.OpenDB(orderConnector{d})
			if err := db.Ping(); err != nil { // a connection before the count
				t.Fatal(err)
			}
			var stmt *sql.Stmt
			if prepared {
				var err error
				if stmt, err = db.Prepare("SELECT 1"); err != nil {
					t.Fatal(err)
				}
			}
			parent, cancel := context.WithCancel(ctx)
			q := &quietCtx{Context: recordingCtx{Context: parent, log: log}}
			before := settled(rowWatchers)
			var rows *sql.Rows
			var err error
			if prepared {
				rows, err = stmt.QueryContext(q)
			} else {
				rows, err = db.QueryContext(q, "SELECT 1")
			}
			if err != nil {
				t.Fatal(err)
			}
			watching := rowWatchers() - before
			if len(d.seen) != 1 || d.seen[0] != context.Context(q) {
				t.Errorf("%s: the driver was given %v, not the caller's context %p: unquiet (store/guard.go) cannot find the quietCtx to arm", name, d.seen, q)
			}
			if arm && watching != 0 {
				t.Errorf("%s: database/sql watches rows whose context was quieted during the driver's call (%d goroutines; Done calls and driver call: %s): quietCtx (store/guard.go) assumes it reads Done only after the call", name, watching, log)
			}
			if !arm && watching != 1 {
				t.Errorf("%s: %d goroutines watch rows of a context that was never quieted, want database/sql's 1 (rowWatchers no longer counts them)", name, watching)
			}
			_ = rows.Close()
			cancel()
			if stmt != nil {
				_ = stmt.Close()
			}
			_ = db.Close()
		}
	}
	// The order itself, on a context that is never quiet: database/sql reads
	// Done after the driver's call.
	log := &orderLog{}
	db := sql.OpenDB(orderConnector{&orderDriver{log: log}})
	defer db.Close()
	parent, cancel := context.WithCancel(ctx)
	defer cancel()
	rows, err := db.QueryContext(recordingCtx{Context: parent, log: log}, "SELECT 1")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	if call, done := log.lastIndex("driver"), log.lastIndex("Done"); call < 0 || done < call {
		t.Errorf("database/sql read Done last before the driver's call (%s): quietCtx (store/guard.go) is armed by the call and relies on a read after it", log)
	}
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
	c, err := newGuardedConnector(PostgresDSN(u))
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
