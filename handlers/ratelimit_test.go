package handlers_test

import (
	"strconv"
	"testing"
	"time"

	"larder.dev/larder/config"
	"larder.dev/larder/dbtest"
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

// Spec Authentication 11 and DECISIONS: past the failed-auth limit, further
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
