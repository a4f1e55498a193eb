package auth_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"larder.dev/larder/internal/identity/audit"
	"larder.dev/larder/internal/identity/auth"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

// Rotating or revoking a key given one organization finds no key of another:
// a key of organization B, named with A's id, is not found with the very
// message of a missing id, and no key or history entry changes; with B's own
// id the same call works. Both directions, keys of both environments.
func TestKeyManagementFindsNothingOfAnotherOrganization(t *testing.T) {
	t.Parallel()
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		c := st.Client
		now := time.Now()
		ops := []struct {
			name string
			call func(orgID, keyID int) error
			// done checks the effect of a call with the right organization.
			done func(k auth.Listed) bool
		}{
			{"RotateKey", func(orgID, keyID int) error {
				_, err := auth.RotateKey(ctx, c, orgID, auth.Holder, keyID, time.Hour, now)
				return err
			}, func(k auth.Listed) bool { return k.ReplacedBy != nil && k.ExpiresAt != nil }},
			{"RevokeKey", func(orgID, keyID int) error {
				_, err := auth.RevokeKey(ctx, c, orgID, keyID, now)
				return err
			}, func(k auth.Listed) bool { return k.RevokedAt != nil }},
		}
		type side struct {
			label string
			org   *dbtest.Org
			keys  []int
		}
		sides := []side{{label: "A", org: dbtest.NewOrg(t, st, "")}, {label: "B", org: dbtest.NewOrg(t, st, "")}}
		for i := range sides {
			for _, env := range []policy.Environment{policy.Live, policy.Test} {
				k, err := auth.CreateKey(ctx, c, sides[i].org.Org.ID, auth.Holder, env, policy.Known(), "")
				if err != nil {
					t.Fatal(err)
				}
				sides[i].keys = append(sides[i].keys, k.Record.ID)
			}
		}
		world := func() string {
			t.Helper()
			var b strings.Builder
			for _, s := range sides {
				keys, err := auth.ListKeys(ctx, c, s.org.Org.ID)
				if err != nil {
					t.Fatal(err)
				}
				h, err := audit.History(ctx, c, s.org.Org.ID)
				if err != nil {
					t.Fatal(err)
				}
				fmt.Fprintf(&b, "%s: %s\n%s\n", s.label, cmp.Diff(nil, keys), cmp.Diff(nil, h))
			}
			return b.String()
		}
		key := func(s side, id int) auth.Listed {
			t.Helper()
			keys, err := auth.ListKeys(ctx, c, s.org.Org.ID)
			if err != nil {
				t.Fatal(err)
			}
			for _, k := range keys {
				if k.ID == id {
					return k
				}
			}
			t.Fatalf("key %d is not %s's", id, s.label)
			return auth.Listed{}
		}
		const missing = 1 << 30
		for _, op := range ops {
			t.Run(op.name, func(t *testing.T) {
				for i, mine := range sides {
					other := sides[1-i]
					for _, id := range mine.keys {
						err := op.call(mine.org.Org.ID, missing)
						if err == nil || !strings.Contains(err.Error(), "does not exist") {
							t.Fatalf("a missing key: %v, want it not found", err)
						}
						want := strings.ReplaceAll(err.Error(), strconv.Itoa(missing), strconv.Itoa(id))
						before := world()
						if err := op.call(other.org.Org.ID, id); err == nil || err.Error() != want {
							t.Errorf("%s's key %d for %s: %v, want %q", mine.label, id, other.label, err, want)
						}
						if after := world(); after != before {
							t.Errorf("%s's key %d for %s changed:\n%s\nto:\n%s", mine.label, id, other.label, before, after)
						}
						if err := op.call(mine.org.Org.ID, id); err != nil {
							t.Fatalf("%s's own key %d: %v", mine.label, id, err)
						}
						if k := key(mine, id); !op.done(k) {
							t.Errorf("%s's own key %d unchanged: %+v", mine.label, id, k)
						}
					}
				}
			})
		}
	})
}

// The organization of a key is that of its account; a missing key is not
// found.
func TestKeyOrganization(t *testing.T) {
	t.Parallel()
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		for range 2 {
			org := dbtest.NewOrg(t, st, "")
			for _, env := range []policy.Environment{policy.Live, policy.Test} {
				k, err := auth.CreateKey(ctx, st.Client, org.Org.ID, auth.Holder, env, policy.Known(), "")
				if err != nil {
					t.Fatal(err)
				}
				if got, err := auth.KeyOrganization(ctx, st.Client, k.Record.ID); err != nil || got != org.Org.ID {
					t.Errorf("key %d: organization %d (%v), want %d", k.Record.ID, got, err, org.Org.ID)
				}
			}
		}
		if _, err := auth.KeyOrganization(ctx, st.Client, 1<<30); err == nil || err.Error() != fmt.Sprintf("key %d does not exist", 1<<30) {
			t.Errorf("a missing key: %v", err)
		}
	})
}
