package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"

	"larder.dev/larder/internal/platform/tracing"
	"larder.dev/larder/internal/testkit/dbtest"
)

// The standard variables turn tracing on: `larder serve` then sends its
// spans to the OTLP/HTTP endpoint they name, as service larder (or
// OTEL_SERVICE_NAME). Not parallel: it sets the environment.
func TestServeSendsTracesWhereOTELSays(t *testing.T) {
	var mu sync.Mutex
	var spans []string
	services := map[string]bool{}
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var req coltrace.ExportTraceServiceRequest
		if r.URL.Path != "/v1/traces" || proto.Unmarshal(b, &req) != nil {
			t.Errorf("collector got %s %s (%d bytes)", r.Method, r.URL.Path, len(b))
			w.WriteHeader(400)
			return
		}
		mu.Lock()
		for _, rs := range req.ResourceSpans {
			for _, a := range rs.Resource.Attributes {
				if a.Key == "service.name" {
					services[a.Value.GetStringValue()] = true
				}
			}
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					spans = append(spans, s.Name)
				}
			}
		}
		mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
		_, _ = w.Write(nil)
	}))
	defer collector.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", collector.URL)
	t.Setenv("OTEL_SERVICE_NAME", "larder-under-test")
	t.Setenv("OTEL_BSP_SCHEDULE_DELAY", "50")

	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	db := dbtest.MigratedURL(t, dbtest.SQLite)
	cli(t, db, "migrate") // before serve, whose start the test times
	base := serveUntil(t, ctx, &wg, db)
	res, err := http.Get(base + "/v1/tags?ref_type=PRODUCT") // 401, inside an operation
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	cancel()
	wg.Wait() // serve flushes its spans as it stops
	mu.Lock()
	defer mu.Unlock()
	found := false
	for _, s := range spans {
		found = found || s == "ListTags"
	}
	if !found || !services["larder-under-test"] {
		t.Fatalf("collector got spans %v of services %v", spans, services)
	}
	if tracing.Provider() != nil {
		t.Fatal("tracing still on after serve stopped")
	}
}

// Tracing is off unless the standard variables ask for it.
func TestTracingEnabledByEnvironment(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		want bool
	}{
		{map[string]string{}, false},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"}, true},
		{map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://collector:4318/v1/traces"}, true},
		{map[string]string{"OTEL_TRACES_EXPORTER": "otlp"}, true},
		{map[string]string{"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"}, false},
		{map[string]string{"OTEL_SDK_DISABLED": "true", "OTEL_TRACES_EXPORTER": "otlp"}, false},
		{map[string]string{"OTEL_SERVICE_NAME": "x"}, false},
	} {
		for _, k := range []string{"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_TRACES_EXPORTER", "OTEL_SDK_DISABLED", "OTEL_SERVICE_NAME"} {
			t.Setenv(k, c.env[k])
		}
		if got := tracing.Enabled(); got != c.want {
			t.Errorf("%v: enabled %v, want %v", c.env, got, c.want)
		}
	}
}
