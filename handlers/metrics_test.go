package handlers_test

import (
	"bufio"
	"bytes"
	"strconv"
	"strings"
	"testing"
	"time"

	"larder.dev/larder/internal/platform/config"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/dbtest"
)

// metricsToken is the metrics token of the tests' servers.
const metricsToken = "metrics-token-of-the-tests"

// scrape reads /metrics with the metrics token into series → value; a
// series is written as exposed: name{label="value",…} with the labels in
// name order.
func (a *api) scrape() map[string]float64 {
	a.t.Helper()
	r := a.do("GET", "/metrics", metricsToken, nil).want(200)
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
		a.t.Fatalf("metrics Content-Type %q", ct)
	}
	out := map[string]float64{}
	sc := bufio.NewScanner(bytes.NewReader(r.Body))
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			a.t.Fatalf("metrics line %q: %v", line, err)
		}
		out[line[:i]] = v
	}
	return out
}

const metricsLimit = 8

// On the API's address /metrics answers only the metrics token: 401 to no
// token, a wrong one and an API key (which is not the token), and 404 when
// no token is configured, since the metrics then live on their own address.
func TestMetricsNeedTheToken(t *testing.T) {
	t.Parallel()
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		a := newAPI(t, st)
		a.do("GET", "/metrics", "", nil).want(401)
		a.do("GET", "/metrics", metricsToken+"x", nil).want(401)
		r := a.do("GET", "/metrics", a.key, nil).want(401)
		if got := r.Header.Get("WWW-Authenticate"); !strings.HasPrefix(got, "Bearer") {
			t.Errorf("WWW-Authenticate %q", got)
		}
		if ct := r.Header.Get("Content-Type"); ct != "application/problem+json" {
			t.Errorf("401 Content-Type %q", ct)
		}
		a.do("GET", "/metrics", metricsToken, nil).want(200)
		b := newAPI(t, st, func(c *config.Config) { c.MetricsToken = "" })
		b.do("GET", "/metrics", "", nil).want(404)
		b.do("GET", "/metrics", metricsToken, nil).want(404)
	})
}

// /metrics counts requests by operation and status (bounded names for what
// matches no operation), their latency, the 429s by reason and the budget
// spent, and shows the database pool and the outbox, without a key, on both
// databases.
func TestMetrics(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		before := a.scrape()
		a.post("/v1/allergens", map[string]any{"code": "MET", "name": "Metrics", "name_fr": "Métriques"}).want(201)
		created := `larder_http_requests_total{method="POST",operation="createAllergen",status="201"}`
		after := a.scrape()
		for i := 0; i < 50 && after[created] == 0; i++ { // counted once written, maybe after the client read it
			time.Sleep(10 * time.Millisecond)
			after = a.scrape()
		}
		if d := after["larder_outbox_events_pending"] - before["larder_outbox_events_pending"]; d < 1 {
			t.Errorf("a write left %v more events pending", d)
		}
		if age := after["larder_outbox_oldest_undelivered_age_seconds"]; age <= 0 {
			t.Errorf("oldest undelivered event %v s old", age)
		}
		if after["larder_outbox_scrape_error"] != 0 {
			t.Error("the outbox could not be read")
		}
		for _, s := range []string{`go_sql_max_open_connections{db_name="larder"}`, `go_goroutines`, `process_resident_memory_bytes`} {
			if _, ok := after[s]; !ok {
				t.Errorf("no %s", s)
			}
		}
		if after[created] != 1 {
			t.Errorf("createAllergen: %v", after[created])
		}
		a.do("GET", "/v1/allergens", a.key, nil).want(200)
		a.do("GET", "/v1/no-such-thing", a.key, nil).want(404)
		a.do("GET", "/v1/allergens", "key_live_nope", nil).want(401)
		a.do("GET", "/healthz", "", nil).want(200)
		a.do("BREW", "/v1/allergens", "", nil) // a method the client made up
		a.do("GET", "/v1/allergens?x="+strings.Repeat("a", 10), a.key, nil).want(400)
		for a.do("GET", "/v1/allergens", a.key, nil).Status != 429 {
		}
		// A request is counted once its answer is written: the client may
		// read the last answer a moment before.
		m := a.scrape()
		for i := 0; i < 50 && m[`larder_http_refused_total{reason="account_limit",status="429"}`] == 0; i++ {
			time.Sleep(10 * time.Millisecond)
			m = a.scrape()
		}
		want := map[string]float64{
			`larder_http_requests_total{method="GET",operation="listAllergens",status="200"}`: metricsLimit - 3, // the create, the 404 and the 400 spent the rest
			`larder_http_requests_total{method="GET",operation="listAllergens",status="400"}`: 1,
			`larder_http_requests_total{method="GET",operation="listAllergens",status="401"}`: 1,
			`larder_http_requests_total{method="GET",operation="listAllergens",status="429"}`: 1,
			`larder_http_requests_total{method="GET",operation="unmatched",status="404"}`:     1,
			`larder_http_requests_total{method="GET",operation="healthz",status="200"}`:       1,
			`larder_http_request_duration_seconds_count{operation="listAllergens"}`:           metricsLimit, // 200s, the 400, the 401 and the 429
			`larder_http_refused_total{reason="account_limit",status="429"}`:                  1,
			`larder_ratelimit_requests_total{bucket="account",result="allowed"}`:              metricsLimit,
			`larder_ratelimit_requests_total{bucket="account",result="limited"}`:              1,
			`larder_ratelimit_requests_total{bucket="auth_failures",result="allowed"}`:        1,
		}
		var other float64
		for s, v := range m {
			if strings.Contains(s, `method="BREW"`) {
				t.Errorf("the client picked a series: %s", s)
			}
			if strings.HasPrefix(s, `larder_http_requests_total{method="OTHER"`) {
				other += v
			}
		}
		if other != 1 {
			t.Errorf("%v requests of unknown methods counted as OTHER, want 1", other)
		}
		if n := m[`larder_http_requests_total{method="GET",operation="metrics",status="200"}`]; n < 2 {
			t.Errorf("%v scrapes counted, want at least the first two", n)
		}
		for s, v := range want {
			if m[s] != v {
				t.Errorf("%s = %v, want %v", s, m[s], v)
			}
		}
	}, func(c *config.Config) { c.RateLimit = metricsLimit })
}
