package main

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"larder.dev/larder/internal/identity/audit"
	"larder.dev/larder/internal/identity/people"
	"larder.dev/larder/internal/testkit/dbtest"
)

// token is the token of an absolute console link under base.
func token(t *testing.T, link, base string) string {
	t.Helper()
	tok, ok := strings.CutPrefix(link, base+"/console/welcome/")
	if !ok || len(tok) != 43 {
		t.Fatalf("link %q, want %s/console/welcome/ and a token", link, base)
	}
	return tok
}

// user invite, list, set-role, reset-password and remove: their --json
// shapes, links under --console-url (or LARDER_CONSOLE_URL, or the listen
// address) that work once, the last admin kept, another organization's
// person not found, and the org setting requiring a second factor.
// Not parallel: it sets the environment.
func TestUserCommands(t *testing.T) {
	for _, b := range dbtest.Backends(t) {
		t.Run(string(b), func(t *testing.T) {
			db := dbtest.MigratedURL(t, b)
			t.Setenv("LARDER_ACTOR", "ops@desk")
			t.Setenv("LARDER_ADDR", "127.0.0.9:7000")
			org := strconv.Itoa(int(cli(t, db, "org", "create", "--name", "People Foods")["id"].(float64)))
			other := strconv.Itoa(int(cli(t, db, "org", "create", "--name", "Other Foods")["id"].(float64)))
			addr := "ana-" + strconv.FormatInt(time.Now().UnixNano(), 36) + "@example.com"

			inv := cli(t, db, "user", "invite", "--org", org, "--email", strings.ToUpper(addr), "--role", "admin")
			if got := strings.Join(keys(inv), ","); got != "email,id,link,role" {
				t.Fatalf("user invite keys: %s", got)
			}
			if inv["email"] != addr || inv["role"] != "admin" {
				t.Fatalf("user invite: %v", inv)
			}
			token(t, inv["link"].(string), "http://127.0.0.9:7000")
			id := strconv.Itoa(int(inv["id"].(float64)))

			t.Setenv("LARDER_CONSOLE_URL", "https://console.example.com/")
			dev := cli(t, db, "user", "invite", "--org", org, "--email", "dev-"+addr, "--role", "developer")
			token(t, dev["link"].(string), "https://console.example.com")
			devID := strconv.Itoa(int(dev["id"].(float64)))
			fails(t, db, "exists already", "user", "invite", "--org", other, "--email", addr, "--role", "viewer")
			fails(t, db, "unknown role", "user", "invite", "--org", org, "--email", "x-"+addr, "--role", "owner")
			fails(t, db, "organization 999999 does not exist", "user", "invite", "--org", "999999", "--email", "y-"+addr, "--role", "viewer")

			list := cli(t, db, "user", "list", "--org", org)
			users := list["users"].([]any)
			if len(users) != 2 {
				t.Fatalf("user list: %v", list)
			}
			first := users[0].(map[string]any)
			if got := strings.Join(keys(first), ","); got != "active,created_at,email,id,last_sign_in_at,role,second_factor" {
				t.Fatalf("user list keys: %s", got)
			}
			if first["email"] != addr || first["active"] != false || first["second_factor"] != false || first["last_sign_in_at"] != nil {
				t.Fatalf("user list: %v", first)
			}
			if out := human(t, db, "user", "list", "--org", org); !strings.Contains(out, addr) || !strings.Contains(out, "developer") {
				t.Fatalf("user list table:\n%s", out)
			}

			// Another organization's person is not found, and nothing changes.
			fails(t, db, "user "+id+" does not exist", "user", "set-role", "--user", id, "--org", other, "--role", "viewer")
			fails(t, db, "user "+id+" does not exist", "user", "remove", "--user", id, "--org", other)
			fails(t, db, "user "+id+" does not exist", "user", "reset-password", "--user", id, "--org", other)
			fails(t, db, "user 999999 does not exist", "user", "remove", "--user", "999999")

			fails(t, db, "must keep an admin", "user", "set-role", "--user", id, "--role", "viewer")
			fails(t, db, "must keep an admin", "user", "remove", "--user", id)
			role := cli(t, db, "user", "set-role", "--user", devID, "--role", "operator")
			if role["role"] != "operator" || role["email"] != "dev-"+addr {
				t.Fatalf("user set-role: %v", role)
			}

			reset := cli(t, db, "user", "reset-password", "--user", id, "--console-url", "https://flag.example.com")
			if got := strings.Join(keys(reset), ","); got != "email,id,link" {
				t.Fatalf("user reset-password keys: %s", got)
			}
			tok := token(t, reset["link"].(string), "https://flag.example.com")
			st := dbtest.OpenURL(t, db)
			svc := people.New(st.Client, people.Options{})
			ctx := context.Background()
			if _, err := svc.OpenLink(ctx, token(t, inv["link"].(string), "http://127.0.0.9:7000")); err != people.ErrLinkInvalid {
				t.Fatalf("invitation after a reset: %v", err)
			}
			if _, err := svc.UseLink(ctx, tok, "a long enough password", people.Client{}); err != nil {
				t.Fatal(err)
			}
			if _, err := svc.UseLink(ctx, tok, "a long enough password", people.Client{}); err != people.ErrLinkInvalid {
				t.Fatalf("reset link used twice: %v", err)
			}

			rm := cli(t, db, "user", "remove", "--user", devID)
			if rm["removed"] != true || rm["email"] != "dev-"+addr {
				t.Fatalf("user remove: %v", rm)
			}
			orgID, _ := strconv.Atoi(org)
			h, err := audit.History(ctx, st.Client, orgID)
			if err != nil {
				t.Fatal(err)
			}
			var acts []string
			for _, r := range h {
				// The link's person acts when it is used (and signs in).
				if r.Action != "password_set" && r.Action != "signed_in" && r.Actor != "ops@desk" {
					t.Errorf("record %+v: actor %q", r, r.Actor)
				}
				acts = append(acts, r.Action)
			}
			want := "user_invited user_invited user_role_changed password_reset_issued password_set signed_in user_removed"
			if got := strings.Join(acts, " "); got != want {
				t.Fatalf("history %s, want %s", got, want)
			}

			s := cli(t, db, "org", "settings", "--org", org, "--require-second-factor", "true")
			if s["require_second_factor"] != true || s["manual_costing"] != false {
				t.Fatalf("org settings: %v", s)
			}
			if s := cli(t, db, "org", "settings", "--org", org); s["require_second_factor"] != true {
				t.Fatalf("org settings read: %v", s)
			}
			fails(t, db, "--require-second-factor must be true or false", "org", "settings", "--org", org, "--require-second-factor", "yes please")
		})
	}
}
