package handlers_test

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"larder.dev/larder/handlers"
	"larder.dev/larder/internal/platform/config"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/seed"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/migrate"
	"larder.dev/larder/policy"
)

// standIn is the replica's measure as the test sets it.
type standIn struct {
	mu                sync.Mutex
	primary, replayed uint64
}

func (s *standIn) set(primary, replayed uint64) {
	s.mu.Lock()
	s.primary, s.replayed = primary, replayed
	s.mu.Unlock()
}

func (s *standIn) measure(context.Context) (uint64, uint64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.primary, s.replayed, nil
}

// docs/scaling.md, "Read replicas for list traffic": with a replica, a GET
// is answered from it when it has caught up within its bound and has
// replayed the account's last write in this process; every other request,
// the key's lookup of every request included, is the primary's. A second
// database stands in for the replica: it has the schema and none of the
// primary's rows, so an empty list is the replica's answer and a full one
// the primary's.
func TestReplicaReads(t *testing.T) {
	t.Parallel()
	postgresOnly(t, "replicas are PostgreSQL's")
	ctx := context.Background()
	st := dbtest.Open(t, dbtest.Postgres)
	rst := dbtest.OpenURL(t, dbtest.Scratch(t, "replica"))
	if _, err := migrate.Apply(ctx, rst.DB, rst.Dialect, func(ctx context.Context) error { return seed.Shared(ctx, rst.Client) }); err != nil {
		t.Fatal(err)
	}
	pos := &standIn{}
	const maxLag = 400 * time.Millisecond
	replica := store.NewReplica(st, rst, store.ReplicaOptions{MaxLag: maxLag, Measure: pos.measure, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	cfg := config.Defaults()
	cfg.AuthFailLimit = 1 << 20
	srv, err := handlers.New(st, handlers.Options{Config: cfg, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Replica: replica})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	org := dbtest.NewOrg(t, st, "")
	a := &api{t: t, st: st, url: hs.URL, srv: srv, clock: &clock{t: time.Now()}, org: org, fast: cfg.FastPath}
	a.key = org.Key(t, policy.Live, "all")
	testKey := org.Key(t, policy.Test, "all")
	const tags = "/v1/tags?ref_type=PRODUCT"
	served := func(step string, want string, key string) {
		t.Helper()
		n := len(a.do("GET", tags, key, nil).want(200).List())
		got := "primary"
		if n == 0 {
			got = "replica"
		}
		if got != want {
			t.Errorf("%s: the list came from the %s (%d tags), want the %s", step, got, n, want)
		}
	}
	a.post("/v1/tags", map[string]any{"name": "First", "ref_type": "PRODUCT"}).want(201)
	a.do("POST", "/v1/tags", testKey, map[string]any{"name": "First", "ref_type": "PRODUCT"}).want(201)
	served("never measured", "primary", a.key)

	pos.set(100, 100)
	_ = replica.Poll(ctx)
	served("caught up, after the account's write", "replica", a.key)
	served("caught up, a test key's read in its snapshot", "replica", testKey)
	a.get("/v1/organization").want(200) // the key read on the primary: the replica has none

	a.post("/v1/tags", map[string]any{"name": "Second", "ref_type": "PRODUCT"}).want(201)
	served("the account's write not yet replayed", "primary", a.key)
	pos.set(200, 200)
	_ = replica.Poll(ctx)
	served("the write replayed", "replica", a.key)

	pos.set(300, 200) // the replica stops replaying
	time.Sleep(maxLag + 100*time.Millisecond)
	_ = replica.Poll(ctx)
	served("lag past the bound", "primary", a.key)
	served("lag past the bound, test key", "primary", testKey)
	code, body, _ := getStatus(t, hs.URL+handlers.ReadyPath)
	rep, _ := body["replica"].(map[string]any)
	if code != 200 || rep == nil || rep["serving"] != false {
		t.Errorf("/readyz with a lagging replica: %d %v, want 200 with replica.serving false", code, body)
	}
	pos.set(300, 300)
	_ = replica.Poll(ctx)
	served("caught up again", "replica", a.key)

	// A replica that yields no connection is left at once for the primary.
	rst.Close()
	served("the replica closed", "primary", a.key)
}
