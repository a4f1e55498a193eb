package main

import (
	"reflect"
	"strconv"
	"testing"

	"larder.dev/larder/dbtest"
)

// `larder org settings` changes the purchasing settings (block unapproved
// suppliers, manual costing) and records each change with its actor in the
// audit history; asking for the settings an organization has already
// succeeds and records nothing, and without a setting it shows them.
func TestOrgSettings(t *testing.T) {
	t.Parallel()
	for _, b := range dbtest.Backends(t) {
		t.Run(string(b), func(t *testing.T) {
			db := dbtest.URL(t, b)
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
