package main

import (
	"bytes"
	"context"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/reqlog"
	"larder.dev/larder/internal/restapi"
	"larder.dev/larder/internal/testkit/dbtest"
)

// docs/operators.md, "Request log": serve records the requests of a key,
// writes what is queued when it stops, and prunes what is older than
// --request-log-retention; --request-log=false records nothing.
func TestServeRequestLog(t *testing.T) {
	t.Parallel()
	for _, on := range []bool{true, false} {
		t.Run("request-log="+strconv.FormatBool(on), func(t *testing.T) {
			db := dbtest.MigratedURL(t, dbtest.SQLite)
			org := strconv.Itoa(int(cli(t, db, "org", "create", "--name", "Logged")["id"].(float64)))
			key := cli(t, db, "key", "create", "--org", org, "--env", "live", "--scopes", "all")["key"].(string)
			st, err := store.Open(context.Background(), db, store.Options{Snapshots: restapi.Snapshots{}})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			old := reqlog.NewWriter(st, nil, 0)
			old.Record(&reqlog.Entry{At: time.Now().Add(-31 * 24 * time.Hour), Method: "GET", Path: "/v1/tags", Status: 401, RequestID: "req_old"})
			old.Record(&reqlog.Entry{At: time.Now().Add(-29 * 24 * time.Hour), Method: "GET", Path: "/v1/tags", Status: 401, RequestID: "req_recent"})
			old.Flush()

			addr, stop := serveInBackground(t, "--database", db, "--request-log="+strconv.FormatBool(on), "--request-log-retention", "720h")
			defer stop()
			id := getOrganization(t, addr, key)
			has := func(rid string) bool {
				rs, err := reqlog.Lookup(context.Background(), st.Client, rid)
				if err != nil {
					t.Fatal(err)
				}
				return len(rs) == 1
			}
			// Pruning runs in the background from the start.
			for deadline := time.Now().Add(20 * time.Second); on && has("req_old") && time.Now().Before(deadline); {
				time.Sleep(20 * time.Millisecond)
			}
			if err := stop(); err != nil {
				t.Fatal(err)
			}
			if has(id) != on {
				t.Errorf("the request is logged: %v, want %v", has(id), on)
			}
			if has("req_old") != !on || !has("req_recent") {
				t.Errorf("after serve: 31 days old kept %v, 29 days old kept %v", has("req_old"), has("req_recent"))
			}
		})
	}
}

// docs/operators.md, "Request log": on PostgreSQL the writer has a
// connection of its own, named in pg_stat_activity, which runs its batches
// and closes when serve stops.
func TestServeRequestLogWritesOnItsOwnConnection(t *testing.T) {
	t.Parallel()
	if dbtest.AdminURL() == "" {
		t.Skip("SKIPPED: needs PostgreSQL (" + dbtest.EnvPostgres + ")")
	}
	// Its own database: the connections counted are this server's alone.
	db := dbtest.Scratch(t, "writer")
	st := dbtest.OpenURL(t, db)
	org := strconv.Itoa(int(cli(t, db, "org", "create", "--name", "Logged")["id"].(float64)))
	key := cli(t, db, "key", "create", "--org", org, "--env", "live", "--scopes", "all")["key"].(string)
	writers := func(query string) int {
		var n int
		// Direct SQL: the sessions of the test's own database named as the request log's writer, from PostgreSQL's session view.
		if err := st.DB.QueryRow(`SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'larder request log' AND query LIKE $1`, query).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}

	addr, stop := serveInBackground(t, "--database", db)
	defer stop()
	getOrganization(t, addr, key)
	// The GET is a plain read: its batch is the writer's one statement,
	// the last its connection ran.
	for deadline := time.Now().Add(10 * time.Second); writers("WITH v AS%") != 1 && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	if n := writers("WITH v AS%"); n != 1 {
		t.Fatalf("%d connections named larder request log ran the batch's statement, want 1", n)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); writers("%") != 0 && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	if n := writers("%"); n != 0 {
		t.Errorf("after serve stopped %d writer connections are open, want 0", n)
	}
}

// getOrganization sends GET /v1/organization with key to the server
// starting at addr, once it answers (within 30 s), and returns the answer's
// request id; anything but a 200 fails the test.
func getOrganization(t *testing.T, addr, key string) string {
	t.Helper()
	for range 600 {
		req, _ := http.NewRequest("GET", "http://"+addr+"/v1/organization", nil)
		req.Header.Set("Authorization", "Bearer "+key)
		if res, err := http.DefaultClient.Do(req); err == nil {
			res.Body.Close()
			if res.StatusCode != 200 {
				t.Fatalf("GET /v1/organization: %d", res.StatusCode)
			}
			return res.Header.Get("X-Request-Id")
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("serve did not answer on " + addr)
	return ""
}

// serveInBackground runs serve with args, on a free address and without
// webhooks or metrics, until stop is called; stop returns serve's error, and
// calling it again returns nil.
func serveInBackground(t *testing.T, args ...string) (addr string, stop func() error) {
	t.Helper()
	addr = freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		var out, errb bytes.Buffer
		done <- run(ctx, append([]string{"serve", "--addr", addr, "--webhooks=false", "--metrics-addr", "off"}, args...), &out, &errb)
	}()
	var once sync.Once
	return addr, func() (err error) {
		once.Do(func() {
			cancel()
			err = <-done
		})
		return err
	}
}
