package console_test

import (
	"bytes"
	"context"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"larder.dev/larder/audit"
	"larder.dev/larder/dbtest"
	"larder.dev/larder/ent"
	"larder.dev/larder/ent/event"
	entproduct "larder.dev/larder/ent/product"
	"larder.dev/larder/people"
	"larder.dev/larder/policy"
	"larder.dev/larder/store"
)

// upload posts a file to a check as the imports page would.
func (b *browser) upload(fields url.Values, name, content string) answer {
	b.d.t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for k, vs := range fields {
		for _, v := range vs {
			_ = mw.WriteField(k, v)
		}
	}
	fw, err := mw.CreateFormFile("file", name)
	if err != nil {
		b.d.t.Fatal(err)
	}
	_, _ = fw.Write([]byte(content))
	_ = mw.Close()
	req, _ := http.NewRequest("POST", b.d.srv.URL+"/console/imports/check", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Origin", b.d.srv.URL)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	return b.do(req)
}

// problemRows are the problems a check lists, as "line field: message".
func problemRows(body string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`<tr class="problem"><td class="num">(\d+)</td><td>(?:<code>([^<]*)</code>|—)</td><td>([^<]*)</td></tr>`).FindAllStringSubmatch(body, -1) {
		out = append(out, m[1]+" "+m[2]+": "+strings.ReplaceAll(m[3], "&#34;", `"`))
	}
	return out
}

var importHash = regexp.MustCompile(`name="hash" value="([0-9a-f]{64})"`)

// importState is what an import could write in org: its products and
// territories in the test account, its audit records and the events.
func importState(t *testing.T, st *store.Store, org *dbtest.Org) string {
	t.Helper()
	ctx := org.Ctx(policy.Test)
	var b strings.Builder
	ps, err := st.Client.Product.Query().Order(ent.Asc("id")).All(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		fmt.Fprintf(&b, "product %v %v %s\n", orNil(p.ProductCode), orNil(p.Name), p.ProductType)
	}
	ts, err := st.Client.Territory.Query().Order(ent.Asc("id")).All(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range ts {
		fmt.Fprintf(&b, "territory %v %v\n", x.Code, x.Name)
	}
	h, err := audit.History(context.Background(), st.Client, org.Org.ID)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&b, "audit records %d\n", len(h))
	n, err := st.Client.Event.Query().Count(policy.System(context.Background()))
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&b, "events %d\n", n)
	return b.String()
}

// Everyone reads the imports page and the reference lists' exports; a
// viewer's or a developer's check or import is refused with 403, and only
// the roles that see costs download the products (they hold costs).
func TestImportsByRole(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		d := newDesk(t, st)
		org := dbtest.NewOrg(t, st, "")
		for _, role := range people.Roles {
			t.Run(string(role), func(t *testing.T) {
				b, _ := d.signedIn(org.Org.ID, role)
				operator := role == people.Admin || role == people.Operator
				page := b.get("/console/imports?env=test")
				if page.status != http.StatusOK || strings.Contains(page.body, "Check the file") != operator ||
					!strings.Contains(page.body, `/console/imports/export?env=test&amp;format=csv&amp;list=territories`) ||
					strings.Contains(page.body, `list=products`) != (role == people.Admin) {
					t.Fatalf("page %d: %s", page.status, page.body)
				}
				res := b.get("/console/imports/export?env=test&list=products&format=csv")
				if want := map[bool]int{true: http.StatusOK, false: http.StatusForbidden}[role == people.Admin]; res.status != want {
					t.Errorf("products export: %d, want %d", res.status, want)
				}
				if res := b.get("/console/imports/export?env=test&list=territories&format=jsonl"); res.status != http.StatusOK {
					t.Errorf("territories export: %d", res.status)
				}
				if operator {
					return
				}
				before := importState(t, st, org)
				if res := b.upload(url.Values{"env": {"test"}, "list": {"territories"}}, "t.csv", "code,name\nN,North\n"); res.status != http.StatusForbidden {
					t.Errorf("check: %d", res.status)
				}
				if res := b.post("/console/imports/import", url.Values{"env": {"test"}, "list": {"territories"}, "hash": {strings.Repeat("0", 64)}}); res.status != http.StatusForbidden {
					t.Errorf("import: %d", res.status)
				}
				if diff := cmp.Diff(before, importState(t, st, org)); diff != "" {
					t.Errorf("a refused import wrote (-before +after):\n%s", diff)
				}
			})
		}
	})
}

