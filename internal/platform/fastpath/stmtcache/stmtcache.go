// Package stmtcache is the statement cache under ent (the fastpath
// mechanism statement-cache): it prepares a query that runs again and again
// once per pool and reuses it, in and out of transactions. store builds its
// ent driver with NewDriver when the mechanism is on.
package stmtcache

import (
	"container/list"
	"context"
	"database/sql"
	"strings"
	"sync"
	"time"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"
)

// The statement cache prepares a query that runs again and again once per pool
// (database/sql prepares it on each connection that runs it) and reuses it, so
// the database parses and plans it once instead of on every request.
//
// ent writes LIMIT and OFFSET into the SQL text, so every page deep in a list
// is a query of its own: those (the SQL has an OFFSET; first pages have none)
// run unprepared rather than churn the cache. Other queries are admitted on
// their second sighting, so one-off queries do not evict the ones that repeat.
// A statement in use is closed only when its last user is done. A transaction
// never waits for a preparation: it holds a connection already, and preparing
// on the pool would need another one, which may not come while every
// connection belongs to a transaction doing the same. It runs the query
// unprepared and, on the query's second sighting, has it prepared in the
// background for the transactions after it.

// Cache is a bounded LRU of prepared statements keyed by SQL text.
type Cache struct {
	db        *sql.DB
	max       int
	mu        sync.Mutex
	bySQL     map[string]*list.Element
	lru       *list.List          // of *cached, most recent first
	seen      map[string]struct{} // queries run once, not yet admitted
	preparing map[string]bool     // queries being prepared in the background
	// The background preparations end with the cache (close): stop is
	// cancelled, later waits for them, and none starts once closed.
	stop   context.Context
	halt   context.CancelFunc
	later  sync.WaitGroup
	closed bool
}

type cached struct {
	query   string
	stmt    *sql.Stmt
	users   int  // callers between acquire and release
	evicted bool // close when users drops to 0
}

// New returns a cache of at most max statements prepared on db.
func New(db *sql.DB, max int) *Cache {
	stop, halt := context.WithCancel(context.Background())
	return &Cache{db: db, max: max, bySQL: map[string]*list.Element{}, lru: list.New(),
		seen: map[string]struct{}{}, preparing: map[string]bool{}, stop: stop, halt: halt}
}

// Close ends the background preparations and waits for them, so that none
// holds a connection of the pool past its Close (on SQLite, a connection
// closed after the pool would touch the database's files after its owner
// is done with them).
func (c *Cache) Close() {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	c.halt()
	c.later.Wait()
}

// acquire returns the prepared statement of query, preparing it on its second
// sighting; nil means "run it unprepared". Inside a transaction (inTx) it
// never prepares in line. Release what it returns.
func (c *Cache) acquire(ctx context.Context, query string, inTx bool) (*cached, error) {
	if strings.Contains(query, " OFFSET ") {
		return nil, nil
	}
	c.mu.Lock()
	if e, ok := c.bySQL[query]; ok {
		c.lru.MoveToFront(e)
		s := e.Value.(*cached)
		s.users++
		c.mu.Unlock()
		return s, nil
	}
	if _, ok := c.seen[query]; !ok {
		if len(c.seen) >= 4*c.max {
			c.seen = map[string]struct{}{}
		}
		c.seen[query] = struct{}{}
		c.mu.Unlock()
		return nil, nil
	}
	if inTx {
		if !c.preparing[query] && !c.closed {
			c.preparing[query] = true
			c.later.Add(1)
			go c.prepareLater(query)
		}
		c.mu.Unlock()
		return nil, nil
	}
	c.mu.Unlock()
	stmt, err := c.db.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	return c.admit(query, stmt, true), nil
}

// prepareLater prepares query on the pool, when a connection is free, and
// admits it.
func (c *Cache) prepareLater(query string) {
	defer c.later.Done()
	ctx, cancel := context.WithTimeout(c.stop, time.Minute)
	defer cancel()
	stmt, err := c.db.PrepareContext(ctx, query)
	c.mu.Lock()
	delete(c.preparing, query)
	c.mu.Unlock()
	if err == nil {
		c.admit(query, stmt, false)
	}
}

