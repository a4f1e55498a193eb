package handlers_test

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
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
	// tagReads counts the statements reading tags that its pool ran.
	tagReads atomic.Int64
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
	srv, err := handlers.New(st, handlers.Options{Config: cfg, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Replicas: store.JoinReplicas(replica)})
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
	reps, _ := body["replicas"].([]any)
	if rep, _ := firstOf(reps).(map[string]any); code != 200 || len(reps) != 1 || rep["serving"] != false {
		t.Errorf("/readyz with a lagging replica: %d %v, want 200 with replicas[0].serving false", code, body)
	}
	pos.set(300, 300)
	_ = replica.Poll(ctx)
	served("caught up again", "replica", a.key)

	// A replica that yields no connection is left at once for the primary.
	rst.Close()
	served("the replica closed", "primary", a.key)
}

func firstOf(l []any) any {
	if len(l) == 0 {
		return nil
	}
	return l[0]
}

// openStandIn is a second database standing in for a replica (the schema,
// none of the primary's rows), measured by the returned positions, whose
// pool counts the statements it runs that read tags (tagReads): where a
// list of tags was read, whatever else the pool does meanwhile.
func openStandIn(t *testing.T, st *store.Store, name string, maxLag time.Duration) (*store.Replica, *store.Store, *standIn) {
	t.Helper()
	ctx := context.Background()
	migrated := dbtest.OpenURL(t, dbtest.Scratch(t, name))
	if _, err := migrate.Apply(ctx, migrated.DB, migrated.Dialect, func(ctx context.Context) error { return seed.Shared(ctx, migrated.Client) }); err != nil {
		t.Fatal(err)
	}
	pos := &standIn{}
	rst := dbtest.Observed(t, migrated, func(c store.Call) {
		if c.Op == store.OpQuery && strings.Contains(c.SQL, `"tags"`) {
			pos.tagReads.Add(1)
		}
	})
	return store.NewReplica(st, rst, store.ReplicaOptions{MaxLag: maxLag, Measure: pos.measure, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}), rst, pos
}

// docs/scaling.md, "Several replicas": with two replicas, GETs are spread
// over those that serve the account; one lagging gets none; an account's
// write keeps its reads off each replica until that one has replayed it;
// a replica that fails a read leaves it to the primary and the others.
func TestReplicaReadsOverTwo(t *testing.T) {
	t.Parallel()
	postgresOnly(t, "replicas are PostgreSQL's")
	ctx := context.Background()
	st := dbtest.Open(t, dbtest.Postgres)
	// The positions are measured before each request, as Run would, so
	// that a slow request on a busy machine does not age a horizon past
	// the bound.
	const maxLag = time.Second
	r1, rst1, pos1 := openStandIn(t, st, "replica1", maxLag)
	r2, _, pos2 := openStandIn(t, st, "replica2", maxLag)
	cfg := config.Defaults()
	cfg.AuthFailLimit = 1 << 20
	srv, err := handlers.New(st, handlers.Options{Config: cfg, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Replicas: store.JoinReplicas(r1, r2)})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	org := dbtest.NewOrg(t, st, "")
	a := &api{t: t, st: st, url: hs.URL, srv: srv, clock: &clock{t: time.Now()}, org: org, fast: cfg.FastPath}
	a.key = org.Key(t, policy.Live, "all")
	const tags = "/v1/tags?ref_type=PRODUCT"
	measured := []*store.Replica{r1, r2}
	// get reads the list n times, each after a measure of the replicas,
	// and counts where each went: the primary (its rows, and no read on a
	// replica) or the replica whose pool read tags (an empty list).
	get := func(step string, n int, want1, want2, wantPrimary int) {
		t.Helper()
		var got [3]int
		for range n {
			for _, r := range measured {
				_ = r.Poll(ctx)
			}
			before1, before2 := pos1.tagReads.Load(), pos2.tagReads.Load()
			full := len(a.do("GET", tags, a.key, nil).want(200).List()) > 0
			on1, on2 := pos1.tagReads.Load() > before1, pos2.tagReads.Load() > before2
			switch {
			case full && !on1 && !on2:
				got[2]++
			case !full && on1 && !on2:
				got[0]++
			case !full && on2 && !on1:
				got[1]++
			default:
				t.Errorf("%s: a list of %v rows, reads on the first replica %v, on the second %v", step, full, on1, on2)
			}
		}
		if got != [3]int{want1, want2, wantPrimary} {
			t.Errorf("%s: %d lists from the first replica, %d from the second, %d from the primary; want %d, %d, %d",
				step, got[0], got[1], got[2], want1, want2, wantPrimary)
		}
	}
	a.post("/v1/tags", map[string]any{"name": "First", "ref_type": "PRODUCT"}).want(201)
	measured = nil
	get("never measured", 4, 0, 0, 4)
	measured = []*store.Replica{r1, r2}

	pos1.set(100, 100)
	pos2.set(100, 100)
	get("both caught up", 10, 5, 5, 0)

	// The account writes: the primary's position moves past 100.
	pos1.set(200, 100)
	pos2.set(200, 100)
	a.post("/v1/tags", map[string]any{"name": "Second", "ref_type": "PRODUCT"}).want(201)
	get("the account's write replayed by neither", 4, 0, 0, 4)
	pos2.set(200, 200)
	get("the write replayed by the second only", 4, 0, 4, 0)
	pos1.set(200, 200)
	get("the write replayed by both", 6, 3, 3, 0)

	pos1.set(300, 200) // the first stops replaying
	pos2.set(300, 300)
	_ = r1.Poll(ctx) // the primary's position 300 at this instant
	time.Sleep(maxLag + 100*time.Millisecond)
	get("the first past the bound", 6, 0, 6, 0)
	_ = r1.Poll(ctx)
	_ = r2.Poll(ctx)
	code, body, _ := getStatus(t, hs.URL+handlers.ReadyPath)
	reps, _ := body["replicas"].([]any)
	var serving []any
	for _, r := range reps {
		if m, ok := r.(map[string]any); ok {
			serving = append(serving, m["serving"])
		}
	}
	if code != 200 || len(serving) != 2 || serving[0] != false || serving[1] != true {
		t.Errorf("/readyz with the first replica lagging: %d %v, want 200 with replicas' serving false, true", code, body)
	}

	pos1.set(300, 300)
	get("both caught up again", 4, 2, 2, 0)
	// The first yields no connection: its turn goes to the primary once,
	// then it is out of rotation (until its next measure, which the test
	// leaves out) and the second serves.
	rst1.Close()
	measured = []*store.Replica{r2}
	get("the first replica closed", 6, 0, 5, 1)
}
