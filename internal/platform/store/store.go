// Package store opens the database behind a URL and builds the ent client
// every part of Larder uses, with the cost redaction and the transactional
// outbox attached: there is no other way to get a client.
//
// Layering: store sits below the HTTP layer and imports none of it. The
// outbox's snapshot renderer (restapi.Snapshots) belongs to the REST layer, so
// whoever opens a store passes it in Options.Snapshots; a test asserts that
// store does not depend on larder.dev/larder/internal/restapi.
package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"
	_ "modernc.org/sqlite" // registers "sqlite"

	"larder.dev/larder/ent"
	_ "larder.dev/larder/ent/runtime" // schema policies and hooks
	"larder.dev/larder/hooks"
	"larder.dev/larder/internal/platform/fastpath"
	"larder.dev/larder/internal/platform/fastpath/stmtcache"
	"larder.dev/larder/internal/platform/tracing"
	"larder.dev/larder/policy"
)

// Store is an open database.
type Store struct {
	// Client is the ent client, with redaction and outbox attached.
	Client *ent.Client
	// DB is the connection pool.
	DB *sql.DB
	// Dialect is dialect.Postgres or dialect.SQLite.
	Dialect string
	// DSN is the driver's data source name (for PostgreSQL, a lib/pq
	// connection string the webhook dispatcher listens on).
	DSN string
	// Prepare says whether the server's own statements may be prepared
	// (Options.Statements above 0; package internal/platform/fastpath/prepared).
	Prepare bool
	// drv is the client's driver, which a primary's client sends the reads
	// routed to this store, as its replica, to (replica.go).
	drv dialect.Driver
	// ownCancel is Options.Fast's OwnCancel, for Dedicated's connection.
	ownCancel bool
	// cacheStatements: statements are prepared (Options.Statements above 0)
	// and the statement cache is on, for Cached.
	cacheStatements bool
}

// Options tune the connection pool.
type Options struct {
	// MaxConns bounds open connections; 0 picks a default per dialect.
	MaxConns int
	// Statements is how many prepared statements to keep; 0 prepares none.
	Statements int
	// Snapshots renders the webhook snapshots the outbox writes with each
	// change (restapi.Snapshots{}). It is required: the renderer lives in the
	// REST layer above store, which therefore cannot pick it itself.
	Snapshots hooks.Snapshots
	// Fast is which speed mechanisms run (the zero value: all of them).
	// store's are the statement cache, the compiled reads and the guard's
	// own cancel requests; without them the client is plain ent over lib/pq
	// with its own context handling.
	Fast fastpath.Set
	// Observe, when set, is told of every call the pool makes to the
	// database driver (observe.go): a query, an exec, a prepare, the
	// execution of a prepared statement, BEGIN, COMMIT, ROLLBACK. It is for
	// tests that count what requests send to the database; a server never
	// sets it, and without it nothing of the observer is in the pool's way.
	// It is called on the caller's goroutine, from several at once.
	Observe func(Call)
}

// ErrNoSnapshots is returned by Open when Options.Snapshots is nil: a client
// without the outbox's renderer could not write the events of changes.
var ErrNoSnapshots = errors.New("store: Options.Snapshots is required (restapi.Snapshots{})")

// Open connects to url: postgres://… or postgresql://… (lib/pq), or
// sqlite://PATH (embedded; sqlite://larder.db is relative, sqlite:///var/x.db absolute).
func Open(ctx context.Context, rawURL string, o Options) (*Store, error) {
	if o.Snapshots == nil {
		return nil, ErrNoSnapshots
	}
	driver, dia, dsn, err := Parse(rawURL)
	if err != nil {
		return nil, err
	}
	db, err := openDB(driver, dsn, o.Fast.Has(fastpath.OwnCancel), o.Observe)
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	switch dia {
	case dialect.SQLite:
		// WAL lets readers run beside the one writer; every transaction takes
		// the write lock at BEGIN (_txlock=immediate), so none deadlocks.
		n := max(o.MaxConns, 8)
		db.SetMaxOpenConns(n)
		// Keep them: opening one runs its pragmas and, in WAL mode, a close
		// of the last connection checkpoints under an exclusive lock.
		db.SetMaxIdleConns(n)
	default:
		n := o.MaxConns
		if n == 0 {
			n = 20
		}
		db.SetMaxOpenConns(n)
		db.SetMaxIdleConns(n)
		db.SetConnMaxIdleTime(5 * time.Minute)
	}
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := db.PingContext(pctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("connect to database: %w", err)
	}
	drv := newDriver(db, dia, o)
	return &Store{Client: clientOver(drv, o.Snapshots, o.Fast), DB: db, Dialect: dia, DSN: dsn, Prepare: o.Statements > 0, drv: drv,
		ownCancel: o.Fast.Has(fastpath.OwnCancel), cacheStatements: o.Statements > 0 && o.Fast.Has(fastpath.StatementCache)}, nil
}

// Execer runs a statement: a pool, a transaction, or Cached's cache.
type Execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// Cached returns what runs db's statements through a cache of at most max
// prepared statements (the statement cache, which prepares a statement on
// its second use) when the store prepares statements and the statement
// cache is on, else db itself; for a worker's own pool (Dedicated). stop
// ends the cache's background work, before db is closed.
func (s *Store) Cached(db *sql.DB, max int) (ex Execer, stop func()) {
	if !s.cacheStatements {
		return db, func() {}
	}
	c := stmtcache.New(db, max)
	return c.Pool(), c.Close
}

