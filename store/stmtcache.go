package store

import (
	"container/list"
	"context"
	"database/sql"
	"sync"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"
)

// The statement cache prepares each distinct query once per pool (database/sql
// prepares it again on each connection that runs it) and reuses it, so the
// database parses and plans a query once instead of on every request. Queries
// are few and repeat: ent writes the same SQL for the same operation.

// stmtCache is a bounded LRU of prepared statements keyed by SQL text.
type stmtCache struct {
	db    *sql.DB
	max   int
	mu    sync.Mutex
	bySQL map[string]*list.Element
	lru   *list.List // of *cached, most recent first
}

type cached struct {
	query string
	stmt  *sql.Stmt
}

func newStmtCache(db *sql.DB, max int) *stmtCache {
	return &stmtCache{db: db, max: max, bySQL: map[string]*list.Element{}, lru: list.New()}
}

// stmt returns the prepared statement of query, preparing it on first use.
func (c *stmtCache) stmt(ctx context.Context, query string) (*sql.Stmt, error) {
	c.mu.Lock()
	if e, ok := c.bySQL[query]; ok {
		c.lru.MoveToFront(e)
		c.mu.Unlock()
		return e.Value.(*cached).stmt, nil
	}
	c.mu.Unlock()
	s, err := c.db.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.bySQL[query]; ok { // prepared concurrently
		_ = s.Close()
		c.lru.MoveToFront(e)
		return e.Value.(*cached).stmt, nil
	}
	c.bySQL[query] = c.lru.PushFront(&cached{query: query, stmt: s})
	for c.lru.Len() > c.max {
		old := c.lru.Remove(c.lru.Back()).(*cached)
		delete(c.bySQL, old.query)
		_ = old.stmt.Close() // database/sql closes it once running queries finish
	}
	return s, nil
}

// pool runs queries on the pool through cached statements.
type pool struct{ c *stmtCache }

func (p pool) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	s, err := p.c.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	return s.ExecContext(ctx, args...)
}

func (p pool) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	s, err := p.c.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	return s.QueryContext(ctx, args...)
}

// txConn runs queries of a transaction through cached statements, bound to
// the transaction's connection (closed with the transaction).
type txConn struct {
	tx *sql.Tx
	c  *stmtCache
}

func (t txConn) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	s, err := t.c.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	return t.tx.StmtContext(ctx, s).ExecContext(ctx, args...)
}

func (t txConn) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	s, err := t.c.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	return t.tx.StmtContext(ctx, s).QueryContext(ctx, args...)
}

// cachingDriver is the ent driver over a pool whose queries go through the
// statement cache, in and out of transactions.
type cachingDriver struct {
	*entsql.Driver
	db    *sql.DB
	cache *stmtCache
}

func newCachingDriver(db *sql.DB, dia string, size int) dialect.Driver {
	c := newStmtCache(db, size)
	return &cachingDriver{Driver: entsql.NewDriver(dia, entsql.Conn{ExecQuerier: pool{c}}), db: db, cache: c}
}

// Tx starts a transaction.
func (d *cachingDriver) Tx(ctx context.Context) (dialect.Tx, error) { return d.BeginTx(ctx, nil) }

// BeginTx starts a transaction with options.
func (d *cachingDriver) BeginTx(ctx context.Context, opts *sql.TxOptions) (dialect.Tx, error) {
	tx, err := d.db.BeginTx(ctx, opts)
	if err != nil {
		return nil, err
	}
	return &entsql.Tx{Conn: entsql.Conn{ExecQuerier: txConn{tx: tx, c: d.cache}}, Tx: tx}, nil
}

// Close closes the pool.
func (d *cachingDriver) Close() error { return d.db.Close() }
