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

// exchange is the state of one request that the middleware shares: made by
// withRequestID, kept in the request's context once, and filled in place by
// the layers inside it for the layers outside to read once they return (the
// access log, the request log) or for the answer itself (a problem's request
// id, a 401's challenge), rather than a context value and a copy of the
// request per layer.
//
// Each field has one writer, the layer named above its group, which writes
// it through the methods named with the group and nowhere else; every other
// function reads it through a getter (TestExchangeHasOneWriterPerField).
// chain.go lists the layers in order with what each reads and writes here.
type exchange struct {
	// withRequestID, as it makes the exchange (newExchange).
	requestID      string
	responseHeader http.Header
	// clientRequestID is the caller's own X-Request-Id as the logs take it
	// (clientRequestID), or "".
	clientRequestID string

	// The gate (gatePresented, gateCaller, gateAdmitted, gateLimited,
	// gateForget).
	//
	// tokenPresented is whether a refused key was presented as a bearer
	// token, for the challenge of a 401.
	tokenPresented bool
	// keyCaller is the viewer of a valid key even when its request is
	// refused past the account's limit, for the request log.
	keyCaller *policy.Viewer
	// keyViewer is the viewer of a valid key within its limit, for the
	// security handler.
	keyViewer *policy.Viewer
	// parsedQuery is the request's query, parsed once for the operations.
	parsedQuery url.Values
	// limitedBy is the budget the gate answered 429 for: "auth_failures"
	// or "account_limit".
	limitedBy string

	// withDeprecation (deprecationUsed): what the request used that is
	// deprecated, for the request log ("" for nothing).
	deprecated string

	// withShedding (shedOverloaded): the request was answered 503 for more
	// requests in flight than the server serves.
	overloaded bool

	// ready (readyRefused): /readyz answered 503.
	notReady bool

	// limitBody (limitBodyCopying): what was read of the request's body.
	bodyRead *bytes.Buffer
}

type exchangeKey struct{}

// exchangeOf returns the exchange of the request of ctx, or nil outside one.
// Every getter and writer of a nil exchange does nothing, or answers its
// zero value.
func exchangeOf(ctx context.Context) *exchange {
	x, _ := ctx.Value(exchangeKey{}).(*exchange)
	return x
}

// newExchange is withRequestID's writer: the exchange of a request with its
// id, the header map of its response and the caller's own id.
func newExchange(id string, h http.Header, clientID string) *exchange {
	return &exchange{requestID: id, responseHeader: h, clientRequestID: clientID}
}

// gatePresented is the gate's writer: whether the refused key of the
// request was presented as a bearer token.
func (x *exchange) gatePresented(presented bool) {
	if x != nil {
		x.tokenPresented = presented
	}
}

// gateCaller is the gate's writer: the viewer of the request's valid key.
func (x *exchange) gateCaller(v *policy.Viewer) {
	if x != nil {
		x.keyCaller = v
	}
}

// gateAdmitted is the gate's writer: the viewer of a key within its limit,
// and the request's parsed query (nil when it has none).
func (x *exchange) gateAdmitted(v *policy.Viewer, q url.Values) {
	if x != nil {
		x.keyViewer, x.parsedQuery = v, q
	}
}

// gateLimited is the gate's writer: the budget it answered 429 for.
func (x *exchange) gateLimited(reason string) {
	if x != nil {
		x.limitedBy = reason
	}
}

// gateForget is the gate's writer: it takes back what a retracted pass of
// a trusted key recorded, before the request is authenticated afresh.
func (x *exchange) gateForget() {
	if x != nil {
		x.keyViewer, x.keyCaller, x.limitedBy = nil, nil, ""
	}
}

// shedOverloaded is withShedding's writer: the request was refused for
// overload.
func (x *exchange) shedOverloaded() {
	if x != nil {
		x.overloaded = true
	}
}

// readyRefused is ready's writer: /readyz answered 503.
func (x *exchange) readyRefused() {
	if x != nil {
		x.notReady = true
	}
}

