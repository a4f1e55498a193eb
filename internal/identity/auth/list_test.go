package auth_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"larder.dev/larder/ent/account"
	"larder.dev/larder/ent/apikey"
	"larder.dev/larder/internal/identity/audit"
	"larder.dev/larder/internal/identity/auth"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

// A listed key names who made it: the actor of its creation, or for a
// replacement the actor of the rotation that made it; another
// organization's history does not leak into the list.
func TestListKeysCreatedBy(t *testing.T) {
	t.Parallel()
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		org, other := dbtest.NewOrg(t, st, ""), dbtest.NewOrg(t, st, "")
		c := st.Client
		alice := audit.WithActor(context.Background(), "alice@example.com")
		bob := audit.WithActor(context.Background(), "bob@example.com")
		k, err := auth.CreateKey(alice, c, org.Org.ID, auth.Holder, policy.Live, policy.Known(), "erp")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := auth.CreateKey(context.Background(), c, org.Org.ID, auth.Holder, policy.Test, policy.Known(), "ci"); err != nil {
			t.Fatal(err)
		}
		r, err := auth.RotateKey(bob, c, org.Org.ID, auth.Holder, k.Record.ID, time.Hour, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := auth.CreateKey(audit.WithActor(context.Background(), "mallory@example.com"), c, other.Org.ID, auth.Holder, policy.Live, policy.Known(), ""); err != nil {
			t.Fatal(err)
		}
		keys, err := auth.ListKeys(context.Background(), c, org.Org.ID)
		if err != nil {
			t.Fatal(err)
		}
		got := map[int]string{}
		for _, l := range keys {
			got[l.ID] = l.CreatedBy
		}
		want := map[int]string{k.Record.ID: "alice@example.com", keys[1].ID: audit.SystemActor, r.New.ID: "bob@example.com"}
		if len(keys) != 3 || len(got) != 3 {
			t.Fatalf("keys %+v", keys)
		}
		for id, who := range want {
			if got[id] != who {
				t.Errorf("key %d created by %q, want %q", id, got[id], who)
			}
		}
	})
}

// Occupied counts what CreateKey counts against the limit, per environment:
// an old key in its grace period gives its place to an active replacement,
// takes it back when the replacement is revoked, and an expired or revoked
// key holds none.
func TestOccupied(t *testing.T) {
	t.Parallel()
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		org := dbtest.NewOrg(t, st, "")
		c := st.Client
		ctx := context.Background()
		now := time.Now()
		check := func(step string, live, test int) {
			t.Helper()
			keys, err := auth.ListKeys(ctx, c, org.Org.ID)
			if err != nil {
				t.Fatal(err)
			}
			for env, want := range map[policy.Environment]int{policy.Live: live, policy.Test: test} {
				db, err := c.APIKey.Query().
					Where(auth.Occupying(now), apikey.HasAccountWith(account.OrganizationID(org.Org.ID), account.EnvironmentEQ(account.Environment(env)))).
					Count(policy.System(ctx))
				if err != nil {
					t.Fatal(err)
				}
				if got := auth.Occupied(keys, env, now); got != want || db != want {
					t.Fatalf("%s: %s keys occupied %d (database %d), want %d", step, env, got, db, want)
				}
			}
		}
		create := func(env policy.Environment) int {
			k, err := auth.CreateKey(ctx, c, org.Org.ID, auth.Holder, env, policy.Known(), "")
			if err != nil {
				t.Fatal(err)
			}
			return k.Record.ID
		}
		a, b := create(policy.Live), create(policy.Live)
		create(policy.Test)
		check("created", 2, 1)
		r, err := auth.RotateKey(ctx, c, org.Org.ID, auth.Holder, b, 24*time.Hour, now)
		if err != nil {
			t.Fatal(err)
		}
		check("rotated with a grace period", 2, 1)
		if _, err := auth.RevokeKey(ctx, c, org.Org.ID, r.New.ID, now); err != nil {
			t.Fatal(err)
		}
		check("replacement revoked", 2, 1)
		if _, err := auth.RotateKey(ctx, c, org.Org.ID, auth.Holder, a, 0, now); err != nil {
			t.Fatal(err)
		}
		check("rotated without a grace period", 2, 1)
		if _, err := auth.RevokeKey(ctx, c, org.Org.ID, b, now); err != nil {
			t.Fatal(err)
		}
		check("old key revoked", 1, 1)
	})
}

