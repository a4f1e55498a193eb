package main

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"larder.dev/larder/internal/seed"
	"larder.dev/larder/internal/testkit/dbtest"
)

// freeAddr returns a loopback address nobody listens on.
func freeAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// serveUntil runs `larder serve` until the test ends and waits until it answers.
// The free address can be taken by another process (an outgoing connection
// of a test running beside) before serve listens on it: then it tries another.
func serveUntil(t *testing.T, ctx context.Context, wg *sync.WaitGroup, db string, args ...string) string {
attempts:
	for attempt := 1; ; attempt++ {
		addr := freeAddr(t)
		var answered atomic.Bool
		taken := make(chan struct{})
		wg.Add(1)
		go func() {
			defer wg.Done()
			var out, errb bytes.Buffer
			err := run(ctx, append([]string{"serve", "--database", db, "--addr", addr, "--metrics-addr", "off"}, args...), &out, &errb)
			if err != nil && !answered.Load() && attempt < 5 && strings.Contains(err.Error(), "address already in use") {
				close(taken)
				return
			}
			if err != nil {
				t.Errorf("serve: %v\n%s", err, errb.String())
			}
		}()
		base := "http://" + addr
		for range 600 { // 30 s: a cold start under the race detector is slow
			select {
			case <-taken:
				t.Logf("serve: %s was taken meanwhile; trying another address", addr)
				continue attempts
			default:
			}
			if res, err := http.Get(base + "/v1/openapi.json"); err == nil {
				res.Body.Close()
				answered.Store(true)
				return base
			}
			time.Sleep(50 * time.Millisecond)
		}
		t.Fatalf("serve on %s did not answer", addr)
	}
}

// twoServers starts two `larder serve` on the package's PostgreSQL database
// with the given rate limit, until the test ends, and returns their URLs and
// a live key of a new organization.
func twoServers(t *testing.T, limit int) (servers []string, key string) {
	db := dbtest.MigratedURL(t, dbtest.Postgres)
	org := cli(t, db, "org", "create", "--name", t.Name())
	id := strconv.Itoa(int(org["id"].(float64)))
	key = cli(t, db, "key", "create", "--org", id, "--env", "live", "--scopes", "all")["key"].(string)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	t.Cleanup(func() {
		cancel()
		wg.Wait()
	})
	for range 2 {
		servers = append(servers, serveUntil(t, ctx, &wg, db, "--rate-limit", strconv.Itoa(limit)))
	}
	return servers, key
}

// withinOneMinute waits for the next minute when fewer than margin seconds
// of this one are left.
func withinOneMinute(margin int) {
	if s := time.Now().Second(); s >= 60-margin {
		time.Sleep(time.Duration(61-s) * time.Second)
	}
}

// The specification's Limits and docs/api-behaviour.md, "Rate limits": two `larder serve` processes over one PostgreSQL
// database spend one budget per account.
func TestTwoServersShareTheRateLimit(t *testing.T) {
	for _, b := range dbtest.Backends(t) {
		if b != dbtest.Postgres {
			continue
		}
		t.Run(string(b), func(t *testing.T) {
			servers, key := twoServers(t, 6)
			withinOneMinute(5)
			var remaining []string
			var statuses []int
			for i := range 8 {
				req, _ := http.NewRequest("GET", servers[i%2]+"/v1/organization", nil)
				req.Header.Set("Authorization", "Bearer "+key)
				res, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				res.Body.Close()
				statuses = append(statuses, res.StatusCode)
				remaining = append(remaining, res.Header.Get("X-RateLimit-Remaining"))
			}
			want := []int{200, 200, 200, 200, 200, 200, 429, 429}
			for i := range want {
				if statuses[i] != want[i] {
					t.Fatalf("statuses %v (remaining %v), want %v", statuses, remaining, want)
				}
			}
			if remaining[5] != "0" || remaining[0] != "5" || remaining[1] != "4" {
				t.Fatalf("remaining across servers %v", remaining)
			}
		})
	}
}

