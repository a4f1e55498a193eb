package store

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lib/pq"

	"larder.dev/larder/internal/platform/dberror"
	"larder.dev/larder/internal/platform/fastpath/pgcancel"
)

// lib/pq cancels a query whose context ends by asking the server, over a new
// connection, to cancel it, and then waits for the server's answer on the
// query's own connection. A server that does not answer (its process frozen,
// or a network dropping packets) never sends one, and database/sql cannot
// abandon a driver call, so the request would wait as long as the server
// does. The guard settles it at the socket: while a call runs on a
// connection, and for the life of a transaction or of a result set, the end
// of the caller's context sets the socket's deadline to the past. Every read
// and write on it then fails at once, lib/pq marks the connection bad, and
// database/sql discards it; the next call dials a new one, so the server is
// used again as soon as it answers. A transaction cut off this way is rolled
// back by the server when it sees the socket close (or, for a COMMIT already
// sent, is wholly committed): nothing is half applied.
//
// Dialing and the startup handshake are guarded the same way by the context
// of the caller that needed the connection. The cut-off call is also
// cancelled on the server, by a cancel request over a new connection, so that
// a long statement stops instead of running on unseen: the guard sends it
// itself on a plain-text connection (package internal/platform/fastpath/pgcancel), lib/pq on a TLS one. Either
// gets half a second: enough for a server that answers, little past the
// request's time for one that does not.

// guardedConnector opens lib/pq connections whose sockets obey contexts.
type guardedConnector struct {
	pq *pq.Connector
	// ownCancel: the guard sends the cancel requests of plain-text
	// connections itself (fastpath.OwnCancel); otherwise lib/pq does.
	ownCancel bool
}

// newGuardedConnector is the connector of a PostgreSQL DSN, whose guard
// sends cancel requests itself when ownCancel is set.
func newGuardedConnector(dsn string, ownCancel bool) (*guardedConnector, error) {
	c, err := pq.NewConnector(dsn)
	if err != nil {
		return nil, err
	}
	c.Dialer(dialer{})
	return &guardedConnector{pq: c, ownCancel: ownCancel}, nil
}

// Driver implements driver.Connector.
func (c *guardedConnector) Driver() driver.Driver { return c.pq.Driver() }

// Connect implements driver.Connector.
func (c *guardedConnector) Connect(ctx context.Context) (driver.Conn, error) {
	slot := &socketSlot{sniff: c.ownCancel}
	stop := context.AfterFunc(ctx, slot.kill)
	conn, err := c.pq.Connect(context.WithValue(ctx, socketKey{}, slot))
	stopped := stop()
	if err != nil {
		return nil, err
	}
	if !stopped { // opened, but the socket was killed meanwhile
		_ = conn.Close()
		return nil, ctx.Err()
	}
	sock := slot.get()
	if sock == nil {
		_ = conn.Close()
		return nil, errors.New("postgres: connection opened without a socket")
	}
	// The dial may have left the context's deadline on the socket.
	if err := sock.SetDeadline(time.Time{}); err != nil {
		_ = conn.Close()
		return nil, err
	}
	g := &guardedConn{inner: conn, sock: sock}
	if ks, ok := sock.(*pgcancel.Socket); ok && ks.Key() != nil {
		g.cancel = &pgcancel.Canceller{Network: slot.network, Address: slot.address, Key: ks.Key(), Dial: dialer{}.DialContext}
	}
	return g, nil
}

// socketKey carries the socketSlot of a Connect to the dialer.
type socketKey struct{}

// socketSlot is where the dialer leaves the socket of a connection being
// opened, so that Connect can guard it and keep it.
type socketSlot struct {
	// sniff: read the connection's cancel key (pgcancel.Socket).
	sniff            bool
	mu               sync.Mutex
	sock             net.Conn
	network, address string
	killed           bool
}

func (s *socketSlot) set(c net.Conn, network, address string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sock, s.network, s.address = c, network, address
	if s.killed {
		_ = c.SetDeadline(past)
	}
}

func (s *socketSlot) get() net.Conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sock
}

func (s *socketSlot) kill() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.killed = true
	if s.sock != nil {
		_ = s.sock.SetDeadline(past)
	}
}

// past is a deadline that has passed: I/O on a socket with it fails at once.
var past = time.Unix(1, 0)

// dialer is lib/pq's dialer: a net.Dialer with TCP keep-alive whose sockets
// take the deadline of the dialing context (cancel requests), and which
// hands the socket of a Connect to its slot, read for its cancel key.
type dialer struct{}

var netDialer = &net.Dialer{KeepAlive: 15 * time.Second}

// Dial implements pq.Dialer.
func (d dialer) Dial(network, address string) (net.Conn, error) {
	return d.DialContext(context.Background(), network, address)
}

