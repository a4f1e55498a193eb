package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"io"
	"strings"
)

// A store opened with Options.Observe reports every call its pool makes to
// the database driver that reaches the database, whoever makes it: ent (with
// the statement cache, the compiled reads, snapshots and tracing above it),
// and the authenticator and the rate limiter on their own prepared
// statements. It sits at database/sql's driver interface, under all of
// those; on PostgreSQL's fast path the guarded connections (guard.go) are
// under it, and pass each call on as it comes. Tests count with it what a
// request costs on the stack production runs. The observer wraps the
// driver's connections, statements and transactions and nothing else (rows
// and results pass through as the driver made them), and only when
// Options.Observe is set.
//
// Reported: a query, an exec, a prepare, the execution of a prepared
// statement, and a transaction's BEGIN, COMMIT and ROLLBACK. Not reported:
// opening and closing connections and statements, database/sql's session
// reset and validity checks, and pings (Open's), none of which a request
// asks for. A report is made before the call, on the caller's goroutine.

// Op is the kind of a driver call.
type Op string

// The calls an observer sees.
const (
	OpQuery    Op = "query"
	OpExec     Op = "exec"
	OpPrepare  Op = "prepare"
	OpBegin    Op = "begin"
	OpCommit   Op = "commit"
	OpRollback Op = "rollback"
)

// Call is one call of the database driver, as Options.Observe sees it.
type Call struct {
	Op Op
	// SQL is the statement's text: a query's, an exec's, a prepared
	// statement's (for its preparation and for each execution); empty for
	// BEGIN, COMMIT and ROLLBACK.
	SQL string
	// Args are the statement's arguments, as the driver gets them.
	Args []any
	// Prepared is set on the execution of a prepared statement.
	Prepared bool
}

// String is the call as text: its SQL, "PREPARE " and the SQL of a
// preparation, or BEGIN, COMMIT, ROLLBACK.
func (c Call) String() string {
	switch c.Op {
	case OpPrepare:
		return "PREPARE " + c.SQL
	case OpBegin, OpCommit, OpRollback:
		return strings.ToUpper(string(c.Op))
	}
	return c.SQL
}

// Statement reports whether the call runs SQL (a query or an exec, prepared
// or not), rather than preparing it or delimiting a transaction.
func (c Call) Statement() bool { return c.Op == OpQuery || c.Op == OpExec }

// connectorOf is the connector sql.Open would build for a driver name and
// DSN: the driver's own (driver.DriverContext), or one that opens the DSN.
func connectorOf(name, dsn string) (driver.Connector, error) {
	probe, err := sql.Open(name, dsn) // connects to nothing
	if err != nil {
		return nil, err
	}
	d := probe.Driver()
	_ = probe.Close()
	if dc, ok := d.(driver.DriverContext); ok {
		return dc.OpenConnector(dsn)
	}
	return dsnConnector{dsn: dsn, driver: d}, nil
}

// dsnConnector is database/sql's connector of a driver without one.
type dsnConnector struct {
	dsn    string
	driver driver.Driver
}

func (c dsnConnector) Connect(context.Context) (driver.Conn, error) { return c.driver.Open(c.dsn) }
func (c dsnConnector) Driver() driver.Driver                        { return c.driver }

// observingConnector opens connections whose calls are reported to see.
type observingConnector struct {
	inner driver.Connector
	see   func(Call)
}

// Connect implements driver.Connector.
func (c *observingConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &observedConn{inner: conn, see: c.see}, nil
}

// Driver implements driver.Connector.
func (c *observingConnector) Driver() driver.Driver { return c.inner.Driver() }

// Close implements io.Closer, which database/sql calls on a connector when
// the pool closes.
func (c *observingConnector) Close() error {
	if cl, ok := c.inner.(io.Closer); ok {
		return cl.Close()
	}
	return nil
}

// observedConn reports the calls of a connection. Like the guard's
// (guard.go), it takes the context calls of the wrapped connection for
// granted (ConnPrepareContext, ConnBeginTx, ExecerContext, QueryerContext);
// of the other optional interfaces database/sql looks for, it implements
// those whose absence has a stand-in that does what database/sql does
// without them. TestTripwireObserverForwards checks that none the wrapped
// connection or statement implements is hidden, on lib/pq, the guarded
// connections and modernc.org/sqlite.
type observedConn struct {
	inner driver.Conn
	see   func(Call)
}

// Prepare implements driver.Conn.
func (c *observedConn) Prepare(query string) (driver.Stmt, error) {
	return c.PrepareContext(context.Background(), query)
}

// PrepareContext implements driver.ConnPrepareContext.
func (c *observedConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	c.see(Call{Op: OpPrepare, SQL: query})
	s, err := c.inner.(driver.ConnPrepareContext).PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	return &observedStmt{inner: s, conn: c, query: query}, nil
}

