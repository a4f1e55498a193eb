package handlers

import (
	"context"
	"errors"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"

	"larder.dev/larder/ent"
	"larder.dev/larder/internal/identity/auth"
	"larder.dev/larder/internal/identity/ratelimit"
	"larder.dev/larder/internal/platform/clientaddr"
	"larder.dev/larder/internal/platform/metrics"
	"larder.dev/larder/internal/platform/problem"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/policy"
)

// gate authenticates the key of every API request and applies the limits:
// a valid key spends its account's budget (X-RateLimit-* on every response,
// 429 past it); invalid keys spend the client address's failed-auth budget
// (429 past it, valid keys unaffected). The security handler later attaches
// the viewer, or answers 401, for the operations that need a key. OPTIONS
// passes untouched: it needs no key and spends no budget.
//
// It serves the paths under /v1/ alone, after routing. It needs the exchange
// of withRequestID outside it, where it leaves the viewer, the parsed query,
// the reason of a 429 and whether a refused key was a bearer token (without
// one a request still passes, with neither), and, for a GET of a key it
// trusts without reading it, the retractable writer of withHTTPCaching,
// passed down unwrapped: the answer is held there until the key is
// confirmed. Without that writer the key is read before the
// answer, as for every other method. Its snapshot of a test account's read
// and its key check run under the deadline of withTimeout outside it.
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
	// replicas, when set, answer the reads of GETs whose account one of
	// them has caught up with (store.Replicas.Pick); the key is read on the
	// primary first.
	replicas *store.Replicas
}

// wrap is the gate as a layer around next, the API's router.
func (g *gate) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodOptions {
			// Needs no key and spends no budget: it only names the
			// path's methods (the router's answer, options).
			next.ServeHTTP(w, r)
			return
		}
		ctx := r.Context()
		hdr := r.Header.Get("Authorization")
		now := g.now()
		var spent *ratelimit.Result
		// A GET a replica may answer reads its key on the primary first:
		// the trusted key's check would be read with the request's rows,
		// on the replica, which may not have seen a revocation yet.
		if b, ok := w.(retractable); ok && r.Method == http.MethodGet && !g.replicaReady() {
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
				if x := exchangeOf(ctx); x != nil {
					x.gatePresented(presentsToken(hdr))
				}
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
		g.admit(w, r, next, key, now, spent == nil, false)
	})
}

// replicaReady reports whether a replica may answer reads now.
func (g *gate) replicaReady() bool { return g.replicas != nil && g.replicas.Ready(time.Now()) }

// admit serves the request of an authenticated key: the account's budget in
// X-RateLimit-* (429 past it), Sunset for a rotated key, and the viewer for
// the security handler. counted is false when the budget's metric was
// recorded before (the fresh pass of a trusted request). carried is true
// for the first pass of a trusted request, whose key's check rides on its
// reads: those stay on the primary.
//
// With replicas, the reads of a GET or HEAD go to one that has caught up
// with the account's writes in this process, in turn among those that have
// (store.Replicas.Pick), else to the primary; every other request is
// recorded as a write of the account while it runs.
func (g *gate) admit(w http.ResponseWriter, r *http.Request, next http.Handler, key *auth.Key, now time.Time, counted, carried bool) {
	ctx := r.Context()
	v, res := key.Viewer, key.Budget
	v.RequestID = RequestID(ctx)
	x := exchangeOf(ctx)
	x.gateCaller(v)
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
	if x != nil {
		var q url.Values
		if r.URL.RawQuery != "" { // none: nil, without a map made for nothing
			q = r.URL.Query()
		}
		x.gateAdmitted(v, q)
	}
	read := r.Method == http.MethodGet || r.Method == http.MethodHead
	if g.replicas != nil {
		switch {
		case !read:
			done := g.replicas.Writing(v.AccountID)
			defer done()
		case !carried:
			if rep := g.replicas.Pick(v.AccountID, time.Now()); rep != nil {
				r = r.WithContext(rep.Route(r.Context()))
			}
		}
	}
	if v.Environment == policy.Test && read {
		// A test account's data can be replaced at any moment (`larder org
		// reset-test`): the statements of a read see it wholly before or
		// wholly after, never the page of one and the lists of the other.
		// Live reads skip it, for their speed: the snapshot's BEGIN and
		// ROLLBACK are two more round trips, which made a GET of one tag
		// 1.5 to 2 times as long on PostgreSQL (medians of 240–300 µs
		// became 370–520 µs; the list of 200 tags about 1.5 times) and
		// 1.1 to 1.3 times on SQLite (BenchmarkSnapshotReads, live against
		// test, on two shared cores).
		sctx, end := g.snapshot(r.Context())
		defer end()
		r = r.WithContext(sctx)
	}
	next.ServeHTTP(w, r)
}

// cachePrivate is the Cache-Control of every authenticated answer.
var cachePrivate = []string{"private"}

// limited answers 429 for a spent budget, and records reason.
func limited(ctx context.Context, w http.ResponseWriter, reason, detail string, res ratelimit.Result, now time.Time) {
	exchangeOf(ctx).gateLimited(reason)
	writeProblem(ctx, w, &problem.Error{Code: problem.RateLimited, Detail: detail, RetryAfter: res.RetryAfter(now)})
}

// trusting serves a GET whose key the authenticator took on trust, as this
// process last read it (auth.Authenticator.Trust), and saves the key's
// statement: the first rows the request reads carry whether the key still
// reads as it did when they are read (its trust.Check, a column the
// request's context carries into its queries: ent.Carry), or, when no row
// came back, the key is read after them (Confirm). The answer waits in b, the
// retractable writer that withHTTPCaching gives every GET, and is sent
// only once the key is confirmed. A key that changed (revoked, expired,
// rotated, its plan or organization), a check that failed or a first pass
// that panicked make trusting throw the answer away, status, body and the
// headers set since, and report false: the request is then authenticated
// afresh and answered again, with the budget the first pass spent, so a
// change applies to this very request.
func (g *gate) trusting(b retractable, r *http.Request, next http.Handler, key *auth.Key, c *auth.Check, now time.Time) bool {
	b.mark()
	check := c.KeyCheck()
	ctx := ent.Carry(r.Context(), check)
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
	b.retract()
	exchangeOf(ctx).gateForget()
	return false
}

// pass is the first pass of a trusted request: false if it panicked, which
// the request's fresh pass will do again, or not, as the key now allows.
func (g *gate) pass(b retractable, r *http.Request, next http.Handler, key *auth.Key, now time.Time) (ok bool) {
	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler {
				panic(p)
			}
			ok = false
		}
	}()
	g.admit(b, r, next, key, now, true, true)
	return true
}

// clientIP is the address (without port) of the client of r (see
// clientaddr.Of: X-Forwarded-For is believed only from trusted proxies).
func clientIP(r *http.Request, trusted []netip.Prefix) string { return clientaddr.Of(r, trusted) }

// presentsToken reports whether an Authorization header presents a bearer
// token, well formed or not: its 401 then says the token is invalid. Another
// scheme presents none (RFC 6750, section 3.1).
func presentsToken(hdr string) bool {
	scheme, token, ok := strings.Cut(strings.TrimSpace(hdr), " ")
	return ok && strings.EqualFold(scheme, "Bearer") && strings.TrimSpace(token) != ""
}