// limitBodyCopying is limitBody's writer: the buffer that keeps what is
// read of the request's body.
func (x *exchange) limitBodyCopying(b *bytes.Buffer) {
	if x != nil {
		x.bodyRead = b
	}
}

// deprecationUsed is withDeprecation's writer: what the request used that
// is deprecated, space-separated.
func (x *exchange) deprecationUsed(uses string) {
	if x != nil {
		x.deprecated = uses
	}
}

// deprecatedUses is what the request used that is deprecated, or "".
func (x *exchange) deprecatedUses() string {
	if x == nil {
		return ""
	}
	return x.deprecated
}

// id is the request's id (req_…), or "".
func (x *exchange) id() string {
	if x == nil {
		return ""
	}
	return x.requestID
}

// header is the header map of the request's response, or nil.
func (x *exchange) header() http.Header {
	if x == nil {
		return nil
	}
	return x.responseHeader
}

// clientID is the caller's own X-Request-Id as the logs take it, or "".
func (x *exchange) clientID() string {
	if x == nil {
		return ""
	}
	return x.clientRequestID
}

// presented reports whether a refused key was a bearer token.
func (x *exchange) presented() bool { return x != nil && x.tokenPresented }

// caller is the viewer of the request's valid key, even refused past its
// limit, or nil.
func (x *exchange) caller() *policy.Viewer {
	if x == nil {
		return nil
	}
	return x.keyCaller
}

// viewer is the viewer of a valid key within its limit, or nil.
func (x *exchange) viewer() *policy.Viewer {
	if x == nil {
		return nil
	}
	return x.keyViewer
}

// query is the request's parsed query, or nil.
func (x *exchange) query() url.Values {
	if x == nil {
		return nil
	}
	return x.parsedQuery
}

// refusal is why the request was answered 429 or 503, for the metrics: the
// reason of the one layer that refused it, or "". A request is refused by
// one layer at most: withShedding's refusal ends it before the routing, and
// the gate and ready serve different paths.
func (x *exchange) refusal() string {
	switch {
	case x == nil:
		return ""
	case x.overloaded:
		return "overload"
	case x.notReady:
		return "not_ready"
	}
	return x.limitedBy
}

// body is what was read of the request's body so far, or nil.
func (x *exchange) body() *bytes.Buffer {
	if x == nil {
		return nil
	}
	return x.bodyRead
}

// RequestID returns the id of the request of ctx (req_…).
func RequestID(ctx context.Context) string { return exchangeOf(ctx).id() }

// responseHeader returns the header map of the response of ctx.
func responseHeader(ctx context.Context) http.Header { return exchangeOf(ctx).header() }

// query returns the query parameters of the request of ctx.
func query(ctx context.Context) url.Values { return exchangeOf(ctx).query() }

// authenticated returns the viewer of a valid key the middleware found, or nil.
func authenticated(ctx context.Context) *policy.Viewer { return exchangeOf(ctx).viewer() }

// withRequestID gives every request a generated id, in the X-Request-Id header
// and the context. A caller's own X-Request-Id is only logged, bounded
// (clientRequestID). Every answer also carries X-Content-Type-Options:
// nosniff: a body is what its Content-Type says, never sniffed into
// something else.
//
// It is the outermost layer and needs nothing from any other: it makes the
// request's exchange, which every layer inside it reads (the id for logs,
// traces and problem bodies) or fills in (a refusal, the viewer).
// Every layer still works without one, as a test's bare handler does:
// exchangeOf is then nil and the helpers above answer their zero values.
func withRequestID(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := ids.New("req_")
		h := w.Header()
		h["X-Request-Id"] = []string{id}
		h["X-Content-Type-Options"] = nosniff
		var cid string
		if v := r.Header["X-Request-Id"]; len(v) > 0 && v[0] != "" {
			cid = clientRequestID(v[0])
		}
		x := newExchange(id, h, cid)
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
