package handlers_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"larder.dev/larder/handlers"
	"larder.dev/larder/internal/platform/config"
	"larder.dev/larder/internal/platform/deprecation"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/reqlog"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/openapi"
	"larder.dev/larder/policy"
)

// deprecatingTags is the served description with listTags deprecated (no
// sunset) and TagCreate's description field deprecated until 2027-12-31, as
// the generator writes them (x-deprecation): nothing in the API is
// deprecated, so the test deprecates in a copy.
func deprecatingTags(t *testing.T) *deprecation.Table {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(openapi.Document, &doc); err != nil {
		t.Fatal(err)
	}
	list := doc["paths"].(map[string]any)["/tags"].(map[string]any)["get"].(map[string]any)
	list["deprecated"] = true
	list["x-deprecation"] = map[string]any{"since": "2026-12-01", "replacement": "GET /v2/tags"}
	create := doc["components"].(map[string]any)["schemas"].(map[string]any)["TagCreate"].(map[string]any)
	desc := create["properties"].(map[string]any)["description"].(map[string]any)
	desc["deprecated"] = true
	desc["x-deprecation"] = map[string]any{"since": "2026-12-05", "sunset": "2027-12-31", "replacement": "the field notes"}
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	table, err := deprecation.FromDescription(b)
	if err != nil {
		t.Fatal(err)
	}
	return table
}

// A request that uses a deprecated operation or field is answered with
// Deprecation (RFC 9745) and, with a sunset, Sunset; the request log records
// the use against the key, and reqlog.DeprecatedUses lists who still uses
// what. Requests that use nothing deprecated carry neither header.
func TestDeprecatedUseIsAnsweredAndLogged(t *testing.T) {
	t.Parallel()
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		w := reqlog.NewWriter(st, nil, 0)
		cfg := config.Defaults()
		srv, err := handlers.New(st, handlers.Options{Config: cfg, Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
			RequestLog: w, Deprecations: deprecatingTags(t)})
		if err != nil {
			t.Fatal(err)
		}
		hs := httptest.NewServer(srv)
		t.Cleanup(hs.Close)
		a := &api{t: t, st: st, url: hs.URL, srv: srv, clock: &clock{t: time.Now()}, org: dbtest.NewOrg(t, st, ""), fast: cfg.FastPath}
		a.key = a.org.Key(t, policy.Live, "all")
		other := a.org.Key(t, policy.Live, "all")

		listed := a.do("GET", "/v1/tags?ref_type=PRODUCT", a.key, nil).want(200)
		since := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
		if got := listed.Header.Get("Deprecation"); got != "@"+strconv.FormatInt(since.Unix(), 10) {
			t.Errorf("a deprecated operation: Deprecation %q, want @%d", got, since.Unix())
		}
		if got := listed.Header.Get("Sunset"); got != "" {
			t.Errorf("a deprecated operation without a sunset: Sunset %q", got)
		}
		withField := a.do("POST", "/v1/tags", other, `{"name":"Old","ref_type":"PRODUCT","description":"still sent"}`).want(201)
		if got, want := withField.Header.Get("Sunset"), time.Date(2027, 12, 31, 0, 0, 0, 0, time.UTC).Format(http.TimeFormat); got != want {
			t.Errorf("a deprecated field: Sunset %q, want %q", got, want)
		}
		if withField.Header.Get("Deprecation") == "" {
			t.Error("a deprecated field: no Deprecation header")
		}
		plain := a.do("POST", "/v1/tags", a.key, `{"name":"New","ref_type":"PRODUCT"}`).want(201)
		read := a.do("GET", "/v1/tags/"+strconv.Itoa(int(plain.JSON()["data"].(map[string]any)["id"].(float64))), a.key, nil).want(200)
		for _, r := range []*response{plain, read} {
			if r.Header.Get("Deprecation") != "" || r.Header.Get("Sunset") != "" {
				t.Errorf("nothing deprecated used: Deprecation %q, Sunset %q", r.Header.Get("Deprecation"), r.Header.Get("Sunset"))
			}
		}
		w.Flush()

		if got := logged(t, st, listed).Deprecated; got != "listTags" {
			t.Errorf("logged use of the list %q, want listTags", got)
		}
		if got := logged(t, st, withField).Deprecated; got != "createTag:description" {
			t.Errorf("logged use of the field %q, want createTag:description", got)
		}
		if got := logged(t, st, plain).Deprecated; got != "" {
			t.Errorf("logged use of a plain create %q, want none", got)
		}
		uses, err := reqlog.DeprecatedUses(t.Context(), st.Client, a.org.Org.ID, policy.Live, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		if len(uses) != 2 {
			t.Fatalf("deprecated uses %+v, want the list's and the field's", uses)
		}
		byUse := map[string]reqlog.DeprecatedUse{}
		for _, u := range uses {
			byUse[u.Uses] = u
		}
		if u := byUse["listTags"]; u.Requests != 1 || u.LastRequestID != listed.Header.Get("X-Request-Id") {
			t.Errorf("the list's use %+v, want one request, %s", u, listed.Header.Get("X-Request-Id"))
		}
		if u := byUse["createTag:description"]; u.Requests != 1 || u.KeyID == byUse["listTags"].KeyID {
			t.Errorf("the field's use %+v, want one request by the other key", u)
		}
	})
}
