// Package apifuzz_test fuzzes the whole API from its own description.
//
// TestFuzzAPI reads the OpenAPI description the server serves, and for every
// operation sends valid requests derived from the schemas and hostile
// variations of each part of them (path ids, query parameters, bodies,
// headers, keys) — at least 20,000 requests per database, from a fixed seed.
// It proves that no such input makes the server answer 5xx (or not answer
// within its request timeout), that every 4xx is an RFC 9457 problem document
// with code and request_id, that every body is valid JSON, and that no body
// names SQL, the database or Go internals.
//
// Replay: the seed is printed (override it with -apifuzz.seed=N or
// LARDER_FUZZ_SEED); a failure prints the exact request, with {main}, {other}
// … standing for the keys the test made.
package apifuzz_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"mime"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"larder.dev/larder/handlers"
	"larder.dev/larder/internal/platform/config"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

const defaultSeed = 20260131

// requestTimeout is the server's request timeout here: far above what any
// request needs (milliseconds), below the default so that a runaway request
// is told apart sooner. watchdog is how long the fuzzer waits for an answer.
const (
	requestTimeout = 5 * time.Second
	watchdog       = requestTimeout + 5*time.Second
)

var (
	seedFlag    = flag.Uint64("apifuzz.seed", defaultSeed, "seed of the API fuzzer (env LARDER_FUZZ_SEED)")
	countFlag   = flag.Int("apifuzz.n", 20000, "requests per database")
	workersFlag = flag.Int("apifuzz.workers", 0, "concurrent senders (0: 4×GOMAXPROCS, at least 8)")
	budgetFlag  = flag.Duration("apifuzz.budget", 5*time.Minute, "stop sending after this long (a safety net, not an assertion)")
	statsFlag   = flag.Bool("apifuzz.stats", false, "log the answers of every operation by status")
	detailsFlag = flag.Bool("apifuzz.details", false, "log every distinct problem detail and field message (to review the leak list)")
)

// maxReported caps the failure kinds the report lists.
const maxReported = 30

// seed is the flag when given, else LARDER_FUZZ_SEED, else the default.
func seed(t *testing.T) uint64 {
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "apifuzz.seed" })
	if !set {
		if s := os.Getenv("LARDER_FUZZ_SEED"); s != "" {
			n, err := strconv.ParseUint(s, 10, 64)
			if err != nil {
				t.Fatalf("LARDER_FUZZ_SEED=%q: %v", s, err)
			}
			return n
		}
	}
	return *seedFlag
}

func TestFuzzAPI(t *testing.T) {
	if testing.Short() {
		t.Skip("the API fuzzer sends 20,000 requests per database; skipped in -short mode")
	}
	if err := checkOwnStrings(); err != nil {
		t.Fatalf("harness: %v", err)
	}
	s := seed(t)
	t.Logf("seed %d (replay with -apifuzz.seed=%d or LARDER_FUZZ_SEED=%d)", s, s, s)
	backends := dbtest.Backends(t)
	last := string(backends[len(backends)-1])
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		// The server runs on a store that shows every statement to the
		// tenant filter's check (tenant_test.go); the test's own setup
		// (organizations, keys) on st is not checked.
		tc := newTenantCheck(t)
		f := newFuzzer(t, st, dbtest.Observed(t, st, tc.see), s)
		f.probeCostly = strings.HasSuffix(t.Name(), "/"+last)
		f.run()
		tc.report(t)
	})
}

// fuzzer is one run against one database.
type fuzzer struct {
	t     *testing.T
	seed  uint64
	srv   http.Handler
	logs  *lockedBuffer
	keys  map[string]string // placeholder name → key
	spec  *apiSpec
	pools *pools
	// probeCostly sends the costly request (see costly) at the end of the run.
	probeCostly bool

	mu       sync.Mutex
	statuses map[int]int
	success  map[string]int         // operation → 2xx answers
	byOp     map[string]map[int]int // operation → status → answers
	details  map[string]int         // problem texts, for -apifuzz.details
	failures map[string]*failure
	sent     atomic.Int64
}

// keyLegend says what each key placeholder stands for.
var keyLegend = map[string]string{
	"main":     "seeded organization, test account, every scope",
	"mainlive": "seeded organization, live account (another account), every scope",
	"other":    "another organization, live account, every scope",
	"noscope":  "seeded organization, test account, only sales:read",
	"readonly": "seeded organization, test account, only catalog:read",
	"lapsed":   "an organization on the lapsed plan, every scope",
}

// newFuzzer sets up a run: its organizations and keys on st, its server on
// served (st, or a store on the same database).
func newFuzzer(t *testing.T, st, served *store.Store, seed uint64) *fuzzer {
	cfg := config.Defaults()
	cfg.RateLimit = 10_000_000
	cfg.AuthFailLimit = 10_000_000
	cfg.RequestTimeout = requestTimeout
	logs := &lockedBuffer{}
	srv, err := handlers.New(served, handlers.Options{
		Config: cfg,
		// Warnings and errors are kept to explain a 5xx; access lines are dropped.
		Log: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelWarn})),
	})
	if err != nil {
		t.Fatal(err)
	}
	seeded := dbtest.NewSeededOrg(t, st)
	other := dbtest.NewOrg(t, st, "")
	lapsed := dbtest.NewOrg(t, st, "lapsed")
	return &fuzzer{
		t: t, seed: seed, srv: srv, logs: logs,
		keys: map[string]string{
			"main":     seeded.Key(t, policy.Test, "all"),
			"mainlive": seeded.Key(t, policy.Live, "all"),
			"other":    other.Key(t, policy.Live, "all"),
			"noscope":  seeded.Key(t, policy.Test, "sales:read"),
			"readonly": seeded.Key(t, policy.Test, "catalog:read"),
			"lapsed":   lapsed.Key(t, policy.Live, "all"),
		},
		pools:    newPools(),
		statuses: map[int]int{},
		success:  map[string]int{},
		byOp:     map[string]map[int]int{},
		details:  map[string]int{},
		failures: map[string]*failure{},
	}
}

