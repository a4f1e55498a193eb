package handlers_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"larder.dev/larder/ent"
	"larder.dev/larder/handlers"
	"larder.dev/larder/internal/platform/config"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/reqlog"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

// newLoggedAPI is newAPI with the request log recording to w.
func newLoggedAPI(t *testing.T, st *store.Store, w *reqlog.Writer) *api {
	t.Helper()
	cfg := config.Defaults()
	cfg.AuthFailLimit = 1 << 20
	srv, err := handlers.New(st, handlers.Options{Config: cfg, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), RequestLog: w})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	a := &api{t: t, st: st, url: hs.URL, srv: srv, clock: &clock{t: time.Now()}, org: dbtest.NewOrg(t, st, ""), fast: cfg.FastPath}
	a.key = a.org.Key(t, policy.Live, "all")
	return a
}

// logged returns the request log's row of the request answered by r.
func logged(t *testing.T, st *store.Store, r *response) *ent.APIRequest {
	t.Helper()
	id := r.Header.Get("X-Request-Id")
	rows, err := reqlog.Lookup(context.Background(), st.Client, id)
	if err != nil || len(rows) != 1 {
		t.Fatalf("request %s (%d) in the request log: %d rows, %v", id, r.Status, len(rows), err)
	}
	return rows[0]
}

// docs/operators.md, "Request log": every authenticated request and every
// failed authentication is recorded after its answer, with the bodies of
// writes and of answers of 400 and above, cut at 16 KB, and never a key or a
// secret.
func TestRequestLogRecords(t *testing.T) {
	t.Parallel()
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		w := reqlog.NewWriter(st, nil, 0)
		a := newLoggedAPI(t, st, w)
		secret := a.key[len("key_live_"):]

		list := a.do("GET", "/v1/tags?ref_type=PRODUCT&limit=2", a.key, nil, "X-Request-Id", "client-42", "User-Agent", "sync/1.0").want(200)
		body := `{"name":"Organic","ref_type":"PRODUCT"}`
		created := a.do("POST", "/v1/tags", a.key, body).want(201)
		leaked := fmt.Sprintf(`{"name":"Pasted %s","ref_type":"NOPE","webhook_secret":"whsec_c2VjcmV0c2VjcmV0","password":"hunter2"}`, a.key)
		refused := a.do("POST", "/v1/tags", a.key, leaked)
		refused.problem(400, "VALIDATION_ERROR")
		huge := `{"name":"` + strings.Repeat("x", 20<<10) + `","ref_type":"PRODUCT"}`
		long := a.do("POST", "/v1/tags", a.key, huge)
		badKey := a.do("GET", "/v1/tags?ref_type=PRODUCT", "key_live_"+strings.Repeat("Z", 43), nil)
		badKey.problem(401, "INVALID_API_KEY")
		missing := a.do("GET", "/v1/tags/999999999", a.key, nil)
		missing.problem(404, "NOT_FOUND")
		health := a.do("GET", handlers.LivePath, "", nil).want(200)
		w.Flush()

		r := logged(t, st, list)
		if r.AccountID != a.org.Live.ID || r.APIKeyID == nil || *r.APIKeyID == 0 {
			t.Errorf("list: account %v key %v, want the live account %d and its key", r.AccountID, r.APIKeyID, a.org.Live.ID)
		}
		if r.Method != "GET" || r.Operation != "listTags" || r.Path != "/v1/tags?ref_type=PRODUCT&limit=2" || r.Status != 200 || r.ErrorCode != "" ||
			r.ClientRequestID != "client-42" || r.UserAgent != "sync/1.0" || r.ClientAddr != "127.0.0.1" || r.DurationUs <= 0 {
			t.Errorf("list row %+v", r)
		}
		if r.RequestBody != nil || r.ResponseBody != nil {
			t.Errorf("a GET answered 200 keeps no bodies: %q %q", r.RequestBody, r.ResponseBody)
		}

		r = logged(t, st, created)
		if r.Operation != "createTag" || r.Status != 201 || string(r.RequestBody) != body || string(r.ResponseBody) != string(created.Body) || r.Truncated {
			t.Errorf("create row: %+v, bodies %q → %q", r, r.RequestBody, r.ResponseBody)
		}

		r = logged(t, st, refused)
		if r.Status != 400 || r.ErrorCode != "VALIDATION_ERROR" || string(r.ResponseBody) != string(refused.Body) {
			t.Errorf("refused row: %+v, answer %q", r, r.ResponseBody)
		}
		for _, s := range []string{secret, "c2VjcmV0c2VjcmV0", "hunter2"} {
			if strings.Contains(string(r.RequestBody), s) {
				t.Errorf("the refused body keeps secret material %q: %s", s, r.RequestBody)
			}
		}
		if !strings.Contains(string(r.RequestBody), `"ref_type":"NOPE"`) || !strings.Contains(string(r.RequestBody), "[redacted]") {
			t.Errorf("the refused body is not kept as sent, redacted: %s", r.RequestBody)
		}

		r = logged(t, st, long)
		if !r.Truncated || len(r.RequestBody) != reqlog.MaxBody {
			t.Errorf("a body of %d bytes: kept %d, truncated %v", len(huge), len(r.RequestBody), r.Truncated)
		}

		r = logged(t, st, badKey)
		if r.AccountID != reqlog.NoAccount || r.APIKeyID != nil || r.Status != 401 || r.ErrorCode != "INVALID_API_KEY" {
			t.Errorf("failed authentication row %+v", r)
		}

		r = logged(t, st, missing)
		if r.Status != 404 || r.ErrorCode != "NOT_FOUND" || string(r.ResponseBody) != string(missing.Body) {
			t.Errorf("404 row %+v", r)
		}

		hid := health.Header.Get("X-Request-Id")
		if rs, err := reqlog.Lookup(context.Background(), st.Client, hid); err != nil || len(rs) != 0 {
			t.Errorf("an unauthenticated health check was logged")
		}
		if w.Written() != 6 || w.Dropped() != 0 {
			t.Errorf("written %d dropped %d, want 6 and 0", w.Written(), w.Dropped())
		}

		// Nothing secret in any row of this run. Its rows are found by
		// their request ids: on PostgreSQL the package's tests share one
		// database, and the failed authentications of the others (account
		// nil) are theirs, such as /metrics' 401 whose detail names the
		// "Authorization: Bearer TOKEN" it wants.
		var ids []string
		for _, r := range []*response{list, created, refused, long, badKey, missing} {
			ids = append(ids, r.Header.Get("X-Request-Id"))
		}
		rows, err := reqlog.Lookup(context.Background(), st.Client, ids...)
		if err != nil || len(rows) != 6 {
			t.Fatalf("%d rows of the run's 6 requests", len(rows))
		}
		for _, row := range rows {
			dump := fmt.Sprintf("%+v %s %s", *row, row.RequestBody, row.ResponseBody)
			for _, s := range []string{secret, "Bearer", strings.Repeat("Z", 43), "hunter2", "c2VjcmV0c2VjcmV0"} {
				if strings.Contains(dump, s) {
					t.Errorf("row %d holds %q", row.ID, s)
				}
			}
		}
	})
}

