package webhooks_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/internal/webhooks"
	"larder.dev/larder/policy"
)

// run starts d.Run until the test ends.
func run(t *testing.T, d *webhooks.Dispatcher) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		d.Run(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
}

// waitFor fails the test unless cond holds within 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not within 10 s: %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// With an hour between polls, Run delivers a change as soon as it commits:
// woken by the commit on SQLite, by PostgreSQL's notification there.
func TestRunDeliversAtCommit(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		f := setup(t, st)
		r := newReceiver(t)
		f.endpoint(t, f.org, policy.Test, r.URL)
		run(t, f.dispatcher(webhooks.Options{PollInterval: time.Hour}))
		// The first change may be found by Run's first look; the second
		// comes after it, when only a wake-up can find it.
		for i, name := range []string{"first", "second", "third"} {
			change(t, st, f.org, policy.Test, name)
			waitFor(t, name+" change delivered", func() bool { return len(r.requests()) == i+1 })
		}
	})
}

// slowReceiver holds every request until released, counting those it holds.
type slowReceiver struct {
	*httptest.Server
	release       chan struct{}
	mu            sync.Mutex
	holding, most int
	got           int
}

func newSlowReceiver(t *testing.T) *slowReceiver {
	r := &slowReceiver{release: make(chan struct{})}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.holding++
		r.most = max(r.most, r.holding)
		r.mu.Unlock()
		select {
		case <-r.release:
		case <-req.Context().Done():
		}
		r.mu.Lock()
		r.holding--
		r.got++
		r.mu.Unlock()
	}))
	t.Cleanup(r.Close)
	t.Cleanup(r.free) // before Close, which waits for the held requests
	return r
}

func (r *slowReceiver) free() {
	select {
	case <-r.release:
	default:
		close(r.release)
	}
}

func (r *slowReceiver) counts() (holding, most, got int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.holding, r.most, r.got
}

// An endpoint that does not answer holds at most PerEndpoint posts; another
// endpoint's deliveries go on beside it, and once it answers, its backlog
// follows without waiting for a poll.
func TestSlowEndpointDelaysNoOther(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		f := setup(t, st)
		slow := newSlowReceiver(t)
		fast := newReceiver(t)
		d := f.dispatcher(webhooks.Options{PollInterval: time.Hour, Concurrency: 4, PerEndpoint: 2})
		// The slow endpoint's backlog comes first in the order of claims.
		f.endpoint(t, f.org, policy.Test, slow.URL)
		const changes = 8
		for i := range changes {
			change(t, st, f.org, policy.Test, "before "+string(rune('a'+i)))
		}
		if _, err := d.FanOut(context.Background()); err != nil {
			t.Fatal(err)
		}
		f.endpoint(t, f.org, policy.Test, fast.URL)
		for i := range changes {
			change(t, st, f.org, policy.Test, "after "+string(rune('a'+i)))
		}
		run(t, d)
		waitFor(t, "every change delivered to the fast endpoint", func() bool { return len(fast.requests()) == changes })
		if holding, most, _ := slow.counts(); holding != 2 || most != 2 {
			t.Fatalf("the slow endpoint holds %d posts (at most %d), want PerEndpoint = 2", holding, most)
		}
		slow.free()
		waitFor(t, "every change delivered to the slow endpoint once it answers", func() bool {
			_, _, got := slow.counts()
			return got == 2*changes
		})
	})
}