// DialTimeout implements pq.Dialer.
func (d dialer) DialTimeout(network, address string, timeout time.Duration) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	return d.DialContext(ctx, network, address)
}

// cancelBudget bounds a cancel request, from dial to the server's
// goodbye. lib/pq waits for it before a prepared statement's call returns,
// so a server that does not answer would otherwise hold the caller for the
// ten seconds lib/pq allows it. A server that answers takes milliseconds.
const cancelBudget = 500 * time.Millisecond

// DialContext implements pq.DialerContext.
func (dialer) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	slot, opening := ctx.Value(socketKey{}).(*socketSlot)
	if !opening { // a cancel request
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, cancelBudget)
		defer cancel()
	}
	c, err := netDialer.DialContext(ctx, network, address)
	if err != nil {
		return nil, err
	}
	if dl, ok := ctx.Deadline(); ok {
		if err := c.SetDeadline(dl); err != nil {
			_ = c.Close()
			return nil, err
		}
	}
	if opening && slot.sniff {
		ks := &pgcancel.Socket{Conn: c}
		slot.set(ks, network, address)
		return ks, nil
	}
	if opening {
		slot.set(c, network, address)
	}
	return c, nil
}

// A failover leaves a pool holding connections to a server that is gone or
// no longer the leader: their sockets break, or the server ends them (57P01,
// 57P02), or, demoted to a standby, it refuses every write (25006). lib/pq
// drops a connection whose socket broke or whose server sent a fatal error,
// but keeps one whose server refuses writes, and the pool would hand it out
// again and again. The guard looks at the error of every call and retires
// the connection on any that dberror.Gone names: database/sql then closes it
// (ResetSession, IsValid) and dials a new one, which reaches the leader
// wherever it now is. No restart is needed.

// guardedConn is a lib/pq connection with its socket.
type guardedConn struct {
	inner driver.Conn
	sock  net.Conn
	// killed is set once a context ended while the connection was in use
	// (the socket is unusable), or a call's error said its server is gone or
	// read-only (retire): the pool must drop the connection.
	killed atomic.Bool
	// cancel sends the connection's cancel requests when the guard cuts a
	// call off (nil: lib/pq sends them, package internal/platform/fastpath/pgcancel).
	cancel *pgcancel.Canceller
}

// pq is the context lib/pq gets for a call under ctx: one that never ends
// when the guard sends the cancel request itself.
func (c *guardedConn) pq(ctx context.Context) context.Context {
	if c.cancel != nil {
		return context.Background()
	}
	return ctx
}

// guard arms the kill of the socket for the end of ctx; release disarms it.
// When lib/pq sends the cancel request (c.cancel is nil), the kill waits
// lateCut first: lib/pq, seeing ctx end, asks the server to cancel the
// call, which then ends with the server's cancel error; a socket cut at
// once would end the call first and lib/pq would send nothing. A server
// that does not answer is cut off lateCut late.
func (c *guardedConn) guard(ctx context.Context) (release func()) {
	if ctx.Done() == nil {
		return func() {}
	}
	kill := c.kill
	if c.cancel == nil {
		kill = func() { time.AfterFunc(lateCut, c.kill) }
	}
	stop := context.AfterFunc(ctx, kill)
	return func() {
		if !stop() {
			// The kill ran or is running: the connection is done for either way.
			c.killed.Store(true)
		}
	}
}

// lateCut is how long the guard leaves lib/pq to cancel a call itself
// before it cuts the socket: a cancel request's budget, so that a request
// against a server that does not answer still ends within a second of its
// deadline.
const lateCut = cancelBudget

// badBegin is the error of a BEGIN whose connection broke: database/sql's
// ErrBadConn (wrapping it), with which database/sql begins again on another
// connection. A BEGIN that did not run has done nothing; one the server
// ran, on a connection now gone, is rolled back with it.
//
// A BEGIN the server refused as a feature it does not support is one asked
// of a standby (PostgreSQL cannot begin a read-write transaction during
// recovery, 0A000): a node just restarted or demoted, which a pooler or
// HAProxy still routed to. Nothing began, the connection is of no use to
// writes, and another one reaches the leader: it begins again there too.
func badBegin(err error) error {
	if errors.Is(err, driver.ErrBadConn) {
		return err
	}
	state, answered := dberror.SQLState(err)
	if dberror.Gone(err) && !answered || state == featureNotSupported {
		return fmt.Errorf("%w: %w", driver.ErrBadConn, err)
	}
	return err
}

// featureNotSupported is the SQLSTATE of a BEGIN a standby refuses.
const featureNotSupported = "0A000"

// retire marks the connection for the pool to drop when err says its
// server is gone or takes no writes (dberror.Gone), and returns err.
func (c *guardedConn) retire(err error) error {
	if err != nil && dberror.Gone(err) {
		c.killed.Store(true)
	}
	return err
}

