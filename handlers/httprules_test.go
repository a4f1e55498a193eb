package handlers_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"larder.dev/larder/handlers"
	"larder.dev/larder/internal/identity/auth"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/reqlog"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/openapi"
	"larder.dev/larder/policy"
)

// route is one operation of the API description: its method in upper case
// and its path under /v1, path parameters filled in.
type route struct{ method, path string }

// described are the paths of the served description (openapi.Document), each
// with its methods in upper case, sorted; its parameters filled with an id
// that no account holds, so that nothing in the sample changes a row.
func described(t *testing.T) map[string][]string {
	t.Helper()
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(openapi.Document, &doc); err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for p, item := range doc.Paths {
		for m := range item {
			switch m {
			case "get", "post", "patch", "put", "delete":
				full := "/v1" + pathParam.ReplaceAllString(p, "987654321")
				out[full] = append(out[full], strings.ToUpper(m))
			}
		}
	}
	if len(out) < 20 {
		t.Fatalf("the description has %d paths", len(out))
	}
	for _, ms := range out {
		sort.Strings(ms)
	}
	return out
}

// routes are every operation of the description, in a fixed order.
func routes(t *testing.T) []route {
	var out []route
	for p, ms := range described(t) {
		for _, m := range ms {
			out = append(out, route{m, p})
		}
	}
	slices.SortFunc(out, func(a, b route) int { return strings.Compare(a.path+" "+a.method, b.path+" "+b.method) })
	return out
}

// challenges are the WWW-Authenticate values of a 401 (RFC 9110, section
// 11.6.1; RFC 6750, section 3).
const (
	challengeRealm   = `Bearer realm="larder"`
	challengeInvalid = `Bearer realm="larder", error="invalid_token"`
)

// A 401 carries a bearer challenge with the realm, and error="invalid_token"
// when the request presented a bearer token; a request without one (no
// Authorization, or another scheme) gets the realm alone. On every way a key
// is refused: never read, unknown, malformed, and revoked after the server
// took it on trust (the fast path's fresh read), on reads and writes.
func TestUnauthorizedCarriesBearerChallenge(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		cases := []struct {
			name, method, path, auth string
			want                     string
		}{
			{"no key", "GET", "/v1/tags?ref_type=PRODUCT", "", challengeRealm},
			{"no key on a write", "POST", "/v1/tags", "", challengeRealm},
			{"another scheme", "GET", "/v1/organization", "Basic dXNlcjpwYXNz", challengeRealm},
			{"a bearer without a token", "GET", "/v1/organization", "Bearer ", challengeRealm},
			{"an unknown key", "GET", "/v1/organization", "Bearer key_live_" + strings.Repeat("Z", 43), challengeInvalid},
			{"a malformed key", "GET", "/v1/organization", "Bearer nope", challengeInvalid},
			{"an unknown key on a write", "POST", "/v1/tags", "bearer key_test_" + strings.Repeat("Z", 43), challengeInvalid},
		}
		for _, tc := range cases {
			a.run(t, tc.name, func(t *testing.T, a *api) {
				var body any
				if tc.method == "POST" {
					body = map[string]any{"name": "x", "ref_type": "PRODUCT"}
				}
				r := a.do(tc.method, tc.path, "", body, "Authorization", tc.auth)
				r.problem(401, "INVALID_API_KEY")
				if got := r.Header.Values("WWW-Authenticate"); len(got) != 1 || got[0] != tc.want {
					t.Fatalf("WWW-Authenticate %q, want %q", got, tc.want)
				}
			})
		}
		a.run(t, "a key revoked after it was served", func(t *testing.T, a *api) {
			key, id := a.newKey(policy.Live, "all")
			a.do("GET", "/v1/organization", key, nil).want(200)
			a.do("GET", "/v1/organization", key, nil).want(200) // taken on trust, on the fast path
			if _, err := auth.RevokeKey(context.Background(), a.st.Client, a.org.Org.ID, id, time.Now()); err != nil {
				t.Fatal(err)
			}
			for _, m := range []string{"GET", "HEAD", "POST"} {
				var body any
				if m == "POST" {
					body = map[string]any{"name": "x", "ref_type": "PRODUCT"}
				}
				r := a.do(m, "/v1/tags?ref_type=PRODUCT", key, body)
				if r.Status != 401 || r.Header.Get("WWW-Authenticate") != challengeInvalid {
					t.Errorf("%s with a revoked key: %d, WWW-Authenticate %q", m, r.Status, r.Header.Get("WWW-Authenticate"))
				}
			}
		})
		a.run(t, "no other status carries a challenge", func(t *testing.T, a *api) {
			for _, r := range []*response{a.get("/v1/organization"), a.get("/v1/tags/987654321"), a.do("GET", "/v1/nowhere", "", nil)} {
				if c := r.Header.Get("WWW-Authenticate"); c != "" {
					t.Errorf("%d carries WWW-Authenticate %q", r.Status, c)
				}
			}
		})
	})
}

