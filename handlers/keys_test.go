package handlers_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"entgo.io/ent/dialect"

	"larder.dev/larder/handlers"
	"larder.dev/larder/internal/identity/auth"
	"larder.dev/larder/internal/identity/ratelimit"
	"larder.dev/larder/internal/identity/tenancy"
	"larder.dev/larder/internal/platform/config"
	"larder.dev/larder/internal/platform/fastpath"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

// newKey issues a key of the API's organization and returns it with its id.
func (a *api) newKey(env policy.Environment, scopes string) (string, int) {
	a.t.Helper()
	ss, err := policy.ParseScopes(scopes)
	if err != nil {
		a.t.Fatal(err)
	}
	k, err := auth.CreateKey(context.Background(), a.st.Client, a.org.Org.ID, auth.Holder, env, ss, "rotating")
	if err != nil {
		a.t.Fatal(err)
	}
	return k.Key, k.Record.ID
}

// Spec Authentication 6: during the grace period both keys work and only the
// old key's responses carry Sunset (RFC 8594, an HTTP-date) naming the moment
// it stops; from that moment it is refused. With grace none it stops at once.
// The new key has the old one's name and scopes.
func TestRotationGracePeriod(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		t0 := time.Date(2030, 3, 1, 12, 0, 30, 250_000_000, time.UTC)
		for _, g := range auth.Graces {
			a.run(t, g.Name, func(t *testing.T, a *api) {
				old, id := a.newKey(policy.Live, "catalog:read,cost:read")
				a.clock.Set(t0)
				r, err := auth.RotateKey(context.Background(), a.st.Client, a.org.Org.ID, auth.Holder, id, g.D, t0)
				if err != nil {
					t.Fatal(err)
				}
				expires := t0.Truncate(time.Second).Add(g.D)
				if !r.Old.ExpiresAt.Equal(expires) || *r.New.ReplacesID != id || r.New.Name != "rotating" {
					t.Fatalf("rotation: old expires %v (want %v), new replaces %v, name %q", r.Old.ExpiresAt, expires, *r.New.ReplacesID, r.New.Name)
				}
				res := a.do("GET", "/v1/organization", r.Key, nil).want(200)
				if s := res.Header.Get("Sunset"); s != "" {
					t.Fatalf("the new key's response carries Sunset %q", s)
				}
				if diff := cmpDiff([]any{"catalog:read", "cost:read"}, res.Data()["scopes"]); diff != "" {
					t.Fatalf("new key scopes (-want +got):\n%s", diff)
				}
				if g.D == 0 {
					a.do("GET", "/v1/organization", old, nil).problem(401, "INVALID_API_KEY")
					return
				}
				sunset := expires.Format(http.TimeFormat)
				for _, at := range []time.Time{t0, expires.Add(-time.Microsecond)} {
					a.clock.Set(at)
					for _, path := range []string{"/v1/organization", "/v1/tags/0", "/v1/warehouses"} {
						res := a.do("GET", path, old, nil)
						if res.Status == 401 || res.Status >= 500 {
							t.Fatalf("old key at %v on %s: %d %s", at, path, res.Status, res.Body)
						}
						if got := res.Header.Get("Sunset"); got != sunset {
							t.Fatalf("old key at %v on %s (status %d): Sunset %q, want %q", at, path, res.Status, got, sunset)
						}
						if when, err := http.ParseTime(res.Header.Get("Sunset")); err != nil || !when.Equal(expires) {
							t.Fatalf("Sunset %q is not the HTTP-date of %v: %v", res.Header.Get("Sunset"), expires, err)
						}
					}
					if s := a.do("GET", "/v1/organization", r.Key, nil).want(200).Header.Get("Sunset"); s != "" {
						t.Fatalf("the new key's response carries Sunset %q", s)
					}
				}
				a.clock.Set(expires)
				res = a.do("GET", "/v1/organization", old, nil)
				res.problem(401, "INVALID_API_KEY")
				if s := res.Header.Get("Sunset"); s != "" {
					t.Fatalf("a refused key's response carries Sunset %q", s)
				}
				a.do("GET", "/v1/organization", r.Key, nil).want(200)
			})
		}
		a.run(t, "revoking a key in its grace period ends it", func(t *testing.T, a *api) {
			old, id := a.newKey(policy.Test, "all")
			a.clock.Set(t0)
			r, err := auth.RotateKey(context.Background(), a.st.Client, a.org.Org.ID, auth.Holder, id, 7*24*time.Hour, t0)
			if err != nil {
				t.Fatal(err)
			}
			a.do("GET", "/v1/organization", old, nil).want(200)
			if _, err := auth.RevokeKey(context.Background(), a.st.Client, a.org.Org.ID, id, t0); err != nil {
				t.Fatal(err)
			}
			a.do("GET", "/v1/organization", old, nil).problem(401, "INVALID_API_KEY")
			a.do("GET", "/v1/organization", r.Key, nil).want(200)
		})
	})
}

