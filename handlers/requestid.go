package handlers

import (
	"bytes"
	"context"
	"net/http"
	"net/url"

	"larder.dev/larder/ids"
	"larder.dev/larder/policy"
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
	// caller is the viewer of a valid key even when its request is refused
	// past the account's limit, for the request log (gate).
	caller *policy.Viewer
	// body is what was read of the request's body (limitBody).
	body *bytes.Buffer
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
//
// It is the outermost layer and needs nothing from any other: it makes the
// request's exchange, which every layer inside it reads (the id for logs,
// traces and problem bodies) or fills in (the refusal reason, the viewer).
// Every layer still works without one, as a test's bare handler does:
// exchangeOf is then nil and the helpers above answer their zero values.
func withRequestID(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := ids.New("req_")
		w.Header().Set("X-Request-Id", id)
		x := &exchange{id: id, header: w.Header()}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), exchangeKey{}, x)))
	})
}