func (c *guardedConn) kill() {
	c.killed.Store(true)
	_ = c.sock.SetDeadline(past)
	if c.cancel != nil {
		_ = c.cancel.Send()
	}
}

// closeTimeout bounds the calls database/sql makes without a context
// (closing a statement), which wait for the server's answer.
const closeTimeout = 5 * time.Second

// bounded runs f with the socket guarded by a fixed timeout.
func (c *guardedConn) bounded(f func() error) error {
	ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
	defer cancel()
	release := c.guard(ctx)
	defer release()
	return f()
}

// Prepare implements driver.Conn.
func (c *guardedConn) Prepare(query string) (driver.Stmt, error) {
	return c.PrepareContext(context.Background(), query)
}

// PrepareContext implements driver.ConnPrepareContext.
func (c *guardedConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	release := c.guard(ctx)
	defer release()
	s, err := c.inner.(driver.ConnPrepareContext).PrepareContext(c.pq(ctx), query)
	if err != nil {
		return nil, c.retire(err)
	}
	return &guardedStmt{inner: s, conn: c}, nil
}

// Close implements driver.Conn (lib/pq only writes a goodbye, which a frozen
// server's socket buffer takes).
func (c *guardedConn) Close() error { return c.inner.Close() }

// Begin implements driver.Conn.
func (c *guardedConn) Begin() (driver.Tx, error) {
	return c.BeginTx(context.Background(), driver.TxOptions{})
}

// BeginTx implements driver.ConnBeginTx: the guard lasts until the
// transaction ends, because Commit and Rollback take no context.
func (c *guardedConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	release := c.guard(ctx)
	tx, err := c.inner.(driver.ConnBeginTx).BeginTx(c.pq(ctx), opts)
	if err != nil {
		release()
		err = badBegin(c.retire(err))
		if errors.Is(err, driver.ErrBadConn) {
			c.killed.Store(true)
		}
		return nil, err
	}
	return &guardedTx{inner: tx, release: release, conn: c}, nil
}

// ExecContext implements driver.ExecerContext.
func (c *guardedConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	release := c.guard(ctx)
	defer release()
	r, err := c.inner.(driver.ExecerContext).ExecContext(c.pq(ctx), query, args)
	return r, c.retire(err)
}

// QueryContext implements driver.QueryerContext: the guard lasts until the
// rows are closed.
func (c *guardedConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	release := c.guard(ctx)
	rows, err := c.inner.(driver.QueryerContext).QueryContext(c.pq(ctx), query, args)
	if err != nil {
		release()
		return nil, c.retire(err)
	}
	return wrapRows(rows, release, c), nil
}

// Ping implements driver.Pinger.
func (c *guardedConn) Ping(ctx context.Context) error {
	release := c.guard(ctx)
	defer release()
	return c.retire(c.inner.(driver.Pinger).Ping(c.pq(ctx)))
}

// ResetSession implements driver.SessionResetter, which database/sql calls
// before it hands a pooled connection out again: a connection the guard
// retired, or whose server closed it meanwhile (checkIdle: a failover's
// shutdown, pg_terminate_backend), is refused, and database/sql takes
// another or dials a new one. Without the check the request's first
// statement would meet the closed socket, and the transaction it begins
// would fail instead of moving on.
func (c *guardedConn) ResetSession(ctx context.Context) error {
	if c.killed.Load() {
		return driver.ErrBadConn
	}
	if err := checkIdle(c.sock); err != nil {
		c.killed.Store(true)
		return driver.ErrBadConn
	}
	return c.inner.(driver.SessionResetter).ResetSession(ctx)
}

// IsValid implements driver.Validator.
func (c *guardedConn) IsValid() bool {
	return !c.killed.Load() && c.inner.(driver.Validator).IsValid()
}

// CheckNamedValue implements driver.NamedValueChecker: the driver's own.
func (c *guardedConn) CheckNamedValue(nv *driver.NamedValue) error {
	return c.inner.(driver.NamedValueChecker).CheckNamedValue(nv)
}

// guardedTx releases the transaction's guard when it ends.
type guardedTx struct {
	inner   driver.Tx
	release func()
	conn    *guardedConn
}

// Commit implements driver.Tx. A COMMIT whose connection broke (its socket,
// or its server ending it) had no answer, or none that tells: the server
// may have committed before it went, or not. Its error then wraps
// dberror.ErrCommitUnknown, which the HTTP layer answers 503 (the
// idempotency key's record, written in the same transaction, tells a
// retry which it was).
func (t *guardedTx) Commit() error {
	defer t.release()
	err := t.inner.Commit()
	if err == nil {
		return nil
	}
	if dberror.Gone(err) {
		t.conn.killed.Store(true)
		if _, answered := dberror.SQLState(err); !answered {
			return fmt.Errorf("%w: %w", dberror.ErrCommitUnknown, err)
		}
	}
	return err
}

