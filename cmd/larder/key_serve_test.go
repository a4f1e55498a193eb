package main

import (
	"context"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"larder.dev/larder/internal/testkit/dbtest"
)

// get sends GET /v1/organization to base with key and optional X-Forwarded-For.
func get(t *testing.T, base, key, xff string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest("GET", base+"/v1/organization", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	if xff != "" {
		req.Header.Set("X-Forwarded-For", xff)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res
}

// The specification's Authentication 5, 6, 10, 11 and docs/api-behaviour.md,
// "Keys" and "Rate limits", through two `larder serve`
// processes over one PostgreSQL database and the CLI: a rotation's old key
// carries Sunset on both; a revocation and a plan change are seen by both on
// their very next request, though both served the keys just before (cached
// owners, reserved budget); the failed-auth count behind a trusted proxy is
// shared, and never blocks a valid key.
func TestKeyChangesAcrossServeProcesses(t *testing.T) {
	for _, b := range dbtest.Backends(t) {
		if b != dbtest.Postgres {
			continue
		}
		t.Run(string(b), func(t *testing.T) {
			db := dbtest.MigratedURL(t, b)
			org := cli(t, db, "org", "create", "--name", t.Name())
			id := strconv.Itoa(int(org["id"].(float64)))
			live := cli(t, db, "key", "create", "--org", id, "--env", "live", "--scopes", "all")
			test := cli(t, db, "key", "create", "--org", id, "--env", "test", "--scopes", "read-all")["key"].(string)
			ctx, cancel := context.WithCancel(context.Background())
			var wg sync.WaitGroup
			t.Cleanup(func() {
				cancel()
				wg.Wait()
			})
			var servers []string
			for range 2 {
				servers = append(servers, serveUntil(t, ctx, &wg, db, "--trusted-proxies", "127.0.0.1", "--auth-fail-limit", "6"))
			}
			// warm has both servers serve key often enough to hold reserved
			// numbers of its account's budget (and its owner cached).
			warm := func(key string) {
				t.Helper()
				for range 20 {
					for i, s := range servers {
						if res := get(t, s, key, ""); res.StatusCode != 200 {
							t.Fatalf("server %d: warming got %d", i+1, res.StatusCode)
						}
					}
				}
			}
			expect := func(key string, status int) []*http.Response {
				t.Helper()
				var out []*http.Response
				for i, s := range servers {
					res := get(t, s, key, "")
					if res.StatusCode != status {
						t.Fatalf("server %d: status %d, want %d", i+1, res.StatusCode, status)
					}
					out = append(out, res)
				}
				return out
			}
			oldKey := live["key"].(string)
			warm(oldKey)
			r := cli(t, db, "key", "rotate", "--key", strconv.Itoa(int(live["id"].(float64))), "--grace", "1h")
			expires, err := time.Parse(time.RFC3339, r["old_key_expires_at"].(string))
			if err != nil {
				t.Fatal(err)
			}
			for _, res := range expect(oldKey, 200) {
				if res.Header.Get("Sunset") != expires.Format(http.TimeFormat) {
					t.Fatalf("Sunset %q, want %q", res.Header.Get("Sunset"), expires.Format(http.TimeFormat))
				}
			}
			newKey := r["key"].(string)
			for _, res := range expect(newKey, 200) {
				if res.Header.Get("Sunset") != "" {
					t.Fatal("the new key's response carries Sunset")
				}
			}

			warm(oldKey)
			cli(t, db, "key", "revoke", "--key", strconv.Itoa(int(live["id"].(float64))))
			expect(oldKey, 401)
			expect(newKey, 200)

			warm(newKey)
			warm(test)
			cli(t, db, "org", "set-plan", "--org", id, "--plan", "lapsed")
			expect(newKey, 403)
			expect(test, 403)
			cli(t, db, "org", "set-plan", "--org", id, "--plan", "enterprise")
			expect(newKey, 200)
			expect(test, 200)

			warm(newKey)
			cli(t, db, "key", "revoke", "--key", strconv.Itoa(int(r["id"].(float64))))
			expect(newKey, 401)

			withinOneMinute(5)
			// The revoked keys above counted for 127.0.0.1 itself; behind the
			// trusted proxy each client has its own count.
			bad := oldKey
			var statuses []int
			for i := range 8 {
				statuses = append(statuses, get(t, servers[i%2], bad, "198.51.100.77").StatusCode)
			}
			if want := []int{401, 401, 401, 401, 401, 401, 429, 429}; !slices.Equal(statuses, want) {
				t.Fatalf("invalid keys from one client across servers: %v, want %v", statuses, want)
			}
			for i, s := range servers {
				if st := get(t, s, test, "198.51.100.77").StatusCode; st != 200 {
					t.Fatalf("server %d: the throttled client's valid key got %d", i+1, st)
				}
				if st := get(t, s, bad, "198.51.100.78").StatusCode; st != 401 {
					t.Fatalf("server %d: another client behind the proxy got %d", i+1, st)
				}
			}
		})
	}
}
