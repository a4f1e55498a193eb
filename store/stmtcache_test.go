package store

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

func sqliteDB(t *testing.T) *sql.DB {
	db, err := sql.Open("sqlite", SQLiteDSN(filepath.Join(t.TempDir(), "t.db")))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// A query is prepared on its second sighting, not its first.
func TestStatementCacheAdmitsOnSecondSighting(t *testing.T) {
	c := newStmtCache(sqliteDB(t), 4)
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
	p := pool{newStmtCache(db, 2)}
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
	c := newStmtCache(sqliteDB(t), 4)
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
	d := newCachingDriver(db, "sqlite3", 16).(*cachingDriver)
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
