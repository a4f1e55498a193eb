package auth_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"larder.dev/larder/ent/privacy"
	"larder.dev/larder/internal/identity/audit"
	"larder.dev/larder/internal/identity/auth"
	"larder.dev/larder/internal/identity/tenancy"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/openapi"
	"larder.dev/larder/policy"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

// Spec Authentication 4: at most 50 active keys per environment, even when
// keys are created concurrently; the other environment has its own 50.
func TestActiveKeyLimit(t *testing.T) {
	t.Parallel()
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		org := dbtest.NewOrg(t, st, "")
		ctx := context.Background()
		all := policy.Known()
		for range auth.MaxActiveKeys - 3 {
			if _, err := auth.CreateKey(ctx, st.Client, org.Org.ID, auth.Holder, policy.Live, all, ""); err != nil {
				t.Fatal(err)
			}
		}
		var wg sync.WaitGroup
		var mu sync.Mutex
		created, refused := 0, 0
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := auth.CreateKey(ctx, st.Client, org.Org.ID, auth.Holder, policy.Live, all, "")
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					created++
				case errors.Is(err, auth.ErrKeyLimit) && strings.Contains(err.Error(), "already has 50 active live keys"):
					refused++
				default:
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		if created != 3 || refused != 5 {
			t.Fatalf("%d created, %d refused; want 3 and 5", created, refused)
		}
		if _, err := auth.CreateKey(ctx, st.Client, org.Org.ID, auth.Holder, policy.Test, all, ""); err != nil {
			t.Fatalf("the test environment has its own limit: %v", err)
		}
	})
}

// docs/api-behaviour.md, "Keys" (audit history): creation, rotation, revocation and plan changes are recorded
// with their time and actor, oldest first; refused changes record nothing.
func TestAuditHistory(t *testing.T) {
	t.Parallel()
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		org := dbtest.NewOrg(t, st, "")
		ctx := audit.WithActor(context.Background(), "alice@desk")
		c := st.Client
		t0 := time.Date(2030, 5, 1, 8, 30, 15, 123456000, time.UTC)
		k, err := auth.CreateKey(ctx, c, org.Org.ID, auth.Holder, policy.Test, []policy.Scope{policy.CostRead}, "erp")
		if err != nil {
			t.Fatal(err)
		}
		r, err := auth.RotateKey(audit.WithActor(context.Background(), "bob@laptop"), c, org.Org.ID, auth.Holder, k.Record.ID, 24*time.Hour, t0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := auth.RevokeKey(ctx, c, org.Org.ID, r.New.ID, t0.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
		if _, err := tenancy.SetPlan(ctx, c, org.Org.ID, "starter"); err != nil {
			t.Fatal(err)
		}
		// Refused changes.
		if _, err := auth.RotateKey(ctx, c, org.Org.ID, auth.Holder, k.Record.ID, 0, t0); err == nil {
			t.Fatal("second rotation allowed")
		}
		if _, err := auth.RevokeKey(ctx, c, org.Org.ID, r.New.ID, t0); err == nil {
			t.Fatal("second revocation allowed")
		}
		if _, err := tenancy.SetPlan(ctx, c, org.Org.ID, "gold"); err == nil {
			t.Fatal("unknown plan allowed")
		}
		// Without a named actor, the system.
		if _, err := auth.CreateKey(context.Background(), c, org.Org.ID, auth.Holder, policy.Live, []policy.Scope{policy.CostRead}, ""); err != nil {
			t.Fatal(err)
		}

		h, err := audit.History(context.Background(), c, org.Org.ID)
		if err != nil {
			t.Fatal(err)
		}
		type row struct {
			Actor, Action, Env string
			Key                int
			Detail             map[string]any
		}
		var got []row
		for _, x := range h {
			r := row{Actor: x.Actor, Action: x.Action, Detail: x.Detail}
			if x.Env != nil {
				r.Env = *x.Env
			}
			if x.KeyID != nil {
				r.Key = *x.KeyID
			}
			got = append(got, r)
		}
		// JSON details read back as JSON: numbers are float64, times strings.
		want := []row{
			{"alice@desk", "key_created", "test", k.Record.ID, map[string]any{"name": "erp", "scopes": []any{"cost:read"}}},
			{"bob@laptop", "key_rotated", "test", k.Record.ID, map[string]any{"new_key_id": float64(r.New.ID), "grace": "24h", "old_key_expires_at": "2030-05-02T08:30:15Z"}},
			{"alice@desk", "key_revoked", "test", r.New.ID, map[string]any{}},
			{"alice@desk", "plan_changed", "", 0, map[string]any{"from": "enterprise", "to": "starter"}},
			{"system", "key_created", "live", 0, map[string]any{"name": "", "scopes": []any{"cost:read"}}},
		}
		if len(got) == len(want) {
			want[4].Key = got[4].Key
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("history (-want +got):\n%s", diff)
		}
		if !h[1].At.Equal(t0.Truncate(time.Microsecond)) || !h[2].At.Equal(t0.Add(time.Minute)) {
			t.Fatalf("times %v, %v; want the changes' %v, %v", h[1].At, h[2].At, t0, t0.Add(time.Minute))
		}
		if _, err := audit.History(context.Background(), c, 987654321); err == nil || !strings.Contains(err.Error(), "does not exist") {
			t.Fatalf("history of a missing organization: %v", err)
		}
	})
}