// ---- requests -----------------------------------------------------------

// request is everything needed to send (and replay) one request.
type request struct {
	index   int
	op      string // the operation as the description names it, for the report
	method  string
	target  string // escaped path and query
	header  [][2]string
	body    []byte
	hasBody bool
	chunked bool // sent without Content-Length, as a client streaming a body does
	notes   []string
}

var placeholder = regexp.MustCompile(`\{(main|mainlive|other|noscope|readonly|lapsed)\}`)

func (f *fuzzer) expand(s string) string {
	return placeholder.ReplaceAllStringFunc(s, func(m string) string { return f.keys[m[1:len(m)-1]] })
}

// httpRequest builds the request as net/http's client would send it, and
// refuses what a Go client cannot send (so that no failure is an artefact of
// the in-process shortcut).
func (f *fuzzer) httpRequest(rq *request) (*http.Request, error) {
	target := f.expand(rq.target)
	var body io.Reader
	if rq.hasBody {
		body = bytes.NewReader(rq.body)
	}
	r, err := http.NewRequest(rq.method, "http://larder.test"+target, body)
	if err != nil {
		return nil, err
	}
	for _, h := range rq.header {
		v := f.expand(h[1])
		if !validHeaderValue(v) {
			return nil, fmt.Errorf("header %s: a Go client refuses %q", h[0], v)
		}
		r.Header.Add(h[0], v)
	}
	if rq.chunked && rq.hasBody {
		r.ContentLength = -1
		r.TransferEncoding = []string{"chunked"}
	}
	r.RequestURI = r.URL.RequestURI()
	r.RemoteAddr = "192.0.2.10:40000"
	return r, nil
}

// validHeaderValue is net/http's rule for a header value it will send: no
// control characters but tab.
func validHeaderValue(v string) bool {
	for i := 0; i < len(v); i++ {
		if b := v[i]; (b < ' ' && b != '\t') || b == 0x7f {
			return false
		}
	}
	return true
}

// generate makes request i: a pure function of the seed, i and the pools.
func (f *fuzzer) generate(i int) *request {
	g := &gen{spec: f.spec, pools: f.pools, r: rand.New(rand.NewPCG(f.seed, uint64(i)))}
	rq := &request{index: i}
	defer func() { rq.notes = g.notes }()
	if g.chance(0.04) {
		f.offSpec(g, rq)
		return rq
	}
	op := f.spec.ops[i%len(f.spec.ops)]
	rq.op, rq.method = op.String(), op.Method
	g.collection = op.collection

	// One part of the request is hostile (sometimes two, sometimes none).
	dims := map[string]float64{"none": 1, "header": 1.5, "auth": 1}
	if op.Body != nil {
		dims["body"] = 5
	}
	if len(op.queryParams()) > 0 {
		dims["query"] = 3.5
	}
	if op.pathParam() != nil {
		dims["path"] = 2
	}
	hostile := map[string]bool{pickWeighted(g, dims): true}
	if g.chance(0.1) {
		hostile[pickWeighted(g, dims)] = true
	}

	path := op.Path
	for _, p := range op.Params {
		if p.In == "path" {
			path = strings.ReplaceAll(path, "{"+p.Name+"}", g.pathValue(op, hostile["path"]))
		}
	}
	rq.target = f.spec.base + path
	if q := g.query(op, hostile["query"]); q != "" {
		rq.target += "?" + q
	}

	contentType := "application/json"
	switch {
	case op.Body != nil:
		o, _ := g.valid(op.Body, "", 0).(*object)
		if o == nil {
			o = &object{}
		}
		rq.hasBody = true
		switch {
		case !hostile["body"]:
			rq.body = encoded(o)
		case g.chance(0.15):
			rq.body = g.wholeBody(encoded(o))
		case g.chance(0.01):
			rq.body = []byte(`{"name":"` + strings.Repeat("b", handlers.MaxBodyBytes) + `"}`)
			g.note("body over the limit")
		default:
			rq.body = g.mutateBody(op, o)
		}
	case hostile["header"] && g.chance(0.3):
		// A body where none is expected.
		rq.hasBody = true
		rq.body = g.wholeBody([]byte(`{"name":"x"}`))
		g.note("body on %s", op.Method)
	}

	f.auth(g, rq, hostile["auth"])
	if hostile["header"] {
		for range 1 + g.pick(2) {
			switch g.pick(8) {
			case 0, 1:
				contentType = pickOf(g, contentTypes)
				g.note("Content-Type %.40q", contentType)
			case 2:
				rq.header = append(rq.header, [2]string{"Accept", pickOf(g, accepts)})
				g.note("odd Accept")
			case 3:
				rq.header = append(rq.header, [2]string{"X-Request-Id", pickOf(g, requestIDs)})
				g.note("odd X-Request-Id")
			case 4:
				rq.chunked = true
				g.note("chunked body")
			case 5:
				rq.header = append(rq.header, [2]string{"Content-Type", pickOf(g, contentTypes)})
				g.note("two Content-Types")
			case 6:
				rq.header = append(rq.header, [2]string{"X-Forwarded-For", pickOf(g, []string{"1.2.3.4", "garbage", "[::1]:80", "\xff", "1.2.3.4, 5.6.7.8", strings.Repeat("1.1.1.1,", 1000)})})
				g.note("X-Forwarded-For")
			default:
				rq.header = append(rq.header, [2]string{pickOf(g, []string{"Idempotency-Key", "If-Match", "Accept-Encoding", "Accept-Language", "Range", "Expect"}),
					pickOf(g, []string{"x", strings.Repeat("k", 201), "\xff", "*", "bytes=0-1", "100-continue", "gzip, br", ""})})
				g.note("odd extra header")
			}
		}
	}
	if rq.hasBody && contentType != "" {
		rq.header = append([][2]string{{"Content-Type", contentType}}, rq.header...)
	}
	return rq
}

