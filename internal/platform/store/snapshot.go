package store

import (
	"context"
	"database/sql"
	"errors"
	"sync"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"

	"larder.dev/larder/internal/platform/fastpath/stmtcache"
)

// A request whose answer takes several statements (a page, then the lists of
// its records) reads each statement as of the moment it runs, so a
// transaction that commits between two of them shows in the second and not
// in the first. A snapshot gives the statements of one context one view of
// the database: the ent client's driver looks for one in the context of each
// statement and, when it finds one of its own pool, sends the statement to
// the snapshot's transaction instead of the pool. Code over the client is
// unchanged, the compiled reads and the statement cache included (both go
// through the driver).
//
// The transaction begins with the first statement, so a request that reads
// nothing costs nothing, and it is read-only:
//
//   - PostgreSQL: BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY (one
//     statement in lib/pq); the snapshot is taken at the first read, and a
//     write in it fails.
//   - SQLite: database/sql's ReadOnly option makes modernc.org/sqlite begin
//     with a plain (deferred) BEGIN instead of the pool's BEGIN IMMEDIATE, so
//     the snapshot takes no write lock and waits for no writer; in WAL mode
//     its first read fixes what it sees until it ends. A write would take the
//     write lock in the middle of the transaction, which is how deadlocks
//     start: the driver refuses Exec on a snapshot on both databases.
//
// A transaction begun under a snapshot (client.Tx) is a transaction of its
// own on the pool, as it would be without one: a snapshot is for reads.

// snapshotKey is the context key of a *snapshot.
type snapshotKey struct{}

// ErrSnapshotWrite is the error of a write sent to a snapshot.
var ErrSnapshotWrite = errors.New("store: a write in a read-only snapshot")

// errSnapshotEnded is the error of a statement sent to a snapshot that ended.
var errSnapshotEnded = errors.New("store: the snapshot has ended")

// snapshot is the transaction of a context's reads, begun on first use.
type snapshot struct {
	db   *sql.DB
	opts sql.TxOptions
	// ctx is the context the transaction lives under: the one Snapshot was
	// given, not a statement's, which may end sooner.
	ctx   context.Context
	mu    sync.Mutex
	tx    *sql.Tx
	err   error
	ended bool
}

// Snapshot returns ctx with a snapshot of the database for the reads of the
// store's client under it, and end, which ends the snapshot (rolls its
// transaction back) and must be called when the reads are done, deferred so
// that a panic ends it too. The transaction lives under ctx: when ctx ends,
// database/sql rolls it back (and on PostgreSQL the guard cuts its
// connection), and end is still safe to call. Writes under the returned
// context fail with ErrSnapshotWrite.
//
// A context whose reads are routed to a replica (Replica.Route) gets a
// snapshot of the replica.
func (s *Store) Snapshot(ctx context.Context) (context.Context, func()) {
	if r := routed(ctx, s.DB); r != nil {
		return r.Store.Snapshot(ctx)
	}
	sn := &snapshot{db: s.DB, ctx: ctx}
	if s.Dialect == dialect.Postgres {
		sn.opts = sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true}
	} else {
		sn.opts = sql.TxOptions{ReadOnly: true} // a deferred BEGIN, see above
	}
	return context.WithValue(ctx, snapshotKey{}, sn), sn.end
}

// snapshotOf returns the snapshot of ctx over db, or nil.
func snapshotOf(ctx context.Context, db *sql.DB) *snapshot {
	if sn, ok := ctx.Value(snapshotKey{}).(*snapshot); ok && sn.db == db {
		return sn
	}
	return nil
}

// begin returns the snapshot's transaction, beginning it on first use.
func (sn *snapshot) begin() (*sql.Tx, error) {
	sn.mu.Lock()
	defer sn.mu.Unlock()
	switch {
	case sn.ended:
		return nil, errSnapshotEnded
	case sn.tx == nil && sn.err == nil:
		sn.tx, sn.err = sn.db.BeginTx(sn.ctx, &sn.opts)
	}
	return sn.tx, sn.err
}

