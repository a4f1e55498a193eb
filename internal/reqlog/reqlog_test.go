package reqlog_test

import (
	"context"
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"time"

	"larder.dev/larder/ent/apirequest"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/reqlog"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

func TestRedact(t *testing.T) {
	key := "key_test_" + strings.Repeat("a1B2", 10) + "xyz"
	for _, c := range []struct{ in, want string }{
		{`{"name":"plain"}`, `{"name":"plain"}`},
		{`{"notes":"use ` + key + ` here"}`, `{"notes":"use key_test_[redacted] here"}`},
		{`/v1/tags?x=key_live_abcDEF123`, `/v1/tags?x=key_live_[redacted]`},
		{`{"secret":"whsec_c2VjcmV0+/="}`, `{"secret":"[redacted]"}`},
		{`{"note":"whsec_c2VjcmV0"}`, `{"note":"whsec_[redacted]"}`},
		{`{"Password" : "a \"quoted\" one","name":"x"}`, `{"Password" : "[redacted]","name":"x"}`},
		{`{"client_secret":"s","token":"t","api_key":"k"}`, `{"client_secret":"[redacted]","token":"[redacted]","api_key":"[redacted]"}`},
		{`{"token_count":3}`, `{"token_count":3}`},
	} {
		if got := string(reqlog.Redact([]byte(c.in))); got != c.want {
			t.Errorf("Redact(%s) = %s, want %s", c.in, got, c.want)
		}
	}
}

func TestKeepsAndCut(t *testing.T) {
	for _, c := range []struct {
		method string
		status int
		want   bool
	}{{"GET", 200, false}, {"HEAD", 304, false}, {"GET", 400, true}, {"GET", 503, true}, {"POST", 201, true}, {"PATCH", 200, true}, {"DELETE", 204, true}} {
		if got := reqlog.Keeps(c.method, c.status); got != c.want {
			t.Errorf("Keeps(%s, %d) = %v", c.method, c.status, got)
		}
	}
	b, cut := reqlog.Cut(make([]byte, reqlog.MaxBody))
	if cut || len(b) != 16384 {
		t.Errorf("16 KB exactly: %d, cut %v", len(b), cut)
	}
	if b, cut = reqlog.Cut(make([]byte, reqlog.MaxBody+1)); !cut || len(b) != 16384 {
		t.Errorf("16 KB and one byte: %d, cut %v", len(b), cut)
	}
}

// A full queue drops and counts, and never blocks the caller.
func TestWriterQueueFull(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		w := reqlog.NewWriter(st, nil, 2)
		for i := range 5 {
			w.Record(&reqlog.Entry{At: time.Now(), Method: "GET", Path: "/v1/tags", Status: 200, RequestID: "req_full" + strconv.Itoa(i)})
		}
		if w.Dropped() != 3 {
			t.Fatalf("dropped %d, want 3", w.Dropped())
		}
		w.Flush()
		if w.Written() != 2 {
			t.Fatalf("written %d, want 2", w.Written())
		}
		var nilWriter *reqlog.Writer
		nilWriter.Record(&reqlog.Entry{}) // off: records nothing, does not panic
	})
}

