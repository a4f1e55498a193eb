package handlers_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/apikey"
	"larder.dev/larder/internal/identity/tenancy"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

// Spec Authentication 1–3: Bearer header only; key_live_/key_test_; only a
// SHA-256 is stored; every failure is one 401 with one message.
func TestAuthenticationFailuresAreAlike(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		live := a.key
		test := a.org.Key(t, policy.Test, "all")
		revoked := a.org.Key(t, policy.Live, "all")
		expired := a.org.Key(t, policy.Live, "all")
		ctx := policy.System(context.Background())
		c := a.st.Client
		// Expired by the server's clock, which stands still, however long
		// the cluster took to create the keys. In transactions that run again when chosen as a deadlock's victim,
		// as the product's own changes of keys do (auth.RevokeKey): on a
		// Citus cluster an update of api_keys, a reference table, takes an
		// exclusive lock on it and then on accounts and organizations, which
		// the organizations created by the tests running meanwhile take the
		// other way round.
		for _, change := range []func(tx *ent.Tx) error{
			func(tx *ent.Tx) error {
				return tx.APIKey.Update().Where(apikey.SecretHash(hash(revoked))).SetRevokedAt(a.clock.Now()).Exec(ctx)
			},
			func(tx *ent.Tx) error {
				return tx.APIKey.Update().Where(apikey.SecretHash(hash(expired))).SetExpiresAt(a.clock.Now().Add(-time.Second)).Exec(ctx)
			},
		} {
			if err := ent.RunInTx(ctx, c, change); err != nil {
				t.Fatal(err)
			}
		}

		cases := []struct {
			name    string
			headers []string
			path    string
		}{
			{"no Authorization header", nil, "/v1/tags?ref_type=PRODUCT"},
			{"key in the query string", nil, "/v1/tags?ref_type=PRODUCT&api_key=" + live},
			{"key in a cookie", []string{"Cookie", "api_key=" + live}, "/v1/tags?ref_type=PRODUCT"},
			{"Basic scheme", []string{"Authorization", "Basic " + live}, "/v1/tags?ref_type=PRODUCT"},
			{"token without scheme", []string{"Authorization", live}, "/v1/tags?ref_type=PRODUCT"},
			{"malformed key", []string{"Authorization", "Bearer key_live_short"}, "/v1/tags?ref_type=PRODUCT"},
			{"unknown key", []string{"Authorization", "Bearer key_live_" + strings.Repeat("A", 43)}, "/v1/tags?ref_type=PRODUCT"},
			{"test secret with live prefix", []string{"Authorization", "Bearer key_live_" + strings.TrimPrefix(test, "key_test_")}, "/v1/tags?ref_type=PRODUCT"},
			{"live secret with test prefix", []string{"Authorization", "Bearer key_test_" + strings.TrimPrefix(live, "key_live_")}, "/v1/tags?ref_type=PRODUCT"},
			{"revoked key", []string{"Authorization", "Bearer " + revoked}, "/v1/tags?ref_type=PRODUCT"},
			{"expired key", []string{"Authorization", "Bearer " + expired}, "/v1/tags?ref_type=PRODUCT"},
			{"organization too", nil, "/v1/organization"},
		}
		var detail any
		for _, tc := range cases {
			a.run(t, tc.name, func(t *testing.T, a *api) {
				r := a.do("GET", tc.path, "", nil, tc.headers...)
				p := r.problem(401, "INVALID_API_KEY")
				if detail == nil {
					detail = p["detail"]
				}
				if p["detail"] != detail {
					t.Fatalf("detail %q differs from %q: the reason must not show", p["detail"], detail)
				}
				if r.Header.Get("X-RateLimit-Limit") != "" {
					t.Fatal("an unauthenticated response carries rate-limit headers")
				}
			})
		}
		a.run(t, "scheme is case-insensitive", func(t *testing.T, a *api) {
			a.do("GET", "/v1/organization", "", nil, "Authorization", "bearer "+live).want(200)
		})
		a.run(t, "test key reaches the test account", func(t *testing.T, a *api) {
			d := a.do("GET", "/v1/organization", test, nil).want(200).Data()
			if d["environment"] != "test" || int(d["account_id"].(float64)) != a.org.Test.ID {
				t.Fatalf("test key sees %v", d)
			}
		})
	})
}

func hash(key string) string {
	s := sha256.Sum256([]byte(key))
	return hex.EncodeToString(s[:])
}

