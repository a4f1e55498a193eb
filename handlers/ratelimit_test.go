package handlers_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"entgo.io/ent/dialect"

	"larder.dev/larder/internal/identity/auth"
	"larder.dev/larder/internal/platform/config"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

func limit(n int) func(*config.Config) { return func(c *config.Config) { c.RateLimit = n } }

// Spec Limits: a fixed window per minute per account, shared by its keys, with
// separate live and test budgets; headers on every authenticated response;
// 429 RATE_LIMITED with Retry-After never beyond the window.
func TestRateLimit(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		start := time.Date(2030, 1, 1, 10, 0, 0, 0, time.UTC)
		a.clock.Set(start.Add(15 * time.Second))
		second := a.org.Key(t, policy.Live, "read-all")
		test := a.org.Key(t, policy.Test, "read-all")
		reset := strconv.FormatInt(start.Add(time.Minute).Unix(), 10)
		for i, key := range []string{a.key, second, a.key, second, a.key} {
			r := a.do("GET", "/v1/organization", key, nil).want(200)
			want := map[string]string{"X-RateLimit-Limit": "5", "X-RateLimit-Remaining": strconv.Itoa(4 - i), "X-RateLimit-Reset": reset}
			for h, v := range want {
				if got := r.Header.Get(h); got != v {
					t.Fatalf("request %d: %s = %q, want %q", i+1, h, got, v)
				}
			}
		}
		a.run(t, "over the limit, every key of the account is refused", func(t *testing.T, a *api) {
			for _, key := range []string{a.key, second} {
				r := a.do("GET", "/v1/tags?ref_type=PRODUCT", key, nil)
				r.problem(429, "RATE_LIMITED")
				if got := r.Header.Get("Retry-After"); got != "45" {
					t.Fatalf("Retry-After %q, want 45", got)
				}
				if r.Header.Get("X-RateLimit-Remaining") != "0" {
					t.Fatalf("X-RateLimit-Remaining %q", r.Header.Get("X-RateLimit-Remaining"))
				}
			}
		})
		a.run(t, "the test account has its own budget", func(t *testing.T, a *api) {
			r := a.do("GET", "/v1/organization", test, nil).want(200)
			if r.Header.Get("X-RateLimit-Remaining") != "4" {
				t.Fatalf("test budget remaining %q", r.Header.Get("X-RateLimit-Remaining"))
			}
		})
		a.run(t, "another account has its own budget", func(t *testing.T, a *api) {
			other := dbtest.NewOrg(t, a.st, "").Key(t, policy.Live, "all")
			a.do("GET", "/v1/organization", other, nil).want(200)
		})
		a.run(t, "Retry-After never exceeds the window", func(t *testing.T, a *api) {
			a.clock.Set(start.Add(59*time.Second + 500*time.Millisecond))
			if got := a.do("GET", "/v1/organization", a.key, nil).Header.Get("Retry-After"); got != "1" {
				t.Fatalf("Retry-After %q at the end of the window", got)
			}
			a.clock.Set(start)
			a.do("GET", "/v1/organization", a.key, nil).problem(429, "RATE_LIMITED")
		})
		a.run(t, "the next minute resets the budget", func(t *testing.T, a *api) {
			a.clock.Set(start.Add(time.Minute))
			r := a.do("GET", "/v1/organization", a.key, nil).want(200)
			if r.Header.Get("X-RateLimit-Remaining") != "4" {
				t.Fatalf("remaining %q after the reset", r.Header.Get("X-RateLimit-Remaining"))
			}
		})
		a.run(t, "errors count and carry the headers", func(t *testing.T, a *api) {
			r := a.do("GET", "/v1/tags/0", a.key, nil)
			r.problem(400, "VALIDATION_ERROR")
			if r.Header.Get("X-RateLimit-Remaining") != "3" {
				t.Fatalf("remaining %q", r.Header.Get("X-RateLimit-Remaining"))
			}
		})
	}, limit(5))
}