// Dedicated opens a pool of at most one connection to s's PostgreSQL
// database, apart from DB's and guarded as its connections are, which
// PostgreSQL shows as name (application_name in pg_stat_activity): for a
// background worker whose statements should neither take nor wait for a
// connection the requests use, and may stay prepared on their own
// connection. On SQLite it returns nil, nil: its one writer takes every
// write in turn, so a worker writes through DB. The caller closes the pool.
func (s *Store) Dedicated(ctx context.Context, name string) (*sql.DB, error) {
	if s.Dialect != dialect.Postgres {
		return nil, nil
	}
	u, err := url.Parse(s.DSN)
	if err != nil {
		return nil, fmt.Errorf("dedicated connection: %w", err)
	}
	q := u.Query()
	q.Set("application_name", name)
	u.RawQuery = q.Encode()
	c, err := newGuardedConnector(u.String(), s.ownCancel)
	if err != nil {
		return nil, fmt.Errorf("dedicated connection: %w", err)
	}
	db := sql.OpenDB(c)
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := db.PingContext(pctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("dedicated connection: %w", err)
	}
	return db, nil
}

// openDB opens the pool of a driver and DSN; PostgreSQL connections are
// guarded (guard.go) so that no call outlives its context, and with
// ownCancel (fastpath.OwnCancel) the guard sends the cancel requests itself
// (internal/platform/fastpath/pgcancel) where lib/pq would watch every call's context. With observe,
// the calls of the pool's connections are reported to it (observe.go), above
// the guard.
func openDB(driverName, dsn string, ownCancel bool, observe func(Call)) (*sql.DB, error) {
	if observe == nil && driverName != "postgres" {
		return sql.Open(driverName, dsn)
	}
	var c driver.Connector
	var err error
	if driverName == "postgres" {
		c, err = newGuardedConnector(dsn, ownCancel)
	} else {
		c, err = connectorOf(driverName, dsn)
	}
	if err != nil {
		return nil, err
	}
	if observe != nil {
		c = &observingConnector{inner: c, see: observe}
	}
	return sql.OpenDB(c), nil
}

// NewClient builds the ent client over db with the cost redaction and the
// outbox (rendering with o.Snapshots) attached, keeping up to o.Statements
// prepared statements when o.Fast has the statement cache; its reads under a
// context of Snapshot go to the snapshot. Hooks registered first run
// outermost: redaction sees the outbox's result, and the outbox sees
// unredacted values.
func NewClient(db *sql.DB, dia string, o Options) *ent.Client {
	return clientOver(newDriver(db, dia, o), o.Snapshots, o.Fast)
}

// newDriver is the ent driver of NewClient's client.
func newDriver(db *sql.DB, dia string, o Options) dialect.Driver {
	var drv dialect.Driver = &snapshotDriver{Driver: entsql.OpenDB(dia, db), db: db}
	if o.Statements > 0 && o.Fast.Has(fastpath.StatementCache) {
		c := stmtcache.NewDriver(db, dia, o.Statements)
		drv = &snapshotDriver{Driver: c, db: db, cache: c.Cache()}
	}
	if tp := tracing.Provider(); tp != nil {
		drv = tracing.Driver(drv, tp)
	}
	return drv
}

// clientOver builds the ent client over drv with what every client carries,
// its reads compiled when fast has them.
func clientOver(drv dialect.Driver, snaps hooks.Snapshots, fast fastpath.Set) *ent.Client {
	opts := []ent.Option{ent.Driver(drv)}
	if !fast.Has(fastpath.CompiledReads) {
		opts = append(opts, ent.PlainReads())
	}
	c := ent.NewClient(opts...)
	c.Intercept(ent.CostInterceptor(policy.SeesCost))
	c.Use(ent.CostHook(policy.SeesCost), hooks.Outbox(snaps), ent.MachineHook())
	return c
}

// Close closes the pool.
func (s *Store) Close() error { return s.Client.Close() }

// Parse maps a database URL to a database/sql driver, an ent dialect and a DSN.
func Parse(rawURL string) (driver, dia, dsn string, err error) {
	switch {
	case strings.HasPrefix(rawURL, "postgres://"), strings.HasPrefix(rawURL, "postgresql://"):
		return "postgres", dialect.Postgres, PostgresDSN(rawURL), nil
	case strings.HasPrefix(rawURL, "sqlite://"):
		path := strings.TrimPrefix(rawURL, "sqlite://")
		if path == "" {
			return "", "", "", fmt.Errorf("database URL %q names no file", rawURL)
		}
		return "sqlite", dialect.SQLite, SQLiteDSN(path), nil
	}
	return "", "", "", fmt.Errorf("database URL %q: use postgres://…, postgresql://… or sqlite://PATH", rawURL)
}

// PostgresDSN turns on lib/pq's binary_parameters unless the URL sets it: a
// query with arguments then costs one round trip instead of two (no unnamed
// prepared statement), which also suits connection poolers.
func PostgresDSN(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return rawURL // lib/pq reports the error
	}
	q := u.Query()
	if q.Get("binary_parameters") == "" {
		q.Set("binary_parameters", "yes")
		u.RawQuery = q.Encode()
	}
	return u.String()
}

// SQLiteDSN is the modernc.org/sqlite DSN of a database file: foreign keys on,
// WAL with full synchronisation, a busy timeout, write lock at BEGIN, and
// timestamps in a sortable text form.
func SQLiteDSN(path string) string {
	q := url.Values{}
	// The busy timeout first: switching a new connection to WAL takes a
	// lock, and without a timeout a connection opened under load fails with
	// SQLITE_BUSY instead of waiting its turn.
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "journal_mode(WAL)")
	// FULL: a commit is on disk when it returns, power loss included
	// (NORMAL in WAL mode may lose the last commits then).
	q.Add("_pragma", "synchronous(FULL)")
	q.Set("_txlock", "immediate")
	q.Set("_time_format", "sqlite")
	return "file:" + path + "?" + q.Encode()
}