// Close implements driver.Conn.
func (c *observedConn) Close() error { return c.inner.Close() }

// Begin implements driver.Conn.
func (c *observedConn) Begin() (driver.Tx, error) {
	return c.BeginTx(context.Background(), driver.TxOptions{})
}

// BeginTx implements driver.ConnBeginTx.
func (c *observedConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	c.see(Call{Op: OpBegin})
	tx, err := c.inner.(driver.ConnBeginTx).BeginTx(ctx, opts)
	if err != nil {
		return nil, err
	}
	return &observedTx{inner: tx, see: c.see}, nil
}

// ExecContext implements driver.ExecerContext.
func (c *observedConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	c.see(Call{Op: OpExec, SQL: query, Args: values(args)})
	return c.inner.(driver.ExecerContext).ExecContext(ctx, query, args)
}

// QueryContext implements driver.QueryerContext.
func (c *observedConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	c.see(Call{Op: OpQuery, SQL: query, Args: values(args)})
	return c.inner.(driver.QueryerContext).QueryContext(ctx, query, args)
}

// Ping implements driver.Pinger.
func (c *observedConn) Ping(ctx context.Context) error {
	if p, ok := c.inner.(driver.Pinger); ok {
		return p.Ping(ctx)
	}
	return nil
}

// ResetSession implements driver.SessionResetter.
func (c *observedConn) ResetSession(ctx context.Context) error {
	if r, ok := c.inner.(driver.SessionResetter); ok {
		return r.ResetSession(ctx)
	}
	return nil
}

// IsValid implements driver.Validator.
func (c *observedConn) IsValid() bool {
	if v, ok := c.inner.(driver.Validator); ok {
		return v.IsValid()
	}
	return true
}

// CheckNamedValue implements driver.NamedValueChecker; driver.ErrSkip hands
// the value to database/sql's own conversion, as a connection without one.
func (c *observedConn) CheckNamedValue(nv *driver.NamedValue) error {
	if ch, ok := c.inner.(driver.NamedValueChecker); ok {
		return ch.CheckNamedValue(nv)
	}
	return driver.ErrSkip
}

// observedTx reports the end of a transaction.
type observedTx struct {
	inner driver.Tx
	see   func(Call)
}

// Commit implements driver.Tx.
func (t *observedTx) Commit() error {
	t.see(Call{Op: OpCommit})
	return t.inner.Commit()
}

// Rollback implements driver.Tx.
func (t *observedTx) Rollback() error {
	t.see(Call{Op: OpRollback})
	return t.inner.Rollback()
}

// observedStmt reports the executions of a prepared statement, whose
// context calls (StmtExecContext, StmtQueryContext) it takes for granted. A
// statement with a ColumnConverter or a NamedValueChecker of its own would
// need them forwarded, which TestTripwireObserverForwards would report.
type observedStmt struct {
	inner driver.Stmt
	conn  *observedConn
	query string
}

// Close implements driver.Stmt.
func (s *observedStmt) Close() error { return s.inner.Close() }

// NumInput implements driver.Stmt.
func (s *observedStmt) NumInput() int { return s.inner.NumInput() }

// Exec implements driver.Stmt.
func (s *observedStmt) Exec(args []driver.Value) (driver.Result, error) {
	return s.ExecContext(context.Background(), named(args))
}

// Query implements driver.Stmt.
func (s *observedStmt) Query(args []driver.Value) (driver.Rows, error) {
	return s.QueryContext(context.Background(), named(args))
}

// ExecContext implements driver.StmtExecContext.
func (s *observedStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	s.conn.see(Call{Op: OpExec, SQL: s.query, Args: values(args), Prepared: true})
	return s.inner.(driver.StmtExecContext).ExecContext(ctx, args)
}

// QueryContext implements driver.StmtQueryContext.
func (s *observedStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	s.conn.see(Call{Op: OpQuery, SQL: s.query, Args: values(args), Prepared: true})
	return s.inner.(driver.StmtQueryContext).QueryContext(ctx, args)
}

// CopyData passes rows already in COPY's text format on (CopyText),
// reported as an execution of the COPY statement without its data.
func (s *observedStmt) CopyData(ctx context.Context, data string) (driver.Result, error) {
	cd, ok := s.inner.(copyData)
	if !ok {
		return nil, fmt.Errorf("store: statement %T takes no COPY data", s.inner)
	}
	s.conn.see(Call{Op: OpExec, SQL: s.query, Prepared: true})
	return cd.CopyData(ctx, data)
}

// values are the arguments of a call, as the observer reports them.
func values(args []driver.NamedValue) []any {
	if len(args) == 0 {
		return nil
	}
	out := make([]any, len(args))
	for i, a := range args {
		out[i] = a.Value
	}
	return out
}