// The specification's Authentication 11 and docs/api-behaviour.md, "Rate
// limits": past the failed-auth limit, further
// invalid keys from the address get 429; valid keys from it keep working.
func TestFailedAuthThrottle(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		a.clock.Set(time.Date(2030, 1, 1, 10, 0, 30, 0, time.UTC))
		bad := "key_live_" + "0000000000000000000000000000000000000000000"
		for i := range 3 {
			a.do("GET", "/v1/organization", bad, nil).problem(401, "INVALID_API_KEY")
			_ = i
		}
		r := a.do("GET", "/v1/organization", bad, nil)
		r.problem(429, "RATE_LIMITED")
		if r.Header.Get("Retry-After") != "30" {
			t.Fatalf("Retry-After %q", r.Header.Get("Retry-After"))
		}
		a.do("GET", "/v1/organization", a.key, nil).want(200)
		a.clock.Set(time.Date(2030, 1, 1, 10, 1, 0, 0, time.UTC))
		a.do("GET", "/v1/organization", bad, nil).problem(401, "INVALID_API_KEY")
	}, func(c *config.Config) { c.AuthFailLimit = 3 })
}

// Spec Authentication 11: the throttle never blocks a valid key from the
// throttled address, whatever its account or state (in a grace period, on a
// plan without the API); every kind of invalid key counts and is refused.
func TestFailedAuthThrottleSparesValidKeys(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		start := time.Date(2031, 2, 1, 10, 0, 0, 0, time.UTC)
		a.clock.Set(start.Add(20 * time.Second))
		ctx := context.Background()
		test := a.org.Key(t, policy.Test, "all")
		other := dbtest.NewOrg(t, a.st, "").Key(t, policy.Live, "all")
		lapsed := dbtest.NewOrg(t, a.st, "lapsed").Key(t, policy.Live, "all")
		graced, gracedID := a.newKey(policy.Live, "all")
		if _, err := auth.RotateKey(ctx, a.st.Client, a.org.Org.ID, auth.Holder, gracedID, time.Hour, a.clock.Now()); err != nil {
			t.Fatal(err)
		}
		revoked, revokedID := a.newKey(policy.Live, "all")
		if _, err := auth.RevokeKey(ctx, a.st.Client, a.org.Org.ID, revokedID, a.clock.Now()); err != nil {
			t.Fatal(err)
		}
		ended, endedID := a.newKey(policy.Live, "all")
		if _, err := auth.RotateKey(ctx, a.st.Client, a.org.Org.ID, auth.Holder, endedID, 0, a.clock.Now()); err != nil {
			t.Fatal(err)
		}
		unknown := "key_live_" + strings.Repeat("Z", 43)
		a.do("GET", "/v1/organization", unknown, nil).problem(401, "INVALID_API_KEY")
		a.do("GET", "/v1/organization", unknown, nil).problem(401, "INVALID_API_KEY")
		r := a.do("GET", "/v1/organization", unknown, nil)
		r.problem(429, "RATE_LIMITED")
		if r.Header.Get("Retry-After") != "40" {
			t.Fatalf("Retry-After %q, want 40", r.Header.Get("Retry-After"))
		}
		valid := []struct {
			name, key string
			want      int
		}{
			{"live key", a.key, 200},
			{"test key", test, 200},
			{"another organization's key", other, 200},
			{"old key in its grace period", graced, 200},
			{"key of a plan without the API", lapsed, 403},
		}
		for _, tc := range valid {
			a.run(t, "valid: "+tc.name, func(t *testing.T, a *api) {
				r := a.do("GET", "/v1/organization", tc.key, nil)
				if tc.want == 403 {
					r.problem(403, "NOT_ENTITLED")
					return
				}
				r.want(tc.want)
			})
		}
		invalid := map[string]string{
			"revoked key":             revoked,
			"key whose grace ended":   ended,
			"malformed key":           "key_live_nope",
			"wrong environment":       "key_test_" + strings.TrimPrefix(a.key, "key_live_"),
			"unknown key, once more":  unknown,
			"not even a bearer token": "",
		}
		for name, key := range invalid {
			a.run(t, "invalid: "+name, func(t *testing.T, a *api) {
				if key == "" {
					a.do("GET", "/v1/organization", "", nil, "Authorization", "Basic x").problem(429, "RATE_LIMITED")
					return
				}
				a.do("GET", "/v1/organization", key, nil).problem(429, "RATE_LIMITED")
			})
		}
		a.run(t, "a request without a key is a 401, not throttled", func(t *testing.T, a *api) {
			a.do("GET", "/v1/organization", "", nil).problem(401, "INVALID_API_KEY")
		})
		a.run(t, "the next minute lifts the throttle", func(t *testing.T, a *api) {
			a.clock.Set(start.Add(time.Minute))
			a.do("GET", "/v1/organization", unknown, nil).problem(401, "INVALID_API_KEY")
		})
	}, func(c *config.Config) { c.AuthFailLimit = 2 })
}

