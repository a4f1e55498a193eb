package main

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"larder.dev/larder/internal/identity/auth"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

// human runs larder without --json and returns what it printed.
func human(t *testing.T, db string, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	if err := run(context.Background(), append(args, "--database", db), &out, &errb); err != nil {
		t.Fatalf("larder %s: %v\n%s", strings.Join(args, " "), err, errb.String())
	}
	return out.String()
}

// docs/operators.md, "Commands", and the specification's Authentication 4–6: key rotate, key revoke
// and key list --history, their --json shapes, their refusals (non-zero exit
// with a clear message) and the actor of the history (--actor, LARDER_ACTOR).
// Not parallel: it sets LARDER_ACTOR.
func TestKeyLifecycleCommands(t *testing.T) {
	for _, b := range dbtest.Backends(t) {
		t.Run(string(b), func(t *testing.T) {
			db := dbtest.MigratedURL(t, b)
			t.Setenv("LARDER_ACTOR", "env-actor@ci")
			org := cli(t, db, "org", "create", "--name", "Rotating Foods")
			id := strconv.Itoa(int(org["id"].(float64)))
			k := cli(t, db, "key", "create", "--org", id, "--env", "live", "--scopes", "sales:write,cost:read", "--name", "erp", "--actor", "flag-actor@desk")
			oldID := int(k["id"].(float64))
			old := strconv.Itoa(oldID)

			before := time.Now().UTC().Truncate(time.Second)
			r := cli(t, db, "key", "rotate", "--key", old, "--grace", "24h")
			if got := strings.Join(keys(r), ","); got != "env,grace,id,key,last4,name,old_key_expires_at,prefix,replaces,scopes" {
				t.Fatalf("key rotate keys: %s", got)
			}
			newKey := r["key"].(string)
			if int(r["replaces"].(float64)) != oldID || r["env"] != "live" || r["name"] != "erp" || r["grace"] != "24h" ||
				!strings.HasPrefix(newKey, "key_live_") || !strings.HasSuffix(newKey, r["last4"].(string)) || newKey == k["key"] {
				t.Fatalf("key rotate: %v", r)
			}
			if diff := strings.Join([]string{r["scopes"].([]any)[0].(string), r["scopes"].([]any)[1].(string)}, ","); diff != "cost:read,sales:write" {
				t.Fatalf("rotated scopes %v", r["scopes"])
			}
			expires, err := time.Parse(time.RFC3339, r["old_key_expires_at"].(string))
			if err != nil || expires.Before(before.Add(24*time.Hour)) || expires.After(time.Now().Add(24*time.Hour)) || expires.Nanosecond() != 0 {
				t.Fatalf("old_key_expires_at %v (%v), want 24 hours from now to the second", r["old_key_expires_at"], err)
			}
			newID := strconv.Itoa(int(r["id"].(float64)))

			fails(t, db, "already in a grace period", "key", "rotate", "--key", old, "--grace", "1h")
			fails(t, db, "use one of none, 1h, 24h, 7d", "key", "rotate", "--key", newID, "--grace", "2h")
			fails(t, db, "needs --key and --grace", "key", "rotate", "--key", newID)
			fails(t, db, "does not exist", "key", "rotate", "--key", "987654", "--grace", "none")

			v := cli(t, db, "key", "revoke", "--key", newID)
			if got := strings.Join(keys(v), ","); got != "id,revoked_at" || v["id"] != r["id"] {
				t.Fatalf("key revoke: %v", v)
			}
			if at, err := time.Parse(time.RFC3339Nano, v["revoked_at"].(string)); err != nil || time.Since(at) > time.Minute {
				t.Fatalf("revoked_at %v (%v)", v["revoked_at"], err)
			}
			fails(t, db, "already revoked", "key", "revoke", "--key", newID)
			fails(t, db, "revoked key cannot be rotated", "key", "rotate", "--key", newID, "--grace", "none")
			fails(t, db, "does not exist", "key", "revoke", "--key", "987654")
			fails(t, db, "needs --key", "key", "revoke")

			cli(t, db, "org", "set-plan", "--org", id, "--plan", "starter")

			list := cli(t, db, "key", "list", "--org", id)
			if _, ok := list["history"]; ok {
				t.Fatal("key list shows the history without --history")
			}
			listed := list["keys"].([]any)
			if len(listed) != 2 {
				t.Fatalf("keys %v", listed)
			}
			first, second := listed[0].(map[string]any), listed[1].(map[string]any)
			if first["replaced_by"] != r["id"] || first["replaces"] != nil || second["replaces"] != k["id"] || second["replaced_by"] != nil {
				t.Fatalf("rotation links: %v / %v", first, second)
			}
			hist := cli(t, db, "key", "list", "--org", id, "--history")["history"].([]any)
			want := []struct{ action, actor, key string }{
				{"key_created", "flag-actor@desk", old},
				{"key_rotated", "env-actor@ci", old},
				{"key_revoked", "env-actor@ci", newID},
				{"plan_changed", "env-actor@ci", ""},
			}
			if len(hist) != len(want) {
				t.Fatalf("history %v", hist)
			}
			for i, w := range want {
				h := hist[i].(map[string]any)
				if got := strings.Join(keys(h), ","); got != "action,actor,address,at,detail,env,id,key_id,user_id" {
					t.Fatalf("history entry keys %s", got)
				}
				if h["address"] != "" || h["user_id"] != nil {
					t.Errorf("a CLI change has the client address %q or the user %v", h["address"], h["user_id"])
				}
				key := ""
				if h["key_id"] != nil {
					key = strconv.Itoa(int(h["key_id"].(float64)))
				}
				if h["action"] != w.action || h["actor"] != w.actor || key != w.key {
					t.Fatalf("history[%d] = %v, want %+v", i, h, w)
				}
			}
			if d := hist[1].(map[string]any)["detail"].(map[string]any); d["grace"] != "24h" || d["new_key_id"] != r["id"] || d["old_key_expires_at"] != r["old_key_expires_at"] {
				t.Fatalf("rotation detail %v", d)
			}
			if d := hist[3].(map[string]any)["detail"].(map[string]any); d["from"] != "enterprise" || d["to"] != "starter" {
				t.Fatalf("plan detail %v", d)
			}
			text := human(t, db, "key", "list", "--org", id, "--history")
			for _, s := range []string{"REPLACED BY", "plan_changed", "env-actor@ci", "from=enterprise to=starter", "grace=24h"} {
				if !strings.Contains(text, s) {
					t.Fatalf("human key list --history lacks %q:\n%s", s, text)
				}
			}
			if strings.Contains(text, newKey) || strings.Contains(text, k["key"].(string)) {
				t.Fatal("key list shows a secret")
			}
			fails(t, db, "does not exist", "key", "list", "--org", "987654", "--history")
			fails(t, db, "actor must be", "key", "revoke", "--key", old, "--actor", "")
		})
	}
}