// HEAD is answered on every GET of the description as the GET is: the same
// status and headers (Content-Type, Content-Length, Content-Encoding, ETag,
// Cache-Control, the rate limit's) and no body; it spends the rate limit as
// a GET does, and a matching If-None-Match makes it 304. A path GET does not
// read answers HEAD 405, as it answers GET.
func TestHeadAnswersAsGet(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		a.post("/v1/tags", map[string]any{"name": "head", "ref_type": "PRODUCT"}).want(201)
		paths := []string{"/v1/openapi.json"}
		for _, r := range routes(t) {
			if r.method == "GET" {
				paths = append(paths, r.path)
			}
		}
		// Ones that answer 200 with a body, beside the 404s of the unknown id.
		paths = append(paths, "/v1/tags?ref_type=PRODUCT", "/v1/allergens?limit=200", "/v1/organization")
		for _, p := range paths {
			for _, enc := range []string{"gzip", "identity"} {
				get := a.do("GET", p, a.key, nil, "Accept-Encoding", enc)
				head := a.do("HEAD", p, a.key, nil, "Accept-Encoding", enc)
				name := p + " (" + enc + ")"
				if head.Status != get.Status {
					t.Errorf("%s: HEAD %d, GET %d", name, head.Status, get.Status)
					continue
				}
				if len(head.Body) != 0 {
					t.Errorf("%s: HEAD sent a body of %d bytes", name, len(head.Body))
				}
				for _, h := range []string{"Content-Type", "Content-Length", "Content-Encoding", "ETag", "Cache-Control", "X-Ratelimit-Limit", "Allow", "X-Content-Type-Options"} {
					if head.Header.Get(h) != get.Header.Get(h) {
						t.Errorf("%s: %s: HEAD %q, GET %q", name, h, head.Header.Get(h), get.Header.Get(h))
					}
				}
				if get.Header.Get("Content-Length") == "" {
					t.Errorf("%s: GET %d without Content-Length", name, get.Status)
				}
				if !strings.HasPrefix(head.Header.Get("X-Request-Id"), "req_") || head.Header.Get("X-Request-Id") == get.Header.Get("X-Request-Id") {
					t.Errorf("%s: HEAD's X-Request-Id %q", name, head.Header.Get("X-Request-Id"))
				}
				if p != "/v1/openapi.json" {
					gr, _ := strconv.Atoi(get.Header.Get("X-Ratelimit-Remaining"))
					hr, err := strconv.Atoi(head.Header.Get("X-Ratelimit-Remaining"))
					if err != nil || hr >= gr {
						t.Errorf("%s: X-RateLimit-Remaining after GET %d, after HEAD %q: HEAD spent nothing", name, gr, head.Header.Get("X-Ratelimit-Remaining"))
					}
				}
			}
		}
		a.run(t, "a matching If-None-Match", func(t *testing.T, a *api) {
			tag := a.get("/v1/tags?ref_type=PRODUCT").want(200).Header.Get("ETag")
			r := a.do("HEAD", "/v1/tags?ref_type=PRODUCT", a.key, nil, "If-None-Match", tag).want(304)
			if r.Header.Get("ETag") != tag {
				t.Errorf("304 to HEAD with ETag %q, want %q", r.Header.Get("ETag"), tag)
			}
		})
		a.run(t, "a path GET does not read", func(t *testing.T, a *api) {
			r := a.do("HEAD", "/v1/purchase-orders/987654321/status", a.key, nil).want(405)
			if len(r.Body) != 0 || r.Header.Get("Allow") != "POST, OPTIONS" {
				t.Errorf("HEAD on a POST-only path: %d bytes, Allow %q", len(r.Body), r.Header.Get("Allow"))
			}
		})
	})
}