// Rollback implements driver.Tx.
func (t *guardedTx) Rollback() error {
	defer t.release()
	return t.conn.retire(t.inner.Rollback())
}

// guardedStmt guards the calls of a prepared statement.
type guardedStmt struct {
	inner driver.Stmt
	conn  *guardedConn
}

// Close implements driver.Stmt, bounded: lib/pq waits for the server.
func (s *guardedStmt) Close() error { return s.conn.bounded(s.inner.Close) }

// NumInput implements driver.Stmt.
func (s *guardedStmt) NumInput() int { return s.inner.NumInput() }

// Exec implements driver.Stmt.
func (s *guardedStmt) Exec(args []driver.Value) (driver.Result, error) {
	return s.ExecContext(context.Background(), named(args))
}

// Query implements driver.Stmt.
func (s *guardedStmt) Query(args []driver.Value) (driver.Rows, error) {
	return s.QueryContext(context.Background(), named(args))
}

// ExecContext implements driver.StmtExecContext. lib/pq's COPY statement
// (store.CopyIn) has only Exec: it runs under the same guard.
func (s *guardedStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	release := s.conn.guard(ctx)
	defer release()
	if x, ok := s.inner.(driver.StmtExecContext); ok {
		r, err := x.ExecContext(s.conn.pq(ctx), args)
		return r, s.conn.retire(err)
	}
	values := make([]driver.Value, len(args))
	for i, a := range args {
		values[i] = a.Value
	}
	r, err := s.inner.Exec(values) //nolint:staticcheck // the COPY statement has no ExecContext
	return r, s.conn.retire(err)
}

// CopyData passes rows already in COPY's text format to lib/pq's COPY
// statement (CopyText), under the guard.
func (s *guardedStmt) CopyData(ctx context.Context, data string) (driver.Result, error) {
	cd, ok := s.inner.(copyData)
	if !ok {
		return nil, fmt.Errorf("store: statement %T takes no COPY data", s.inner)
	}
	release := s.conn.guard(ctx)
	defer release()
	r, err := cd.CopyData(s.conn.pq(ctx), data)
	return r, s.conn.retire(err)
}

// QueryContext implements driver.StmtQueryContext.
func (s *guardedStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	release := s.conn.guard(ctx)
	rows, err := s.inner.(driver.StmtQueryContext).QueryContext(s.conn.pq(ctx), args)
	if err != nil {
		release()
		return nil, s.conn.retire(err)
	}
	return wrapRows(rows, release, s.conn), nil
}

func named(args []driver.Value) []driver.NamedValue {
	out := make([]driver.NamedValue, len(args))
	for i, v := range args {
		out[i] = driver.NamedValue{Ordinal: i + 1, Value: v}
	}
	return out
}

// guardedRows releases the query's guard when the rows are closed, and
// retires the connection on an error that says its server is gone.
type guardedRows struct {
	driver.Rows
	release func()
	once    sync.Once
	conn    *guardedConn
}

// Next implements driver.Rows.
func (r *guardedRows) Next(dest []driver.Value) error {
	err := r.Rows.Next(dest)
	if err != nil && err != io.EOF {
		return r.conn.retire(err)
	}
	return err
}

// pqRows is what lib/pq's rows implement beyond driver.Rows.
type pqRows interface {
	driver.Rows
	driver.RowsColumnTypeScanType
	driver.RowsColumnTypeDatabaseTypeName
	driver.RowsColumnTypeLength
	driver.RowsColumnTypePrecisionScale
}

// fullRows keeps lib/pq's column type information visible.
type fullRows struct {
	*guardedRows
	types pqRows
}

func (r fullRows) ColumnTypeScanType(i int) reflect.Type { return r.types.ColumnTypeScanType(i) }
func (r fullRows) ColumnTypeDatabaseTypeName(i int) string {
	return r.types.ColumnTypeDatabaseTypeName(i)
}
func (r fullRows) ColumnTypeLength(i int) (int64, bool) { return r.types.ColumnTypeLength(i) }
func (r fullRows) ColumnTypePrecisionScale(i int) (int64, int64, bool) {
	return r.types.ColumnTypePrecisionScale(i)
}

func wrapRows(rows driver.Rows, release func(), conn *guardedConn) driver.Rows {
	g := &guardedRows{Rows: rows, release: release, conn: conn}
	if t, ok := rows.(pqRows); ok {
		return fullRows{guardedRows: g, types: t}
	}
	return g
}

// Close implements driver.Rows.
func (r *guardedRows) Close() error {
	err := r.Rows.Close()
	r.once.Do(r.release)
	return err
}
