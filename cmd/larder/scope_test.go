package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"larder.dev/larder/internal/testkit/dbtest"
)

// The key and webhook commands naming one record take --org: a record of
// another organization is not found (non-zero exit) and nothing changes; with
// the record's own organization, or without --org, the command works and
// prints the same JSON.
func TestCommandsWithOrgFindNothingOfAnotherOrganization(t *testing.T) {
	t.Parallel()
	for _, b := range dbtest.Backends(t) {
		t.Run(string(b), func(t *testing.T) {
			t.Parallel()
			db := dbtest.MigratedURL(t, b)
			var hits atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
			defer srv.Close()
			type side struct{ org, key, ep, del string }
			var sides [2]side
			for i := range sides {
				s := &sides[i]
				s.org = fmt.Sprint(int(cli(t, db, "org", "create", "--name", fmt.Sprint("Scoped ", i))["id"].(float64)))
				s.key = fmt.Sprint(int(cli(t, db, "key", "create", "--org", s.org, "--env", "live", "--scopes", "all")["id"].(float64)))
				s.ep = fmt.Sprint(int(cli(t, db, "webhook", "create", "--org", s.org, "--env", "live", "--url", srv.URL, "--webhook-allow-private")["id"].(float64)))
				stop := worker(t, db)
				p := cli(t, db, "webhook", "ping", "--endpoint", s.ep, "--org", s.org)
				stop()
				if p["success"] != true {
					t.Fatalf("ping with the endpoint's own --org: %v", p)
				}
				s.del = fmt.Sprint(int(p["delivery_id"].(float64)))
			}
			world := func() string {
				t.Helper()
				var b strings.Builder
				for _, s := range sides {
					fmt.Fprintln(&b, cli(t, db, "key", "list", "--org", s.org, "--history"))
					fmt.Fprintln(&b, cli(t, db, "webhook", "list", "--org", s.org))
					fmt.Fprintln(&b, cli(t, db, "webhook", "deliveries", "--endpoint", s.ep))
				}
				fmt.Fprintln(&b, "hits", hits.Load())
				return b.String()
			}
			// Every command naming one key, endpoint or delivery.
			commands := []func(s side) []string{
				func(s side) []string { return []string{"key", "rotate", "--key", s.key, "--grace", "1h"} },
				func(s side) []string { return []string{"key", "revoke", "--key", s.key} },
				func(s side) []string {
					return []string{"webhook", "update", "--endpoint", s.ep, "--description", "theirs"}
				},
				func(s side) []string { return []string{"webhook", "disable", "--endpoint", s.ep} },
				func(s side) []string { return []string{"webhook", "enable", "--endpoint", s.ep} },
				func(s side) []string { return []string{"webhook", "rotate-secret", "--endpoint", s.ep} },
				func(s side) []string { return []string{"webhook", "deliveries", "--endpoint", s.ep} },
				func(s side) []string {
					return []string{"webhook", "resend", "--delivery", s.del, "--webhook-allow-private"}
				},
				func(s side) []string { return []string{"webhook", "ping", "--endpoint", s.ep, "--wait", "1s"} },
				func(s side) []string { return []string{"webhook", "listen", "--endpoint", s.ep} },
				func(s side) []string { return []string{"webhook", "delete", "--endpoint", s.ep} },
			}
			// Each refused command leaves the world as the one before it
			// found it: one look before the first, then one after each.
			before := world()
			for _, command := range commands {
				for i, mine := range sides {
					other := sides[1-i]
					fails(t, db, "does not exist", append(command(mine), "--org", other.org)...)
					if after := world(); after != before {
						t.Errorf("larder %s --org %s changed:\n%s\nto:\n%s", strings.Join(command(mine), " "), other.org, before, after)
						before = after
					}
				}
			}

			// With the record's own organization the commands work, and print
			// what they print without --org.
			a, b := sides[0], sides[1]
			same := func(with, without map[string]any) {
				t.Helper()
				if got, want := strings.Join(keys(with), ","), strings.Join(keys(without), ","); got != want {
					t.Errorf("with --org: %s; without: %s", got, want)
				}
			}
			same(cli(t, db, "webhook", "disable", "--endpoint", a.ep, "--org", a.org), cli(t, db, "webhook", "disable", "--endpoint", b.ep))
			if eps := cli(t, db, "webhook", "list", "--org", a.org)["endpoints"].([]any); eps[0].(map[string]any)["enabled"] != false {
				t.Fatalf("disable with --org left %v", eps)
			}
			same(cli(t, db, "webhook", "deliveries", "--endpoint", a.ep, "--org", a.org), cli(t, db, "webhook", "deliveries", "--endpoint", b.ep))
			n := hits.Load()
			same(cli(t, db, "webhook", "resend", "--delivery", a.del, "--org", a.org, "--webhook-allow-private"),
				cli(t, db, "webhook", "resend", "--delivery", b.del, "--webhook-allow-private"))
			if hits.Load() != n+2 {
				t.Fatalf("resend: %d posts, want 2", hits.Load()-n)
			}
			same(cli(t, db, "key", "rotate", "--key", a.key, "--org", a.org, "--grace", "1h"), cli(t, db, "key", "rotate", "--key", b.key, "--grace", "1h"))
			same(cli(t, db, "key", "revoke", "--key", a.key, "--org", a.org), cli(t, db, "key", "revoke", "--key", b.key))
			same(cli(t, db, "webhook", "delete", "--endpoint", a.ep, "--org", a.org), cli(t, db, "webhook", "delete", "--endpoint", b.ep))
			if eps := cli(t, db, "webhook", "list", "--org", a.org)["endpoints"].([]any); len(eps) != 0 {
				t.Fatalf("delete with --org left %v", eps)
			}
			fails(t, db, "does not exist", "key", "revoke", "--key", "987654", "--org", a.org)
			fails(t, db, "does not exist", "webhook", "resend", "--delivery", "987654")
		})
	}
}