// An operator checks a products file with problems: every problem is listed
// with its line and field and nothing is written; the corrected file checks
// clean and imports whole, each product as in the file, with the audit
// record naming the operator and the counts, the products' events naming
// them as user; importing it again is refused. A reference list goes the
// same way, and its export is the file imported.
func TestImportFiles(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		d := newDesk(t, st)
		org := dbtest.NewOrg(t, st, "")
		b, op := d.signedIn(org.Org.ID, people.Operator)
		fields := url.Values{"env": {"test"}, "list": {"products"}}
		bad := "product_code,name,product_type,shelf_life\nIMP-OATS,Rolled oats,RAW_MATERIAL,30\nIMP-SALT,Sea salt,SALTY,10\nIMP-OATS,Oats again,RAW_MATERIAL,-1\n"
		before := importState(t, st, org)
		res := b.upload(fields, "products.csv", bad)
		want := []string{
			`3 product_type: must be one of RAW_MATERIAL, PACKAGING, MISCELLANEOUS, RECIPE, SUB_RECIPE, FINISHED_GOOD`,
			`4 product_code: "IMP-OATS" is also on line 2`,
			`4 shelf_life: must be 0 or more days`,
		}
		if diff := cmp.Diff(want, problemRows(res.body)); res.status != http.StatusUnprocessableEntity || diff != "" {
			t.Fatalf("check %d (-want +got):\n%s\n%s", res.status, diff, res.body)
		}
		if !strings.Contains(res.body, "3 problems in this file; nothing was written") || importHash.MatchString(res.body) {
			t.Fatalf("a file with problems is offered for import: %s", res.body)
		}
		if diff := cmp.Diff(before, importState(t, st, org)); diff != "" {
			t.Fatalf("a check wrote (-before +after):\n%s", diff)
		}

		good := "product_code,name,product_type,shelf_life\nIMP-OATS,Rolled oats,RAW_MATERIAL,30\nIMP-SALT,Sea salt,RAW_MATERIAL,10\n"
		res = b.upload(fields, "products.csv", good)
		m := importHash.FindStringSubmatch(res.body)
		if res.status != http.StatusOK || m == nil || !strings.Contains(res.body, "No problem in its 2 records") {
			t.Fatalf("clean check %d: %s", res.status, res.body)
		}
		if diff := cmp.Diff(before, importState(t, st, org)); diff != "" {
			t.Fatalf("a clean check wrote (-before +after):\n%s", diff)
		}
		imp := url.Values{"env": {"test"}, "list": {"products"}, "format": {"csv"}, "hash": {m[1]}}
		res = b.post("/console/imports/import", imp)
		if res.status != http.StatusSeeOther || res.location() != "/console/imports?env=test" {
			t.Fatalf("import %d: %s", res.status, res.body)
		}
		if page := b.get("/console/imports?env=test"); !strings.Contains(page.body, "Products imported from products.csv: 2 created, 0 updated, 0 unchanged.") {
			t.Fatalf("no message: %s", page.body)
		}
		ps, err := st.Client.Product.Query().Where(entproduct.ProductCodeHasPrefix("IMP-")).Order(ent.Asc(entproduct.FieldProductCode)).All(org.Ctx(policy.Test))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, p := range ps {
			got = append(got, fmt.Sprintf("%s %s %s %d", *p.ProductCode, *p.Name, p.ProductType, *p.ShelfLife))
		}
		if diff := cmp.Diff([]string{"IMP-OATS Rolled oats RAW_MATERIAL 30", "IMP-SALT Sea salt RAW_MATERIAL 10"}, got); diff != "" {
			t.Fatalf("products (-want +got):\n%s", diff)
		}
		if n, err := st.Client.Product.Query().Where(entproduct.ProductCodeHasPrefix("IMP-")).Count(org.Ctx(policy.Live)); err != nil || n != 0 {
			t.Fatalf("live products %d (%v)", n, err)
		}
		test := "test"
		r := lastRecord(t, st, org.Org.ID)
		wantRecord := audit.Listed{ID: r.ID, At: r.At, Actor: op.Email, Address: "127.0.0.1", Action: "products_imported", Env: &test, UserID: &op.ID,
			Detail: map[string]any{"list": "products", "file": "products.csv", "format": "csv", "sha256": m[1], "records": float64(2),
				"created": float64(2), "updated": float64(0), "unchanged": float64(0)}}
		if diff := cmp.Diff(wantRecord, r); diff != "" {
			t.Errorf("audit record (-want +got):\n%s", diff)
		}
		for _, p := range ps {
			evs, err := st.Client.Event.Query().Where(event.Type("product.created"), event.ResourceID(p.ID)).All(policy.System(context.Background()))
			if err != nil || len(evs) != 1 || evs[0].Source != event.SourceApp || evs[0].UserID == nil || *evs[0].UserID != op.ID {
				t.Errorf("product %v events %+v (%v), want one of source app by user %d", p.ID, evs, err, op.ID)
			}
		}
		after := importState(t, st, org)
		if res := b.post("/console/imports/import", imp); res.status != http.StatusConflict || !strings.Contains(res.body, "no longer waiting") {
			t.Fatalf("import again %d: %s", res.status, res.body)
		}
		if diff := cmp.Diff(after, importState(t, st, org)); diff != "" {
			t.Fatalf("a refused import wrote (-before +after):\n%s", diff)
		}

		// A file over 4 MB is refused whole, and a hash never checked finds
		// nothing to import; neither writes.
		big := "product_code,name,product_type\n" + strings.Repeat("IMP-BIG,Big,RAW_MATERIAL\n", (4<<20)/25+1)
		if res := b.upload(fields, "big.csv", big); res.status != http.StatusBadRequest || !strings.Contains(res.body, "larger than 4 MB") {
			t.Fatalf("a big file: %d %s", res.status, res.body)
		}
		if res := b.post("/console/imports/import", url.Values{"env": {"test"}, "list": {"products"}, "hash": {strings.Repeat("ab", 32)}}); res.status != http.StatusConflict {
			t.Fatalf("an unchecked hash: %d %s", res.status, res.body)
		}
		if diff := cmp.Diff(after, importState(t, st, org)); diff != "" {
			t.Fatalf("a refused file wrote (-before +after):\n%s", diff)
		}

		// A reference list, as JSON Lines: a problem, then the file corrected.
		tf := url.Values{"env": {"test"}, "list": {"territories"}}
		res = b.upload(tf, "territories.jsonl", "{\"code\":\"NORTH\",\"name\":\"North\"}\n{\"code\":\"SOUTH\"}\n")
		if diff := cmp.Diff([]string{"2 name: is required"}, problemRows(res.body)); res.status != http.StatusUnprocessableEntity || diff != "" {
			t.Fatalf("territories check %d (-want +got):\n%s\n%s", res.status, diff, res.body)
		}
		if diff := cmp.Diff(after, importState(t, st, org)); diff != "" {
			t.Fatalf("a check wrote (-before +after):\n%s", diff)
		}
		res = b.upload(tf, "territories.jsonl", "{\"code\":\"NORTH\",\"name\":\"North\"}\n{\"code\":\"SOUTH\",\"name\":\"South\"}\n")
		m = importHash.FindStringSubmatch(res.body)
		if res.status != http.StatusOK || m == nil {
			t.Fatalf("territories clean check %d: %s", res.status, res.body)
		}
		res = b.post("/console/imports/import", url.Values{"env": {"test"}, "list": {"territories"}, "hash": {m[1]}})
		if res.status != http.StatusSeeOther {
			t.Fatalf("territories import %d: %s", res.status, res.body)
		}
		r = lastRecord(t, st, org.Org.ID)
		wantRecord = audit.Listed{ID: r.ID, At: r.At, Actor: op.Email, Address: "127.0.0.1", Action: "reference_list_imported", Env: &test, UserID: &op.ID,
			Detail: map[string]any{"list": "territories", "file": "territories.jsonl", "format": "jsonl", "sha256": m[1], "records": float64(2),
				"created": float64(2), "updated": float64(0), "unchanged": float64(0)}}
		if diff := cmp.Diff(wantRecord, r); diff != "" {
			t.Errorf("audit record (-want +got):\n%s", diff)
		}
		exp := b.get("/console/imports/export?env=test&list=territories&format=csv")
		if exp.status != http.StatusOK || exp.body != "code,name,description,active\nNORTH,North,,true\nSOUTH,South,,true\n" ||
			exp.header.Get("Content-Disposition") != `attachment; filename=territories-test.csv` {
			t.Errorf("export %d %q %v", exp.status, exp.body, exp.header)
		}
	})
}

