package main

import (
	"path/filepath"
	"reflect"
	"strconv"
	"testing"

	"larder.dev/larder/internal/testkit/dbtest"
)

// `larder org settings` changes the purchasing settings (block unapproved
// suppliers, manual costing) and records each change with its actor in the
// audit history; asking for the settings an organization has already
// succeeds and records nothing, and without a setting it shows them.
func TestOrgSettings(t *testing.T) {
	t.Parallel()
	for _, b := range dbtest.Backends(t) {
		t.Run(string(b), func(t *testing.T) {
			db := dbtest.MigratedURL(t, b)
			id := cli(t, db, "org", "create", "--name", "Buyer")["id"]
			org := strconv.Itoa(int(id.(float64)))
			got := cli(t, db, "org", "settings", "--org", org, "--block-unapproved-suppliers", "true", "--actor", "ops@desk")
			if got["block_unapproved_suppliers"] != true || got["manual_costing"] != false {
				t.Fatalf("settings: %v", got)
			}
			got = cli(t, db, "org", "settings", "--org", org, "--manual-costing", "true")
			if got["block_unapproved_suppliers"] != true || got["manual_costing"] != true {
				t.Fatalf("settings kept: %v", got)
			}
			for _, args := range [][]string{{"--manual-costing", "true"}, {"--block-unapproved-suppliers", "true", "--manual-costing", "true"}, nil} {
				got = cli(t, db, append([]string{"org", "settings", "--org", org}, args...)...)
				if want := map[string]any{"id": id, "block_unapproved_suppliers": true, "manual_costing": true, "require_second_factor": false}; !reflect.DeepEqual(got, want) {
					t.Fatalf("settings as they are (%v): %v", args, got)
				}
			}
			fails(t, db, "true or false", "org", "settings", "--org", org, "--manual-costing", "maybe")
			fails(t, db, "does not exist", "org", "settings", "--org", "999999", "--manual-costing", "false")
			hist := cli(t, db, "key", "list", "--org", org, "--history")["history"].([]any)
			var changes []map[string]any
			for _, h := range hist {
				if h := h.(map[string]any); h["action"] == "settings_changed" {
					changes = append(changes, h)
				}
			}
			if len(changes) != 2 || changes[0]["actor"] != "ops@desk" ||
				changes[0]["detail"].(map[string]any)["block_unapproved_suppliers"].(map[string]any)["to"] != true {
				t.Fatalf("audit history of the settings: %v", changes)
			}
		})
	}
}

// `larder org reset-test` puts the test account back to its seed: a product
// deleted in it is exported again afterwards, the JSON names the
// organization, the test account and the rows deleted and created (as many:
// the deletion changed no count), the test key stays, and the audit history
// records the reset with its actor. The live account is left as it was.
func TestOrgResetTest(t *testing.T) {
	t.Parallel()
	for _, b := range dbtest.Backends(t) {
		t.Run(string(b), func(t *testing.T) {
			db := dbtest.MigratedURL(t, b)
			created := cli(t, db, "org", "create", "--name", "Sandbox")
			org := strconv.Itoa(int(created["id"].(float64)))
			testID := created["accounts"].(map[string]any)["test"].(map[string]any)["id"]
			key := cli(t, db, "key", "create", "--org", org, "--env", "test", "--scopes", "all")
			dir := t.TempDir()
			exported := func(env string) float64 {
				return cli(t, db, "product", "export", "--org", org, "--env", env, "--out", filepath.Join(dir, env+".jsonl"))["exported"].(float64)
			}
			seeded := exported("test")
			if seeded < 20 {
				t.Fatalf("the seed exports %v products", seeded)
			}
			cli(t, db, "product", "delete", "--org", org, "--env", "test", "--code", "RM-FLOUR")
			if got := exported("test"); got != seeded-1 {
				t.Fatalf("after deleting a product: %v exported, want %v", got, seeded-1)
			}
			got := cli(t, db, "org", "reset-test", "--org", org, "--actor", "dev@desk")
			if !reflect.DeepEqual(keys(got), []string{"account_id", "created", "deleted", "id"}) ||
				got["id"] != created["id"] || got["account_id"] != testID ||
				got["deleted"] != got["created"].(float64)+1 || got["created"].(float64) < 100 {
				t.Fatalf("reset-test: %v", got)
			}
			if n := exported("test"); n != seeded {
				t.Errorf("after the reset: %v exported, want the seed's %v", n, seeded)
			}
			if n := exported("live"); n != 0 {
				t.Errorf("live account: %v products, want none", n)
			}
			listed := cli(t, db, "key", "list", "--org", org, "--history")
			var kept, resets int
			for _, k := range listed["keys"].([]any) {
				if k.(map[string]any)["id"] == key["id"] {
					kept++
				}
			}
			for _, h := range listed["history"].([]any) {
				if h := h.(map[string]any); h["action"] == "test_data_reset" && h["actor"] == "dev@desk" &&
					h["detail"].(map[string]any)["deleted"] == got["deleted"] {
					resets++
				}
			}
			if kept != 1 || resets != 1 {
				t.Errorf("key kept %d times, resets recorded %d: %v", kept, resets, listed)
			}
			fails(t, db, "organization 999999 does not exist", "org", "reset-test", "--org", "999999")
			fails(t, db, "needs --org", "org", "reset-test")
		})
	}
}
