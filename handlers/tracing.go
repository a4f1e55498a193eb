package handlers

import (
	"net/http"

	"github.com/ogen-go/ogen/middleware"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// RequestIDAttribute names the request id (req_…) on an operation's span.
const RequestIDAttribute = "larder.request_id"

// requestIDOnSpan records the request id on the span ogen started for the
// operation, so a trace and the access log and error body meet.
func requestIDOnSpan(req middleware.Request, next middleware.Next) (middleware.Response, error) {
	trace.SpanFromContext(req.Context).SetAttributes(attribute.String(RequestIDAttribute, RequestID(req.Context)))
	return next(req)
}

// withTraceContext continues the caller's trace (W3C traceparent), when
// tracing is on: ogen's span is then its child.
func withTraceContext(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := otel.GetTextMapPropagator().Extract(r.Context(), propagation.HeaderCarrier(r.Header))
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}
