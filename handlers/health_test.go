package handlers_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"larder.dev/larder/handlers"
	"larder.dev/larder/internal/platform/config"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/dbtest"
)

// healthServer serves st with a rate limit of one request a minute and a
// log the test reads.
func healthServer(t *testing.T, st *store.Store) (string, *lockedBuffer) {
	cfg := config.Defaults()
	cfg.RateLimit = 1
	logs := &lockedBuffer{}
	srv, err := handlers.New(st, handlers.Options{Config: cfg, Log: slog.New(slog.NewTextHandler(logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	return hs.URL, logs
}

func getStatus(t *testing.T, url string) (int, map[string]any, http.Header) {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("GET %s: %d %q is not JSON", url, res.StatusCode, body)
	}
	return res.StatusCode, m, res.Header
}

// docs/operators.md, "Health": /healthz and /readyz answer without a key, are not
// rate limited and stay out of the access log while they succeed; /readyz
// is 503 problem+json when the database does not answer.
func TestHealth(t *testing.T) {
	t.Parallel()
	for _, b := range dbtest.Backends(t) {
		t.Run(string(b), func(t *testing.T) {
			t.Parallel()
			// A pool of its own on a migrated database, which the test closes.
			var st *store.Store
			if b == dbtest.SQLite {
				st = dbtest.Open(t, b)
			} else {
				st = dbtest.OpenURL(t, dbtest.URL(t, b))
			}
			base, logs := healthServer(t, st)
			for range 5 { // the account limit is 1 a minute; health is no account's
				if s, m, _ := getStatus(t, base+"/healthz"); s != 200 || m["status"] != "ok" {
					t.Fatalf("/healthz: %d %v", s, m)
				}
				if s, m, h := getStatus(t, base+"/readyz"); s != 200 || m["status"] != "ready" || h.Get("Cache-Control") != "no-store" {
					t.Fatalf("/readyz: %d %v", s, m)
				}
			}
			if s, _, _ := getStatus(t, base+"/v1/tags"); s != 401 {
				t.Fatalf("/v1/tags without a key: %d", s)
			}
			if l := logs.String(); strings.Contains(l, "path=/healthz") || strings.Contains(l, "path=/readyz") || !strings.Contains(l, "path=/v1/tags") {
				t.Fatalf("access log:\n%s\nwant the API request only", l)
			}
			st.DB.Close()
			s, m, h := getStatus(t, base+"/readyz")
			if s != 503 || m["code"] != "SERVICE_UNAVAILABLE" || h.Get("Content-Type") != "application/problem+json" || h.Get("Retry-After") == "" {
				t.Fatalf("/readyz with the database closed: %d %v %v", s, m, h)
			}
			if !strings.Contains(logs.String(), "path=/readyz") {
				t.Fatal("a failed /readyz is not in the access log")
			}
			if s, _, _ := getStatus(t, base+"/healthz"); s != 200 {
				t.Fatalf("/healthz with the database closed: %d; the process is alive", s)
			}
		})
	}
}