// Spec Authentication 4: the 51st active key of an environment is refused
// with a clear message; a rotation at the limit is not.
func TestFiftyFirstKeyRefused(t *testing.T) {
	t.Parallel()
	for _, b := range dbtest.Backends(t) {
		t.Run(string(b), func(t *testing.T) {
			db := dbtest.MigratedURL(t, b)
			org := cli(t, db, "org", "create", "--name", "Fifty Keys")
			id := strconv.Itoa(int(org["id"].(float64)))
			st := dbtest.OpenURL(t, db)
			for range auth.MaxActiveKeys - 1 {
				if _, err := auth.CreateKey(context.Background(), st.Client, int(org["id"].(float64)), auth.Holder, policy.Live, policy.Known(), ""); err != nil {
					t.Fatal(err)
				}
			}
			last := cli(t, db, "key", "create", "--org", id, "--env", "live", "--scopes", "all")
			fails(t, db, "already has 50 active live keys, the most it may hold; revoke one first", "key", "create", "--org", id, "--env", "live", "--scopes", "all")
			cli(t, db, "key", "rotate", "--key", strconv.Itoa(int(last["id"].(float64))), "--grace", "7d")
			fails(t, db, "already has 50 active live keys", "key", "create", "--org", id, "--env", "live", "--scopes", "all")
			cli(t, db, "key", "create", "--org", id, "--env", "test", "--scopes", "all")
		})
	}
}