// costly is the one request that sends a zero with a huge exponent
// (0e40000000) in a decimal property: the bounds let a zero through whatever
// its exponent, and a server that scales it spends tens of seconds of CPU on
// it, which no deadline interrupts. As a runaway goroutine cannot be stopped,
// it is sent once per test process, as the last request of the last
// database, so that it slows nothing else; the property is chosen by the seed.
func (f *fuzzer) costly() *request {
	type target struct {
		op   *operation
		prop string
	}
	var targets []target
	for _, op := range f.spec.ops {
		if op.Body == nil || op.pathParam() != nil {
			continue
		}
		props := obj(f.spec.resolve(op.Body)["properties"])
		for _, k := range sortedKeys(props) {
			if p := f.spec.resolve(props[k]); schemaType(p) == "number" {
				targets = append(targets, target{op, k})
			}
		}
	}
	if len(targets) == 0 {
		return nil
	}
	i := *countFlag
	g := &gen{spec: f.spec, pools: f.pools, r: rand.New(rand.NewPCG(f.seed, uint64(i)))}
	tg := targets[g.pick(len(targets))]
	g.collection = tg.op.collection
	o, _ := g.valid(tg.op.Body, "", 0).(*object)
	o.set(tg.prop, rawJSON(costlyZero))
	g.note("%s: number %s", tg.prop, costlyZero)
	return &request{index: i, op: tg.op.String(), method: tg.op.Method, target: f.spec.base + tg.op.Path,
		header: [][2]string{{"Content-Type", "application/json"}, {"Authorization", "Bearer {main}"}},
		body:   encoded(o), hasBody: true, notes: g.notes}
}

func pickWeighted(g *gen, w map[string]float64) string {
	keys := sortedKeys(anyMap(w))
	total := 0.0
	for _, k := range keys {
		total += w[k]
	}
	x := g.r.Float64() * total
	for _, k := range keys {
		if x -= w[k]; x < 0 {
			return k
		}
	}
	return keys[len(keys)-1]
}

// auth sets the key: mostly the main one, a share of the others, and when
// hostile a malformed, missing or misplaced one.
func (f *fuzzer) auth(g *gen, rq *request, hostile bool) {
	if !hostile {
		label := pickWeighted(g, map[string]float64{"main": 74, "mainlive": 6, "other": 8, "noscope": 5, "readonly": 4, "lapsed": 3})
		rq.header = append(rq.header, [2]string{"Authorization", "Bearer {" + label + "}"})
		if label != "main" {
			g.note("key %s", label)
		}
		return
	}
	values := [][]string{
		nil, {""}, {"Bearer"}, {"Bearer "}, {"bearer {main}"}, {"BEARER {main}"}, {"Bearer  {main}"},
		{"Bearer {main} "}, {"Bearer {main}x"}, {"Bearer {main}\xff"}, {"Basic dXNlcjpwYXNz"}, {"Token {main}"},
		{"Bearer key_live_"}, {"Bearer key_test_" + strings.Repeat("b", 10000)}, {"Bearer key_live_%00"},
		{"{main}"}, {"Bearer key_prod_abc"}, {"Bearer \xff\xfe"}, {"Bearer key_live_" + strings.Repeat("é", 40)},
		{"Bearer {main}", "Bearer {other}"}, {"Bearer bad", "Bearer {main}"}, {"Bearer\t{main}"},
	}
	i := g.pick(len(values) + 1)
	if i == len(values) {
		sep := "?"
		if strings.Contains(rq.target, "?") {
			sep = "&"
		}
		rq.target += sep + "api_key={main}"
		g.note("key in the query")
		return
	}
	for _, v := range values[i] {
		rq.header = append(rq.header, [2]string{"Authorization", v})
	}
	g.note("Authorization %.30q", values[i])
}

