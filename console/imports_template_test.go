package console_test

import (
	"encoding/csv"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"larder.dev/larder/internal/identity/people"
	"larder.dev/larder/internal/modules/catalog"
	"larder.dev/larder/internal/modules/reflist"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/dbtest"
)

// Every list's CSV template is the header row the import reads and one
// example row that the import's reader takes without a problem; the page's
// column reference lists the same columns, and a required one says so.
func TestImportTemplates(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		d := newDesk(t, st)
		org := dbtest.NewOrg(t, st, "")
		b, _ := d.signedIn(org.Org.ID, people.Viewer)
		page := b.get("/console/imports?env=test")
		if page.status != http.StatusOK {
			t.Fatalf("imports page: %d", page.status)
		}
		lists := map[string][]string{"products": catalog.Columns}
		for _, l := range reflist.Lists {
			lists[l.Name] = l.Columns()
		}
		for name, cols := range lists {
			res := b.get("/console/imports/template?list=" + name)
			if res.status != http.StatusOK || !strings.HasPrefix(res.header.Get("Content-Type"), "text/csv") ||
				!strings.Contains(res.header.Get("Content-Disposition"), name+"-template.csv") {
				t.Fatalf("%s template: %d %v", name, res.status, res.header)
			}
			rows, err := csv.NewReader(strings.NewReader(res.body)).ReadAll()
			if err != nil || len(rows) != 2 {
				t.Fatalf("%s template: %d rows %v, want a header and an example", name, len(rows), err)
			}
			if diff := cmp.Diff(cols, rows[0]); diff != "" {
				t.Errorf("%s template's header (-the import's columns +template):\n%s", name, diff)
			}
			var problems []catalog.LineError
			var records int
			if name == "products" {
				recs, errs := catalog.Read(strings.NewReader(res.body), catalog.CSV)
				records, problems = len(recs), errs
				if records == 1 && (recs[0].R.ProductCode == "" || recs[0].R.ProductType == "") {
					t.Errorf("the products example lacks a required column: %+v", recs[0].R)
				}
			} else {
				for _, l := range reflist.Lists {
					if l.Name == name {
						recs, errs := l.Read(strings.NewReader(res.body), catalog.CSV)
						records, problems = len(recs), errs
					}
				}
			}
			if records != 1 || len(problems) != 0 {
				t.Errorf("%s template read by the import: %d records, problems %v", name, records, problems)
			}
			for _, c := range cols {
				if !strings.Contains(page.body, `<tr class="column"><td><code>`+c+`</code></td>`) {
					t.Errorf("the page's reference of %s lacks the column %s", name, c)
				}
			}
		}
		if !strings.Contains(page.body, `<tr class="column"><td><code>product_code</code></td><td>Yes</td>`) {
			t.Error("the reference does not say product_code is required")
		}
		if res := b.get("/console/imports/template?list=nothing"); res.status != http.StatusBadRequest {
			t.Errorf("the template of no list: %d, want 400", res.status)
		}
	})
}

// After a check, the page says what the import would do with each record
// as the account stands: a new code is new, a known code with other values
// an update, a known code with the same values unchanged; and the counts
// are what the import then does.
func TestImportPreview(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		d := newDesk(t, st)
		org := dbtest.NewOrg(t, st, "")
		b, _ := d.signedIn(org.Org.ID, people.Operator)
		first := b.upload(url.Values{"env": {"test"}, "list": {"territories"}}, "t.csv", "code,name\nN,North\nS,South\n")
		m := importCheck.FindStringSubmatch(first.body)
		if first.status != http.StatusOK || m == nil {
			t.Fatalf("first check: %d %s", first.status, first.body)
		}
		if res := b.post("/console/imports/import", url.Values{"env": {"test"}, "check": {m[1]}}); res.status != http.StatusSeeOther {
			t.Fatalf("first import: %d %s", res.status, res.body)
		}
		res := b.upload(url.Values{"env": {"test"}, "list": {"territories"}}, "t2.csv", "code,name\nN,North\nS,South coast\nE,East\n")
		if res.status != http.StatusOK {
			t.Fatalf("second check: %d %s", res.status, res.body)
		}
		if !strings.Contains(res.body, "importing creates 1, updates 1 and leaves 1 unchanged.") {
			t.Errorf("the counts are not on the page:\n%s", res.body)
		}
		want := [][]string{{"2", "N", "Unchanged"}, {"3", "S", "Update"}, {"4", "E", "New"}}
		if diff := cmp.Diff(want, cellRows(res.body, "outcome")); diff != "" {
			t.Errorf("the preview (-want +got):\n%s", diff)
		}
		m = importCheck.FindStringSubmatch(res.body)
		res = b.post("/console/imports/import", url.Values{"env": {"test"}, "check": {m[1]}})
		if res.status != http.StatusSeeOther {
			t.Fatalf("second import: %d", res.status)
		}
		if got := b.get(res.location()).body; !strings.Contains(got, "1 created, 1 updated, 1 unchanged") {
			t.Errorf("the import did other than the preview said:\n%s", got)
		}
	})
}
