package handlers_test

import (
	"context"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"entgo.io/ent/dialect"

	"larder.dev/larder/internal/identity/auth"
	"larder.dev/larder/internal/identity/ratelimit"
	"larder.dev/larder/internal/identity/tenancy"
	"larder.dev/larder/internal/platform/config"
	"larder.dev/larder/internal/platform/fastpath"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

// keyChecks returns how the keys of the requests do sends were checked
// (larder_api_key_checks_total by how, the series that moved).
func (a *api) keyChecks(do func()) map[string]float64 {
	a.t.Helper()
	before := a.scrape()
	do()
	after := a.scrape()
	out := map[string]float64{}
	for _, how := range []string{"read", "rows", "print", "changed"} {
		s := `larder_api_key_checks_total{how="` + how + `"}`
		if d := after[s] - before[s]; d != 0 {
			out[how] = d
		}
	}
	return out
}

// hold sends requests with key until the server holds a number of the
// account's budget that its next request may spend without reading the key
// (leases.Leases.Spare): on PostgreSQL, the next GET with key is trusted.
// A server that reserves no numbers (SQLite, or without
// fastpath.ReservedBudget) holds none: one request then. It returns the
// X-RateLimit-Remaining of its last request.
func (a *api) hold(key string, accountID int) int {
	a.t.Helper()
	pg, _ := a.srv.Limiter.(*ratelimit.Postgres)
	for range 60 {
		r := a.do("GET", "/v1/organization", key, nil).want(200)
		if pg == nil || !a.fast.Has(fastpath.ReservedBudget) || pg.Leases.Spare(ratelimit.AccountBucket(accountID), config.Defaults().RateLimit, a.clock.Now()) {
			n, err := strconv.Atoi(r.Header.Get("X-RateLimit-Remaining"))
			if err != nil {
				a.t.Fatal(err)
			}
			return n
		}
	}
	a.t.Fatal("the server holds no number of the account's budget")
	return 0
}

// trusted reports whether the server takes keys on trust: on PostgreSQL,
// with fastpath.TrustedKeys.
func (a *api) trusted() bool {
	return a.st.Dialect == dialect.Postgres && a.fast.Has(fastpath.TrustedKeys)
}

// On PostgreSQL, a GET with a key this server has read before takes the key
// on trust and checks it in the statement of the answer's first rows: one
// statement per retrieval or list, which is all the request sends to the
// database (docs/fast-path.md, trusted-keys). An answer
// without rows reads the key's print after it. Writes, every request on
// SQLite and every one on the plain path (LARDER_FAST_PATH=false) read the
// key on their own first (keyRead), then send their own statements.
func TestTrustedKeysAreCheckedByTheAnswer(t *testing.T) {
	t.Parallel()
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		var sql statements
		a := newAPI(t, sql.observe(t, st))
		trusted := a.trusted()
		// The first request with the key reads it, and on PostgreSQL's fast
		// path reserves its account's budget in the same statement; the
		// create then inserts the row and its event in one transaction.
		var id int
		sent := sql.sent(func() {
			id = a.post("/v1/tags", map[string]any{"name": "Trusted", "ref_type": "PRODUCT"}).want(201).ID()
		})
		if want := append(a.keyRead(false), "BEGIN", "tags", "events", "COMMIT"); !slices.Equal(labels(sent), want) {
			t.Errorf("the key's first request: statements %q, want %q", labels(sent), want)
		}

		// request sends do once the server holds numbers of the account's
		// budget, and fails unless it sends the statements want (labels)
		// and checks the key as checks counts; it returns what it sent.
		request := func(what string, do func(), want []string, checks map[string]float64) []string {
			t.Helper()
			a.hold(a.key, a.org.Live.ID)
			var sent []string
			got := a.keyChecks(func() { sent = sql.sent(do) })
			if !slices.Equal(labels(sent), want) || !maps.Equal(got, checks) {
				t.Errorf("%s: statements %q, key checks %v; want %q, %v", what, labels(sent), got, want, checks)
			}
			return sent
		}
		read := map[string]float64{"read": 1}
		own := func(statements ...string) []string { return append(a.keyRead(true), statements...) }
		retrieval := func() { a.get(path("/v1/tags", id)).want(200) }
		list := func() { a.get("/v1/tags?ref_type=PRODUCT").want(200) }
		nothing := func() { a.get(path("/v1/tags", id+1000)).problem(404, "NOT_FOUND") }
		if trusted {
			request("a retrieval", retrieval, []string{"tags+key"}, map[string]float64{"rows": 1})
			sent = request("a list", list, []string{"tags+key"}, map[string]float64{"rows": 1})
			if len(sent) != 1 || !strings.Contains(sent[0], "larder_total") {
				t.Errorf("a list sent %q; want its total in its one statement", sent)
			}
			request("a retrieval of nothing", nothing, []string{"tags+key", "print"}, map[string]float64{"print": 1})
		} else {
			request("a retrieval", retrieval, own("tags"), read)
			request("a list", list, own("tags"), read)
			request("a retrieval of nothing", nothing, own("tags"), read)
		}
		// A write updates the row, reads it back for the answer and writes
		// its event, in one transaction.
		request("a write", func() { a.patch(path("/v1/tags", id), map[string]any{"name": "Written"}).want(200) },
			own("BEGIN", "tags", "tags", "events", "COMMIT"), read)

		// A trusted request spends one number of the budget, as any other.
		remaining := func() int {
			n, err := strconv.Atoi(a.get(path("/v1/tags", id)).want(200).Header.Get("X-RateLimit-Remaining"))
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
		for i, last := 0, remaining(); i < 5; i++ {
			n := remaining()
			if n != last-1 {
				t.Fatalf("X-RateLimit-Remaining went from %d to %d", last, n)
			}
			last = n
		}
	})
}