var unknownPaths = []string{"/v1/tagz", "/v1/", "/v1", "/", "/v2/tags", "/v1/tags/1/extra", "/v1//tags", "/v1/tags/",
	"/v1/%00", "/v1/%FF", "/v1/tags%2F1", "/v1/TAGS", "/v1/tags/..", "/v1/./tags", "/v1/tags;x", "/v1/openapi.json/x",
	"/v1/openapi.json%00", "/favicon.ico", "/v1/organization/1", "/v1/" + strings.Repeat("b", 10000), "/%2e%2e/v1/tags",
	"/v1/tags/%2e%2e/organization", "/v1/tags//1", "/v1/tags/1/", "/v1/openapi.json?x=%00", "/v1/%C3%28"}

// offSpec is a request for no operation: another method on a described
// path, or a path the description does not have.
func (f *fuzzer) offSpec(g *gen, rq *request) {
	rq.header = append(rq.header, [2]string{"Authorization", "Bearer {main}"})
	if g.chance(0.5) {
		op := pickOf(g, f.spec.ops)
		path := op.Path
		if p := op.pathParam(); p != nil {
			path = strings.ReplaceAll(path, "{"+p.Name+"}", g.pathValue(op, false))
		}
		rq.method = pickOf(g, []string{"PUT", "OPTIONS", "PATCH", "POST", "DELETE", "GET", "get", "PROPFIND", "TRACE", "QUERY"})
		rq.op = "(off-spec) " + rq.method + " " + op.Path
		rq.target = f.spec.base + path
	} else {
		rq.method = pickOf(g, []string{"GET", "POST", "DELETE"})
		rq.target = pickOf(g, unknownPaths)
		rq.op = "(off-spec) " + rq.method + " " + rq.target
		if len(rq.op) > 60 {
			rq.op = rq.op[:60] + "…"
		}
	}
	if rq.method != "GET" && g.chance(0.5) {
		rq.hasBody = true
		rq.body = []byte(`{"name":"x"}`)
		rq.header = append(rq.header, [2]string{"Content-Type", "application/json"})
	}
	g.note("off-spec")
}

// ---- sending and checking -----------------------------------------------

// answer is what the server said.
type answer struct {
	status int
	header http.Header
	body   []byte
	panic  any
}

// send serves the request in-process and checks the answer. A request the
// server does not answer within its request timeout plus a wide margin is a
// failure of its own (docs/api-behaviour.md, "Time limits": a request never outlives the timeout by more
// than a second); its goroutine is left behind, as a server would leave it.
func (f *fuzzer) send(rq *request) (*answer, error) {
	r, err := f.httpRequest(rq)
	if err != nil {
		return nil, err
	}
	rec := httptest.NewRecorder()
	a := &answer{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() { a.panic = recover() }()
		f.srv.ServeHTTP(rec, r)
	}()
	f.sent.Add(1)
	select {
	case <-done:
	case <-time.After(watchdog):
		f.mu.Lock()
		f.statuses[0]++
		f.mu.Unlock()
		f.record(&failure{kind: "hang", op: rq.op, rq: rq,
			detail:  fmt.Sprintf("no answer within %v (request timeout %v)", watchdog, requestTimeout),
			excerpt: "(none)"})
		return &answer{header: http.Header{}}, nil
	}
	a.status, a.header, a.body = rec.Code, rec.Result().Header, rec.Body.Bytes()
	// A compressed answer is read as a client reads it; it must be one the
	// request accepted, and valid gzip.
	if a.header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(bytes.NewReader(a.body))
		if err == nil {
			a.body, err = io.ReadAll(zr)
		}
		switch {
		case err != nil:
			f.record(&failure{kind: "gzip", op: rq.op, rq: rq, detail: "Content-Encoding gzip, body is not gzip: " + err.Error(), excerpt: "(binary)"})
		case !strings.Contains(strings.ToLower(r.Header.Get("Accept-Encoding")), "gzip"):
			f.record(&failure{kind: "gzip", op: rq.op, rq: rq, detail: "gzip sent to a request that did not accept it", excerpt: "(binary)"})
		}
	}
	f.mu.Lock()
	f.statuses[a.status]++
	if a.status/100 == 2 {
		f.success[rq.op]++
	}
	if f.byOp[rq.op] == nil {
		f.byOp[rq.op] = map[int]int{}
	}
	f.byOp[rq.op][a.status]++
	f.mu.Unlock()
	f.check(rq, a)
	return a, nil
}

// leakWords are what no answer may say unless the request said it first:
// SQL, database driver and Go runtime or decoder wording. Each was checked
// against the real answers (seeded data included); a word a legitimate
// message or field could contain is left out.
var leakWords = []string{
	"sql", "pq:", "constraint", "syntax error", "violates", "duplicate key", "relation ", "column ",
	"panic", "runtime error", "goroutine", "nil pointer", ".go:", "context deadline", "context canceled",
	"unexpected eof", "unexpected byte", "decode field", "ogen-go", "ogenerrors", "go-faster", "jx.",
	"strconv.", "invalid character", "*ent.", "larder.dev/larder", "github.com/", "database", "deadlock",
	"transaction", "driver", "stack trace", "[]uint8", "interface {}", "map[", "errors.errorstring",
	"sqlstate", "no rows in result set",
}

// goPointer is a Go heap address as %p or %v print it.
var goPointer = regexp.MustCompile(`(?i)\b0xc[0-9a-f]{9}\b`)

