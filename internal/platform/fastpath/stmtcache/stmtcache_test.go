package stmtcache

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	_ "modernc.org/sqlite" // registers "sqlite"
)

// sqliteDSN opens path as store.SQLiteDSN does in what matters here: a busy
// timeout, WAL, and transactions that take the write lock at BEGIN (store
// imports this package, so these tests cannot import store).
func sqliteDSN(path string) string {
	return "file:" + path + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_txlock=immediate"
}

func sqliteDB(t *testing.T) *sql.DB {
	db, err := sql.Open("sqlite", sqliteDSN(filepath.Join(t.TempDir(), "t.db")))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	db.SetMaxOpenConns(8) // as Open sets them
	db.SetMaxIdleConns(8)
	// One connection first, as Open's ping does: it switches the new file to
	// WAL alone. Connections opened together on a file not yet in WAL can
	// fail with SQLITE_BUSY, which SQLite returns without waiting when two
	// of them would each wait for the other's lock.
	if err := db.Ping(); err != nil {
		t.Fatal(err)
	}
	return db
}

// A query is prepared on its second sighting, not its first.
func TestStatementCacheAdmitsOnSecondSighting(t *testing.T) {
	c := New(sqliteDB(t), 4)
	ctx := context.Background()
	s, err := c.acquire(ctx, "SELECT 1", false)
	if err != nil || s != nil {
		t.Fatalf("first sighting: %v %v, want unprepared", s, err)
	}
	s, err = c.acquire(ctx, "SELECT 1", false)
	if err != nil || s == nil {
		t.Fatalf("second sighting: %v %v, want prepared", s, err)
	}
	c.release(s)
	again, _ := c.acquire(ctx, "SELECT 1", false)
	if again != s {
		t.Fatal("a prepared statement was not reused")
	}
	c.release(again)
}

// Evicting statements that other goroutines are using never fails a query.
func TestStatementCacheEvictionUnderLoad(t *testing.T) {
	db := sqliteDB(t)
	p := New(db, 2).Pool()
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 1)
	for w := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 300 {
				q := fmt.Sprintf("SELECT %d", (w+i)%7)
				rows, err := p.QueryContext(ctx, q)
				if err == nil {
					for rows.Next() {
					}
					err = rows.Close()
				}
				if err != nil {
					select {
					case errs <- fmt.Errorf("%s: %w", q, err):
					default:
					}
					return
				}
			}
		}()
	}
	wg.Wait()
	select {
	case err := <-errs:
		t.Fatal(err)
	default:
	}
}

// Pages deep in a list (SQL with an OFFSET) never enter the cache.
func TestStatementCacheSkipsOffsets(t *testing.T) {
	c := New(sqliteDB(t), 4)
	ctx := context.Background()
	for range 3 {
		s, err := c.acquire(ctx, "SELECT 1 LIMIT 10 OFFSET 20", false)
		if err != nil || s != nil {
			t.Fatalf("%v %v, want unprepared", s, err)
		}
	}
	if c.lru.Len() != 0 || len(c.seen) != 0 {
		t.Fatal("an OFFSET query was remembered")
	}
}

// Transactions holding every connection never wait for a preparation.
func TestStatementCacheNeverStallsTransactions(t *testing.T) {
	db := sqliteDB(t)
	db.SetMaxOpenConns(2)
	d := NewDriver(db, "sqlite3", 16)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := db.ExecContext(ctx, "CREATE TABLE t (v integer)"); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tx, err := d.BeginTx(ctx, nil)
			if err != nil {
				errs <- err
				return
			}
			for i := range 3 {
				var res sql.Result
				if err := tx.Exec(ctx, "INSERT INTO t (v) VALUES (?)", []any{i}, &res); err != nil {
					errs <- err
					_ = tx.Rollback()
					return
				}
			}
			errs <- tx.Commit()
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("a transaction failed: %v", err)
		}
	}
}

// Evicting a statement never waits, under the cache's lock, for a connection
// busy with a query that waits for a database lock: that would hold every
// other query of the server behind it (the fuzz test saw five-second stalls).
func TestStatementCacheEvictionNeverWaitsForBusyConnections(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.db")
	db, err := sql.Open("sqlite", sqliteDSN(path))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// The first statement is prepared on the only connection open; the busy
	// update takes that idle connection, and the second connection is free
	// to prepare the next statement.
	db.SetMaxOpenConns(2)
	ctx := context.Background()
	if _, err := db.ExecContext(ctx, "CREATE TABLE t (v INTEGER); INSERT INTO t VALUES (0)"); err != nil {
		t.Fatal(err)
	}
	c := New(db, 1)
	for range 2 { // prepared on the second sighting, then unused
		s, err := c.acquire(ctx, "SELECT v FROM t", false)
		if err != nil {
			t.Fatal(err)
		}
		c.release(s)
	}
	// Another process holds the write lock; the first connection waits for it.
	other, err := sql.Open("sqlite", sqliteDSN(path))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	lock, err := other.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lock.ExecContext(ctx, "UPDATE t SET v = 1"); err != nil {
		t.Fatal(err)
	}
	busy := make(chan error, 1)
	go func() {
		_, err := db.ExecContext(ctx, "UPDATE t SET v = 2")
		busy <- err
	}()
	time.Sleep(200 * time.Millisecond) // the update holds the connection, waiting
	start := time.Now()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 2 { // admitting a second query evicts the first
			s, _ := c.acquire(context.Background(), "SELECT v + 1 FROM t", false)
			c.release(s)
		}
	}()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		t.Error("admitting a statement waited for a busy connection")
	}
	c.mu.Lock() // the cache's lock is free for everyone else
	c.mu.Unlock()
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("the cache was held for %v", took)
	}
	_ = lock.Rollback()
	if err := <-busy; err != nil {
		t.Fatal(err)
	}
	<-done
}

// Closing the cache ends the preparations it started in the background and
// waits for them: none is left holding (or waiting for) a connection of the
// pool once the driver is closed.
func TestStatementCacheCloseWaitsForPreparations(t *testing.T) {
	db := sqliteDB(t)
	db.SetMaxOpenConns(1)
	c := New(db, 4)
	ctx := context.Background()
	tx, err := db.BeginTx(ctx, nil) // holds the pool's one connection
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	for range 2 { // the second sighting in a transaction prepares in the background
		if s, err := c.acquire(ctx, "SELECT 2", true); err != nil || s != nil {
			t.Fatalf("in a transaction: %v %v, want unprepared", s, err)
		}
	}
	c.mu.Lock()
	started := c.preparing["SELECT 2"]
	c.mu.Unlock()
	if !started {
		t.Fatal("no background preparation started")
	}
	c.Close() // the preparation waits for a connection the transaction holds
	c.mu.Lock()
	left := len(c.preparing)
	c.mu.Unlock()
	if left != 0 {
		t.Fatalf("close returned with %d preparations still running", left)
	}
	if s, _ := c.acquire(ctx, "SELECT 3", true); s != nil {
		t.Fatal("a closed cache prepared")
	}
	c.acquire(ctx, "SELECT 3", true)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.preparing["SELECT 3"] {
		t.Fatal("a closed cache started a preparation")
	}
}
