package handlers

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"runtime"
	"strings"
	"testing"
	"time"
)

// A panic in a handler becomes a 500 problem, not a dropped connection.
func TestPanicBecomesInternalError(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	h := withRequestID(withAccessLog(accessLog{log: log}, nil, func(*http.Request) string { return "" }, nil, http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
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

// Overload is answered 503 with Retry-After, and the layers outside read
// its reason, for the metrics.
func TestSheddingAnswersUnavailable(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{})
	var reason string
	h := withRequestID(func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			next.ServeHTTP(w, r)
			reason = exchangeOf(r.Context()).refusal()
		})
	}(withShedding(1, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(started)
		<-release
	}))))
	done := make(chan struct{})
	go func() {
		defer close(done)
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/v1/tags", nil))
	}()
	<-started
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/v1/tags", nil))
	if rec.Code != 503 || rec.Header().Get("Retry-After") == "" {
		t.Fatalf("status %d, Retry-After %q", rec.Code, rec.Header().Get("Retry-After"))
	}
	if reason != "overload" {
		t.Errorf("refusal %q, want overload", reason)
	}
	close(release)
	<-done
	if reason != "" {
		t.Errorf("the request served records refusal %q", reason)
	}
}

// The metrics' reason of a refusal is the one its refusing layer recorded;
// a retracted pass of the gate takes its own back.
func TestExchangeRefusal(t *testing.T) {
	cases := []struct {
		name  string
		write func(x *exchange)
		want  string
	}{
		{"none", func(*exchange) {}, ""},
		{"shedding", (*exchange).shedOverloaded, "overload"},
		{"readiness", (*exchange).readyRefused, "not_ready"},
		{"the account's budget", func(x *exchange) { x.gateLimited("account_limit") }, "account_limit"},
		{"invalid keys", func(x *exchange) { x.gateLimited("auth_failures") }, "auth_failures"},
		{"a retracted pass", func(x *exchange) { x.gateLimited("account_limit"); x.gateForget() }, ""},
	}
	for _, c := range cases {
		x := newExchange("req_1", nil, "")
		c.write(x)
		if got := x.refusal(); got != c.want {
			t.Errorf("%s: refusal %q, want %q", c.name, got, c.want)
		}
	}
	var none *exchange
	none.shedOverloaded()
	if none.refusal() != "" || none.id() != "" || none.viewer() != nil {
		t.Error("a request without an exchange reads values")
	}
}