// requestIDField is the generated request id of a problem, which is random
// text that may spell anything.
var requestIDField = regexp.MustCompile(`"request_id":"[^"]*"`)

var entPrefix = regexp.MustCompile(`(?i)(^|[^a-z])ent: `)

// leak names the first internal word of body the request did not contain,
// and where it is.
func leak(body []byte, sent string) (string, int) {
	lower := strings.ToLower(string(body))
	for _, w := range leakWords {
		if i := strings.Index(lower, w); i >= 0 && !strings.Contains(sent, w) {
			return w, i
		}
	}
	if loc := entPrefix.FindStringIndex(lower); loc != nil && !strings.Contains(sent, "ent: ") {
		return "ent: ", loc[0]
	}
	if loc := goPointer.FindStringIndex(lower); loc != nil && !strings.Contains(sent, lower[loc[0]:loc[1]]) {
		return lower[loc[0]:loc[1]], loc[0]
	}
	return "", -1
}

// withoutOwnNames removes the organization names the test chose (dbtest
// names them after the test, "TestFuzzAPI/sqlite"), which /organization
// serves back, and the random request ids.
func (f *fuzzer) withoutOwnNames(body []byte) []byte {
	name, _ := json.Marshal(f.t.Name())
	body = bytes.ReplaceAll(body, name, []byte(`"…"`))
	return requestIDField.ReplaceAll(body, []byte(`"request_id":"…"`))
}

// sentText is everything the request said, lower-cased, escaped and not.
func (f *fuzzer) sentText(rq *request) string {
	var b strings.Builder
	b.WriteString(rq.target + "\n")
	if u, err := url.PathUnescape(rq.target); err == nil {
		b.WriteString(u + "\n")
	}
	if u, err := url.QueryUnescape(rq.target); err == nil {
		b.WriteString(u + "\n")
	}
	for _, h := range rq.header {
		b.WriteString(h[0] + ": " + h[1] + "\n")
	}
	b.Write(rq.body)
	return strings.ToLower(b.String())
}

// check records what is wrong with an answer.
func (f *fuzzer) check(rq *request, a *answer) {
	excerpt := a.body
	if len(excerpt) > 300 {
		excerpt = excerpt[:300]
	}
	fail := func(kind, detail string) {
		f.record(&failure{kind: kind, detail: detail, status: a.status, op: rq.op, excerpt: string(excerpt), rq: rq,
			requestID: a.header.Get("X-Request-Id")})
	}
	if a.panic != nil {
		fail("panic", fmt.Sprint(a.panic))
		return
	}
	validJSON := json.Valid(a.body) && utf8.Valid(a.body)
	switch {
	case a.status >= 500:
		fail("5xx", "")
	case a.status >= 400:
		ct, _, err := mime.ParseMediaType(a.header.Get("Content-Type"))
		if err != nil || ct != "application/problem+json" {
			fail("problem", fmt.Sprintf("Content-Type %q", a.header.Get("Content-Type")))
			break
		}
		var p map[string]any
		if !validJSON || json.Unmarshal(a.body, &p) != nil || p == nil {
			fail("problem", "body is not a JSON object")
			break
		}
		var missing []string
		for _, k := range f.spec.problemRequired {
			if _, ok := p[k]; !ok {
				missing = append(missing, k)
			}
		}
		code, _ := p["code"].(string)
		rid, _ := p["request_id"].(string)
		if *detailsFlag {
			f.noteDetails(p)
		}
		switch {
		case len(missing) > 0:
			fail("problem", "lacks "+strings.Join(missing, ", "))
		case code == "":
			fail("problem", "empty code")
		case rid == "" || rid != a.header.Get("X-Request-Id"):
			fail("problem", "request_id differs from X-Request-Id")
		case p["status"] != float64(a.status):
			fail("problem", fmt.Sprintf("status %v in the body", p["status"]))
		}
	case a.status >= 200 && a.status < 300:
	case a.status == 302 && (rq.target == "/" || rq.target == "/v1") && (rq.method == "GET" || rq.method == "HEAD"):
		// The browser's ways to the docs page (docs/integrators.md, "The API").
		if a.header.Get("Location") != "/docs" {
			fail("status", "302 to "+a.header.Get("Location")+", not the docs page")
		}
		return // a redirect's body is for people, not JSON
	default:
		excerpt = append([]byte("Location: "+a.header.Get("Location")+"; "), excerpt...)
		fail("status", fmt.Sprintf("neither 2xx nor an error; Content-Type %q, valid JSON %v", a.header.Get("Content-Type"), validJSON))
		return
	}
	if a.status != http.StatusNoContent && !validJSON {
		fail("json", "body is not valid JSON")
	}
	// The published description is a static document with its own test.
	if !strings.HasSuffix(rq.op, " /openapi.json") || a.status != 200 {
		body := f.withoutOwnNames(a.body)
		if w, i := leak(body, f.sentText(rq)); w != "" {
			excerpt = body[max(0, i-150):min(len(body), i+150)]
			fail("leak", fmt.Sprintf("says %q", w))
		}
	}
}

var quotedText = regexp.MustCompile(`"(?:[^"\\]|\\.)*"|\d+`)

