package handlers

import (
	"bytes"
	"context"
	"net/http"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"

	"larder.dev/larder/internal/platform/ids"
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
	// presented is whether the request presented a bearer token, for the
	// challenge of a 401 (gate).
	presented bool
	// clientID is the caller's own X-Request-Id as the logs take it
	// (clientRequestID), or "".
	clientID string
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
// and the context. A caller's own X-Request-Id is only logged, bounded
// (clientRequestID). Every answer also carries X-Content-Type-Options:
// nosniff: a body is what its Content-Type says, never sniffed into
// something else.
//
// It is the outermost layer and needs nothing from any other: it makes the
// request's exchange, which every layer inside it reads (the id for logs,
// traces and problem bodies) or fills in (the refusal reason, the viewer).
// Every layer still works without one, as a test's bare handler does:
// exchangeOf is then nil and the helpers above answer their zero values.
func withRequestID(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := ids.New("req_")
		h := w.Header()
		h["X-Request-Id"] = []string{id}
		h["X-Content-Type-Options"] = nosniff
		x := &exchange{id: id, header: h}
		if cid := r.Header["X-Request-Id"]; len(cid) > 0 && cid[0] != "" {
			x.clientID = clientRequestID(cid[0])
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), exchangeKey{}, x)))
	})
}

// nosniff is the value of X-Content-Type-Options on every answer.
var nosniff = []string{"nosniff"}

// maxClientRequestID bounds the caller's X-Request-Id as the access log and
// the request log keep it: an id is a few dozen bytes, and a header of a
// megabyte, sent without a key, would otherwise be a megabyte of log line.
const maxClientRequestID = 200

// clientRequestID is a caller's X-Request-Id as the logs keep it: valid
// UTF-8, without control or format characters (which would forge or break a
// line of a log read as text, or reorder it on screen), cut to maxClientRequestID bytes on a character's
// boundary.
func clientRequestID(s string) string {
	clean := len(s) <= maxClientRequestID
	for i := 0; clean && i < len(s); i++ {
		clean = s[i] >= ' ' && s[i] < 0x7f
	}
	if clean {
		return s
	}
	var b strings.Builder
	for _, r := range s { // an invalid byte reads as U+FFFD
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			continue
		}
		if b.Len()+utf8.RuneLen(r) > maxClientRequestID {
			break
		}
		b.WriteRune(r)
	}
	return b.String()
}
