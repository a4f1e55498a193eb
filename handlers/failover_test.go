package handlers_test

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"larder.dev/larder/handlers"
	"larder.dev/larder/internal/platform/config"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/restapi"
	"larder.dev/larder/internal/testkit/dbtest"
)

// postgresOnly skips a test visibly without PostgreSQL.
func postgresOnly(t *testing.T, why string) {
	t.Helper()
	if dbtest.AdminURL() == "" {
		t.Skipf("needs PostgreSQL (%s): %s", dbtest.EnvPostgres, why)
	}
}

// docs/api-behaviour.md, "Failover": the connections of a server that went
// away (pg_terminate_backend, as a shutdown for a failover ends them) are
// replaced without a restart: every request after it succeeds, none is
// answered 500.
func TestConnectionsOfAGoneServerAreReplaced(t *testing.T) {
	t.Parallel()
	postgresOnly(t, "a server ending connections is PostgreSQL's")
	// A pool of its own, named, so that only its connections are ended.
	app := fmt.Sprintf("larder_failover_%d", time.Now().UnixNano())
	u, err := url.Parse(dbtest.URL(t, dbtest.Postgres))
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("application_name", app)
	u.RawQuery = q.Encode()
	st := dbtest.OpenURL(t, u.String())
	a := newAPI(t, st, func(c *config.Config) { c.RequestLog = false })
	admin := dbtest.Open(t, dbtest.Postgres)
	for round := range 3 {
		// Warm connections, then end every one of them.
		for i := range 4 {
			a.post("/v1/tags", map[string]any{"name": fmt.Sprintf("Warm %d-%d", round, i), "ref_type": "PRODUCT"}).want(201)
			a.get("/v1/tags?ref_type=PRODUCT").want(200)
		}
		var ended int
		// Direct SQL: which server processes serve a pool is PostgreSQL's own view, no table of the schema.
		if err := admin.DB.QueryRow(`SELECT count(*) FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1) t`, app).Scan(&ended); err != nil {
			t.Fatal(err)
		}
		if ended == 0 {
			t.Fatalf("round %d: no connection of the pool to end", round)
		}
		for i := range 4 {
			a.post("/v1/tags", map[string]any{"name": fmt.Sprintf("After %d-%d", round, i), "ref_type": "PRODUCT"}).want(201)
			a.get("/v1/tags?ref_type=PRODUCT").want(200)
			a.get("/v1/organization").want(200)
		}
	}
}

// cutter is a TCP proxy in front of PostgreSQL that breaks the connection
// of the next COMMIT once armed: before forwarding it (the server rolls the
// transaction back when its socket closes) or after, on the server's answer
// (the server committed; the answer never arrives).
type cutter struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	mode   string // "", "before" or "after"
	cuts   atomic.Int32
}

func newCutter(t *testing.T, target string) *cutter {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c := &cutter{ln: ln, target: target}
	t.Cleanup(func() { ln.Close() })
	go c.accept()
	return c
}

func (c *cutter) arm(mode string) {
	c.mu.Lock()
	c.mode = mode
	c.mu.Unlock()
}

func (c *cutter) take() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	m := c.mode
	c.mode = ""
	return m
}

// commitMessage is lib/pq's COMMIT: a simple query ('Q', length 11).
var commitMessage = []byte("Q\x00\x00\x00\x0bCOMMIT\x00")

func (c *cutter) accept() {
	for {
		client, err := c.ln.Accept()
		if err != nil {
			return
		}
		go func() {
			up, err := net.Dial("tcp", c.target)
			if err != nil {
				client.Close()
				return
			}
			var swallow atomic.Bool
			go func() { // the server's answers
				defer client.Close()
				defer up.Close()
				buf := make([]byte, 32<<10)
				for {
					n, err := up.Read(buf)
					if swallow.Load() {
						c.cuts.Add(1)
						return
					}
					if n > 0 {
						if _, werr := client.Write(buf[:n]); werr != nil {
							return
						}
					}
					if err != nil {
						return
					}
				}
			}()
			defer client.Close()
			defer up.Close()
			buf := make([]byte, 32<<10)
			for {
				n, err := client.Read(buf)
				if n > 0 && bytes.Contains(buf[:n], commitMessage) {
					switch c.take() {
					case "before":
						c.cuts.Add(1)
						return
					case "after":
						swallow.Store(true)
					}
				}
				if n > 0 {
					if _, werr := up.Write(buf[:n]); werr != nil {
						return
					}
				}
				if err != nil {
					return
				}
			}
		}()
	}
}