// Busy accounts reserve requests in batches (leases.Leases): across two
// servers the allowed requests never exceed the limit, and at most 1% of it
// per server goes unused.
func TestBusyAccountBudgetAcrossServers(t *testing.T) {
	for _, b := range dbtest.Backends(t) {
		if b != dbtest.Postgres {
			continue
		}
		t.Run(string(b), func(t *testing.T) {
			const limit, requests = 1000, 1300
			servers, key := twoServers(t, limit)
			withinOneMinute(15)
			window := time.Now().Truncate(time.Minute)
			var mu sync.Mutex
			counts := map[int]int{}
			var workers sync.WaitGroup
			for w := range 8 {
				workers.Add(1)
				go func() {
					defer workers.Done()
					for i := w; i < requests; i += 8 {
						req, _ := http.NewRequest("GET", servers[i%2]+"/v1/organization", nil)
						req.Header.Set("Authorization", "Bearer "+key)
						res, err := http.DefaultClient.Do(req)
						if err != nil {
							t.Error(err)
							return
						}
						res.Body.Close()
						mu.Lock()
						counts[res.StatusCode]++
						mu.Unlock()
					}
				}()
			}
			workers.Wait()
			if !time.Now().Truncate(time.Minute).Equal(window) {
				t.Skip("the minute rolled over during the burst")
			}
			ok := counts[200]
			if ok > limit || ok < limit-2*limit/100 || counts[200]+counts[429] != requests {
				t.Fatalf("statuses %v: %d allowed, want between %d and %d", counts, ok, limit-2*limit/100, limit)
			}
		})
	}
}

// Servers starting together on one PostgreSQL database migrate once and seed
// the shared rows once.
func TestConcurrentStartsSeedOnce(t *testing.T) {
	for _, b := range dbtest.Backends(t) {
		if b != dbtest.Postgres {
			continue
		}
		t.Run(string(b), func(t *testing.T) {
			db := dbtest.Scratch(t, "start")
			var wg sync.WaitGroup
			for range 3 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					var out, errb bytes.Buffer
					if err := run(context.Background(), []string{"migrate", "--database", db}, &out, &errb); err != nil {
						t.Errorf("migrate: %v\n%s", err, errb.String())
					}
				}()
			}
			wg.Wait()
			st := dbtest.OpenURL(t, db)
			for table, want := range map[string]int{"units_of_measure": len(seed.Units), "allergens": len(seed.Allergens)} {
				var n int
				if err := st.DB.QueryRow(`SELECT count(*) FROM ` + table + ` WHERE is_global`).Scan(&n); err != nil || n != want {
					t.Fatalf("%s: %d shared rows (%v), want %d", table, n, err, want)
				}
			}
		})
	}
}

// serve holds its access lines for --log-flush and writes them when it
// stops: a line is never lost to a normal exit. The batches are a speed
// mechanism (fastpath.BatchedLog), on here whatever LARDER_FAST_PATH says.
func TestServeWritesHeldLogLinesWhenItStops(t *testing.T) {
	db := dbtest.MigratedURL(t, dbtest.SQLite)
	addr := freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var errb syncBuffer
	done := make(chan error, 1)
	go func() {
		var out bytes.Buffer
		done <- run(ctx, []string{"serve", "--database", db, "--addr", addr, "--webhooks=false", "--log-flush", "1h", "--fast-path", "true"}, &out, &errb)
	}()
	answered := false
	for range 600 {
		if res, err := http.Get("http://" + addr + "/v1/openapi.json?held=1"); err == nil {
			res.Body.Close()
			answered = true
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !answered {
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), "address already in use") {
				t.Fatalf("serve: %v\n%s", err, errb.String())
			}
		default:
		}
		t.Skip("serve did not answer on " + addr + " (taken by another process meanwhile)")
	}
	time.Sleep(100 * time.Millisecond)
	if strings.Contains(errb.String(), "path=/v1/openapi.json") {
		t.Fatalf("an access line was written before its batch's hour:\n%s", errb.String())
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(errb.String(), "msg=request") || !strings.Contains(errb.String(), "path=/v1/openapi.json") {
		t.Fatalf("the held access line was not written when serve stopped:\n%s", errb.String())
	}
}
