package main

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"larder.dev/larder/internal/identity/audit"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/restapi"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

// docs/operators.md, "Console": `user unlock` sets a locked second factor's
// count of wrong codes back to zero, recorded with the CLI's actor, and
// prints {"id", "email", "failed_codes", "second_factor_locked"}.
func TestUserUnlock(t *testing.T) {
	t.Parallel()
	for _, b := range dbtest.Backends(t) {
		t.Run(string(b), func(t *testing.T) {
			db := dbtest.MigratedURL(t, b)
			org := strconv.Itoa(int(cli(t, db, "org", "create", "--name", "Locked Foods")["id"].(float64)))
			addr := "locked-" + strconv.FormatInt(time.Now().UnixNano(), 36) + "@example.com"
			inv := cli(t, db, "user", "invite", "--org", org, "--email", addr, "--role", "viewer")
			id := int(inv["id"].(float64))
			st, err := store.Open(context.Background(), db, store.Options{Snapshots: restapi.Snapshots{}})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			sys := policy.System(context.Background())
			st.Client.User.UpdateOneID(id).SetTotpFailures(10).SetTotpFailedAt(time.Now()).ExecX(sys)

			got := cli(t, db, "user", "unlock", "--user", strconv.Itoa(id), "--actor", "ops@desk")
			if strings.Join(keys(got), ",") != "email,failed_codes,id,second_factor_locked" || got["failed_codes"] != float64(10) || got["second_factor_locked"] != false {
				t.Fatalf("user unlock: %v", got)
			}
			if u := st.Client.User.GetX(sys, id); u.TotpFailures != 0 || u.TotpFailedAt != nil {
				t.Errorf("after user unlock: %d wrong codes, last at %v", u.TotpFailures, u.TotpFailedAt)
			}
			orgID, _ := strconv.Atoi(org)
			h, err := audit.History(context.Background(), st.Client, orgID)
			if err != nil {
				t.Fatal(err)
			}
			if last := h[len(h)-1]; last.Action != "second_factor_unlocked" || last.Actor != "ops@desk" || last.Detail["failures"] != float64(10) {
				t.Errorf("record %+v", last)
			}
			again := cli(t, db, "user", "unlock", "--user", strconv.Itoa(id))
			if again["failed_codes"] != float64(0) {
				t.Errorf("unlock again: %v", again)
			}
		})
	}
}
