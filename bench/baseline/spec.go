package main

// With --spec (which implies --auth) the baseline also does, by hand, the
// per-request work the specification and docs/api-behaviour.md ask of every
// authenticated GET, so that Larder can be compared with a hand-written server
// that owes the caller the same things (docs/performance.md, "Method"):
//
//   - a request id (req_ and a ULID) in X-Request-Id, and a 15-second bound
//     on the request's work (a context deadline, as Larder's --request-timeout);
//   - the key read with its account and organization, by Larder's statement
//     (copied from auth.LookupSQL), and refused when revoked, expired, of the
//     other environment or of an organization whose plan is not enterprise;
//     its scopes parsed once per distinct list and the route's scope
//     (catalog:read) checked; query parameters the route does not define
//     refused;
//   - the account's rate limit, X-RateLimit-Limit/Remaining/Reset: counted
//     in memory per minute, which is what one process alone needs (Larder
//     counts in PostgreSQL so that processes share the budget, and reserves
//     numbers in batches);
//   - a weak ETag (SHA-256 of the body), Vary: Accept-Encoding and 304 on a
//     matching If-None-Match;
//   - the request's Prometheus counter and latency histogram, and one access
//     log line through log/slog's text handler with Larder's attributes;
//   - the garbage collector at Larder's serving target (GOGC 400).
//
// It leaves out what the two routes cannot need: bodies, gzip (answers of
// clients that do not ask for it), redaction of fields these rows do not have.

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"os"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// specLookup is auth.LookupSQL (the baseline imports nothing of Larder):
// update it when that changes.
const specLookup = `SELECT k.id, k.scopes, k.expires_at, k.revoked_at, k.last_used_at, a.id, a.environment, o.id, o.name, o.plan, o.currency
FROM api_keys k JOIN accounts a ON a.id = k.account_id JOIN organizations o ON o.id = a.organization_id
WHERE k.secret_hash = $1`

// specParams are the query parameters each route defines (Larder's
// restapi.QueryParams for getTag and listTags).
var specParams = map[string][]string{
	"/v1/tags": {"limit", "offset", "sort", "search", "name", "ref_type"},
}

// spec is the state of --spec.
type spec struct {
	limit    int
	log      *slog.Logger
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	scopes   sync.Map // stored scope list → set of scopes
	mu       sync.Mutex
	windows  map[int64]*window // account → its current minute
}

// window counts an account's requests in one minute.
type window struct {
	start time.Time
	hits  int
}

func newSpec(limit int) *spec {
	debug.SetGCPercent(400)
	reg := prometheus.NewRegistry()
	s := &spec{
		limit: limit,
		log:   slog.New(slog.NewTextHandler(os.Stderr, nil)),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "baseline_http_requests_total"},
			[]string{"operation", "method", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "baseline_http_request_duration_seconds"},
			[]string{"operation"}),
		windows: map[int64]*window{},
	}
	reg.MustRegister(s.requests, s.latency)
	return s
}

// buffered holds an answer until its ETag is known.
type buffered struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (b *buffered) Header() http.Header         { return b.header }
func (b *buffered) WriteHeader(status int)      { b.status = status }
func (b *buffered) Write(p []byte) (int, error) { return b.body.Write(p) }

// wrap does around next what Larder's middleware does around a handler.
func (s *spec) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		id := requestID()
		w.Header().Set("X-Request-Id", id)
		ctx, cancel := context.WithTimeout(r.Context(), 15*time.Second)
		defer cancel()
		b := &buffered{header: w.Header(), status: http.StatusOK}
		if name, ok := unknownParam(r); ok {
			writeProblem(b, http.StatusBadRequest, name+" is not a parameter of this operation")
		} else {
			next.ServeHTTP(b, r.WithContext(ctx))
		}
		status := b.status
		if status == http.StatusOK {
			sum := sha256.Sum256(b.body.Bytes())
			tag := `W/"` + hex.EncodeToString(sum[:16]) + `"`
			w.Header().Set("ETag", tag)
			w.Header().Add("Vary", "Accept-Encoding")
			if inm := r.Header.Get("If-None-Match"); inm != "" && strings.TrimPrefix(inm, "W/") == tag[2:] {
				status = http.StatusNotModified
			}
		}
		w.WriteHeader(status)
		if status != http.StatusNotModified {
			_, _ = w.Write(b.body.Bytes())
		}
		operation := "listTags"
		if strings.HasPrefix(r.URL.Path, "/v1/tags/") {
			operation = "getTag"
		}
		s.requests.WithLabelValues(operation, r.Method, strconv.Itoa(status)).Inc()
		s.latency.WithLabelValues(operation).Observe(time.Since(start).Seconds())
		s.log.LogAttrs(ctx, slog.LevelInfo, "request",
			slog.String("request_id", id),
			slog.String("method", r.Method),
			slog.String("path", r.URL.Path),
			slog.Int("status", status),
			slog.Int("bytes", b.body.Len()),
			slog.Duration("duration", time.Since(start)),
			slog.String("remote", r.RemoteAddr))
	})
}

