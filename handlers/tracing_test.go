package handlers_test

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"larder.dev/larder/handlers"
	"larder.dev/larder/internal/platform/config"
	"larder.dev/larder/internal/platform/tracing"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

// With tracing on, an API request is a server span (ogen's) carrying the
// request id of X-Request-Id, continuing the caller's traceparent, with a
// child span per database statement holding its SQL and none of its
// arguments; on both databases. Not parallel: it sets the process's
// provider.
func TestTracing(t *testing.T) {
	for _, b := range dbtest.Backends(t) {
		t.Run(string(b), func(t *testing.T) {
			url := dbtest.URL(t, b) // the package's store is opened (untraced) first
			exp := tracetest.NewInMemoryExporter()
			tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
			tracing.Use(tp)
			defer tracing.Use(nil)
			st := dbtest.Open(t, b) // a new SQLite file, opened while tracing is on
			if b == dbtest.Postgres {
				st = dbtest.OpenURL(t, url) // a store of its own, opened while tracing is on
			}
			cfg := config.Defaults()
			cfg.RateLimit = 1 << 20
			srv, err := handlers.New(st, handlers.Options{Config: cfg, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
			if err != nil {
				t.Fatal(err)
			}
			hs := httptest.NewServer(srv)
			defer hs.Close()
			org := dbtest.NewOrg(t, st, "")
			key := org.Key(t, policy.Live, "all")
			const secret = "Tracing-secret-name"
			parent := "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
			req, _ := http.NewRequest("POST", hs.URL+"/v1/tags", strings.NewReader(`{"name":"`+secret+`","ref_type":"PRODUCT"}`))
			req.Header.Set("Authorization", "Bearer "+key)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("traceparent", parent)
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != 201 {
				t.Fatalf("status %d", res.StatusCode)
			}
			rid := res.Header.Get("X-Request-Id")

			var op *tracetest.SpanStub
			spans := exp.GetSpans()
			for i, s := range spans {
				if s.Name == "CreateTag" {
					op = &spans[i]
				}
			}
			if op == nil {
				names := map[string]int{}
				for _, s := range spans {
					names[s.Name]++
				}
				t.Fatalf("no createTag span among %v", names)
			}
			if op.SpanKind != trace.SpanKindServer || attr(op.Attributes, handlers.RequestIDAttribute) != rid || rid == "" {
				t.Errorf("operation span kind %v, request id %q (header %q)", op.SpanKind, attr(op.Attributes, handlers.RequestIDAttribute), rid)
			}
			if op.SpanContext.TraceID().String() != "0af7651916cd43dd8448eb211c80319c" || op.Parent.SpanID().String() != "b7ad6b7169203331" {
				t.Errorf("the caller's traceparent was not continued: trace %s parent %s", op.SpanContext.TraceID(), op.Parent.SpanID())
			}
			var statements, inserts int
			for _, s := range spans {
				if s.Parent.SpanID() != op.SpanContext.SpanID() || s.SpanKind != trace.SpanKindClient {
					continue
				}
				statements++
				text := attr(s.Attributes, "db.query.text")
				if strings.HasPrefix(text, `INSERT INTO "tags"`) || strings.HasPrefix(text, "INSERT INTO `tags`") {
					inserts++
				}
				for _, a := range s.Attributes {
					if strings.Contains(a.Value.Emit(), secret) {
						t.Errorf("statement span %s shows an argument: %s=%s", s.Name, a.Key, a.Value.Emit())
					}
				}
				if attr(s.Attributes, "db.system.name") == "" {
					t.Errorf("statement span %s without db.system.name", s.Name)
				}
			}
			if statements < 3 || inserts != 1 {
				t.Errorf("%d statement spans under the operation, %d inserting the tag", statements, inserts)
			}

			// Raw SQL through ent's transaction (a supplier delete's
			// savepoint) passes through the traced driver too.
			req, _ = http.NewRequest("POST", hs.URL+"/v1/suppliers", strings.NewReader(`{"supplier_code":"TR","company":"Traced Ltd."}`))
			req.Header.Set("Authorization", "Bearer "+key)
			req.Header.Set("Content-Type", "application/json")
			if res, err = http.DefaultClient.Do(req); err != nil || res.StatusCode != 201 {
				t.Fatalf("create supplier: %v %v", err, res.Status)
			}
			var created struct {
				Data struct {
					ID int `json:"id"`
				} `json:"data"`
			}
			_ = json.NewDecoder(res.Body).Decode(&created)
			res.Body.Close()
			req, _ = http.NewRequest("DELETE", fmt.Sprintf("%s/v1/suppliers/%d", hs.URL, created.Data.ID), nil)
			req.Header.Set("Authorization", "Bearer "+key)
			if res, err = http.DefaultClient.Do(req); err != nil || res.StatusCode != 200 {
				t.Fatalf("delete supplier: %v %v", err, res.Status)
			}
			res.Body.Close()
			savepoints := 0
			for _, s := range exp.GetSpans() {
				if strings.HasPrefix(attr(s.Attributes, "db.query.text"), "SAVEPOINT") {
					savepoints++
				}
			}
			if savepoints == 0 {
				t.Error("no span for the savepoint of a supplier delete")
			}
		})
	}
}

func attr(as []attribute.KeyValue, k string) string {
	for _, a := range as {
		if string(a.Key) == k {
			return a.Value.Emit()
		}
	}
	return ""
}
