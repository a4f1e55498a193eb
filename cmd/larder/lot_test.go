package main

import (
	"context"
	"strconv"
	"testing"

	"larder.dev/larder/dbtest"
	"larder.dev/larder/ent/event"
	"larder.dev/larder/ent/productlot"
	"larder.dev/larder/policy"
	"larder.dev/larder/restapi"
	"larder.dev/larder/store"
)

// docs/operators.md, "Commands": `larder lot set-qc` records a quality decision from
// the web application, with its note and release expiry, as an app event;
// refusals are clear messages that change nothing.
func TestLotSetQC(t *testing.T) {
	t.Parallel()
	for _, b := range dbtest.Backends(t) {
		t.Run(string(b), func(t *testing.T) {
			db := dbtest.URL(t, b)
			org := int(cli(t, db, "org", "create", "--name", "QC bakery")["id"].(float64))
			st, err := store.Open(context.Background(), db, store.Options{Snapshots: restapi.Snapshots{}})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			sys := policy.System(context.Background())
			lot, err := st.Client.ProductLot.Query().
				Where(productlot.LotNumber("FL-2611-01")).
				All(sys)
			if err != nil || len(lot) == 0 {
				t.Fatalf("seeded lot: %v %v", lot, err)
			}
			var id int
			for _, l := range lot {
				acct, err := l.QueryAccount().Only(sys)
				if err == nil && acct.OrganizationID == org {
					id = l.ID
				}
			}
			if id == 0 {
				t.Fatal("no seeded lot FL-2611-01 in the new organization")
			}
			args := func(extra ...string) []string {
				return append([]string{"lot", "set-qc", "--org", strconv.Itoa(org), "--env", "test", "--lot", strconv.Itoa(id)}, extra...)
			}
			got := cli(t, db, args("--status", "ON_HOLD", "--note", "Awaiting lab results")...)
			if got["qc_status"] != "ON_HOLD" || got["qc_status_note"] != "Awaiting lab results" || got["qc_status_at"] == nil {
				t.Fatalf("set-qc ON_HOLD: %v", got)
			}
			got = cli(t, db, args("--status", "RELEASED", "--release-expires", "2027-02-01T00:00:00Z")...)
			if got["qc_status"] != "RELEASED" || got["qc_status_note"] != nil || got["qc_release_expires_at"] != "2027-02-01T00:00:00Z" {
				t.Fatalf("set-qc RELEASED: %v", got)
			}
			fails(t, db, "already", args("--status", "RELEASED", "--release-expires", "2027-02-01T00:00:00Z")...)
			fails(t, db, "must be one of", args("--status", "SOLD")...)
			fails(t, db, "RELEASED only", args("--status", "ON_HOLD", "--release-expires", "2027-02-01T00:00:00Z")...)
			fails(t, db, "needs --lot and --status", "lot", "set-qc", "--org", strconv.Itoa(org), "--env", "test")
			fails(t, db, "no such lot", "lot", "set-qc", "--org", strconv.Itoa(org), "--env", "live", "--lot", strconv.Itoa(id), "--status", "REJECTED")
			n, err := st.Client.Event.Query().Where(event.Type("product_lot.qc_status_changed"), event.ResourceID(id), event.SourceEQ(event.SourceApp)).Count(sys)
			if err != nil || n != 2 {
				t.Fatalf("%d qc_status_changed app events (%v), want 2", n, err)
			}
		})
	}
}