// A HEAD is counted as the GET it is answered as: the request log records it
// with the GET's operation (and its own method), the metrics under the GET's
// operation, the access log as a HEAD of no bytes.
func TestHeadIsCountedLikeGet(t *testing.T) {
	t.Parallel()
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		w := reqlog.NewWriter(st, nil, 0)
		a := newLoggedAPI(t, st, w)
		head := a.do("HEAD", "/v1/tags?ref_type=PRODUCT", a.key, nil).want(200)
		refused := a.do("HEAD", "/v1/tags?ref_type=PRODUCT", "key_live_"+strings.Repeat("Z", 43), nil).want(401)
		w.Flush()
		r := logged(t, st, head)
		if r.Method != "HEAD" || r.Operation != "listTags" || r.Status != 200 || r.AccountID != a.org.Live.ID {
			t.Errorf("HEAD's row: %+v", r)
		}
		if r := logged(t, st, refused); r.Operation != "listTags" || r.Status != 401 {
			t.Errorf("refused HEAD's row: %+v", r)
		}

		a = newAPI(t, st)
		before := a.scrape()
		a.do("HEAD", "/v1/allergens", a.key, nil).want(200)
		a.do("HEAD", "/v1/allergens", a.key, nil).want(200)
		series := `larder_http_requests_total{method="HEAD",operation="listAllergens",status="200"}`
		if got := a.scrape()[series] - before[series]; got != 2 {
			t.Errorf("%s grew by %v, want 2", series, got)
		}
	})
}

// rawDo sends body with exactly the headers given (no Content-Type unless
// one of them), and the key.
func (a *api) rawDo(method, path, body string, headers ...string) *response {
	a.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, a.url+path, rd)
	if err != nil {
		a.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+a.key)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := noRedirects.Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return &response{t: a.t, Status: res.StatusCode, Header: res.Header, Body: b}
}

// A body of another media type than application/json is 415
// UNSUPPORTED_MEDIA_TYPE naming the accepted type, with Accept-Post or
// Accept-Patch; application/json with a charset parameter is accepted. A
// body without a Content-Type is 415 too (the server does not guess); a
// request without a body is the 400 of a missing body, whatever its
// Content-Type.
func TestBodyOfAnotherMediaTypeIs415(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		id := a.post("/v1/tags", map[string]any{"name": "typed", "ref_type": "PRODUCT"}).want(201).ID()
		item := path("/v1/tags", id)
		body := `{"name":"typed again","ref_type":"PRODUCT"}`
		for _, ct := range []string{"text/plain", "application/x-www-form-urlencoded", "application/xml", "application/merge-patch+json", "text/json", "application/json;;", ""} {
			for _, c := range []struct{ method, path, accept string }{{"POST", "/v1/tags", "Accept-Post"}, {"PATCH", item, "Accept-Patch"}} {
				a.run(t, c.method+" "+ct, func(t *testing.T, a *api) {
					var hs []string
					if ct != "" {
						hs = []string{"Content-Type", ct}
					}
					r := a.rawDo(c.method, c.path, body, hs...)
					p := r.problem(415, "UNSUPPORTED_MEDIA_TYPE")
					if p["type"] != "https://larder.dev/errors/unsupported_media_type" || p["title"] != "Unsupported media type" ||
						!strings.Contains(p["detail"].(string), "application/json") {
						t.Errorf("problem %s", r.Body)
					}
					if r.Header.Get(c.accept) != "application/json" {
						t.Errorf("%s %q, want application/json", c.accept, r.Header.Get(c.accept))
					}
				})
			}
		}
		a.rawDo("POST", "/v1/tags", `{"name":"charset","ref_type":"PRODUCT"}`, "Content-Type", "application/json; charset=utf-8").want(201)
		a.rawDo("PATCH", item, `{"description":"charset"}`, "Content-Type", "Application/JSON; charset=UTF-8").want(200)
		a.rawDo("POST", "/v1/tags", "").field(400, "VALIDATION_ERROR", "body")
		a.rawDo("POST", "/v1/tags", "", "Content-Type", "text/plain").field(400, "VALIDATION_ERROR", "body")
		if n := len(a.column("/v1/tags?ref_type=PRODUCT", "name")); n != 2 {
			t.Errorf("%d tags, want the two accepted", n)
		}
	})
}