// docs/api-behaviour.md, "Keys" (audit history): the record is written in the transaction of the change, so
// when it cannot be written the change does not happen either.
func TestAuditRecordSharesTheTransaction(t *testing.T) {
	t.Parallel()
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		org := dbtest.NewOrg(t, st, "")
		c := st.Client
		ok := context.Background()
		bad := audit.WithActor(ok, strings.Repeat("x", 201)) // over the column's bound
		k, err := auth.CreateKey(ok, c, org.Org.ID, auth.Holder, policy.Live, policy.Known(), "")
		if err != nil {
			t.Fatal(err)
		}
		before, err := auth.ListKeys(ok, c, org.Org.ID)
		if err != nil {
			t.Fatal(err)
		}
		changes := map[string]func() error{
			"create": func() error {
				_, err := auth.CreateKey(bad, c, org.Org.ID, auth.Holder, policy.Live, policy.Known(), "")
				return err
			},
			"rotate": func() error {
				_, err := auth.RotateKey(bad, c, org.Org.ID, auth.Holder, k.Record.ID, time.Hour, time.Now())
				return err
			},
			"revoke": func() error {
				_, err := auth.RevokeKey(bad, c, org.Org.ID, k.Record.ID, time.Now())
				return err
			},
			"set plan": func() error {
				_, err := tenancy.SetPlan(bad, c, org.Org.ID, "starter")
				return err
			},
		}
		for name, change := range changes {
			if err := change(); err == nil {
				t.Fatalf("%s: the record's failure did not fail the change", name)
			}
		}
		after, err := auth.ListKeys(ok, c, org.Org.ID)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(before, after); diff != "" {
			t.Fatalf("keys changed without their record (-before +after):\n%s", diff)
		}
		o, err := c.Organization.Get(policy.System(ok), org.Org.ID)
		if err != nil || string(o.Plan) != "enterprise" {
			t.Fatalf("plan %v (%v) changed without its record", o.Plan, err)
		}
		h, err := audit.History(ok, c, org.Org.ID)
		if err != nil || len(h) != 1 {
			t.Fatalf("history %v (%v), want the first creation only", h, err)
		}
	})
}

// Spec Authentication 6: concurrent rotations of one key make exactly one
// replacement; the others are refused as already in a grace period.
func TestConcurrentRotations(t *testing.T) {
	t.Parallel()
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		org := dbtest.NewOrg(t, st, "")
		k, err := auth.CreateKey(context.Background(), st.Client, org.Org.ID, auth.Holder, policy.Live, policy.Known(), "")
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		var mu sync.Mutex
		done, refused := 0, 0
		for range 6 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := auth.RotateKey(context.Background(), st.Client, org.Org.ID, auth.Holder, k.Record.ID, time.Hour, time.Now())
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					done++
				case strings.Contains(err.Error(), "already in a grace period"):
					refused++
				default:
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		keys, err := auth.ListKeys(context.Background(), st.Client, org.Org.ID)
		if err != nil {
			t.Fatal(err)
		}
		if done != 1 || refused != 5 || len(keys) != 2 || *keys[1].Replaces != k.Record.ID || *keys[0].ReplacedBy != keys[1].ID {
			t.Fatalf("%d rotated, %d refused, keys %+v", done, refused, keys)
		}
	})
}