// end rolls the transaction back, if one began; a read-only transaction has
// nothing to commit, and one that ctx already ended has nothing left to roll back.
func (sn *snapshot) end() {
	sn.mu.Lock()
	defer sn.mu.Unlock()
	if sn.ended {
		return
	}
	sn.ended = true
	if sn.tx != nil {
		_ = sn.tx.Rollback()
	}
}

// snapshotDriver is the ent driver of a pool that sends the statements of a
// context with a snapshot of that pool to the snapshot's transaction.
type snapshotDriver struct {
	dialect.Driver
	db *sql.DB
	// cache is the statement cache of the pool, whose statements the
	// snapshot's transaction uses as any transaction does (nil: none).
	cache *stmtcache.Cache
}

// conn is the connection of the snapshot of ctx, or nil without one.
func (d *snapshotDriver) conn(ctx context.Context) (entsql.ExecQuerier, error) {
	sn := snapshotOf(ctx, d.db)
	if sn == nil {
		return nil, nil
	}
	tx, err := sn.begin()
	if err != nil {
		return nil, err
	}
	if d.cache != nil {
		return d.cache.Tx(tx), nil
	}
	return tx, nil
}

// Query implements dialect.Driver: on the replica the context is routed
// to, if any (replica.go), else on the snapshot of ctx or the pool.
func (d *snapshotDriver) Query(ctx context.Context, query string, args, v any) error {
	if r := routed(ctx, d.db); r != nil {
		return r.replicaQuery(ctx, query, args, v, func() error { return d.query(ctx, query, args, v) })
	}
	return d.query(ctx, query, args, v)
}

// query is Query on this pool.
func (d *snapshotDriver) query(ctx context.Context, query string, args, v any) error {
	c, err := d.conn(ctx)
	if err != nil {
		return err
	}
	if c == nil {
		return d.Driver.Query(ctx, query, args, v)
	}
	return entsql.Conn{ExecQuerier: c}.Query(ctx, query, args, v)
}

// Exec implements dialect.Driver: refused under a snapshot.
func (d *snapshotDriver) Exec(ctx context.Context, query string, args, v any) error {
	if snapshotOf(ctx, d.db) != nil {
		return ErrSnapshotWrite
	}
	return d.Driver.Exec(ctx, query, args, v)
}

// Tx implements dialect.Driver.
func (d *snapshotDriver) Tx(ctx context.Context) (dialect.Tx, error) { return d.BeginTx(ctx, nil) }

// BeginTx starts a transaction on the pool, under a snapshot or not.
func (d *snapshotDriver) BeginTx(ctx context.Context, opts *sql.TxOptions) (dialect.Tx, error) {
	b, ok := d.Driver.(interface {
		BeginTx(context.Context, *sql.TxOptions) (dialect.Tx, error)
	})
	if !ok && opts != nil {
		return nil, errors.New("store: the driver takes no transaction options")
	}
	if !ok {
		return d.Driver.Tx(ctx)
	}
	return b.BeginTx(ctx, opts)
}

// execQuerier is the raw side of a driver, which ent's ExecContext and
// QueryContext reach for.
type execQuerier interface {
	ExecContext(context.Context, string, ...any) (sql.Result, error)
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}

// ExecContext is the raw Exec of the pool: refused under a snapshot.
func (d *snapshotDriver) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if snapshotOf(ctx, d.db) != nil {
		return nil, ErrSnapshotWrite
	}
	return d.Driver.(execQuerier).ExecContext(ctx, query, args...)
}

// QueryContext is the raw Query of the pool, or of the snapshot of ctx.
func (d *snapshotDriver) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	c, err := d.conn(ctx)
	if err != nil {
		return nil, err
	}
	if c == nil {
		c = d.Driver.(execQuerier)
	}
	return c.QueryContext(ctx, query, args...)
}