// A request log whose database does not take its rows neither fails nor
// holds up the API: the requests are answered, and the entries counted as
// dropped.
func TestRequestLogDownDoesNotHoldTheAPI(t *testing.T) {
	t.Parallel()
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		var b dbtest.Backend = dbtest.SQLite
		if st.Dialect == "postgres" {
			b = dbtest.Postgres
		}
		down := dbtest.OpenURL(t, dbtest.URL(t, b))
		down.Close()
		w := reqlog.NewWriter(down, nil, 0)
		a := newLoggedAPI(t, st, w)
		for range 20 {
			a.get("/v1/tags?ref_type=PRODUCT").want(200)
		}
		a.do("POST", "/v1/tags", a.key, `{"name":"Kept","ref_type":"PRODUCT"}`).want(201)
		w.Flush()
		if w.Written() != 0 || w.Dropped() != 21 {
			t.Fatalf("written %d dropped %d, want 0 and 21", w.Written(), w.Dropped())
		}
	})
}

// A request log whose tables are locked (a slow database) holds up no
// request: the writer waits on its statements while the API answers, and the
// rows arrive once the lock is released. The plain reads are stored in
// api_request_reads, the rest in api_requests, and each batch adds to
// api_request_hours: all three are locked.
func TestRequestLogSlowDatabase(t *testing.T) {
	t.Parallel()
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		if st.Dialect != "postgres" {
			t.Skip("SQLite has one writer: a lock on the log's table is a lock on the whole database")
		}
		w := reqlog.NewWriter(st, nil, 0)
		a := newLoggedAPI(t, st, w)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { defer close(done); w.Run(ctx) }()
		defer func() { cancel(); <-done }()

		lock, err := st.DB.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := lock.ExecContext(ctx, "LOCK TABLE api_requests, api_request_reads, api_request_hours IN ACCESS EXCLUSIVE MODE"); err != nil {
			t.Fatal(err)
		}
		for range 30 {
			a.get("/v1/tags?ref_type=PRODUCT").want(200)
		}
		a.do("POST", "/v1/tags", a.key, `{"name":"While locked","ref_type":"PRODUCT"}`).want(201)
		if n := w.Written(); n != 0 {
			t.Fatalf("%d entries written through the lock", n)
		}
		if err := lock.Rollback(); err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(30 * time.Second); w.Written() < 31; {
			if time.Now().After(deadline) {
				t.Fatalf("written %d dropped %d after the lock, want 31 written", w.Written(), w.Dropped())
			}
			time.Sleep(20 * time.Millisecond)
		}
		if w.Dropped() != 0 {
			t.Fatalf("dropped %d", w.Dropped())
		}
	})
}
