package handlers_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"entgo.io/ent/dialect"

	"larder.dev/larder/auth"
	"larder.dev/larder/config"
	"larder.dev/larder/dbtest"
	"larder.dev/larder/policy"
	"larder.dev/larder/ratelimit"
	"larder.dev/larder/store"
	"larder.dev/larder/tenancy"
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
// (ratelimit.Leases.Spare): on PostgreSQL, the next GET with key is trusted.
// It returns the X-RateLimit-Remaining of its last request.
func (a *api) hold(key string, accountID int) int {
	a.t.Helper()
	pg, _ := a.srv.Limiter.(*ratelimit.Postgres)
	for range 60 {
		r := a.do("GET", "/v1/organization", key, nil).want(200)
		if pg == nil || pg.Leases.Spare(ratelimit.AccountBucket(accountID), config.Defaults().RateLimit, a.clock.Now()) {
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

// On PostgreSQL, a GET with a key this server has read before takes the key
// on trust and checks it in the statement of the answer's first rows: one
// statement per retrieval or list (bench/README "The key in the answer's
// statement"). An answer without rows reads the key's print after it. Writes,
// and every request on SQLite, read the key on their own first.
func TestTrustedKeysAreCheckedByTheAnswer(t *testing.T) {
	t.Parallel()
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		var sql statements
		a := newAPI(t, st.Observed(sql.see), allMechanisms)
		id := a.post("/v1/tags", map[string]any{"name": "Trusted", "ref_type": "PRODUCT"}).want(201).ID()
		pg := st.Dialect == dialect.Postgres

		var sent []string
		a.hold(a.key, a.org.Live.ID)
		got := a.keyChecks(func() { sent = sql.sent(func() { a.get(path("/v1/tags", id)).want(200) }) })
		carried := len(sent) == 1 && strings.Contains(sent[0], "larder_key")
		if pg && (got["rows"] != 1 || len(got) != 1 || !carried) {
			t.Errorf("a retrieval: key checks %v, statements %q; want the key checked by its one statement", got, sent)
		}
		if !pg && (got["read"] != 1 || len(got) != 1 || strings.Contains(strings.Join(sent, " "), "larder_key")) {
			t.Errorf("SQLite: key checks %v, statements %q; want the key read on its own", got, sent)
		}

		a.hold(a.key, a.org.Live.ID)
		got = a.keyChecks(func() { sent = sql.sent(func() { a.get("/v1/tags?ref_type=PRODUCT").want(200) }) })
		if pg && (got["rows"] != 1 || len(sent) != 1 || !strings.Contains(sent[0], "larder_total") || !strings.Contains(sent[0], "larder_key")) {
			t.Errorf("a list: key checks %v, statements %q; want its total and the key in its one statement", got, sent)
		}

		a.hold(a.key, a.org.Live.ID)
		got = a.keyChecks(func() { a.get(path("/v1/tags", id+1000)).problem(404, "NOT_FOUND") })
		if pg && (got["print"] != 1 || len(got) != 1) {
			t.Errorf("a retrieval of nothing: key checks %v, want the print read after it", got)
		}

		a.hold(a.key, a.org.Live.ID)
		got = a.keyChecks(func() { a.patch(path("/v1/tags", id), map[string]any{"name": "Written"}).want(200) })
		if got["read"] != 1 || len(got) != 1 {
			t.Errorf("a write: key checks %v, want the key read on its own", got)
		}

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
		pg := st.Dialect == dialect.Postgres
		changed := func(got map[string]float64) bool { return !pg || got["changed"] == 1 && got["read"] == 1 }

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
		rotated, err := auth.RotateKey(ctx, st.Client, a.org.Org.ID, keyID, time.Hour, a.clock.Now())
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
		if _, err := auth.RotateKey(ctx, st.Client, a.org.Org.ID, rotated.New.ID, time.Hour, start); err != nil {
			t.Fatal(err)
		}
		a.clock.Set(start.Add(time.Hour - 10*time.Second))
		a.hold(ending, a.org.Live.ID)
		a.clock.Set(start.Add(time.Hour + 5*time.Second)) // the same minute of the rate limit
		a.do("GET", path("/v1/tags", id), ending, nil).problem(401, "INVALID_API_KEY")
	})
}