// Audit records are system-only, like keys: an account's viewer (app or API)
// neither reads nor writes them, and the API description does not name them.
func TestAuditRecordsAreSystemOnly(t *testing.T) {
	t.Parallel()
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		org := dbtest.NewOrg(t, st, "")
		org.Key(t, policy.Live, "all") // one record to hide
		app := org.Ctx(policy.Live)
		if _, err := st.Client.AuditRecord.Query().All(app); !errors.Is(err, privacy.Deny) {
			t.Fatalf("an account viewer read audit records: %v", err)
		}
		err := st.Client.AuditRecord.Create().SetOrganizationID(org.Org.ID).SetAction(audit.KeyRevoked).SetActor("mallory").Exec(app)
		if !errors.Is(err, privacy.Deny) {
			t.Fatalf("an account viewer wrote an audit record: %v", err)
		}
		if strings.Contains(strings.ToLower(string(openapi.Document)), "audit") {
			t.Fatal("the API description mentions audit records")
		}
	})
}

// A key that reads costs is created and rotated only by an issuer who reads
// them: any other is refused with ErrCostScope before anything is written
// (no key, no rotation, no audit record), whatever the way cost:read is
// asked for; keys without it are theirs to make and rotate.
func TestCostKeysNeedAnIssuerWhoSeesCosts(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		org := dbtest.NewOrg(t, st, "")
		ctx := context.Background()
		c := st.Client
		all, _ := policy.ParseScopes("all")
		readAll, _ := policy.ParseScopes("read-all")
		without := auth.Issuer{SeesCosts: false}
		state := func() (int, int) {
			keys, err := auth.ListKeys(ctx, c, org.Org.ID)
			if err != nil {
				t.Fatal(err)
			}
			h, err := audit.History(ctx, c, org.Org.ID)
			if err != nil {
				t.Fatal(err)
			}
			return len(keys), len(h)
		}
		for name, scopes := range map[string][]policy.Scope{
			"cost:read alone":     {policy.CostRead},
			"cost:read with more": {policy.Read("sales"), policy.CostRead},
			"the preset all":      all,
		} {
			k0, h0 := state()
			_, err := auth.CreateKey(ctx, c, org.Org.ID, without, policy.Live, scopes, name)
			if !errors.Is(err, auth.ErrCostScope) {
				t.Errorf("%s: created without the right to costs (%v)", name, err)
			}
			if k, h := state(); k != k0 || h != h0 {
				t.Errorf("%s: the refusal wrote %d keys and %d records", name, k-k0, h-h0)
			}
		}
		mine, err := auth.CreateKey(ctx, c, org.Org.ID, without, policy.Live, readAll, "no costs")
		if err != nil {
			t.Fatalf("a key without costs: %v", err)
		}
		if _, err := auth.RotateKey(ctx, c, org.Org.ID, without, mine.Record.ID, time.Hour, time.Now()); err != nil {
			t.Fatalf("rotating a key without costs: %v", err)
		}

		costly, err := auth.CreateKey(ctx, c, org.Org.ID, auth.Holder, policy.Test, []policy.Scope{policy.CostRead}, "costs")
		if err != nil {
			t.Fatal(err)
		}
		k0, h0 := state()
		if _, err := auth.RotateKey(ctx, c, org.Org.ID, without, costly.Record.ID, time.Hour, time.Now()); !errors.Is(err, auth.ErrCostScope) {
			t.Fatalf("rotated a cost key without the right to costs (%v)", err)
		}
		rec, err := c.APIKey.Get(policy.System(ctx), costly.Record.ID)
		if err != nil || rec.ExpiresAt != nil {
			t.Fatalf("the refused rotation set an expiry: %v (%v)", rec.ExpiresAt, err)
		}
		if k, h := state(); k != k0 || h != h0 {
			t.Fatalf("the refused rotation wrote %d keys and %d records", k-k0, h-h0)
		}
		if _, err := auth.RotateKey(ctx, c, org.Org.ID, auth.Issuer{SeesCosts: true}, costly.Record.ID, time.Hour, time.Now()); err != nil {
			t.Fatalf("an issuer who sees costs rotates it: %v", err)
		}
	})
}
