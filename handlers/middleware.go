package handlers

import (
	"context"
	"errors"
	"larder.dev/larder/clientaddr"
	"net/http"
	"net/netip"
	"net/url"
	"runtime/debug"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"larder.dev/larder/auth"
	"larder.dev/larder/ids"
	"larder.dev/larder/metrics"
	"larder.dev/larder/policy"
	"larder.dev/larder/problem"
	"larder.dev/larder/ratelimit"
)

// exchange is what the middleware learns of one request as it passes down,
// kept in the request's context once (withRequestID) and filled in place by
// the layers below, rather than a context value and a copy of the request
// per layer.
type exchange struct {
	id     string
	header http.Header // of the response
	// refused is why the request is refused with 429 or 503, for the metrics.
	refused string
	viewer  *policy.Viewer // of a valid key (gate)
	query   url.Values     // parsed once (gate)
}

type exchangeKey struct{}

// exchangeOf returns the exchange of the request of ctx, or nil outside one.
func exchangeOf(ctx context.Context) *exchange {
	x, _ := ctx.Value(exchangeKey{}).(*exchange)
	return x
}

// RequestID returns the id of the request of ctx (req_…).
func RequestID(ctx context.Context) string {
	if x := exchangeOf(ctx); x != nil {
		return x.id
	}
	return ""
}

// responseHeader returns the header map of the response of ctx.
func responseHeader(ctx context.Context) http.Header {
	if x := exchangeOf(ctx); x != nil {
		return x.header
	}
	return nil
}

// query returns the query parameters of the request of ctx.
func query(ctx context.Context) url.Values {
	if x := exchangeOf(ctx); x != nil {
		return x.query
	}
	return nil
}

// authenticated returns the viewer of a valid key the middleware found, or nil.
func authenticated(ctx context.Context) *policy.Viewer {
	if x := exchangeOf(ctx); x != nil {
		return x.viewer
	}
	return nil
}

// refuse records reason as the cause of the refusal being written.
func refuse(ctx context.Context, reason string) {
	if x := exchangeOf(ctx); x != nil && x.refused == "" {
		x.refused = reason
	}
}

// withRequestID gives every request a generated id, in the X-Request-Id header
// and the context. A caller's own X-Request-Id is only logged.
func withRequestID(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := ids.New("req_")
		w.Header().Set("X-Request-Id", id)
		x := &exchange{id: id, header: w.Header()}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), exchangeKey{}, x)))
	})
}

// recorder remembers the status and size of a response.
type recorder struct {
	http.ResponseWriter
	status int
	bytes  int
}

func (r *recorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	n, err := r.ResponseWriter.Write(b)
	r.bytes += n
	return n, err
}

// Unwrap lets http.ResponseController reach the connection.
func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// withAccessLog logs one line per request, and turns a panic into a 500
// problem (when nothing was written yet) instead of a dropped connection.
func withAccessLog(log accessLog, m *metrics.Metrics, name func(*http.Request) string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &recorder{ResponseWriter: w}
		ctx := r.Context()
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				log.log.ErrorContext(ctx, "panic", "request_id", RequestID(ctx), "panic", v, "stack", string(debug.Stack()))
				if rec.status == 0 {
					writeProblem(ctx, rec, internal)
				}
			}
			now := time.Now()
			took := now.Sub(start)
			m.Request(name(r), r.Method, rec.status, took)
			if rec.status == http.StatusTooManyRequests || rec.status == http.StatusServiceUnavailable {
				var reason string
				if x := exchangeOf(ctx); x != nil {
					reason = x.refused
				}
				if reason == "" {
					reason = "other"
				}
				m.Refused(rec.status, reason)
			}
			if quiet(r, rec.status) {
				return
			}
			a := access{
				requestID: RequestID(ctx),
				method:    r.Method,
				path:      r.URL.Path,
				status:    rec.status,
				bytes:     rec.bytes,
				duration:  took,
				remote:    r.RemoteAddr,
				// The client closed its side before the answer.
				clientAbort: ctx.Err() != nil,
			}
			if cid := r.Header.Get("X-Request-Id"); cid != "" {
				a.clientRequestID = printable(cid)
			}
			log.write(ctx, now, &a)
		}()
		next.ServeHTTP(rec, r)
	})
}