// noteDetails counts the texts of a problem, quoted values and numbers
// folded, for -apifuzz.details.
func (f *fuzzer) noteDetails(p map[string]any) {
	texts := []string{fmt.Sprint(p["code"], ": ", p["detail"])}
	for _, e := range list(p["errors"]) {
		texts = append(texts, fmt.Sprint("  field ", obj(e)["field"], ": ", obj(e)["message"]))
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, t := range texts {
		f.details[quotedText.ReplaceAllString(t, "…")]++
	}
}

// failure is one kind of wrong answer, with its smallest example.
type failure struct {
	kind, detail, op string
	status           int
	excerpt          string
	rq               *request
	requestID        string
	count            int
}

func (f *failure) key() string {
	if f.kind == "status" {
		// One cause (the router's redirects) for every path: one entry per
		// method is enough.
		return fmt.Sprintf("%s|%s|%d|%s", f.kind, f.rq.method, f.status, f.detail)
	}
	return fmt.Sprintf("%s|%s|%d|%s", f.kind, f.op, f.status, f.detail)
}

func (rq *request) size() int {
	n := len(rq.target) + len(rq.body)
	for _, h := range rq.header {
		n += len(h[1])
	}
	return n
}

func (f *fuzzer) record(x *failure) {
	if x.kind == "5xx" || x.kind == "panic" {
		x.detail = f.signature(x.requestID)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	k := x.key()
	old := f.failures[k]
	if old == nil {
		x.count = 1
		f.failures[k] = x
		return
	}
	old.count++
	// Keep the smallest example, the lower index on a tie, so the report
	// does not depend on the goroutines' timing.
	if s, os := x.rq.size(), old.rq.size(); s < os || (s == os && x.rq.index < old.rq.index) {
		x.count = old.count
		f.failures[k] = x
	}
}

var (
	logError = regexp.MustCompile(`(?:error|panic)=("(?:[^"\\]|\\.)*"|\S+)`)
	digits   = regexp.MustCompile(`[0-9]+`)
	quoted   = regexp.MustCompile(`\\"[^"]*\\"`)
)

// signature is the server's logged error for a request, without its
// numbers and quoted values, so that one cause makes one failure kind.
func (f *fuzzer) signature(requestID string) string {
	for _, line := range f.logLines(requestID) {
		if m := logError.FindStringSubmatch(line); m != nil {
			s := quoted.ReplaceAllString(digits.ReplaceAllString(m[1], "#"), `\"…\"`)
			if len(s) > 120 {
				s = s[:120]
			}
			return s
		}
	}
	return ""
}

func (f *fuzzer) logLines(requestID string) []string {
	if requestID == "" {
		return nil
	}
	var out []string
	for _, line := range strings.Split(f.logs.String(), "\n") {
		if strings.Contains(line, requestID) {
			out = append(out, line)
		}
	}
	return out
}

// ---- the run ------------------------------------------------------------

func (f *fuzzer) run() {
	t := f.t
	start := time.Now()
	f.setup()
	setupDone := time.Now()
	setupSent := f.sent.Load()

	n := *countFlag
	workers := *workersFlag
	if workers <= 0 {
		workers = max(8, 4*runtime.GOMAXPROCS(0))
	}
	var next atomic.Int64
	var unsendable atomic.Int64
	var stopped atomic.Bool
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				if time.Since(start) > *budgetFlag {
					stopped.Store(true)
					return
				}
				rq := f.generate(i)
				if _, err := f.send(rq); err != nil {
					unsendable.Add(1)
					f.record(&failure{kind: "harness", detail: err.Error(), op: rq.op, rq: rq})
				}
			}
		}()
	}
	wg.Wait()
	if f.probeCostly && !stopped.Load() {
		if rq := f.costly(); rq != nil {
			if _, err := f.send(rq); err != nil {
				f.record(&failure{kind: "harness", detail: err.Error(), op: rq.op, rq: rq})
			}
		}
	}
	end := time.Now()

	fuzzed := f.sent.Load() - setupSent
	t.Logf("seed %d: %d requests (%d setup + %d fuzz) in %v (setup %v, fuzz %v, %.0f requests/s, %d senders)",
		f.seed, f.sent.Load(), setupSent, fuzzed, end.Sub(start).Round(time.Millisecond),
		setupDone.Sub(start).Round(time.Millisecond), end.Sub(setupDone).Round(time.Millisecond),
		float64(fuzzed)/end.Sub(setupDone).Seconds(), workers)
	if stopped.Load() {
		t.Logf("WARNING: stopped by -apifuzz.budget=%v before %d requests", *budgetFlag, n)
	}
	f.summary()
	if unsendable.Load() > 0 {
		t.Errorf("harness: %d requests could not be built as a Go client would send them", unsendable.Load())
	}
	if len(f.failures) > 0 {
		t.Error(f.report())
	}
}