// orNil is *s, or "<nil>".
func orNil(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

// An exported CSV cell never becomes a formula in a spreadsheet: a value
// beginning with =, +, - or @ is written behind a single quote (products and
// reference lists alike), and the exported file imports back to the same
// values, every record unchanged.
func TestExportCellsAreNeverFormulas(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		d := newDesk(t, st)
		org := dbtest.NewOrg(t, st, "")
		b, _ := d.signedIn(org.Org.ID, people.Admin)
		imported := func(list, file, content string) {
			t.Helper()
			res := b.upload(url.Values{"env": {"test"}, "list": {list}}, file, content)
			m := importHash.FindStringSubmatch(res.body)
			if res.status != http.StatusOK || m == nil {
				t.Fatalf("check %s: %d %s", file, res.status, res.body)
			}
			res = b.post("/console/imports/import", url.Values{"env": {"test"}, "list": {list}, "hash": {m[1]}})
			if res.status != http.StatusSeeOther {
				t.Fatalf("import %s: %d %s", file, res.status, res.body)
			}
		}
		imported("products", "p.jsonl", `{"product_code":"CSV-EVIL","name":"=HYPERLINK(\"http://evil.example\")","product_type":"RAW_MATERIAL","description":"-2+3"}`+"\n")
		exp := b.get("/console/imports/export?env=test&list=products&format=csv")
		if exp.status != http.StatusOK {
			t.Fatalf("export: %d", exp.status)
		}
		var row string
		for _, l := range strings.Split(exp.body, "\n") {
			if strings.HasPrefix(l, "CSV-EVIL,") {
				row = l
			}
		}
		if !strings.HasPrefix(row, `CSV-EVIL,"'=HYPERLINK(""http://evil.example"")",'-2+3,RAW_MATERIAL,`) {
			t.Fatalf("the product's row is %q", row)
		}
		imported("territories", "t.jsonl", `{"code":"T-AT","name":"@SUM(A1)","description":"+1"}`+"\n")
		if got := b.get("/console/imports/export?env=test&list=territories&format=csv").body; !strings.Contains(got, "\nT-AT,'@SUM(A1),'+1,true\n") {
			t.Fatalf("the territories export is %q", got)
		}

		// The export imports back unchanged.
		res := b.upload(url.Values{"env": {"test"}, "list": {"products"}}, "again.csv", exp.body)
		m := importHash.FindStringSubmatch(res.body)
		if res.status != http.StatusOK || m == nil {
			t.Fatalf("check the export: %d %s", res.status, res.body)
		}
		b.post("/console/imports/import", url.Values{"env": {"test"}, "list": {"products"}, "hash": {m[1]}})
		r := lastRecord(t, st, org.Org.ID)
		if r.Detail["created"] != float64(0) || r.Detail["updated"] != float64(0) {
			t.Fatalf("re-importing the export changed records: %v", r.Detail)
		}
	})
}