// A key taken on trust that changed since this server read it is not
// trusted: the answer read with it is thrown away, and the request answered
// again as the key now stands, on the very request after the change, whether
// the answer's rows or a read after them found the change.
func TestTrustedKeysThatChangedAreNotTrusted(t *testing.T) {
	t.Parallel()
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		a := newAPI(t, st, allMechanisms)
		ctx := context.Background()
		id := a.post("/v1/tags", map[string]any{"name": "Secret recipe", "ref_type": "PRODUCT"}).want(201).ID()
		changed := func(got map[string]float64) bool { return !a.trusted() || got["changed"] == 1 && got["read"] == 1 }

		key, keyID := a.newKey(policy.Live, "all")
		get := func(p string) *response { t.Helper(); return a.do("GET", p, key, nil) }
		left := a.hold(key, a.org.Live.ID)
		if _, err := tenancy.SetPlan(ctx, st.Client, a.org.Org.ID, "lapsed"); err != nil {
			t.Fatal(err)
		}
		var r *response
		got := a.keyChecks(func() { r = get(path("/v1/tags", id)) })
		r.problem(403, "NOT_ENTITLED")
		if strings.Contains(string(r.Body), "Secret recipe") || r.Header.Get("ETag") != "" || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/problem+json") {
			t.Errorf("the refused answer kept something of the answer read on trust: %v %s", r.Header, r.Body)
		}
		if got := r.Header.Get("X-RateLimit-Remaining"); got != strconv.Itoa(left-1) {
			t.Errorf("the refused answer's X-RateLimit-Remaining %q after %d: the request spent other than one number", got, left)
		}
		if !changed(got) {
			t.Errorf("a plan change: key checks %v, want the trusted key found changed and read again", got)
		}
		if _, err := tenancy.SetPlan(ctx, st.Client, a.org.Org.ID, tenancy.Entitled); err != nil {
			t.Fatal(err)
		}
		get(path("/v1/tags", id)).want(200)

		// A rotated key in its grace: its answers carry Sunset.
		rotated, err := auth.RotateKey(ctx, st.Client, a.org.Org.ID, auth.Holder, keyID, time.Hour, a.clock.Now())
		if err != nil {
			t.Fatal(err)
		}
		a.hold(key, a.org.Live.ID)
		if get(path("/v1/tags", id)).want(200).Header.Get("Sunset") == "" {
			t.Fatal("a key in its grace answered without Sunset")
		}
		a.hold(key, a.org.Live.ID)
		if _, err := auth.RevokeKey(ctx, st.Client, a.org.Org.ID, keyID, a.clock.Now()); err != nil {
			t.Fatal(err)
		}
		got = a.keyChecks(func() { r = get(path("/v1/tags", id)) })
		r.problem(401, "INVALID_API_KEY")
		if strings.Contains(string(r.Body), "Secret recipe") {
			t.Errorf("a revoked key's answer: %s", r.Body)
		}
		for _, h := range []string{"Sunset", "X-RateLimit-Remaining", "ETag"} {
			if v := r.Header.Get(h); v != "" {
				t.Errorf("the 401 kept %s: %s from the answer read on trust", h, v)
			}
		}
		if !changed(got) {
			t.Errorf("a revocation: key checks %v, want the trusted key found changed and read again", got)
		}
		get(path("/v1/tags", id+1000)).problem(401, "INVALID_API_KEY")

		// The grace of a rotated key ends by the clock alone, which nothing
		// the key reads shows: the trusted key must not outlive it.
		start := time.Date(2030, 4, 1, 9, 0, 30, 0, time.UTC)
		a.clock.Set(start)
		ending := rotated.Key
		if _, err := auth.RotateKey(ctx, st.Client, a.org.Org.ID, auth.Holder, rotated.New.ID, time.Hour, start); err != nil {
			t.Fatal(err)
		}
		a.clock.Set(start.Add(time.Hour - 10*time.Second))
		a.hold(ending, a.org.Live.ID)
		a.clock.Set(start.Add(time.Hour + 5*time.Second)) // the same minute of the rate limit
		a.do("GET", path("/v1/tags", id), ending, nil).problem(401, "INVALID_API_KEY")
	})
}
