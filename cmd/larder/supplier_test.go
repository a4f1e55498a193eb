package main

import (
	"strconv"
	"testing"

	"larder.dev/larder/internal/testkit/dbtest"
)

// docs/operators.md, "Commands": `larder supplier approve|suspend|reject|reset` and
// `supplier certify` record what the web application decides, as app events;
// refusals are clear messages that change nothing.
func TestSupplierCommands(t *testing.T) {
	t.Parallel()
	for _, b := range dbtest.Backends(t) {
		t.Run(string(b), func(t *testing.T) {
			db := dbtest.MigratedURL(t, b)
			org := strconv.Itoa(int(cli(t, db, "org", "create", "--name", "Buyer")["id"].(float64)))
			on := func(cmd string, extra ...string) []string {
				return append([]string{"supplier", cmd, "--org", org, "--env", "test", "--supplier", "NUTS"}, extra...)
			}
			got := cli(t, db, on("approve", "--expires", "2031-01-31")...)
			if got["approval_status"] != "APPROVED" || got["approval_expiry"] != "2031-01-31T00:00:00Z" || got["supplier_code"] != "NUTS" {
				t.Fatalf("approve: %v", got)
			}
			fails(t, db, "already", on("approve", "--expires", "2031-01-31")...)
			got = cli(t, db, on("approve", "--expires", "2020-01-31")...)
			if got["approval_status"] != "PENDING" {
				t.Fatalf("an approval that ended reads %v", got["approval_status"])
			}
			for _, c := range []struct{ cmd, want string }{{"suspend", "SUSPENDED"}, {"reject", "REJECTED"}, {"reset", "PENDING"}} {
				if got := cli(t, db, on(c.cmd)...); got["approval_status"] != c.want || got["approval_expiry"] != nil {
					t.Fatalf("%s: %v", c.cmd, got)
				}
			}
			if n := appEvents(t, db, org, "supplier.approval_changed"); n != 5 {
				t.Fatalf("%d supplier.approval_changed app events, want 5", n)
			}
			fails(t, db, "flag provided but not defined", on("suspend", "--expires", "2031-01-31")...)
			fails(t, db, "no such supplier", "supplier", "approve", "--org", org, "--env", "test", "--supplier", "NOPE")
			fails(t, db, "no such supplier", "supplier", "approve", "--org", org, "--env", "live", "--supplier", "NUTS")
			fails(t, db, "needs --supplier", "supplier", "approve", "--org", org, "--env", "test")

			got = cli(t, db, on("certify", "--scheme", "BRC", "--expires-on", "2028-02-29")...)
			if got["certification_scheme"] != "BRC" || got["certification_expires_on"] != "2028-02-29" {
				t.Fatalf("certify: %v", got)
			}
			fails(t, db, "must be one of", on("certify", "--scheme", "ISO9001")...)
			fails(t, db, "needs a certification scheme", on("certify", "--scheme", "NONE", "--expires-on", "2028-02-29")...)
			if got := cli(t, db, on("certify")...); got["certification_scheme"] != nil || got["certification_expires_on"] != nil {
				t.Fatalf("certify without a scheme (not recorded): %v", got)
			}
			if n := appEvents(t, db, org, "supplier.updated"); n != 2 {
				t.Fatalf("%d supplier.updated app events, want 2 (refusals write none)", n)
			}
		})
	}
}
