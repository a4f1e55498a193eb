package handlers

import (
	"context"
	"net/http"
	"time"
)

// withTimeout bounds the work of a request; database work past it is
// cancelled and answered 500 (--request-timeout, 15 seconds by default). The work does
// not end when the client goes away: net/http cancels a request's context as
// soon as the client closes its side, which a client that half-closes after
// sending does while still waiting for the answer, and a write cut short
// would tell nobody whether it happened. The work is bounded by the timeout.
//
// It needs nothing from the layers outside it; the values of the request's
// context (its exchange, a span) stay readable through the bounded context.
// Only the layers inside it run under the deadline, so the access log and the
// caching layer outside it still write the answer of a request that ran out.
// Each request has a context and a timer of its own; sharing one deadline
// among the requests that start within 50 ms saved less than measurement
// noise (docs/fast-path.md).
func withTimeout(d time.Duration, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), d)
		defer cancel()
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}