// summary logs the answers by status and the operations that never succeeded.
func (f *fuzzer) summary() {
	var codes []int
	for c := range f.statuses {
		codes = append(codes, c)
	}
	slices.Sort(codes)
	var parts []string
	for _, c := range codes {
		parts = append(parts, fmt.Sprintf("%d×%d", c, f.statuses[c]))
	}
	f.t.Logf("answers by status: %s", strings.Join(parts, " "))
	var never []string
	for _, op := range f.spec.ops {
		if f.success[op.String()] == 0 {
			never = append(never, op.String())
		}
	}
	if *statsFlag {
		for _, op := range f.spec.ops {
			var parts []string
			for _, c := range sortedKeys(anyMap(intKeys(f.byOp[op.String()]))) {
				n, _ := strconv.Atoi(c)
				parts = append(parts, fmt.Sprintf("%s×%d", c, f.byOp[op.String()][n]))
			}
			f.t.Logf("  %-40s %s", op, strings.Join(parts, " "))
		}
	}
	if *detailsFlag {
		for _, d := range sortedKeys(anyMap(f.details)) {
			f.t.Logf("detail ×%d %.200q", f.details[d], d)
		}
	}
	if len(never) > 0 {
		f.t.Logf("operations without a single 2xx: %s", strings.Join(never, "; "))
	}
	if lines := strings.Count(f.logs.String(), "\n"); lines > 0 {
		f.t.Logf("server log: %d warning or error lines", lines)
	}
}

// report lists the distinct failures, each with its smallest example.
func (f *fuzzer) report() string {
	list := make([]*failure, 0, len(f.failures))
	total := 0
	for _, x := range f.failures {
		list = append(list, x)
		total += x.count
	}
	slices.SortFunc(list, func(a, b *failure) int { return strings.Compare(a.key(), b.key()) })
	var b strings.Builder
	fmt.Fprintf(&b, "%d distinct failures (%d failing answers), seed %d:\n", len(list), total, f.seed)
	for i, x := range list {
		if i == maxReported {
			fmt.Fprintf(&b, "… and %d more kinds\n", len(list)-maxReported)
			break
		}
		fmt.Fprintf(&b, "\n[%d] %s — %s, status %d, %d times", i+1, x.op, x.kind, x.status, x.count)
		if x.detail != "" {
			fmt.Fprintf(&b, ": %s", x.detail)
		}
		fmt.Fprintf(&b, "\n    answer: %q\n    request #%d (%s):\n", x.excerpt, x.rq.index, strings.Join(x.rq.notes, "; "))
		b.WriteString(indent(x.rq.replay(), "      "))
		for _, line := range f.logLines(x.requestID) {
			if len(line) > 600 {
				line = line[:600] + "…"
			}
			fmt.Fprintf(&b, "    log: %s\n", line)
		}
	}
	b.WriteString("\nkeys: ")
	for _, k := range sortedKeys(anyMap(keyLegend)) {
		fmt.Fprintf(&b, "{%s} %s; ", k, keyLegend[k])
	}
	return b.String()
}

// replay writes the request exactly, long runs folded as Go expressions.
func (rq *request) replay() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s\n", rq.method, goString([]byte(rq.target)))
	for _, h := range rq.header {
		fmt.Fprintf(&b, "%s: %s\n", h[0], goString([]byte(h[1])))
	}
	if rq.chunked && rq.hasBody {
		b.WriteString("(body sent chunked, without Content-Length)\n")
	}
	if rq.hasBody {
		fmt.Fprintf(&b, "body (%d bytes): %s\n", len(rq.body), goString(rq.body))
	}
	return b.String()
}

// goString is a Go expression of s: quoted, with runs of a repeated unit of
// up to 12 bytes folded into strings.Repeat.
func goString(s []byte) string {
	var parts []string
	lit := 0
	flush := func(i int) {
		if i > lit {
			parts = append(parts, strconv.Quote(string(s[lit:i])))
		}
	}
	for i := 0; i < len(s); {
		best, bestUnit := 0, 0
		for unit := 1; unit <= 12 && i+unit <= len(s); unit++ {
			reps := 1
			for i+(reps+1)*unit <= len(s) && bytes.Equal(s[i+reps*unit:i+(reps+1)*unit], s[i:i+unit]) {
				reps++
			}
			if reps >= 8 && reps*unit >= 40 && reps*unit > best*bestUnit {
				best, bestUnit = reps, unit
			}
		}
		if best == 0 {
			i++
			continue
		}
		flush(i)
		parts = append(parts, fmt.Sprintf("strings.Repeat(%s, %d)", strconv.Quote(string(s[i:i+bestUnit])), best))
		i += best * bestUnit
		lit = i
	}
	flush(len(s))
	if len(parts) == 0 {
		return `""`
	}
	return strings.Join(parts, " + ")
}

func indent(s, prefix string) string {
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimSuffix(s, "\n"), "\n") {
		b.WriteString(prefix + line + "\n")
	}
	return b.String()
}

// ---- setup --------------------------------------------------------------