// The API sends no Access-Control-* header on any answer: every operation of
// the description (with a cross-origin Origin), errors, and OPTIONS, which
// is 204 with Allow naming the path's methods, HEAD and OPTIONS included,
// for any path of the API, and 404 for a path it does not have. Every answer
// carries X-Content-Type-Options: nosniff.
func TestNoCrossOriginHeadersAndOptionsAllow(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		origin := []string{"Origin", "https://elsewhere.example", "Access-Control-Request-Method", "POST", "Access-Control-Request-Headers", "authorization, content-type"}
		var sample []*response
		check := func(name string, r *response) {
			t.Helper()
			sample = append(sample, r)
			for h := range r.Header {
				if strings.HasPrefix(strings.ToLower(h), "access-control-") {
					t.Errorf("%s: %d carries %s: %q", name, r.Status, h, r.Header.Get(h))
				}
			}
			if r.Header.Get("X-Content-Type-Options") != "nosniff" {
				t.Errorf("%s: %d without X-Content-Type-Options: nosniff", name, r.Status)
			}
		}
		for p, methods := range described(t) {
			r := a.do("OPTIONS", p, "", nil, origin...)
			check("OPTIONS "+p, r)
			want := strings.Join(methods, ", ")
			want = strings.Replace(want, "GET", "GET, HEAD", 1) + ", OPTIONS"
			if r.Status != 204 || r.Header.Get("Allow") != want || len(r.Body) != 0 {
				t.Errorf("OPTIONS %s: %d, Allow %q, want 204 and %q", p, r.Status, r.Header.Get("Allow"), want)
			}
		}
		for _, rt := range routes(t) {
			var body any
			if rt.method == "POST" || rt.method == "PATCH" {
				body = map[string]any{}
			}
			check(rt.method+" "+rt.path, a.do(rt.method, rt.path, a.key, body, origin...))
			check(rt.method+" "+rt.path+" without a key", a.do(rt.method, rt.path, "", body, origin...))
		}
		for _, c := range []struct {
			method, path string
			status       int
		}{
			{"OPTIONS", "/v1/openapi.json", 204},
			{"OPTIONS", "/v1/nowhere", 404},
			{"OPTIONS", "/v1/tags/987654321/nothing", 404},
			{"PUT", "/v1/tags", 405},
			{"GET", "/v1/nowhere", 404},
			{"GET", "/v1/openapi.json", 200},
			{"GET", "/v1/organization", 200},
			{"HEAD", "/v1/organization", 200},
			{"POST", "/v1/tags", 415},
		} {
			r := a.rawDo(c.method, c.path, "", origin...)
			if c.method == "POST" {
				r = a.rawDo("POST", c.path, "name=x", append(origin, "Content-Type", "text/plain")...)
			}
			check(c.method+" "+c.path, r)
			if r.Status != c.status {
				t.Errorf("%s %s: %d, want %d", c.method, c.path, r.Status, c.status)
			}
		}
		if r := a.do("OPTIONS", "/v1/openapi.json", "", nil); r.Header.Get("Allow") != "GET, HEAD, OPTIONS" {
			t.Errorf("OPTIONS of the description: Allow %q", r.Header.Get("Allow"))
		}
		if r := a.do("PUT", "/v1/tags", a.key, nil); r.Header.Get("Allow") != "GET, HEAD, POST, OPTIONS" {
			t.Errorf("405: Allow %q", r.Header.Get("Allow"))
		}
		if len(sample) < 100 {
			t.Fatalf("a sample of %d answers", len(sample))
		}
	})
}