// Spec Authentication 3: only the SHA-256 of a key is stored.
func TestOnlyTheKeyHashIsStored(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		var n int
		row := a.st.DB.QueryRow(`SELECT count(*) FROM api_keys WHERE secret_hash = '` + hash(a.key) + `'`)
		if err := row.Scan(&n); err != nil || n != 1 {
			t.Fatalf("no key row stores the hash (n=%d, err=%v)", n, err)
		}
		secret := strings.TrimPrefix(a.key, "key_live_")
		row = a.st.DB.QueryRow(`SELECT count(*) FROM api_keys WHERE secret_hash LIKE '%` + secret + `%' OR name LIKE '%` + secret +
			`%' OR prefix LIKE '%` + secret + `%' OR last4 LIKE '%` + secret + `%'`)
		if err := row.Scan(&n); err != nil || n != 0 {
			t.Fatalf("the key itself is stored (n=%d, err=%v)", n, err)
		}
	})
}

// Spec Authentication 7–9: scopes per module; a write scope implies only its own
// module's read; 403 INSUFFICIENT_SCOPE.
func TestScopes(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		cases := []struct {
			name, scopes, method, path string
			body                       any
			want                       int
		}{
			{"read scope reads", "catalog:read", "GET", "/v1/tags?ref_type=PRODUCT", nil, 200},
			{"read scope cannot write", "catalog:read", "POST", "/v1/tags", map[string]any{"name": "x", "ref_type": "PRODUCT"}, 403},
			{"write implies own read", "catalog:write", "GET", "/v1/tags?ref_type=PRODUCT", nil, 200},
			{"write writes", "catalog:write", "POST", "/v1/tags", map[string]any{"name": "w", "ref_type": "PRODUCT"}, 201},
			{"write implies no other module's read", "sales:write", "GET", "/v1/tags?ref_type=PRODUCT", nil, 403},
			{"inventory guards warehouses", "catalog:read,catalog:write", "GET", "/v1/warehouses", nil, 403},
			{"inventory:read lists warehouses", "inventory:read", "GET", "/v1/warehouses", nil, 200},
			{"manufacturing guards operations", "inventory:write", "GET", "/v1/operations", nil, 403},
			{"cost:read alone reads nothing", "cost:read", "GET", "/v1/operations", nil, 403},
			{"read-all preset reads every module", "read-all", "GET", "/v1/operations", nil, 200},
			{"read-all preset writes nothing", "read-all", "DELETE", "/v1/tags/1", nil, 403},
			{"organization needs no scope", "purchasing:read", "GET", "/v1/organization", nil, 200},
		}
		for _, tc := range cases {
			a.run(t, tc.name, func(t *testing.T, a *api) {
				key := a.org.Key(t, policy.Live, tc.scopes)
				r := a.do(tc.method, tc.path, key, tc.body)
				if tc.want == 403 {
					p := r.problem(403, "INSUFFICIENT_SCOPE")
					if !strings.Contains(p["detail"].(string), ":") {
						t.Fatalf("detail should name the scope: %v", p["detail"])
					}
					return
				}
				r.want(tc.want)
			})
		}
	})
}

// The specification's Authentication 10 and docs/api-behaviour.md, "Keys": only enterprise has the API; live and
// test keys of any other plan get 403 NOT_ENTITLED, /organization included.
func TestPlans(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		for _, plan := range tenancy.Plans {
			a.run(t, plan, func(t *testing.T, a *api) {
				org := dbtest.NewOrg(t, a.st, plan)
				for _, env := range []policy.Environment{policy.Live, policy.Test} {
					key := org.Key(t, env, "all")
					for _, path := range []string{"/v1/organization", "/v1/tags?ref_type=PRODUCT"} {
						r := a.do("GET", path, key, nil)
						if plan == tenancy.Entitled {
							r.want(200)
							continue
						}
						r.problem(403, "NOT_ENTITLED")
					}
				}
			})
		}
	})
}

// GET /organization (openapi/openapi.json): the account-information operation.
func TestOrganization(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		key := a.org.Key(t, policy.Test, "catalog:write,cost:read")
		d := a.do("GET", "/v1/organization", key, nil).want(200).Data()
		want := map[string]any{
			"id":                 float64(a.org.Org.ID),
			"name":               a.org.Org.Name,
			"environment":        "test",
			"account_id":         float64(a.org.Test.ID),
			"plan":               "enterprise",
			"scopes":             []any{"catalog:read", "catalog:write", "cost:read"},
			"rate_limit_per_min": float64(300),
			"currency":           "CAD",
		}
		if diff := cmpDiff(want, d); diff != "" {
			t.Fatalf("organization (-want +got):\n%s", diff)
		}
	})
}