// setup reads the served description, lists the rows of every collection and
// creates rows through the API for the main key and another organization.
func (f *fuzzer) setup() {
	t := f.t
	rq := &request{index: -1, op: "GET /openapi.json", method: "GET", target: "/v1/openapi.json"}
	a, err := f.send(rq)
	if err != nil || a.status != 200 {
		t.Fatalf("GET /v1/openapi.json: %v %v", err, a)
	}
	if f.spec, err = loadSpec(a.body); err != nil {
		t.Fatalf("the served description: %v", err)
	}
	do := func(method, target, key string, body []byte) *answer {
		rq := &request{index: -1, op: "(setup) " + method + " " + target, method: method, target: target,
			header: [][2]string{{"Authorization", "Bearer {" + key + "}"}}}
		if body != nil {
			rq.hasBody, rq.body = true, body
			rq.header = append(rq.header, [2]string{"Content-Type", "application/json"})
		}
		a, err := f.send(rq)
		if err != nil {
			t.Fatalf("setup %s %s: %v", method, target, err)
		}
		return a
	}
	rows := func(a *answer) []map[string]any {
		var out struct {
			Data json.RawMessage `json:"data"`
		}
		if a.status/100 != 2 || json.Unmarshal(a.body, &out) != nil {
			return nil
		}
		var list []map[string]any
		if json.Unmarshal(out.Data, &list) == nil {
			return list
		}
		var one map[string]any
		if json.Unmarshal(out.Data, &one) == nil && one != nil {
			return []map[string]any{one}
		}
		return nil
	}
	id := func(row map[string]any) (int64, bool) {
		f, ok := row["id"].(float64)
		return int64(f), ok
	}

	// Rows the main key can see, from every list (each value of a required
	// enum parameter, the largest page): shared and read-only rows apart, the
	// account's own may be deleted.
	for _, op := range f.spec.ops {
		if op.Method != "GET" || op.pathParam() != nil || !op.Secured || !f.hasItemPath(op.Path) {
			continue
		}
		queries := []string{""}
		for _, p := range op.queryParams() {
			switch {
			case p.Name == "limit":
				for i := range queries {
					queries[i] += "&limit=" + strconv.Itoa(intOf(p.Schema["maximum"], 50))
				}
			case p.Required:
				var next []string
				for _, q := range queries {
					for _, v := range list(f.spec.resolve(p.Schema)["enum"]) {
						next = append(next, q+"&"+p.Name+"="+url.QueryEscape(str(v)))
					}
				}
				queries = next
			}
		}
		for _, q := range queries {
			for _, row := range rows(do("GET", f.spec.base+op.Path+"?"+strings.TrimPrefix(q, "&"), "main", nil)) {
				n, ok := id(row)
				if !ok {
					continue
				}
				f.pools.row(op.Path, row)
				if row["is_global"] == true || row["read_only"] == true {
					f.pools.add(f.pools.shared, op.Path, n)
				} else {
					f.pools.add(f.pools.victims, op.Path, n)
				}
			}
		}
	}
	// Rows created through the API: most stay for GET and PATCH, some may be
	// deleted; another organization's rows are the foreign ids.
	g := &gen{spec: f.spec, pools: f.pools, r: rand.New(rand.NewPCG(f.seed, 1<<62))}
	for _, op := range f.spec.ops {
		if op.Method != "POST" || op.Body == nil || op.pathParam() != nil {
			continue
		}
		g.collection = op.collection
		created, last := 0, ""
		for try := 0; try < 60 && created < 30; try++ {
			a := do("POST", f.spec.base+op.Path, "main", encoded(g.valid(op.Body, "", 0)))
			for _, row := range rows(a) {
				if n, ok := id(row); ok {
					if created%3 == 0 {
						f.pools.add(f.pools.keep, op.collection, n)
					} else {
						f.pools.add(f.pools.victims, op.collection, n)
					}
					created++
				}
			}
			if a.status/100 != 2 {
				last = fmt.Sprintf("%d %s", a.status, a.body)
			}
		}
		foreign := 0
		for try := 0; try < 6 && foreign < 3; try++ {
			for _, row := range rows(do("POST", f.spec.base+op.Path, "other", encoded(g.valid(op.Body, "", 0)))) {
				if n, ok := id(row); ok {
					f.pools.add(f.pools.foreign, op.collection, n)
					foreign++
				}
			}
		}
		if created == 0 || foreign == 0 {
			t.Logf("setup: %s created %d rows for the main key and %d for another organization; last refusal: %.300s",
				op, created, foreign, last)
		}
	}
	var counts []string
	for _, c := range f.pools.collections() {
		counts = append(counts, fmt.Sprintf("%s %d+%d+%d+%d", c, len(f.pools.keep[c]), len(f.pools.victims[c]),
			len(f.pools.shared[c]), len(f.pools.foreign[c])))
	}
	t.Logf("%d operations in the description; ids (kept+deletable+shared+foreign): %s", len(f.spec.ops), strings.Join(counts, ", "))
}

// hasItemPath reports whether a collection path has an item path (/x/{id}).
func (f *fuzzer) hasItemPath(collection string) bool {
	for _, op := range f.spec.ops {
		if op.collection == collection && op.pathParam() != nil {
			return true
		}
	}
	return false
}

// checkOwnStrings makes sure the harness's own hostile strings cannot trip
// the leak check when a later answer serves them back.
func checkOwnStrings() error {
	var all []string
	for _, l := range [][]string{nastyStrings, nastyNumbers, wrongTypes, unknownKeys, oddPathValues,
		oddQueryValues, oddSorts, oddInts, oddTimes, oddBools, oddParamNames, contentTypes, accepts, requestIDs,
		unknownPaths, validTimes, decimals} {
		all = append(all, l...)
	}
	all = append(all, string(safeRunes))
	for _, s := range all {
		if w, _ := leak([]byte(s), ""); w != "" {
			return fmt.Errorf("the fuzzer's own string %.60q contains %q", s, w)
		}
	}
	return nil
}

// lockedBuffer is a log sink shared by the server's goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func intKeys(m map[int]int) map[string]int {
	out := map[string]int{}
	for k, v := range m {
		out[strconv.Itoa(k)] = v
	}
	return out
}