// A key's name is at most 100 characters (not bytes); a longer one is
// refused before anything is written.
func TestKeyNameLength(t *testing.T) {
	t.Parallel()
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		org := dbtest.NewOrg(t, st, "")
		ctx := context.Background()
		if auth.MaxNameLength != 100 {
			t.Fatalf("MaxNameLength %d, want 100", auth.MaxNameLength)
		}
		if _, err := auth.CreateKey(ctx, st.Client, org.Org.ID, auth.Holder, policy.Live, policy.Known(), strings.Repeat("é", 100)); err != nil {
			t.Fatalf("100 characters refused: %v", err)
		}
		_, err := auth.CreateKey(ctx, st.Client, org.Org.ID, auth.Holder, policy.Live, policy.Known(), strings.Repeat("x", 101))
		if !errors.Is(err, auth.ErrNameTooLong) || errors.Is(err, auth.ErrKeyLimit) {
			t.Fatalf("101 characters: %v", err)
		}
		keys, err := auth.ListKeys(ctx, st.Client, org.Org.ID)
		if err != nil || len(keys) != 1 {
			t.Fatalf("keys %+v (%v), want the one of 100 characters", keys, err)
		}
	})
}

// A change the key's state refuses is ErrKeyState (the console shows its
// reason); another organization's key is not found, never ErrKeyState.
func TestKeyStateRefusals(t *testing.T) {
	t.Parallel()
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		org, other := dbtest.NewOrg(t, st, ""), dbtest.NewOrg(t, st, "")
		c := st.Client
		ctx := context.Background()
		now := time.Now()
		k, err := auth.CreateKey(ctx, c, org.Org.ID, auth.Holder, policy.Live, policy.Known(), "")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := auth.RotateKey(ctx, c, other.Org.ID, auth.Holder, k.Record.ID, time.Hour, now); !policy.IsMissing(err) || errors.Is(err, auth.ErrKeyState) {
			t.Fatalf("rotating another organization's key: %v", err)
		}
		if _, err := auth.RevokeKey(ctx, c, other.Org.ID, k.Record.ID, now); !policy.IsMissing(err) || errors.Is(err, auth.ErrKeyState) {
			t.Fatalf("revoking another organization's key: %v", err)
		}
		r, err := auth.RotateKey(ctx, c, org.Org.ID, auth.Holder, k.Record.ID, time.Hour, now)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := auth.RotateKey(ctx, c, org.Org.ID, auth.Holder, k.Record.ID, time.Hour, now); !errors.Is(err, auth.ErrKeyState) || !strings.Contains(err.Error(), "already in a grace period") {
			t.Fatalf("rotating a rotated key: %v", err)
		}
		if _, err := auth.RevokeKey(ctx, c, org.Org.ID, r.New.ID, now); err != nil {
			t.Fatal(err)
		}
		if _, err := auth.RevokeKey(ctx, c, org.Org.ID, r.New.ID, now); !errors.Is(err, auth.ErrKeyState) || !strings.Contains(err.Error(), "already revoked") {
			t.Fatalf("revoking a revoked key: %v", err)
		}
		if _, err := auth.RotateKey(ctx, c, org.Org.ID, auth.Holder, r.New.ID, time.Hour, now); !errors.Is(err, auth.ErrKeyState) || !strings.Contains(err.Error(), "cannot be rotated") {
			t.Fatalf("rotating a revoked key: %v", err)
		}
	})
}