// unknownParam returns a query parameter of r that its route does not define.
func unknownParam(r *http.Request) (string, bool) {
	allowed := specParams[r.URL.Path] // none for /v1/tags/{id}
	for name := range r.URL.Query() {
		if !slices.Contains(allowed, name) {
			return name, true
		}
	}
	return "", false
}

// authenticate returns the account of the request's key after every check
// Larder makes, with the rate-limit headers set, or answers and reports false.
func (s *spec) authenticate(srv *server, w http.ResponseWriter, r *http.Request) (int64, bool) {
	scheme, key, _ := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
	env := ""
	switch {
	case strings.HasPrefix(key, "key_live_"):
		env = "live"
	case strings.HasPrefix(key, "key_test_"):
		env = "test"
	}
	if !strings.EqualFold(scheme, "Bearer") || env == "" {
		writeProblem(w, http.StatusUnauthorized, "The API key is missing or invalid.")
		return 0, false
	}
	sum := sha256.Sum256([]byte(key))
	var (
		keyID, account, org                int64
		scopes, accountEnv, name, plan, cc string
		expires, revoked, used             sql.NullTime
	)
	now := time.Now()
	err := srv.queryRow(r.Context(), func(sc scanner) error {
		return sc.Scan(&keyID, &scopes, &expires, &revoked, &used, &account, &accountEnv, &org, &name, &plan, &cc)
	}, specLookup, hex.EncodeToString(sum[:]))
	if errors.Is(err, sql.ErrNoRows) || err == nil && (revoked.Valid || expires.Valid && !now.Before(expires.Time) || accountEnv != env) {
		writeProblem(w, http.StatusUnauthorized, "The API key is missing or invalid.")
		return 0, false
	}
	if err != nil {
		writeProblem(w, http.StatusInternalServerError, err.Error())
		return 0, false
	}
	if plan != "enterprise" {
		writeProblem(w, http.StatusForbidden, "The organization's plan does not include the API.")
		return 0, false
	}
	set, ok := s.scopes.Load(scopes)
	if !ok {
		var granted []string
		if err := json.Unmarshal([]byte(scopes), &granted); err != nil {
			writeProblem(w, http.StatusInternalServerError, err.Error())
			return 0, false
		}
		m := map[string]bool{}
		for _, g := range granted {
			m[g] = true
			if module, ok := strings.CutSuffix(g, ":write"); ok {
				m[module+":read"] = true
			}
		}
		set, _ = s.scopes.LoadOrStore(scopes, m)
	}
	if !set.(map[string]bool)["catalog:read"] {
		writeProblem(w, http.StatusForbidden, "This operation needs the catalog:read scope.")
		return 0, false
	}
	hits, reset := s.spend(account, now)
	h := w.Header()
	h.Set("X-RateLimit-Limit", strconv.Itoa(s.limit))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(max(0, s.limit-hits)))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(reset.Unix(), 10))
	if hits > s.limit {
		h.Set("Retry-After", strconv.Itoa(int(time.Until(reset).Seconds())+1))
		writeProblem(w, http.StatusTooManyRequests, "The account's requests per minute are used up.")
		return 0, false
	}
	return account, true
}

// spend counts a request of account in the minute of now and returns the
// count and when the minute ends.
func (s *spec) spend(account int64, now time.Time) (int, time.Time) {
	start := now.Truncate(time.Minute)
	s.mu.Lock()
	defer s.mu.Unlock()
	w := s.windows[account]
	if w == nil || !w.start.Equal(start) {
		w = &window{start: start}
		s.windows[account] = w
	}
	w.hits++
	return w.hits, start.Add(time.Minute)
}

// requestID is req_ and a ULID, as Larder's ids.New makes it.
func requestID() string {
	const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], uint64(time.Now().UnixMilli())<<16)
	_, _ = rand.Read(b[6:])
	hi, lo := binary.BigEndian.Uint64(b[:8]), binary.BigEndian.Uint64(b[8:])
	out := []byte("req_00000000000000000000000000")
	for i := 25; i >= 0; i-- {
		out[4+i] = crockford[lo&31]
		lo = lo>>5 | hi<<59
		hi >>= 5
	}
	return string(out)
}