// Spec Authentication 6: a revoked key, or one already in a grace period (or
// past it), cannot be rotated again; a refused rotation changes nothing.
func TestRotationRefused(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		ctx, c := context.Background(), a.st.Client
		now := time.Now()
		_, revoked := a.newKey(policy.Live, "all")
		if _, err := auth.RevokeKey(ctx, c, a.org.Org.ID, revoked, now); err != nil {
			t.Fatal(err)
		}
		inGrace, inGraceID := a.newKey(policy.Live, "all")
		if _, err := auth.RotateKey(ctx, c, a.org.Org.ID, auth.Holder, inGraceID, time.Hour, now); err != nil {
			t.Fatal(err)
		}
		_, ended := a.newKey(policy.Live, "all")
		if _, err := auth.RotateKey(ctx, c, a.org.Org.ID, auth.Holder, ended, 0, now); err != nil {
			t.Fatal(err)
		}
		cases := []struct {
			name  string
			id    int
			grace time.Duration
			want  string
		}{
			{"revoked key", revoked, time.Hour, "revoked key cannot be rotated"},
			{"key in a grace period", inGraceID, 0, "already in a grace period"},
			{"key whose grace ended", ended, time.Hour, "stopped working"},
			{"unknown key", 987654321, time.Hour, "does not exist"},
			{"grace outside the four", inGraceID, 2 * time.Hour, "use one of none, 1h, 24h, 7d"},
		}
		for _, tc := range cases {
			a.run(t, tc.name, func(t *testing.T, a *api) {
				before, err := auth.ListKeys(ctx, c, a.org.Org.ID)
				if err != nil {
					t.Fatal(err)
				}
				_, err = auth.RotateKey(ctx, c, a.org.Org.ID, auth.Holder, tc.id, tc.grace, now)
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("rotate: %v, want an error mentioning %q", err, tc.want)
				}
				after, err := auth.ListKeys(ctx, c, a.org.Org.ID)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmpDiff(before, after); diff != "" {
					t.Fatalf("a refused rotation changed keys (-before +after):\n%s", diff)
				}
			})
		}
		a.do("GET", "/v1/organization", inGrace, nil).want(200)
	})
}

// Spec Authentication 4 and Limits: 50 active keys per environment; a rotated
// key keeps its place (the old key in its grace period and its replacement
// count once); the 51st is refused with a clear message.
func TestRotatedKeyKeepsItsPlace(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		ctx, c := context.Background(), a.st.Client
		all := policy.Known()
		create := func(env policy.Environment) error {
			_, err := auth.CreateKey(ctx, c, a.org.Org.ID, auth.Holder, env, all, "")
			return err
		}
		refused := func(env policy.Environment) {
			t.Helper()
			err := create(env)
			if err == nil || !strings.Contains(err.Error(), "already has 50 active "+string(env)+" keys") {
				t.Fatalf("key 51: %v, want the limit's message", err)
			}
		}
		// The API's own key is the first; this makes 50.
		for range auth.MaxActiveKeys - 2 {
			if err := create(policy.Live); err != nil {
				t.Fatal(err)
			}
		}
		last, lastID := a.newKey(policy.Live, "all")
		refused(policy.Live)
		a.clock.Set(time.Now())
		r, err := auth.RotateKey(ctx, c, a.org.Org.ID, auth.Holder, lastID, 24*time.Hour, time.Now())
		if err != nil {
			t.Fatalf("rotating at the limit: %v", err)
		}
		refused(policy.Live)
		a.do("GET", "/v1/organization", last, nil).want(200)
		a.do("GET", "/v1/organization", r.Key, nil).want(200)
		a.do("GET", "/v1/organization", a.key, nil).want(200)
		if err := create(policy.Test); err != nil {
			t.Fatalf("the test environment has its own 50: %v", err)
		}
		// Without an active replacement the old key holds the place itself.
		if _, err := auth.RevokeKey(ctx, c, a.org.Org.ID, r.New.ID, time.Now()); err != nil {
			t.Fatal(err)
		}
		refused(policy.Live)
		if _, err := auth.RevokeKey(ctx, c, a.org.Org.ID, lastID, time.Now()); err != nil {
			t.Fatal(err)
		}
		if err := create(policy.Live); err != nil {
			t.Fatalf("a revoked key frees its place: %v", err)
		}
		refused(policy.Live)
	})
}

