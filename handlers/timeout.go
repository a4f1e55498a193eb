package handlers

import (
	"context"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// withTimeout bounds the work of a request; database work past it is
// cancelled and answered 500 (spec Limits: about 15 seconds). The work does
// not end when the client goes away: net/http cancels a request's context as
// soon as the client closes its side, which a client that half-closes after
// sending does while still waiting for the answer, and a write cut short
// would tell nobody whether it happened. The work is bounded by the timeout.
//
// It needs nothing from the layers outside it; the values of the request's
// context (its exchange, a span) stay readable through the bounded context.
// Only the layers inside it run under the deadline, so the access log and the
// caching layer outside it still write the answer of a request that ran out.
//
// With windows (fastpath.DeadlineWindows), requests that start close
// together share one deadline's context (deadlines); without, each has a
// context and a timer of its own, its deadline exactly d after it began.
func withTimeout(d time.Duration, windows bool, next http.Handler) http.Handler {
	if !windows {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), d)
			defer cancel()
			next.ServeHTTP(w, r.WithContext(ctx))
		})
	}
	ds := &deadlines{d: d}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := &bounded{Context: r.Context(), dl: ds.from(time.Now())}
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// deadlineGrain is how close together requests start that share one
// deadline: a request's work ends between its timeout and its timeout plus
// deadlineGrain after it began.
const deadlineGrain = 50 * time.Millisecond

// deadlines hands requests their deadlines: one context per deadlineGrain of
// start times, whose deadline is the timeout after the window's end, shared
// by every request that starts in the window. A context and a timer of its
// own per request cost about 2 µs of a 100 µs GET (bench/README.md, "The
// request's own layers"); a window's context costs that once, and the
// timer of a window whose requests have all finished fires on nobody.
type deadlines struct {
	d   time.Duration
	cur atomic.Pointer[window]
	mu  sync.Mutex
}

// window is the deadline of the requests that start before until.
type window struct {
	until  time.Time
	ctx    context.Context
	cancel context.CancelFunc // never called: the deadline ends ctx
}

// from returns the deadline of a request that starts at now.
func (ds *deadlines) from(now time.Time) context.Context {
	if w := ds.cur.Load(); w != nil && now.Before(w.until) {
		return w.ctx
	}
	ds.mu.Lock()
	defer ds.mu.Unlock()
	if w := ds.cur.Load(); w != nil && now.Before(w.until) {
		return w.ctx
	}
	until := now.Add(deadlineGrain)
	ctx, cancel := context.WithDeadline(context.Background(), until.Add(ds.d))
	ds.cur.Store(&window{until: until, ctx: ctx, cancel: cancel})
	return ctx
}

// bounded is a request's context under its deadline: the values of Context
// (of which its cancellation is not used), the deadline, end and error of
// dl.
type bounded struct {
	context.Context
	dl context.Context
}

func (c *bounded) Deadline() (time.Time, bool) { return c.dl.Deadline() }
func (c *bounded) Done() <-chan struct{}       { return c.dl.Done() }
func (c *bounded) Err() error                  { return c.dl.Err() }

// Value is dl's own value first: a deadline's context holds none but the
// one by which package context finds the cancelable context behind a Done
// channel, so a context derived from a request's (context.AfterFunc, a
// transaction's) hangs on dl's, instead of watching Done from a goroutine.
func (c *bounded) Value(key any) any {
	if v := c.dl.Value(key); v != nil {
		return v
	}
	return c.Context.Value(key)
}