// withTimeout bounds the work of a request; database work past it is
// cancelled and answered 500 (spec Limits: about 15 seconds). The work does
// not end when the client goes away: net/http cancels a request's context as
// soon as the client closes its side, which a client that half-closes after
// sending does while still waiting for the answer, and a write cut short
// would tell nobody whether it happened. The work is bounded by the timeout.
func withTimeout(d time.Duration, next http.Handler) http.Handler {
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

// withShedding answers 503 with Retry-After when more requests are running
// than the server can serve well, instead of queueing them all on the database.
func withShedding(n int, next http.Handler) http.Handler {
	slots := make(chan struct{}, n)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case slots <- struct{}{}:
			defer func() { <-slots }()
			next.ServeHTTP(w, r)
		default:
			refuse(r.Context(), "overload")
			writeProblem(r.Context(), w, unavailable)
		}
	})
}

// gate authenticates the key of every API request and applies the limits:
// a valid key spends its account's budget (X-RateLimit-* on every response,
// 429 past it); invalid keys spend the client address's failed-auth budget
// (429 past it, valid keys unaffected). The security handler later attaches
// the viewer, or answers 401, for the operations that need a key.
type gate struct {
	authn         *auth.Authenticator
	limiter       ratelimit.Limiter
	authFailLimit int
	// trusted are the reverse proxies whose X-Forwarded-For names the client.
	trusted []netip.Prefix
	now     func() time.Time
	h       *Handler
	metrics *metrics.Metrics
	// snapshot gives the reads of a context one view of the database
	// (store.Store.Snapshot).
	snapshot func(context.Context) (context.Context, func())
}

func (g *gate) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		hdr := r.Header.Get("Authorization")
		now := g.now()
		var spent *ratelimit.Result
		if b, ok := w.(*buffered); ok && r.Method == http.MethodGet {
			if key, check, ok := g.authn.Trust(hdr, now); ok {
				if g.trusting(b, r, next, key, check, now) {
					return
				}
				spent = &key.Budget
			}
		}
		key, err := g.authn.Authenticate(ctx, hdr, now, spent)
		if hdr != "" {
			g.metrics.KeyCheck("read")
		}
		switch {
		case errors.Is(err, auth.ErrInvalidKey):
			if hdr != "" {
				res, err := g.limiter.Hit(ctx, "ip:"+clientIP(r, g.trusted), g.authFailLimit, now)
				if err != nil {
					g.h.writeError(ctx, w, err)
					return
				}
				g.metrics.Budget("auth_failures", res.Allowed)
				if !res.Allowed {
					limited(ctx, w, "auth_failures", "Too many requests with invalid API keys from this address; wait for the next minute.", res, now)
					return
				}
			}
			next.ServeHTTP(w, r)
			return
		case err != nil:
			g.h.writeError(ctx, w, err)
			return
		}
		g.admit(w, r, next, key, now, spent == nil)
	})
}

