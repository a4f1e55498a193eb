package handlers

import (
	"net/http"
	"strings"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"larder.dev/larder/internal/platform/tracing"
	"larder.dev/larder/openapi/oas"
)

// RequestIDAttribute names the request id (req_…) on an operation's span.
const RequestIDAttribute = "larder.request_id"

// withOperationSpan, when tracing is on, starts a server span for each
// request, named by its operation (the path's method and pattern for a route
// outside the API), as the child of the caller's trace (W3C traceparent). It
// carries the request id, so a trace, the access log and an error body meet,
// and the status. With tracing off nothing is built per request.
func withOperationSpan(api *oas.Server, next http.Handler) http.Handler {
	tracer := tracing.Tracer()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := otel.GetTextMapPropagator().Extract(r.Context(), propagation.HeaderCarrier(r.Header))
		name := r.Method + " " + r.URL.Path
		attrs := []attribute.KeyValue{
			attribute.String("http.request.method", r.Method),
			attribute.String(RequestIDAttribute, RequestID(ctx)),
		}
		if strings.HasPrefix(r.URL.Path, "/v1/") {
			if route, ok := findRoute(api, r.Method, r.URL); ok {
				name = route.Name()
				attrs = append(attrs,
					attribute.String("larder.operation_id", route.OperationID()),
					attribute.String("http.route", "/v1"+route.PathPattern()))
			}
		}
		ctx, span := tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(attrs...))
		defer span.End()
		rec := &recorder{ResponseWriter: w}
		next.ServeHTTP(rec, r.WithContext(ctx))
		span.SetAttributes(attribute.Int("http.response.status_code", rec.status))
		if rec.status >= 500 {
			span.SetStatus(codes.Error, http.StatusText(rec.status))
		}
	})
}