// admit puts a prepared statement in the cache, evicting the least recently
// used, and returns the cached entry (acquired when use is true).
func (c *Cache) admit(query string, stmt *sql.Stmt, use bool) *cached {
	var closing []*sql.Stmt
	defer func() { closeLater(closing) }()
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := (*cached)(nil), false
	if e, found := c.bySQL[query]; found { // prepared concurrently
		closing = append(closing, stmt)
		c.lru.MoveToFront(e)
		s, ok = e.Value.(*cached), true
	}
	if !ok {
		delete(c.seen, query)
		s = &cached{query: query, stmt: stmt}
		c.bySQL[query] = c.lru.PushFront(s)
		for c.lru.Len() > c.max {
			old := c.lru.Remove(c.lru.Back()).(*cached)
			delete(c.bySQL, old.query)
			old.evicted = true
			if old.users == 0 {
				closing = append(closing, old.stmt) // rows still open keep it alive until they close
			}
		}
	}
	if use {
		s.users++
	}
	return s
}

// release ends a use of s, closing it if it was evicted meanwhile.
func (c *Cache) release(s *cached) {
	if s == nil {
		return
	}
	c.mu.Lock()
	s.users--
	last := s.evicted && s.users == 0
	c.mu.Unlock()
	if last {
		closeLater([]*sql.Stmt{s.stmt})
	}
}

// closeLater closes statements in the background, never under the cache's
// lock and never in the caller's way: closing one waits for every
// connection it is prepared on, and a connection busy with a query that
// waits for a row lock could otherwise hold the whole cache, and with it
// every request, until that lock is released.
func closeLater(stmts []*sql.Stmt) {
	for _, st := range stmts {
		go func() { _ = st.Close() }()
	}
}

// ExecQuerier is what the cache runs queries through: the pool (Pool) or a
// transaction (Tx).
type ExecQuerier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// Pool runs queries on the pool through cached statements.
func (c *Cache) Pool() ExecQuerier { return pool{c: c} }

// Tx runs the queries of tx through cached statements, bound to the
// transaction's connection (closed with the transaction).
func (c *Cache) Tx(tx *sql.Tx) ExecQuerier { return txConn{tx: tx, c: c} }

// pool runs queries on the pool through cached statements.
type pool struct {
	c *Cache
}

func (p pool) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	s, err := p.c.acquire(ctx, query, false)
	if err != nil {
		return nil, err
	}
	if s == nil {
		return p.c.db.ExecContext(ctx, query, args...)
	}
	defer p.c.release(s)
	return s.stmt.ExecContext(ctx, args...)
}

func (p pool) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	s, err := p.c.acquire(ctx, query, false)
	if err != nil {
		return nil, err
	}
	if s == nil {
		return p.c.db.QueryContext(ctx, query, args...)
	}
	defer p.c.release(s)
	return s.stmt.QueryContext(ctx, args...)
}

// txConn runs queries of a transaction through cached statements, bound to
// the transaction's connection (closed with the transaction).
type txConn struct {
	tx *sql.Tx
	c  *Cache
}

func (t txConn) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	s, err := t.c.acquire(ctx, query, true)
	if err != nil {
		return nil, err
	}
	if s == nil {
		return t.tx.ExecContext(ctx, query, args...)
	}
	defer t.c.release(s)
	return t.tx.StmtContext(ctx, s.stmt).ExecContext(ctx, args...)
}

func (t txConn) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	s, err := t.c.acquire(ctx, query, true)
	if err != nil {
		return nil, err
	}
	if s == nil {
		return t.tx.QueryContext(ctx, query, args...)
	}
	defer t.c.release(s)
	return t.tx.StmtContext(ctx, s.stmt).QueryContext(ctx, args...)
}

// Driver is the ent driver over a pool whose queries go through the
// statement cache, in and out of transactions.
type Driver struct {
	*entsql.Driver
	db    *sql.DB
	cache *Cache
}

// NewDriver returns the ent driver of dialect dia over db with a cache of at
// most size statements.
func NewDriver(db *sql.DB, dia string, size int) *Driver {
	c := New(db, size)
	return &Driver{Driver: entsql.NewDriver(dia, entsql.Conn{ExecQuerier: pool{c: c}}), db: db, cache: c}
}

// Cache is the driver's statement cache, for another driver over the same
// pool (a snapshot's transactions) to use.
func (d *Driver) Cache() *Cache { return d.cache }

// Tx starts a transaction.
func (d *Driver) Tx(ctx context.Context) (dialect.Tx, error) { return d.BeginTx(ctx, nil) }

// BeginTx starts a transaction with options.
func (d *Driver) BeginTx(ctx context.Context, opts *sql.TxOptions) (dialect.Tx, error) {
	tx, err := d.db.BeginTx(ctx, opts)
	if err != nil {
		return nil, err
	}
	return &entsql.Tx{Conn: entsql.Conn{ExecQuerier: txConn{tx: tx, c: d.cache}}, Tx: tx}, nil
}

// Close ends the cache's background preparations and closes the pool.
func (d *Driver) Close() error {
	d.cache.Close()
	return d.db.Close()
}
