// Package tracing is Larder's OpenTelemetry tracing: off unless the standard
// OTEL_* environment variables ask for it, then an OTLP/HTTP exporter with
// spans for each API operation (ogen's instrumentation), each database
// statement and each webhook delivery attempt, propagated by W3C trace
// context.
package tracing

import (
	"context"
	"os"
	"strings"
	"sync/atomic"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.39.0"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// Name is the instrumentation scope of Larder's own spans.
const Name = "larder.dev/larder"

// provider is the tracer provider in use; nil while tracing is off.
var provider atomic.Pointer[trace.TracerProvider]

// Provider is the tracer provider in use, or nil while tracing is off.
func Provider() trace.TracerProvider {
	if p := provider.Load(); p != nil {
		return *p
	}
	return nil
}

// Tracer is Larder's tracer: a no-op while tracing is off.
func Tracer() trace.Tracer {
	if p := Provider(); p != nil {
		return p.Tracer(Name)
	}
	return noop.NewTracerProvider().Tracer(Name)
}

// Use makes tp the provider of everything set up after it (servers, stores,
// dispatchers), and the global one; nil turns tracing off again.
func Use(tp trace.TracerProvider) {
	if tp == nil {
		provider.Store(nil)
		otel.SetTracerProvider(noop.NewTracerProvider())
		return
	}
	provider.Store(&tp)
	otel.SetTracerProvider(tp)
	otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}))
}

// Enabled reports whether the environment asks for traces: an OTLP endpoint
// (OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) or
// OTEL_TRACES_EXPORTER=otlp, unless OTEL_SDK_DISABLED=true or
// OTEL_TRACES_EXPORTER=none.
func Enabled() bool {
	if strings.EqualFold(os.Getenv("OTEL_SDK_DISABLED"), "true") {
		return false
	}
	switch strings.ToLower(strings.TrimSpace(os.Getenv("OTEL_TRACES_EXPORTER"))) {
	case "none":
		return false
	case "otlp":
		return true
	}
	return os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != ""
}

// Setup turns tracing on when the environment asks for it (Enabled): spans
// are batched to the OTLP/HTTP endpoint the OTEL_EXPORTER_OTLP_* variables
// name, the service is OTEL_SERVICE_NAME (default larder) with
// OTEL_RESOURCE_ATTRIBUTES, sampled as OTEL_TRACES_SAMPLER says (default:
// every trace, or as its parent). shutdown flushes what is pending; it is a
// no-op when tracing stayed off.
func Setup(ctx context.Context, version string) (shutdown func(context.Context) error, err error) {
	if !Enabled() {
		return func(context.Context) error { return nil }, nil
	}
	exp, err := otlptracehttp.New(ctx)
	if err != nil {
		return nil, err
	}
	attrs := []resource.Option{
		resource.WithAttributes(semconv.ServiceName("larder"), semconv.ServiceVersion(version)),
		resource.WithFromEnv(), // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win
	}
	res, err := resource.New(ctx, attrs...)
	if err != nil {
		return nil, err
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	Use(tp)
	return func(ctx context.Context) error {
		Use(nil)
		return tp.Shutdown(ctx)
	}, nil
}
