package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"testing"
	"time"

	"larder.dev/larder/internal/identity/auth"
	"larder.dev/larder/internal/platform/config"
	"larder.dev/larder/internal/platform/fastpath"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

// requestIDs are the parts of an answer that differ between any two
// requests: the request's id.
var requestIDs = regexp.MustCompile(`req_[0-9A-Za-z]+`)

// The fast path and the plain path (--fast-path=false) answer alike: two
// servers over one database, one with every speed mechanism and one with
// none, give the same status, the same body and the same validators to the
// same request, for single reads, lists, errors, writes and a key's
// revocation seen by a key each server has taken on trust.
func TestFastAndPlainPathsAnswerAlike(t *testing.T) {
	t.Parallel()
	for _, b := range dbtest.Backends(t) {
		t.Run(string(b), func(t *testing.T) {
			fastSt, plainSt := dbtest.Pair(t, b, fastpath.All, fastpath.Plain)
			fast := newAPI(t, fastSt, func(c *config.Config) { c.FastPath = fastpath.All })
			plain := newAPI(t, plainSt, func(c *config.Config) { c.FastPath = fastpath.Plain })
			plain.org, plain.key = fast.org, fast.key

			var ids []int
			for i := range 5 {
				ids = append(ids, fast.post("/v1/tags", map[string]any{"name": fmt.Sprintf("alike %d", i), "ref_type": "PRODUCT"}).want(201).ID())
			}
			testKey := fast.org.Key(t, policy.Test, "all")
			readOnly := fast.org.Key(t, policy.Live, "catalog:read")
			type req struct {
				name, method, path, key string
				body                    any
				want                    int
			}
			reqs := []req{
				{"a tag", "GET", path("/v1/tags", ids[2]), fast.key, nil, 200},
				{"a tag with a test key", "GET", "/v1/tags?ref_type=PRODUCT", testKey, nil, 200},
				{"a list", "GET", "/v1/tags?ref_type=PRODUCT&limit=3&sort=name:desc", fast.key, nil, 200},
				{"a second page", "GET", "/v1/tags?ref_type=PRODUCT&limit=2&offset=2", fast.key, nil, 200},
				{"a filtered list", "GET", "/v1/tags?ref_type=PRODUCT&name=alike%203", fast.key, nil, 200},
				{"shared rows", "GET", "/v1/allergens?limit=200", fast.key, nil, 200},
				{"the organization", "GET", "/v1/organization", fast.key, nil, 200},
				{"another id", "GET", "/v1/tags/999999999", fast.key, nil, 404},
				{"a bad limit", "GET", "/v1/tags?ref_type=PRODUCT&limit=0", fast.key, nil, 400},
				{"a bad body", "POST", "/v1/tags", fast.key, map[string]any{"name": "", "ref_type": "NOPE"}, 400},
				{"a missing scope", "POST", "/v1/tags", readOnly, map[string]any{"name": "x", "ref_type": "PRODUCT"}, 403},
				{"no key", "GET", "/v1/tags?ref_type=PRODUCT", "", nil, 401},
				{"an unknown key", "GET", "/v1/tags?ref_type=PRODUCT", "key_live_0000000000000000000000000000000000000000000", nil, 401},
				{"a change", "PATCH", path("/v1/tags", ids[4]), fast.key, map[string]any{"description": "same"}, 200},
			}
			// Twice: the second time, each server holds the key as it read it
			// (the fast path then takes it on trust).
			for round := range 2 {
				for _, r := range reqs {
					name := fmt.Sprintf("%s (round %d)", r.name, round+1)
					f := fast.do(r.method, r.path, r.key, r.body)
					if f.Status != r.want {
						t.Errorf("%s: %d, want %d: %s", name, f.Status, r.want, f.Body)
					}
					same(t, name, f, plain.do(r.method, r.path, r.key, r.body))
				}
			}
			// Each server creates a tag of its own: the same answer but for
			// the id and the times.
			one := fast.post("/v1/tags", map[string]any{"name": "alike new", "ref_type": "PRODUCT"}).want(201).Data()
			two := plain.post("/v1/tags", map[string]any{"name": "alike newer", "ref_type": "PRODUCT"}).want(201).Data()
			for _, k := range []string{"id", "name", "created_at", "updated_at"} {
				delete(one, k)
				delete(two, k)
			}
			if fmt.Sprint(one) != fmt.Sprint(two) {
				t.Errorf("created tags differ: fast %v, plain %v", one, two)
			}

			// A revoked key stops working on both at once, although each
			// has just served it.
			key, id := fast.newKey(policy.Live, "all")
			same(t, "a new key", fast.do("GET", "/v1/organization", key, nil).want(200), plain.do("GET", "/v1/organization", key, nil).want(200))
			same(t, "a new key again", fast.do("GET", "/v1/organization", key, nil).want(200), plain.do("GET", "/v1/organization", key, nil).want(200))
			if _, err := auth.RevokeKey(context.Background(), fastSt.Client, fast.org.Org.ID, id, time.Now()); err != nil {
				t.Fatal(err)
			}
			same(t, "a revoked key", fast.do("GET", "/v1/organization", key, nil), plain.do("GET", "/v1/organization", key, nil))
			fast.do("GET", "/v1/organization", key, nil).problem(http.StatusUnauthorized, "INVALID_API_KEY")
		})
	}
}

// same fails unless two answers have the same status, body (but for the
// request's id) and validators.
func same(t *testing.T, name string, fast, plain *response) {
	t.Helper()
	if fast.Status != plain.Status {
		t.Errorf("%s: fast path %d, plain path %d", name, fast.Status, plain.Status)
	}
	if f, p := requestIDs.ReplaceAll(fast.Body, []byte("req_")), requestIDs.ReplaceAll(plain.Body, []byte("req_")); string(f) != string(p) {
		t.Errorf("%s: bodies differ:\nfast  %s\nplain %s", name, f, p)
	}
	for _, h := range []string{"Content-Type", "ETag", "Cache-Control", "Allow", "Sunset", "WWW-Authenticate"} {
		if fast.Header.Get(h) != plain.Header.Get(h) {
			t.Errorf("%s: %s: fast path %q, plain path %q", name, h, fast.Header.Get(h), plain.Header.Get(h))
		}
	}
}
