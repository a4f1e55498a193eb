package handlers

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// A panic in a handler becomes a 500 problem, not a dropped connection.
func TestPanicBecomesInternalError(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	h := withRequestID(withAccessLog(log, http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		panic("boom: SELECT secret FROM somewhere")
	})))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/v1/tags", nil))
	if rec.Code != 500 || rec.Header().Get("Content-Type") != "application/problem+json" {
		t.Fatalf("status %d, content type %q", rec.Code, rec.Header().Get("Content-Type"))
	}
	var p map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &p); err != nil {
		t.Fatal(err)
	}
	if p["code"] != "INTERNAL_ERROR" || p["request_id"] != rec.Header().Get("X-Request-Id") {
		t.Fatalf("problem %v", p)
	}
	if b := rec.Body.String(); strings.Contains(b, "boom") || strings.Contains(b, "SELECT") {
		t.Fatalf("the panic leaks: %s", b)
	}
}

// Overload is answered 503 with Retry-After.
func TestSheddingAnswersUnavailable(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{})
	h := withRequestID(withShedding(1, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(started)
		<-release
	})))
	go h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/v1/tags", nil))
	<-started
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/v1/tags", nil))
	close(release)
	if rec.Code != 503 || rec.Header().Get("Retry-After") == "" {
		t.Fatalf("status %d, Retry-After %q", rec.Code, rec.Header().Get("Retry-After"))
	}
}