// OPTIONS needs no key and spends no budget: it names methods, nothing of
// an account.
func TestOptionsSpendsNoBudget(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		before, _ := strconv.Atoi(a.get("/v1/organization").want(200).Header.Get("X-Ratelimit-Remaining"))
		for range 3 {
			if r := a.do("OPTIONS", "/v1/tags", a.key, nil); r.Status != 204 || r.Header.Get("X-Ratelimit-Remaining") != "" {
				t.Fatalf("OPTIONS with a key: %d, X-RateLimit-Remaining %q", r.Status, r.Header.Get("X-Ratelimit-Remaining"))
			}
		}
		after, _ := strconv.Atoi(a.get("/v1/organization").want(200).Header.Get("X-Ratelimit-Remaining"))
		if after != before-1 {
			t.Errorf("remaining %d, then %d after three OPTIONS and a GET; want %d", before, after, before-1)
		}
	})
}

// A caller's X-Request-Id reaches the access log and the request log cut to
// 200 bytes, without control or format characters, as valid UTF-8: a header
// of 100 KB, sent without a key, makes a line of ordinary length.
func TestCallerRequestIDIsBounded(t *testing.T) {
	t.Parallel()
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		var logs lockedBuffer
		w := reqlog.NewWriter(st, nil, 0)
		a := newLoggedAPI(t, st, w)
		logged0 := newAPILogging(t, st, &logs)
		long := strings.Repeat("r", 100<<10)
		for _, srv := range []*api{a, logged0} {
			srv.do("GET", "/v1/tags?ref_type=PRODUCT", "key_live_"+strings.Repeat("Z", 43), nil, "X-Request-Id", long).want(401)
		}
		odd := "a\tb\u0085c\u202ed\xffe"
		r := a.do("GET", "/v1/organization", a.key, nil, "X-Request-Id", odd).want(200)
		logged0.do("GET", "/v1/organization", logged0.key, nil, "X-Request-Id", odd).want(200)
		w.Flush()
		refused := a.do("GET", "/v1/tags?ref_type=PRODUCT", "key_live_"+strings.Repeat("Z", 43), nil, "X-Request-Id", long)
		w.Flush()
		if got := logged(t, st, refused).ClientRequestID; got != strings.Repeat("r", 200) {
			t.Errorf("request log keeps a client id of %d bytes, want 200", len(got))
		}
		if got := logged(t, st, r).ClientRequestID; got != "abcd\uFFFDe" {
			t.Errorf("request log keeps %q, want %q", got, "abcd\uFFFDe")
		}
		var lines int
		for _, line := range strings.Split(logs.String(), "\n") {
			if !strings.Contains(line, "msg=request ") {
				continue
			}
			lines++
			if len(line) > 1000 {
				t.Errorf("an access line of %d bytes", len(line))
			}
			if strings.Contains(line, "status=401") && !strings.HasSuffix(line, " client_request_id="+strings.Repeat("r", 200)) {
				t.Errorf("401 line: %.300s", line)
			}
			if strings.Contains(line, "status=200") && !strings.HasSuffix(line, " client_request_id=\"abcd\uFFFDe\"") {
				t.Errorf("200 line: %s", line)
			}
		}
		if lines < 2 {
			t.Fatalf("%d access lines:\n%s", lines, logs.String())
		}
	})
}

// Every answer carries X-Content-Type-Options: nosniff, whatever its status
// or route: operations, refusals, the description, health and the docs.
func TestEveryAnswerIsNosniff(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		for _, r := range []*response{
			a.get("/v1/organization").want(200),
			a.get("/v1/tags/987654321").want(404),
			a.do("GET", "/v1/organization", "", nil).want(401),
			a.do("GET", "/v1/openapi.json", "", nil).want(200),
			a.do("GET", handlers.LivePath, "", nil).want(200),
			a.do("GET", "/docs", "", nil).want(200),
			a.do("GET", "/nowhere", "", nil).want(404),
			a.do("OPTIONS", "/v1/tags", "", nil).want(204),
		} {
			if got := r.Header.Values("X-Content-Type-Options"); len(got) != 1 || got[0] != "nosniff" {
				t.Errorf("%d (%s): X-Content-Type-Options %q", r.Status, r.Header.Get("Content-Type"), got)
			}
		}
	})
}
