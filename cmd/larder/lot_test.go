package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"larder.dev/larder/ent/event"
	"larder.dev/larder/ent/productlot"
	"larder.dev/larder/handlers"
	"larder.dev/larder/internal/platform/config"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/restapi"
	"larder.dev/larder/internal/seed"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

// docs/operators.md, "Commands": `larder lot set-qc` records a quality decision from
// the web application, with its note and release expiry, as an app event;
// refusals are clear messages that change nothing.
func TestLotSetQC(t *testing.T) {
	t.Parallel()
	for _, b := range dbtest.Backends(t) {
		t.Run(string(b), func(t *testing.T) {
			db := dbtest.MigratedURL(t, b)
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

// docs/operators.md, "Commands": `larder lot trace` on the test account's
// recall scenario. Forward from the supplier's flour lot, --format csv is
// FSMA 204's spreadsheet, row for row; the JSON is the API's answer's data
// byte for byte; another account's lot, a bad direction, depth or format
// are refused by name.
func TestLotTrace(t *testing.T) {
	t.Parallel()
	for _, b := range dbtest.Backends(t) {
		t.Run(string(b), func(t *testing.T) {
			db := dbtest.MigratedURL(t, b)
			org := strconv.Itoa(int(cli(t, db, "org", "create", "--name", "Recall bakery")["id"].(float64)))
			key := cli(t, db, "key", "create", "--org", org, "--env", "test", "--scopes", "read-all")["key"].(string)
			st, err := store.Open(context.Background(), db, store.Options{Snapshots: restapi.Snapshots{}})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			// System viewer: the test finds the new organization's seeded lots by number.
			sys := policy.System(context.Background())
			lot := func(number string) string {
				t.Helper()
				ls, err := st.Client.ProductLot.Query().Where(productlot.LotNumber(number)).WithAccount().All(sys)
				if err != nil {
					t.Fatal(err)
				}
				for _, l := range ls {
					if strconv.Itoa(l.Edges.Account.OrganizationID) == org {
						return strconv.Itoa(l.ID)
					}
				}
				t.Fatalf("no seeded lot %s in the new organization", number)
				return ""
			}
			flour, bread, rolls := lot(seed.RecallLotNumber), lot(seed.RecallOutputLots[0]), lot(seed.RecallOutputLots[1])
			// The seed dates the scenario from the day it seeds, the day
			// the flour lot's row was created: runs 13 days before, the
			// orders' shipments 5 and 4 days before.
			flourID, _ := strconv.Atoi(flour)
			seeded, err := st.Client.ProductLot.Get(sys, flourID)
			if err != nil {
				t.Fatal(err)
			}
			day := func(n int) string { return seeded.CreatedAt.UTC().AddDate(0, 0, n).Format(time.DateOnly) }
			made, shipped, shippedLater := day(-13), day(-5), day(-4)
			trace := func(extra ...string) (string, error) {
				var out, errb bytes.Buffer
				args := append([]string{"lot", "trace", "--org", org, "--env", "test", "--lot", flour, "--database", db}, extra...)
				err := run(context.Background(), args, &out, &errb)
				return out.String(), err
			}

			got, err := trace("--direction", "forward", "--format", "csv")
			if err != nil {
				t.Fatal(err)
			}
			want := "event,date,traceability_lot_code,lot_id,product_code,product_description,quantity,unit_of_measure,location,reference_document_type,reference_document_number,party,level\n" +
				"transformation input," + made + ",RC-FLOUR-2611," + flour + ",RM-FLOUR,All-purpose wheat flour,30000,g,STORAGE Storage,production run,9,,1\n" +
				"transformation input," + made + ",RC-FLOUR-2611," + flour + ",RM-FLOUR,All-purpose wheat flour,20000,g,STORAGE Storage,production run,10,,1\n" +
				"transformation output," + made + ",RC-BOX12-2611," + bread + ",FG-COOKIE12,\"Chocolate chip cookies, box of 12\",480,each,MAIN Main plant,production run,9,,1\n" +
				"transformation output," + made + ",RC-COOKIE-2611," + rolls + ",RC-COOKIE,\"Chocolate chip cookies, baked (batch)\",240,each,MAIN Main plant,production run,10,,1\n" +
				"shipping," + shipped + ",RC-BOX12-2611," + bread + ",FG-COOKIE12,\"Chocolate chip cookies, box of 12\",120,each,MAIN Main plant,invoice,4,Épicerie du Marché,3\n" +
				"shipping," + shipped + ",RC-BOX12-2611," + bread + ",FG-COOKIE12,\"Chocolate chip cookies, box of 12\",144,each,MAIN Main plant,invoice,5,Northern Food Distributors,3\n" +
				"shipping," + shippedLater + ",RC-COOKIE-2611," + rolls + ",RC-COOKIE,\"Chocolate chip cookies, baked (batch)\",120,each,MAIN Main plant,invoice,6,Café Alpha,3\n"
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("lot trace --format csv (-want +got):\n%s", d)
			}

			// The JSON, the default, is what the API answers in data.
			srv, err := handlers.New(st, handlers.Options{Config: config.Defaults(), Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
			if err != nil {
				t.Fatal(err)
			}
			hs := httptest.NewServer(srv)
			defer hs.Close()
			for _, q := range []struct{ query string }{{"?direction=forward"}, {""}, {"?direction=backward&depth=1"}} {
				req, _ := http.NewRequest("GET", hs.URL+"/v1/product-lots/"+bread+"/trace"+q.query, nil)
				req.Header.Set("Authorization", "Bearer "+key)
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				raw, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				var body struct{ Data json.RawMessage }
				if err := json.Unmarshal(raw, &body); err != nil || resp.StatusCode != 200 {
					t.Fatalf("GET trace%s: %d %s", q.query, resp.StatusCode, raw)
				}
				var data bytes.Buffer
				if err := json.Indent(&data, body.Data, "", "  "); err != nil {
					t.Fatal(err)
				}
				args := []string{"--lot", bread}
				for _, kv := range strings.Split(strings.TrimPrefix(q.query, "?"), "&") {
					if k, v, ok := strings.Cut(kv, "="); ok {
						args = append(args, "--"+k, v)
					}
				}
				got, err := trace(args...)
				if err != nil {
					t.Fatal(err)
				}
				if d := cmp.Diff(data.String()+"\n", got); d != "" {
					t.Errorf("lot trace %v and the API's data differ (-api +cli):\n%s", args, d)
				}
			}

			fails(t, db, "lot "+flour+": no such lot in this account", "lot", "trace", "--org", org, "--env", "live", "--lot", flour)
			fails(t, db, "lot 99999999: no such lot in this account", "lot", "trace", "--org", org, "--env", "test", "--lot", "99999999")
			fails(t, db, "--direction must be backward, forward or both", "lot", "trace", "--org", org, "--env", "test", "--lot", flour, "--direction", "up")
			fails(t, db, "--depth must be between 1 and 50", "lot", "trace", "--org", org, "--env", "test", "--lot", flour, "--depth", "51")
			fails(t, db, "--format must be json or csv", "lot", "trace", "--org", org, "--env", "test", "--lot", flour, "--format", "xml")
			fails(t, db, "lot trace needs --lot", "lot", "trace", "--org", org, "--env", "test")
		})
	}
}
