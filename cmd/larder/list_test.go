package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"larder.dev/larder/internal/modules/reflist"
	"larder.dev/larder/internal/testkit/dbtest"
)

// export runs `larder list export` to standard output.
func export(t *testing.T, db string, args ...string) string {
	t.Helper()
	return human(t, db, append([]string{"list", "export"}, args...)...)
}

// apiList reads GET /v1/<list> with key and returns its rows by code.
func apiList(t *testing.T, base, key, list string) map[string]map[string]any {
	t.Helper()
	req, _ := http.NewRequest("GET", base+"/v1/"+list+"?limit=100", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var page struct{ Data []map[string]any }
	if err := json.NewDecoder(res.Body).Decode(&page); err != nil || res.StatusCode != 200 {
		t.Fatalf("GET /v1/%s: %d %v", list, res.StatusCode, err)
	}
	out := map[string]map[string]any{}
	for _, r := range page.Data {
		out[r["code"].(string)] = r
	}
	return out
}

// docs/operators.md, "Reference lists": the web application keeps
// the lists the API only reads; `larder list import` upserts by code (a
// record is the whole row), `list export` writes the import format, a file
// with any problem writes nothing, and the API serves what was imported.
func TestListImportExport(t *testing.T) {
	t.Parallel()
	for _, b := range dbtest.Backends(t) {
		t.Run(string(b), func(t *testing.T) {
			db := dbtest.MigratedURL(t, b)
			o := cli(t, db, "org", "create", "--name", "Lister", "--currency", "EUR")
			org := strconv.Itoa(int(o["id"].(float64)))
			acct := func(env string, args ...string) []string {
				return append([]string{"--org", org, "--env", env}, args...)
			}
			dir := t.TempDir()

			// The seeded test account's tax rates, exported, move to the empty
			// live account and come back the same.
			seeded := export(t, db, acct("test", "--list", "tax-rates")...)
			wantLine := `{"code":"QC","name":"GST + QST","description":"Quebec: federal tax and Quebec sales tax.","tax_rate1":5,"tax_rate1_label":"GST","tax_rate2":9.975,"tax_rate2_label":"QST"}`
			if lines := strings.Split(strings.TrimSpace(seeded), "\n"); len(lines) != 4 || lines[2] != wantLine {
				t.Fatalf("seeded tax rates exported as\n%s\nwant 4 lines by code, the third %s", seeded, wantLine)
			}
			file := filepath.Join(dir, "tax.jsonl")
			os.WriteFile(file, []byte(seeded), 0o600)
			imp := func(env, list, file string) map[string]any {
				return cli(t, db, append([]string{"list", "import"}, acct(env, "--list", list, file)...)...)
			}
			if got := imp("live", "tax-rates", file); got["created"] != 4.0 || got["updated"] != 0.0 || got["unchanged"] != 0.0 {
				t.Fatalf("first import %v, want 4 created", got)
			}
			if got := imp("live", "tax-rates", file); got["created"] != 0.0 || got["updated"] != 0.0 || got["unchanged"] != 4.0 {
				t.Fatalf("second import %v, want 4 unchanged", got)
			}
			if live := export(t, db, acct("live", "--list", "tax-rates")...); live != seeded {
				t.Fatalf("live export\n%s\ndiffers from the imported file\n%s", live, seeded)
			}

			// A changed record updates its row: a rate, and a label left out
			// is cleared. A new code adds a row.
			os.WriteFile(file, []byte(strings.Replace(seeded, `"tax_rate2":9.975,"tax_rate2_label":"QST"`, `"tax_rate2":9.98`, 1)+
				`{"code":"PST-BC","name":"GST + PST","tax_rate1":5,"tax_rate2":7.000,"tax_rate2_label":"PST"}`+"\n"), 0o600)
			if got := imp("live", "tax-rates", file); got["created"] != 1.0 || got["updated"] != 1.0 || got["unchanged"] != 3.0 {
				t.Fatalf("changed import %v, want 1 created, 1 updated, 3 unchanged", got)
			}

			// CSV: an omitted active is true, an omitted currency the
			// organization's; flags in any case.
			csvFile := filepath.Join(dir, "prices.csv")
			os.WriteFile(csvFile, []byte("code,name,active,currency\nSTD,Standard,,\nOLD,Old list, FALSE ,usd\n"), 0o600)
			fails(t, db, "line 3: currency: must be an ISO 4217 code", append([]string{"list", "import"}, acct("live", "--list", "price-lists", csvFile)...)...)
			os.WriteFile(csvFile, []byte("code,name,active,currency\nSTD,Standard,,\nOLD,Old list, FALSE ,USD\n"), 0o600)
			if got := imp("live", "price-lists", csvFile); got["created"] != 2.0 {
				t.Fatalf("price list import %v, want 2 created", got)
			}
			if got, want := export(t, db, acct("live", "--list", "price-lists", "--format", "csv")...),
				"code,name,description,active,currency\nOLD,Old list,,false,USD\nSTD,Standard,,true,EUR\n"; got != want {
				t.Fatalf("price lists exported as\n%s\nwant\n%s", got, want)
			}

			// Every problem is reported with its line; nothing is written.
			bad := filepath.Join(dir, "bad.jsonl")
			os.WriteFile(bad, []byte(strings.Join([]string{
				`{"code":"OK1","name":"Fine"}`,
				`{"code":"X","name":"Too much","tax_rate1":100.5}`,
				`{"name":"No code"}`,
				`{"code":"OK1","name":"Again"}`,
				`{"code":"Y","colour":"red"}`,
				`{"code":"Z","tax_rate2":"5"}`,
				`{"code":"W","tax_rate1":1.1234567}`,
				`not json`,
				`{"code":"` + strings.Repeat("C", 41) + `"}`,
			}, "\n")), 0o600)
			var out, errb bytes.Buffer
			err := run(context.Background(), append([]string{"list", "import"}, append(acct("live", "--list", "tax-rates", bad), "--database", db, "--json")...), &out, &errb)
			if err == nil {
				t.Fatal("a file with problems was imported")
			}
			var report struct {
				Errors []struct {
					Line           int
					Field, Message string
				}
			}
			if err := json.Unmarshal(out.Bytes(), &report); err != nil {
				t.Fatalf("--json refusal printed %q: %v", out.String(), err)
			}
			var got []string
			for _, e := range report.Errors {
				got = append(got, strconv.Itoa(e.Line)+" "+e.Field)
			}
			if want := "2 tax_rate1|3 code|4 code|5 colour|6 tax_rate2|7 tax_rate1|8 |9 code"; strings.Join(got, "|") != want {
				t.Fatalf("problems %q, want %q (%+v)", strings.Join(got, "|"), want, report.Errors)
			}
			for _, tc := range []struct{ args, want string }{
				{"--list nope", "unknown list \"nope\""},
				{"", "unknown list \"\""},
			} {
				fails(t, db, tc.want, append([]string{"list", "import"}, append(acct("live", strings.Fields(tc.args)...), file)...)...)
			}
			fails(t, db, "needs --org and --env", "list", "export", "--list", "territories")

			// The API serves what was imported, in the account imported into
			// only; the bad file added nothing.
			key := cli(t, db, "key", "create", "--org", org, "--env", "live", "--scopes", "sales:read")["key"].(string)
			ctx, cancel := context.WithCancel(context.Background())
			var wg sync.WaitGroup
			defer wg.Wait()
			defer cancel()
			base := serveUntil(t, ctx, &wg, db)
			rates := apiList(t, base, key, "tax-rates")
			if len(rates) != 5 {
				t.Fatalf("live tax rates %v, want the 4 imported and PST-BC", rates)
			}
			if qc := rates["QC"]; qc["tax_rate2"] != 9.98 || qc["tax_rate2_label"] != nil || qc["tax_rate1"] != 5.0 {
				t.Fatalf("QC through the API: %v", qc)
			}
			if pst := rates["PST-BC"]; pst["tax_rate2"] != 7.0 || pst["description"] != nil || pst["tax_rate2_label"] != "PST" {
				t.Fatalf("PST-BC through the API: %v", pst)
			}
			if prices := apiList(t, base, key, "price-lists"); prices["STD"]["currency"] != "EUR" || prices["OLD"]["active"] != false || prices["STD"]["active"] != true {
				t.Fatalf("price lists through the API: %v", prices)
			}
			if seededAfter := export(t, db, acct("test", "--list", "tax-rates")...); seededAfter != seeded {
				t.Fatalf("importing into live changed the test account's list:\n%s", seededAfter)
			}
		})
	}
}

// Every list the app maintains round-trips through export and import in both
// formats unchanged, the seeded rows included.
func TestListsRoundTrip(t *testing.T) {
	t.Parallel()
	db := dbtest.MigratedURL(t, dbtest.SQLite)
	o := cli(t, db, "org", "create", "--name", "Round trip")
	org := strconv.Itoa(int(o["id"].(float64)))
	dir := t.TempDir()
	for _, l := range reflist.Lists {
		for _, format := range []string{"jsonl", "csv"} {
			seeded := export(t, db, "--org", org, "--env", "test", "--list", l.Name, "--format", format)
			if strings.Count(seeded, "\n") < 4 {
				t.Fatalf("%s: the test account has %q; every list is seeded", l.Name, seeded)
			}
			file := filepath.Join(dir, l.Name+"."+format)
			os.WriteFile(file, []byte(seeded), 0o600)
			got := cli(t, db, "list", "import", "--org", org, "--env", "test", "--list", l.Name, file)
			if got["created"] != 0.0 || got["updated"] != 0.0 || got["unchanged"] == 0.0 {
				t.Fatalf("%s %s: re-importing the export did %v, want only unchanged", l.Name, format, got)
			}
		}
	}
}