// List pages newest first by (time, row id), with no row lost or repeated at
// a page boundary among equal times; another organization's rows are never
// listed, found or pruned by its queries.
func TestListFindPrune(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		mine, other := dbtest.NewOrg(t, st, ""), dbtest.NewOrg(t, st, "")
		w := reqlog.NewWriter(st, nil, 0)
		base := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
		for i := range 12 {
			at := base.Add(time.Duration(i/3) * time.Minute) // three requests per instant
			status := 200
			if i%4 == 3 {
				status = 404
			}
			w.Record(&reqlog.Entry{At: at, AccountID: mine.Live.ID, KeyID: 7, Method: "GET", Operation: "getTag", Path: "/v1/tags/1",
				Status: status, RequestID: "req_mine" + strconv.Itoa(i), ResponseBody: []byte(`{"code":"NOT_FOUND"}`)})
		}
		w.Record(&reqlog.Entry{At: base.Add(-time.Hour), AccountID: mine.Live.ID, Method: "POST", Path: "/v1/tags", Status: 201, RequestID: "req_write",
			RequestBody: []byte(`{}`), ResponseBody: []byte(`{}`)})
		w.Record(&reqlog.Entry{At: base.Add(-time.Hour), AccountID: mine.Live.ID, Method: "GET", Path: "/v1/tags/1", Status: 304, RequestID: "req_304"})
		w.Record(&reqlog.Entry{At: base, AccountID: other.Live.ID, Method: "GET", Path: "/v1/tags", Status: 200, RequestID: "req_theirs"})
		w.Record(&reqlog.Entry{At: base.Add(-40 * 24 * time.Hour), AccountID: mine.Test.ID, Method: "GET", Path: "/v1/tags", Status: 200, RequestID: "req_old"})
		w.Flush()

		var seen []string
		before := 0
		for {
			page, err := reqlog.List(ctx, st.Client, mine.Org.ID, policy.Live, reqlog.Filter{Limit: 5, Before: before})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range page {
				seen = append(seen, r.RequestID)
			}
			if len(page) < 5 {
				break
			}
			before = page[len(page)-1].ID
		}
		if len(seen) != 14 || seen[0] != "req_mine11" || seen[11] != "req_mine0" {
			t.Fatalf("paged %v", seen)
		}
		for i := range seen {
			for j := range i {
				if seen[i] == seen[j] {
					t.Fatalf("%s listed twice: %v", seen[i], seen)
				}
			}
		}
		errs, err := reqlog.List(ctx, st.Client, mine.Org.ID, policy.Live, reqlog.Filter{StatusClass: 4, ErrorCode: "NOT_FOUND"})
		if err != nil || len(errs) != 3 {
			t.Fatalf("4xx NOT_FOUND: %d, %v", len(errs), err)
		}
		for _, c := range []struct {
			f    reqlog.Filter
			want string
		}{{reqlog.Filter{Method: "post"}, "req_write"}, {reqlog.Filter{StatusClass: 3}, "req_304"}, {reqlog.Filter{Method: "GET", StatusClass: 3}, "req_304"}} {
			got, err := reqlog.List(ctx, st.Client, mine.Org.ID, policy.Live, c.f)
			if err != nil || len(got) != 1 || got[0].RequestID != c.want {
				t.Errorf("%+v: %d rows (%v), want %s alone", c.f, len(got), err, c.want)
			}
		}
		if got, _ := reqlog.List(ctx, st.Client, mine.Org.ID, policy.Live, reqlog.Filter{Method: "DELETE"}); len(got) != 0 {
			t.Errorf("DELETE: %d rows, want none", len(got))
		}
		window, _ := reqlog.List(ctx, st.Client, mine.Org.ID, policy.Live, reqlog.Filter{Since: base.Add(time.Minute), Until: base.Add(3 * time.Minute)})
		if len(window) != 6 {
			t.Fatalf("two minutes hold 6 requests, listed %d", len(window))
		}
		if _, _, err := reqlog.Find(ctx, st.Client, mine.Org.ID, "req_theirs"); err == nil {
			t.Fatal("another organization's request was found")
		}
		if _, err := reqlog.List(ctx, st.Client, mine.Org.ID, policy.Live, reqlog.Filter{Before: mustFind(t, st, other.Org.ID, "req_theirs")}); err == nil {
			t.Fatal("another organization's row served as a cursor")
		}
		r, env, err := reqlog.Find(ctx, st.Client, mine.Org.ID, "req_old")
		if err != nil || env != policy.Test || r.RequestID != "req_old" {
			t.Fatalf("find in the test account: %v %v %v", r, env, err)
		}
		n, err := reqlog.Prune(ctx, st.Client, base.Add(-30*24*time.Hour))
		if err != nil || n < 1 {
			t.Fatalf("pruned %d, %v", n, err)
		}
		if old, err := reqlog.Lookup(ctx, st.Client, "req_old"); err != nil || len(old) != 0 {
			t.Fatalf("a request older than the retention was kept: %v %v", old, err)
		}
		if left, err := reqlog.List(ctx, st.Client, mine.Org.ID, policy.Live, reqlog.Filter{Limit: reqlog.MaxPage}); err != nil || len(left) != 14 {
			t.Fatalf("prune took recent requests: %d left of 14 (%v)", len(left), err)
		}
	})
}

func mustFind(t *testing.T, st *store.Store, org int, id string) int {
	t.Helper()
	r, _, err := reqlog.Find(context.Background(), st.Client, org, id)
	if err != nil {
		t.Fatal(err)
	}
	return r.ID
}

// The client address is read as the failed-auth throttle reads it: a
// trusted proxy's X-Forwarded-For names the client, anyone else's does not.
func TestWriterClientAddress(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		w := reqlog.NewWriter(st, nil, 0)
		proxies := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}
		for id, e := range map[string]reqlog.Entry{
			"req_addr_proxied": {RemoteAddr: "10.1.2.3:5000", ForwardedFor: []string{"198.51.100.7, 203.0.113.9"}, Trusted: proxies},
			"req_addr_forged":  {RemoteAddr: "192.0.2.44:5000", ForwardedFor: []string{"203.0.113.9"}, Trusted: proxies},
			"req_addr_direct":  {RemoteAddr: "[2001:db8::1]:443"},
		} {
			e.At, e.Method, e.Path, e.Status, e.RequestID = time.Now(), "GET", "/v1/tags", 401, id
			w.Record(&e)
		}
		w.Flush()
		for id, want := range map[string]string{"req_addr_proxied": "203.0.113.9", "req_addr_forged": "192.0.2.44", "req_addr_direct": "2001:db8::1"} {
			r := st.Client.APIRequest.Query().Where(apirequest.RequestID(id)).OnlyX(policy.System(context.Background()))
			if r.ClientAddr != want {
				t.Errorf("%s: client address %q, want %q", id, r.ClientAddr, want)
			}
		}
	})
}
