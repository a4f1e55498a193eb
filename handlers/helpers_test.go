package handlers_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"larder.dev/larder/handlers"
	"larder.dev/larder/internal/platform/config"
	"larder.dev/larder/internal/platform/fastpath"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/reqlog"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

// clock is a settable time for the limits.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Set(t time.Time) {
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
}

// api is a Larder server under test with an organization of its own.
type api struct {
	t     testing.TB
	st    *store.Store
	url   string
	srv   *handlers.Server
	clock *clock
	org   *dbtest.Org
	// key is a live key with every scope.
	key string
	// fast is the server's speed mechanisms (config.Config.FastPath).
	fast fastpath.Set
}

// newAPI starts a server over st with cfg changes applied, and makes an
// enterprise organization with an all-scope live key.
func newAPI(t testing.TB, st *store.Store, tweak ...func(*config.Config)) *api {
	t.Helper()
	return newAPILogging(t, st, io.Discard, tweak...)
}

// newAPILogging is newAPI whose server logs to logs.
func newAPILogging(t testing.TB, st *store.Store, logs io.Writer, tweak ...func(*config.Config)) *api {
	t.Helper()
	cfg := config.Defaults()
	// Tests of one package share a PostgreSQL database and so the failed-auth
	// budget of 127.0.0.1; only the throttle's own test lowers it.
	cfg.AuthFailLimit = 1 << 20
	cfg.MetricsToken = metricsToken
	for _, f := range tweak {
		f(&cfg)
	}
	clk := &clock{t: time.Now()}
	// Every test's server records its requests, as serve does.
	var requests *reqlog.Writer
	if cfg.RequestLog {
		requests = reqlog.NewWriter(dbtest.Unobserved(st), nil, 0)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { defer close(done); requests.Run(ctx) }()
		t.Cleanup(func() { cancel(); <-done })
	}
	srv, err := handlers.New(st, handlers.Options{
		Config:     cfg,
		Log:        slog.New(slog.NewTextHandler(logs, nil)),
		Now:        clk.Now,
		RequestLog: requests,
	})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	a := &api{t: t, st: st, url: hs.URL, srv: srv, clock: clk, org: dbtest.NewOrg(t, st, ""), fast: cfg.FastPath}
	a.key = a.org.Key(t, policy.Live, "all")
	return a
}

// noRedirects is the client of the tests: the API answers, it never
// redirects, so a 3xx must reach the test.
var noRedirects = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// response is an answer of the server.
type response struct {
	t      testing.TB
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body.
func (r *response) JSON() map[string]any {
	r.t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Body, &m); err != nil {
		r.t.Fatalf("body is not a JSON object: %v\n%s", err, r.Body)
	}
	return m
}

// Data is the body's data object.
func (r *response) Data() map[string]any {
	r.t.Helper()
	d, ok := r.JSON()["data"].(map[string]any)
	if !ok {
		r.t.Fatalf("no data object in %s", r.Body)
	}
	return d
}

// List is the body's data array.
func (r *response) List() []map[string]any {
	r.t.Helper()
	raw, ok := r.JSON()["data"].([]any)
	if !ok {
		r.t.Fatalf("no data array in %s", r.Body)
	}
	out := make([]map[string]any, len(raw))
	for i, x := range raw {
		out[i] = x.(map[string]any)
	}
	return out
}

// ID is data.id.
func (r *response) ID() int { return int(r.Data()["id"].(float64)) }

// want fails unless the status is status.
func (r *response) want(status int) *response {
	r.t.Helper()
	if r.Status != status {
		r.t.Fatalf("status %d, want %d: %s", r.Status, status, r.Body)
	}
	return r
}

// problem checks the response is a problem with status and code, whose
// request_id equals X-Request-Id, and returns it.
func (r *response) problem(status int, code string) map[string]any {
	r.t.Helper()
	r.want(status)
	if ct := r.Header.Get("Content-Type"); ct != "application/problem+json" {
		r.t.Fatalf("Content-Type %q, want application/problem+json", ct)
	}
	p := r.JSON()
	if p["code"] != code {
		r.t.Fatalf("code %v, want %s: %s", p["code"], code, r.Body)
	}
	if id := r.Header.Get("X-Request-Id"); id == "" || p["request_id"] != id || !strings.HasPrefix(id, "req_") {
		r.t.Fatalf("request_id %v and X-Request-Id %q must be equal and start req_", p["request_id"], id)
	}
	if int(p["status"].(float64)) != status || p["type"] == "" || p["title"] == "" || p["detail"] == "" {
		r.t.Fatalf("incomplete problem: %s", r.Body)
	}
	return p
}

// field fails unless the problem names field in errors[].
func (r *response) field(status int, code, field string) map[string]any {
	r.t.Helper()
	p := r.problem(status, code)
	errs, _ := p["errors"].([]any)
	for _, e := range errs {
		if e.(map[string]any)["field"] == field {
			return p
		}
	}
	r.t.Fatalf("errors[] does not name %q: %s", field, r.Body)
	return nil
}

// do sends a request with key (none when empty) and body (JSON-encoded unless
// a string or nil).
func (a *api) do(method, path, key string, body any, headers ...string) *response {
	a.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		j, err := json.Marshal(b)
		if err != nil {
			a.t.Fatal(err)
		}
		rd = bytes.NewReader(j)
	}
	req, err := http.NewRequest(method, a.url+path, rd)
	if err != nil {
		a.t.Fatal(err)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := noRedirects.Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		a.t.Fatal(err)
	}
	return &response{t: a.t, Status: res.StatusCode, Header: res.Header, Body: b}
}

func (a *api) get(path string) *response { a.t.Helper(); return a.do("GET", path, a.key, nil) }
func (a *api) post(path string, body any) *response {
	a.t.Helper()
	return a.do("POST", path, a.key, body)
}
func (a *api) patch(path string, body any) *response {
	a.t.Helper()
	return a.do("PATCH", path, a.key, body)
}
func (a *api) del(path string) *response { a.t.Helper(); return a.do("DELETE", path, a.key, nil) }

// allMechanisms turns every speed mechanism on, whatever LARDER_FAST_PATH
// says: for the tests of the mechanisms themselves.
func allMechanisms(c *config.Config) { c.FastPath = fastpath.All }

// run runs f on every backend with a fresh API.
func run(t *testing.T, f func(t *testing.T, a *api), tweak ...func(*config.Config)) {
	t.Parallel()
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		f(t, newAPI(t, st, tweak...))
	})
}

// path joins a collection and an id.
func path(collection string, id int) string { return collection + "/" + strconv.Itoa(id) }

// run runs f as a subtest with a copy of a that reports to the subtest.
func (a *api) run(t *testing.T, name string, f func(t *testing.T, a *api)) {
	t.Helper()
	t.Run(name, func(t *testing.T) {
		b := *a
		b.t = t
		f(t, &b)
	})
}

// column lists field of every row of the list at path, in order.
func (a *api) column(path, field string) []string {
	a.t.Helper()
	var out []string
	for _, x := range a.get(path).want(200).List() {
		out = append(out, x[field].(string))
	}
	return out
}
