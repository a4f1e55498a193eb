package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"larder.dev/larder/internal/testkit/dbtest"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

// cli runs larder with args against db and decodes its --json output.
func cli(t *testing.T, db string, args ...string) map[string]any {
	t.Helper()
	var out, errb bytes.Buffer
	args = append(args, "--database", db, "--json")
	if err := run(context.Background(), args, &out, &errb); err != nil {
		t.Fatalf("larder %s: %v\n%s", strings.Join(args, " "), err, errb.String())
	}
	var m map[string]any
	if err := json.Unmarshal(out.Bytes(), &m); err != nil {
		t.Fatalf("larder %s printed no single JSON object: %v\n%s", strings.Join(args, " "), err, out.String())
	}
	return m
}

// fails runs larder and expects an error mentioning want.
func fails(t *testing.T, db, want string, args ...string) {
	t.Helper()
	var out, errb bytes.Buffer
	err := run(context.Background(), append(args, "--database", db), &out, &errb)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("larder %s: error %v, want one mentioning %q", strings.Join(args, " "), err, want)
	}
}

func keys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// docs/operators.md, "Commands": the commands and their --json shapes.
func TestCommands(t *testing.T) {
	t.Parallel()
	for _, b := range dbtest.Backends(t) {
		t.Run(string(b), func(t *testing.T) {
			db := dbtest.URL(t, b)
			applied := cli(t, db, "migrate")
			if _, ok := applied["applied"].([]any); !ok {
				t.Fatalf("migrate: %v", applied)
			}

			org := cli(t, db, "org", "create", "--name", "Maple Bakery", "--currency", "CAD")
			if diff := strings.Join(keys(org), ","); diff != "accounts,currency,id,name,plan" {
				t.Fatalf("org create keys: %s", diff)
			}
			if org["plan"] != "enterprise" || org["name"] != "Maple Bakery" {
				t.Fatalf("org create: %v", org)
			}
			accts := org["accounts"].(map[string]any)
			if accts["live"].(map[string]any)["id"] == nil || accts["test"].(map[string]any)["id"] == nil {
				t.Fatalf("accounts: %v", accts)
			}
			id := strconv.Itoa(int(org["id"].(float64)))

			k := cli(t, db, "key", "create", "--org", id, "--env", "test", "--scopes", "read-all", "--name", "ci")
			if strings.Join(keys(k), ",") != "env,id,key,last4,prefix,scopes" {
				t.Fatalf("key create keys: %v", keys(k))
			}
			key := k["key"].(string)
			if !strings.HasPrefix(key, "key_test_") || k["prefix"] != "key_test_" || !strings.HasSuffix(key, k["last4"].(string)) || k["env"] != "test" {
				t.Fatalf("key create: %v", k)
			}
			scopes := k["scopes"].([]any)
			if len(scopes) != 5 {
				t.Fatalf("read-all scopes: %v", scopes)
			}
			for _, s := range scopes {
				if !strings.HasSuffix(s.(string), ":read") || s == "cost:read" {
					t.Fatalf("read-all holds %v", s)
				}
			}
			all := cli(t, db, "key", "create", "--org", id, "--env", "live", "--scopes", "all")
			if len(all["scopes"].([]any)) != 11 {
				t.Fatalf("all: %v", all["scopes"])
			}
			some := cli(t, db, "key", "create", "--org", id, "--env", "live", "--scopes", "catalog:write, cost:read")
			if diff := some["scopes"].([]any); len(diff) != 2 {
				t.Fatalf("comma list: %v", diff)
			}

			list := cli(t, db, "key", "list", "--org", id)
			listed := list["keys"].([]any)
			if len(listed) != 3 {
				t.Fatalf("key list: %v", list)
			}
			for _, x := range listed {
				m := x.(map[string]any)
				if _, ok := m["key"]; ok {
					t.Fatal("key list shows a secret")
				}
				for _, f := range []string{"id", "name", "env", "scopes", "prefix", "last4", "created_at", "last_used_at", "expires_at", "revoked_at"} {
					if _, ok := m[f]; !ok {
						t.Fatalf("key list entry lacks %s: %v", f, m)
					}
				}
			}

			plan := cli(t, db, "org", "set-plan", "--org", id, "--plan", "lapsed")
			if plan["plan"] != "lapsed" || plan["id"] != org["id"] {
				t.Fatalf("set-plan: %v", plan)
			}

			fails(t, db, "plan", "org", "set-plan", "--org", id, "--plan", "gold")
			fails(t, db, "does not exist", "org", "set-plan", "--org", "987654", "--plan", "starter")
			fails(t, db, "unknown scope", "key", "create", "--org", id, "--env", "live", "--scopes", "catalog:admin")
			fails(t, db, "--env", "key", "create", "--org", id, "--env", "staging", "--scopes", "all")
			fails(t, db, "does not exist", "key", "create", "--org", "987654", "--env", "live", "--scopes", "all")
			fails(t, db, "--name", "org", "create")
			fails(t, db, "unknown command", "frobnicate")
		})
	}
}

// docs/operators.md, "Commands": a SQLite file that does not exist is made by
// migrate and serve alone (both apply the migrations). Every other command refuses it, naming
// --database and LARDER_DATABASE_URL, and leaves no file behind: a forgotten
// --database must not make an empty larder.db and then answer that
// organization 1 does not exist.
func TestOnlyMigrateAndServeMakeADatabase(t *testing.T) {
	t.Parallel()
	refused := [][]string{
		{"org", "create", "--name", "Forgotten"},
		{"key", "create", "--org", "1", "--env", "test", "--scopes", "all"},
		{"key", "list", "--org", "1"},
		{"product", "export", "--org", "1", "--env", "test"},
		{"webhook", "list", "--org", "1"},
		{"requests", "--org", "1", "--env", "test"},
		{"webhook", "worker"},
	}
	for _, args := range refused {
		t.Run(strings.Join(args[:2], " "), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "larder.db")
			var out, errb bytes.Buffer
			err := run(context.Background(), append(args, "--database", "sqlite://"+path), &out, &errb)
			if err == nil || !strings.Contains(err.Error(), "no database at "+path) ||
				!strings.Contains(err.Error(), "--database") || !strings.Contains(err.Error(), "LARDER_DATABASE_URL") {
				t.Fatalf("larder %s on a missing file: %v, want one naming the file, --database and LARDER_DATABASE_URL", strings.Join(args, " "), err)
			}
			if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("larder %s made %s: %v", strings.Join(args, " "), path, err)
			}
		})
	}
	t.Run("migrate", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "larder.db")
		cli(t, "sqlite://"+path, "migrate")
		if _, err := os.Stat(path); err != nil {
			t.Fatalf("migrate made no database: %v", err)
		}
		cli(t, "sqlite://"+path, "org", "create", "--name", "Made")
	})
}