// docs/api-behaviour.md, "Failover": a write whose COMMIT had no answer
// (its connection broke before the COMMIT reached the server, or after the
// server committed) is answered 503 SERVICE_UNAVAILABLE with Retry-After,
// never a success and never a 500; its retry with the same Idempotency-Key
// creates the document if it was not, or replays its answer if it was:
// exactly one document either way. The fault is a proxy breaking the
// connection at the COMMIT of the transaction that completes the key.
func TestCommitOutcomeUnknown(t *testing.T) {
	t.Parallel()
	postgresOnly(t, "a connection broken during COMMIT is a network matter")
	u, err := url.Parse(dbtest.URL(t, dbtest.Postgres))
	if err != nil {
		t.Fatal(err)
	}
	cut := newCutter(t, u.Host)
	u.Host = cut.ln.Addr().String()
	var armed atomic.Value
	armed.Store("")
	see := func(c store.Call) {
		// The work's transaction completes the key; its COMMIT is next.
		if c.Statement() && strings.HasPrefix(c.SQL, `UPDATE "idempotency_keys"`) {
			if m := armed.Swap(""); m != "" {
				cut.arm(m.(string))
			}
		}
	}
	st, err := store.Open(context.Background(), u.String(), store.Options{Statements: config.Defaults().Statements, Snapshots: restapi.Snapshots{}, Fast: config.Defaults().FastPath, Observe: see})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	a := seeded(t, newAPI(t, st, func(c *config.Config) { c.RequestLog = false }))
	flour := a.productID("RM-FLOUR")
	for _, mode := range []string{"before", "after"} {
		t.Run(mode, func(t *testing.T) {
			sup := a.supplierFor("CUT-" + strings.ToUpper(mode))
			body := map[string]any{"supplier_id": sup, "lines": []any{line(flour, 2, "cost", 3)}}
			key := "commit-" + mode
			cuts := cut.cuts.Load()
			armed.Store(mode)
			first := a.do("POST", "/v1/purchase-orders", a.key, body, "Idempotency-Key", key)
			if cut.cuts.Load() == cuts {
				t.Fatalf("no COMMIT was cut (answer %d %s)", first.Status, first.Body)
			}
			first.problem(503, "SERVICE_UNAVAILABLE")
			if first.Header.Get("Retry-After") == "" {
				t.Error("503 without Retry-After")
			}
			retry := a.do("POST", "/v1/purchase-orders", a.key, body, "Idempotency-Key", key)
			switch mode {
			case "before": // rolled back: the retry does the work
				retry.want(201)
			case "after": // committed: the retry replays it
				retry.want(200)
			}
			again := a.do("POST", "/v1/purchase-orders", a.key, body, "Idempotency-Key", key).want(200)
			if again.ID() != retry.ID() {
				t.Errorf("the replay names order %d, the retry %d", again.ID(), retry.ID())
			}
			orders := a.get(fmt.Sprintf("/v1/purchase-orders?supplier_id=%d", sup)).want(200).List()
			if len(orders) != 1 {
				t.Fatalf("%d orders after the unknown commit and its retries, want exactly 1", len(orders))
			}
		})
	}
}

// docs/operators.md, "Health": /readyz is 503 while the database answers
// but takes no writes (a standby, or a primary being demoted), and 200 over
// the same database in a session that takes them.
func TestReadyNeedsALeader(t *testing.T) {
	t.Parallel()
	postgresOnly(t, "a read-only server is PostgreSQL's")
	u, err := url.Parse(dbtest.URL(t, dbtest.Postgres))
	if err != nil {
		t.Fatal(err)
	}
	// lib/pq sends a URL's unknown parameters as the session's settings.
	q := u.Query()
	q.Set("default_transaction_read_only", "on")
	u.RawQuery = q.Encode()
	readOnly := dbtest.OpenURL(t, u.String())
	roURL, _ := healthServer(t, readOnly)
	code, body, hdr := getStatus(t, roURL+handlers.ReadyPath)
	if code != 503 || hdr.Get("Retry-After") == "" || !strings.Contains(fmt.Sprint(body["detail"]), "read-only") {
		t.Errorf("/readyz over a read-only database: %d %v (Retry-After %q), want 503 saying read-only", code, body, hdr.Get("Retry-After"))
	}
	rwURL, _ := healthServer(t, dbtest.Open(t, dbtest.Postgres))
	if code, body, _ := getStatus(t, rwURL+handlers.ReadyPath); code != 200 {
		t.Errorf("/readyz over the leader: %d %v, want 200", code, body)
	}
}