// The specification's Authentication 11 and docs/api-behaviour.md, "Rate
// limits": the failed-auth throttle counts per
// client IP (never per port): the socket peer, or, when the peer is a trusted
// proxy, the right-most X-Forwarded-For address that is not a trusted proxy.
func TestClientIP(t *testing.T) {
	trusted := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("192.0.2.1/32"), netip.MustParsePrefix("2001:db8:f::/48")}
	cases := []struct {
		name, peer string
		xff        []string
		want       string
	}{
		{"untrusted peer without header", "203.0.113.5:51000", nil, "203.0.113.5"},
		{"untrusted peer: header ignored", "203.0.113.5:51000", []string{"198.51.100.7"}, "203.0.113.5"},
		{"port never counts", "203.0.113.5:1", nil, "203.0.113.5"},
		{"IPv6 peer", "[2001:db8::5]:443", nil, "2001:db8::5"},
		{"IPv4-mapped IPv6 peer", "[::ffff:203.0.113.5]:443", nil, "203.0.113.5"},
		{"trusted peer without header", "192.0.2.1:40000", nil, "192.0.2.1"},
		{"trusted peer names the client", "192.0.2.1:40000", []string{"198.51.100.7"}, "198.51.100.7"},
		{"client-written entries left of it are not believed", "192.0.2.1:40000", []string{"6.6.6.6, 198.51.100.7"}, "198.51.100.7"},
		{"chain of trusted proxies", "192.0.2.1:40000", []string{"198.51.100.7, 10.1.2.3, 10.9.9.9"}, "198.51.100.7"},
		{"header split over lines", "192.0.2.1:40000", []string{"6.6.6.6", "198.51.100.7, 10.1.2.3"}, "198.51.100.7"},
		{"every entry a trusted proxy", "192.0.2.1:40000", []string{"10.1.2.3, 10.9.9.9"}, "10.1.2.3"},
		{"entry with a port", "192.0.2.1:40000", []string{"198.51.100.7:5555"}, "198.51.100.7"},
		{"bracketed IPv6 entry with a port", "192.0.2.1:40000", []string{"[2001:db8::7]:5555"}, "2001:db8::7"},
		{"IPv4-mapped entry", "192.0.2.1:40000", []string{"::ffff:198.51.100.7"}, "198.51.100.7"},
		{"IPv6 trusted network", "[2001:db8:f::1]:443", []string{"198.51.100.7"}, "198.51.100.7"},
		{"garbage stops at the last trusted hop", "192.0.2.1:40000", []string{"198.51.100.7, garbage, 10.1.2.3"}, "10.1.2.3"},
		{"garbage right of every address", "192.0.2.1:40000", []string{"unknown"}, "192.0.2.1"},
		{"empty header", "192.0.2.1:40000", []string{""}, "192.0.2.1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/v1/organization", nil)
			r.RemoteAddr = tc.peer
			for _, v := range tc.xff {
				r.Header.Add("X-Forwarded-For", v)
			}
			if got := clientIP(r, trusted); got != tc.want {
				t.Fatalf("clientIP = %q, want %q", got, tc.want)
			}
			peer := netip.MustParseAddrPort(tc.peer).Addr().Unmap().String()
			if got := clientIP(r, nil); got != peer {
				t.Fatalf("without trusted proxies clientIP = %q, want the peer %q", got, peer)
			}
		})
	}
}

// A request's work ends at its timeout, not when its client goes, keeps the
// request's values, and contexts derived from it hang on the deadline's own
// instead of a goroutine each.
func TestTimeoutBoundsTheWork(t *testing.T) {
	const d = 200 * time.Millisecond
	type key struct{}
	client, leave := context.WithCancel(context.WithValue(context.Background(), key{}, "v"))
	defer leave()
	var (
		dl                time.Time
		hasDeadline       bool
		value             any
		afterLeaving, err error
		cause             error
		derived           int
		fired             = make(chan struct{})
		ended             time.Time
	)
	h := withTimeout(d, http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		got := r.Context()
		dl, hasDeadline = got.Deadline()
		value = got.Value(key{})
		leave()
		afterLeaving = got.Err()
		before := runtime.NumGoroutine()
		var children []context.CancelFunc
		for range 50 {
			_, cancel := context.WithCancel(got)
			children = append(children, cancel)
		}
		derived = runtime.NumGoroutine() - before
		context.AfterFunc(got, func() { close(fired) })
		select {
		case <-got.Done():
		case <-time.After(10 * d):
		}
		ended = time.Now()
		err, cause = got.Err(), context.Cause(got)
		for _, c := range children {
			c()
		}
	}))
	start := time.Now()
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/v1/tags", nil).WithContext(client))
	if !hasDeadline || dl.Before(start.Add(d)) || dl.After(start.Add(d+50*time.Millisecond)) {
		t.Fatalf("deadline %v (set %v), want %v after %v", dl, hasDeadline, d, start)
	}
	if value != "v" {
		t.Fatal("the request's values are lost")
	}
	if afterLeaving != nil {
		t.Fatalf("the client's leaving ends the work: %v", afterLeaving)
	}
	if derived >= 50 {
		t.Errorf("%d goroutines for 50 contexts derived from a request's", derived)
	}
	select {
	case <-fired:
	case <-time.After(time.Second):
		t.Fatal("a function registered with AfterFunc never ran")
	}
	if err != context.DeadlineExceeded || cause != context.DeadlineExceeded {
		t.Fatalf("the work ended with error %v, cause %v; want the deadline", err, cause)
	}
	if ended.Before(start.Add(d)) {
		t.Fatal("the work ended before its timeout")
	}
	if ended.After(start.Add(5 * d)) {
		t.Fatal("the work outlives its timeout")
	}
}