// docs/api-behaviour.md, "Rate limits", and --trusted-proxies: behind a trusted proxy the throttle counts the client
// X-Forwarded-For names (clients behind one proxy do not throttle each other,
// and an address a client prepends is not believed); from an untrusted peer
// the header is ignored. On PostgreSQL two servers share the count.
func TestFailedAuthThrottleBehindProxies(t *testing.T) {
	proxied := func(c *config.Config) { c.AuthFailLimit, c.TrustedProxies = 2, "10.0.0.0/8, 127.0.0.1" }
	run(t, func(t *testing.T, a *api) {
		start := time.Date(2031, 3, 1, 10, 0, 0, 0, time.UTC)
		a.clock.Set(start.Add(10 * time.Second))
		bad := "key_live_" + strings.Repeat("Y", 43)
		from := func(a *api, xff, key string) *response {
			return a.do("GET", "/v1/organization", key, nil, "X-Forwarded-For", xff)
		}
		from(a, "203.0.113.10", bad).problem(401, "INVALID_API_KEY")
		from(a, "203.0.113.10, 10.0.0.7", bad).problem(401, "INVALID_API_KEY")
		from(a, "203.0.113.10", bad).problem(429, "RATE_LIMITED")
		a.run(t, "a prepended address is not believed", func(t *testing.T, a *api) {
			from(a, "198.51.100.99, 203.0.113.10", bad).problem(429, "RATE_LIMITED")
		})
		a.run(t, "another client behind the same proxy", func(t *testing.T, a *api) {
			from(a, "203.0.113.11", bad).problem(401, "INVALID_API_KEY")
		})
		a.run(t, "the throttled client's valid key", func(t *testing.T, a *api) {
			from(a, "203.0.113.10", a.key).want(200)
		})
		a.run(t, "from an untrusted peer the header is ignored", func(t *testing.T, a *api) {
			b := newAPI(t, a.st, func(c *config.Config) { c.AuthFailLimit = 2 })
			b.clock.Set(start.Add(5*time.Minute + 10*time.Second))
			from(b, "203.0.113.20", bad).problem(401, "INVALID_API_KEY")
			from(b, "203.0.113.21", bad).problem(401, "INVALID_API_KEY")
			from(b, "203.0.113.22", bad).problem(429, "RATE_LIMITED")
		})
		if a.st.Dialect != dialect.Postgres {
			return
		}
		a.run(t, "two servers share the count", func(t *testing.T, a *api) {
			url, _ := twin(t, a.st, a.clock, proxied)
			b := *a
			b.url = url
			from(a, "203.0.113.30", bad).problem(401, "INVALID_API_KEY")
			from(&b, "203.0.113.30", bad).problem(401, "INVALID_API_KEY")
			from(a, "203.0.113.30", bad).problem(429, "RATE_LIMITED")
			from(&b, "203.0.113.30", bad).problem(429, "RATE_LIMITED")
		})
	}, proxied)
}
