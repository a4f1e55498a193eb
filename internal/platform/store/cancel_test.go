package store

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// goroutinesOf counts the goroutines created by functions whose names start
// with prefix.
func goroutinesOf(prefix string) int {
	return strings.Count(stacks(), "created by "+prefix)
}

// A statement cut off by its context is cancelled on the server, on the
// fast path (the guard sends the cancel request itself on a plain-text
// connection, and lib/pq starts no goroutine per call to do it) as on the
// plain one (lib/pq sends it, the guard still cuts the socket).
func TestCutOffStatementIsCancelledOnTheServer(t *testing.T) {
	if !strings.Contains(postgresURL(t), "sslmode=disable") {
		t.Skip("the test server's URL does not disable TLS: lib/pq cancels its statements itself")
	}
	for _, ownCancel := range []bool{true, false} {
		t.Run(fmt.Sprintf("own-cancel=%v", ownCancel), func(t *testing.T) {
			db := postgresPool(t, ownCancel)
			tag := fmt.Sprintf("larder-cancel-%d", rand.Int64())
			// The connection is made under a deadline of its own, generous
			// enough for a busy machine: only the long statement is to be
			// cut off. It is still a context that can end, which is what
			// makes lib/pq watch it.
			open, cancelOpen := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancelOpen()
			rows, err := db.QueryContext(open, "SELECT 1 -- "+tag+"-open")
			if err != nil {
				t.Fatal(err)
			}
			if n := goroutinesOf("github.com/lib/pq."); ownCancel && n != 0 {
				t.Errorf("%d goroutines of lib/pq's while a result set is open, want 0", n)
			}
			rows.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			defer cancel()
			if _, err := db.ExecContext(ctx, "SELECT pg_sleep(60) -- "+tag); err == nil {
				t.Fatal("a 60-second statement ended within its context's 300 ms")
			}
			// The statement must leave the server long before its 60 seconds.
			var running int
			for range 100 {
				if err := db.QueryRow("SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND query LIKE '%' || $1", tag).Scan(&running); err != nil {
					t.Fatal(err)
				}
				if running == 0 {
					return
				}
				time.Sleep(100 * time.Millisecond)
			}
			t.Fatalf("the cut-off statement still runs on the server 10 s later")
		})
	}
}