// twin is a second server over the database of st, as a second process would
// run it: its own connection pool on PostgreSQL (SQLite is served by one
// process, so there it shares st), its own authenticator, caches and leases.
func twin(t *testing.T, st *store.Store, clk *clock, tweak ...func(*config.Config)) (string, *handlers.Server) {
	t.Helper()
	if st.Dialect == dialect.Postgres {
		st = dbtest.OpenURL(t, dbtest.URL(t, dbtest.Postgres))
	}
	cfg := config.Defaults()
	cfg.AuthFailLimit = 1 << 20
	for _, f := range tweak {
		f(&cfg)
	}
	srv, err := handlers.New(st, handlers.Options{Config: cfg, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	return hs.URL, srv
}

// warm sends requests with key to a's server until the server holds
// reserved numbers of the account's budget (PostgreSQL), so that its next
// request takes the path that reserves nothing; on SQLite, a few requests.
func (a *api) warm(key string, accountID int) {
	a.t.Helper()
	pg, shared := a.srv.Limiter.(*ratelimit.Postgres)
	shared = shared && a.fast.Has(fastpath.ReservedBudget)
	for i := range 60 {
		a.do("GET", "/v1/organization", key, nil).want(200)
		if shared && pg.Leases.Has(ratelimit.AccountBucket(accountID), a.clock.Now()) {
			return
		}
		if !shared && i >= 3 {
			return
		}
	}
	a.t.Fatal("the server reserved no numbers of the account's budget")
}

// The specification's Authentication 5 and docs/api-behaviour.md, "Keys": a revocation, a rotation with grace
// none and a plan change take effect on the very next request, on every
// server over the database, whatever the servers cached (parsed scopes, key
// owners, reserved budget).
func TestKeyChangesTakeEffectOnTheNextRequest(t *testing.T) {
	t.Parallel()
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		a := newAPI(t, st)
		a.clock.Set(time.Date(2030, 4, 1, 9, 0, 5, 0, time.UTC))
		live, liveID := a.newKey(policy.Live, "all")
		test, _ := a.newKey(policy.Test, "all")
		var servers []*api
		warm := func() {
			t.Helper()
			for _, s := range servers {
				s.warm(live, a.org.Live.ID)
				s.warm(test, a.org.Test.ID)
			}
		}
		for range 2 {
			url, srv := twin(t, st, a.clock)
			s := *a
			s.url, s.srv = url, srv
			servers = append(servers, &s)
		}
		warm()

		{ // plan change
			ctx := context.Background()
			warm()
			for _, plan := range []string{"starter", "lapsed", tenancy.Entitled} {
				if _, err := tenancy.SetPlan(ctx, st.Client, a.org.Org.ID, plan); err != nil {
					t.Fatal(err)
				}
				for _, s := range servers {
					for _, key := range []string{live, test} {
						r := s.do("GET", "/v1/organization", key, nil)
						if plan == tenancy.Entitled {
							r.want(200)
							continue
						}
						r.problem(403, "NOT_ENTITLED")
					}
				}
			}
		}
		{ // rotation with grace none
			warm()
			r, err := auth.RotateKey(context.Background(), st.Client, a.org.Org.ID, auth.Holder, liveID, 0, a.clock.Now())
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range servers {
				s.do("GET", "/v1/organization", live, nil).problem(401, "INVALID_API_KEY")
				s.do("GET", "/v1/organization", r.Key, nil).want(200)
			}
			live, liveID = r.Key, r.New.ID
		}
		{ // revocation
			warm()
			if _, err := auth.RevokeKey(context.Background(), st.Client, a.org.Org.ID, liveID, time.Now()); err != nil {
				t.Fatal(err)
			}
			for _, s := range servers {
				s.do("GET", "/v1/organization", live, nil).problem(401, "INVALID_API_KEY")
				s.do("GET", "/v1/organization", test, nil).want(200)
			}
		}
	})
}