// admit serves the request of an authenticated key: the account's budget in
// X-RateLimit-* (429 past it), Sunset for a rotated key, and the viewer for
// the security handler. counted is false when the budget's metric was
// recorded before (the fresh pass of a trusted request).
func (g *gate) admit(w http.ResponseWriter, r *http.Request, next http.Handler, key *auth.Key, now time.Time, counted bool) {
	ctx := r.Context()
	v, res := key.Viewer, key.Budget
	v.RequestID = RequestID(ctx)
	h := w.Header()
	// Set by their canonical keys, which http.Header.Set would make anew
	// from "X-RateLimit-Limit" on every request; on the wire they read the same.
	h["X-Ratelimit-Limit"] = []string{strconv.Itoa(res.Limit)}
	h["X-Ratelimit-Remaining"] = []string{strconv.Itoa(res.Remaining)}
	h["X-Ratelimit-Reset"] = []string{strconv.FormatInt(res.Reset.Unix(), 10)}
	// An account's answer is for its key alone: no shared cache keeps it.
	// A client may keep it and revalidate by its ETag (withHTTPCaching).
	h["Cache-Control"] = cachePrivate
	if key.ExpiresAt != nil {
		h.Set("Sunset", key.ExpiresAt.UTC().Format(http.TimeFormat))
	}
	if counted {
		g.metrics.Budget("account", res.Allowed)
	}
	if !res.Allowed {
		limited(ctx, w, "account_limit", "The account's requests per minute are used up; retry after the window resets.", res, now)
		return
	}
	if x := exchangeOf(ctx); x != nil {
		x.viewer = v
		if r.URL.RawQuery != "" { // none: nil, without a map made for nothing
			x.query = r.URL.Query()
		}
	}
	if v.Environment == policy.Test && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
		// A test account's data can be replaced at any moment (`larder org
		// reset-test`): the statements of a read see it wholly before or
		// wholly after, never the page of one and the lists of the other.
		// Live reads skip it, for their speed: the snapshot's BEGIN and
		// ROLLBACK are two more round trips, which made a GET of one tag
		// 1.5 to 2 times as long on PostgreSQL (medians of 240–300 µs
		// became 370–520 µs; the list of 200 tags about 1.5 times) and
		// 1.1 to 1.3 times on SQLite (BenchmarkSnapshotReads, live against
		// test, on two shared cores).
		sctx, end := g.snapshot(ctx)
		defer end()
		r = r.WithContext(sctx)
	}
	next.ServeHTTP(w, r)
}

// cachePrivate is the Cache-Control of every authenticated answer.
var cachePrivate = []string{"private"}

// limited answers 429 for a spent budget, and records reason.
func limited(ctx context.Context, w http.ResponseWriter, reason, detail string, res ratelimit.Result, now time.Time) {
	refuse(ctx, reason)
	writeProblem(ctx, w, &problem.Error{Code: problem.RateLimited, Detail: detail, RetryAfter: res.RetryAfter(now)})
}

// trusting serves a GET whose key the authenticator took on trust, as this
// process last read it (auth.Authenticator.Trust), and saves the key's
// statement: the first rows the request reads carry whether the key still
// reads as it did when they are read (ent.KeyCheck), or, when no row came
// back, the key is read after them (Confirm). The answer waits in b, which
// holds every GET answer until it is complete (withHTTPCaching), and is sent
// only once the key is confirmed. A key that changed (revoked, expired,
// rotated, its plan or organization), a check that failed or a first pass
// that panicked make trusting throw the answer away, status, body and the
// headers set since, and report false: the request is then authenticated
// afresh and answered again, with the budget the first pass spent, so a
// change applies to this very request.
func (g *gate) trusting(b *buffered, r *http.Request, next http.Handler, key *auth.Key, c *auth.Check, now time.Time) bool {
	var kept [8]string
	had := kept[:0]
	for name := range b.header {
		had = append(had, name)
	}
	check := c.KeyCheck()
	ctx := check.Within(r.Context())
	if g.pass(b, r.WithContext(ctx), next, key, now) {
		holds, ok := check.Seen()
		confirmed, err := g.authn.Confirm(ctx, c, holds, ok, now)
		switch {
		case err == nil && confirmed && ok:
			g.metrics.KeyCheck("rows")
			return true
		case err == nil && confirmed:
			g.metrics.KeyCheck("print")
			return true
		}
	}
	g.metrics.KeyCheck("changed")
	b.status = 0
	b.body.Reset()
	for name := range b.header {
		if !slices.Contains(had, name) {
			delete(b.header, name)
		}
	}
	if x := exchangeOf(ctx); x != nil {
		x.viewer, x.refused = nil, ""
	}
	return false
}

// pass is the first pass of a trusted request: false if it panicked, which
// the request's fresh pass will do again, or not, as the key now allows.
func (g *gate) pass(b *buffered, r *http.Request, next http.Handler, key *auth.Key, now time.Time) (ok bool) {
	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler {
				panic(p)
			}
			ok = false
		}
	}()
	g.admit(b, r, next, key, now, true)
	return true
}

// clientIP is the address (without port) of the client of r (see
// clientaddr.Of: X-Forwarded-For is believed only from trusted proxies).
func clientIP(r *http.Request, trusted []netip.Prefix) string { return clientaddr.Of(r, trusted) }
