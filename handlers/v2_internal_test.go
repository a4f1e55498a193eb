package handlers

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"larder.dev/larder/internal/identity/auth"
	"larder.dev/larder/internal/identity/ratelimit"
	"larder.dev/larder/internal/platform/config"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/restapi"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/openapi"
	"larder.dev/larder/openapi/oas"
	"larder.dev/larder/policy"
)

// The road to /v2 (docs/developers.md): the generated server mounts a second
// time under /v2, with a description of its own, and answers beside /v1 from
// the same handlers and data. The /v2 here is /v1's router under another
// prefix with a variant of the description (servers /v2, version 2.0.0),
// behind the same key check; a real /v2 would be generated from its own
// description.
func TestSecondVersionAnswersBesideTheFirst(t *testing.T) {
	t.Parallel()
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		log := slog.New(slog.NewTextHandler(io.Discard, nil))
		cfg := config.Defaults()
		v1, err := New(st, Options{Config: cfg, Log: log})
		if err != nil {
			t.Fatal(err)
		}
		h := &Handler{
			Handlers: &restapi.Handlers{Client: st.Client, Log: log, RequestID: RequestID},
			client:   st.Client, log: log, rateLimit: cfg.RateLimit, snapshot: st.Snapshot,
		}
		v2, err := oas.NewServer(h, security{}, oas.WithPathPrefix("/v2"))
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]any
		if err := json.Unmarshal(openapi.Document, &doc); err != nil {
			t.Fatal(err)
		}
		doc["servers"] = []any{map[string]any{"url": "/v2"}}
		doc["info"].(map[string]any)["version"] = "2.0.0"
		v2doc, err := json.Marshal(doc)
		if err != nil {
			t.Fatal(err)
		}
		limiter, err := ratelimit.New(st.DB, st.Dialect, st.Prepare)
		if err != nil {
			t.Fatal(err)
		}
		authn, err := auth.NewAuthenticator(st.DB, st.Dialect, limiter, cfg.RateLimit, cfg.FastPath, st.Prepare)
		if err != nil {
			t.Fatal(err)
		}
		// The key check of /v1's gate, for /v2's router.
		keyed := withRequestID(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/v2/openapi.json" {
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write(v2doc)
				return
			}
			key, err := authn.Authenticate(r.Context(), r.Header.Get("Authorization"), time.Now(), nil)
			if err == nil {
				exchangeOf(r.Context()).gateAdmitted(key.Viewer, r.URL.Query())
			}
			v2.ServeHTTP(w, r)
		}))
		mux := http.NewServeMux()
		mux.Handle("/v2/", keyed)
		mux.Handle("/", v1.Handler)
		hs := httptest.NewServer(mux)
		t.Cleanup(hs.Close)

		org := dbtest.NewOrg(t, st, "")
		key := org.Key(t, policy.Live, "all")
		do := func(method, path, body string) (int, map[string]any) {
			req, err := http.NewRequest(method, hs.URL+path, strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Authorization", "Bearer "+key)
			if body != "" {
				req.Header.Set("Content-Type", "application/json")
			}
			res, err := hs.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			b, _ := io.ReadAll(res.Body)
			var out map[string]any
			_ = json.Unmarshal(bytes.TrimSpace(b), &out)
			return res.StatusCode, out
		}
		status, created := do("POST", "/v2/tags", `{"name":"Made in v2","ref_type":"PRODUCT"}`)
		if status != 201 {
			t.Fatalf("POST /v2/tags: %d %v", status, created)
		}
		id := created["data"].(map[string]any)["id"].(float64)
		status, read := do("GET", "/v1/tags?ref_type=PRODUCT", "")
		if status != 200 || len(read["data"].([]any)) != 1 || read["data"].([]any)[0].(map[string]any)["id"].(float64) != id {
			t.Errorf("GET /v1/tags after a /v2 create: %d %v", status, read)
		}
		if status, _ := do("GET", "/v2/tags/999999999", ""); status != 404 {
			t.Errorf("GET /v2/tags/999999999: %d, want 404", status)
		}
		if status, v1doc := do("GET", "/v1/openapi.json", ""); status != 200 || v1doc["info"].(map[string]any)["version"] == "2.0.0" {
			t.Errorf("/v1's description: %d %v", status, v1doc["info"])
		}
		if status, d := do("GET", "/v2/openapi.json", ""); status != 200 || d["info"].(map[string]any)["version"] != "2.0.0" ||
			d["servers"].([]any)[0].(map[string]any)["url"] != "/v2" {
			t.Errorf("/v2's description: %d %v %v", status, d["info"], d["servers"])
		}
		// Without a key /v2 refuses as /v1 does.
		req, _ := http.NewRequest("GET", hs.URL+"/v2/tags", nil)
		res, err := hs.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != 401 {
			t.Errorf("GET /v2/tags without a key: %d, want 401", res.StatusCode)
		}
	})
}
