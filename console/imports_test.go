package console_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/event"
	entproduct "larder.dev/larder/ent/product"
	"larder.dev/larder/internal/identity/audit"
	"larder.dev/larder/internal/identity/people"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
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

// importCheck finds a clean check's id in its page.
var importCheck = regexp.MustCompile(`name="check" value="(\d+)"`)

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
					strings.Contains(page.body, `format=csv&amp;list=products`) != (role == people.Admin) {
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
				if res := b.post("/console/imports/import", url.Values{"env": {"test"}, "list": {"territories"}, "check": {"1"}}); res.status != http.StatusForbidden {
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
		if !strings.Contains(res.body, "3 problems in this file; nothing was written") || importCheck.MatchString(res.body) {
			t.Fatalf("a file with problems is offered for import: %s", res.body)
		}
		if diff := cmp.Diff(before, importState(t, st, org)); diff != "" {
			t.Fatalf("a check wrote (-before +after):\n%s", diff)
		}

		good := "product_code,name,product_type,shelf_life\nIMP-OATS,Rolled oats,RAW_MATERIAL,30\nIMP-SALT,Sea salt,RAW_MATERIAL,10\n"
		res = b.upload(fields, "products.csv", good)
		m := importCheck.FindStringSubmatch(res.body)
		if res.status != http.StatusOK || m == nil || !strings.Contains(res.body, "No problem in its 2 records") {
			t.Fatalf("clean check %d: %s", res.status, res.body)
		}
		if diff := cmp.Diff(before, importState(t, st, org)); diff != "" {
			t.Fatalf("a clean check wrote (-before +after):\n%s", diff)
		}
		imp := url.Values{"env": {"test"}, "check": {m[1]}}
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
			Detail: map[string]any{"list": "products", "file": "products.csv", "format": "csv", "sha256": sha256Hex(good), "records": float64(2),
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

		// A file over 4 MB, or named in more than 255 bytes, is refused whole,
		// and a check never made finds nothing to import; none writes.
		big := "product_code,name,product_type\n" + strings.Repeat("IMP-BIG,Big,RAW_MATERIAL\n", (4<<20)/25+1)
		if res := b.upload(fields, "big.csv", big); res.status != http.StatusBadRequest || !strings.Contains(res.body, "larger than 4 MB") {
			t.Fatalf("a big file: %d %s", res.status, res.body)
		}
		if res := b.upload(fields, strings.Repeat("n", 252)+".csv", good); res.status != http.StatusBadRequest || !strings.Contains(res.body, "rename the file") {
			t.Fatalf("a name of 256 bytes: %d %s", res.status, res.body)
		}
		if res := b.post("/console/imports/import", url.Values{"env": {"test"}, "check": {"999999999"}}); res.status != http.StatusConflict {
			t.Fatalf("a check never made: %d %s", res.status, res.body)
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
		territories := "{\"code\":\"NORTH\",\"name\":\"North\"}\n{\"code\":\"SOUTH\",\"name\":\"South\"}\n"
		res = b.upload(tf, "territories.jsonl", territories)
		m = importCheck.FindStringSubmatch(res.body)
		if res.status != http.StatusOK || m == nil {
			t.Fatalf("territories clean check %d: %s", res.status, res.body)
		}
		res = b.post("/console/imports/import", url.Values{"env": {"test"}, "check": {m[1]}})
		if res.status != http.StatusSeeOther {
			t.Fatalf("territories import %d: %s", res.status, res.body)
		}
		r = lastRecord(t, st, org.Org.ID)
		wantRecord = audit.Listed{ID: r.ID, At: r.At, Actor: op.Email, Address: "127.0.0.1", Action: "reference_list_imported", Env: &test, UserID: &op.ID,
			Detail: map[string]any{"list": "territories", "file": "territories.jsonl", "format": "jsonl", "sha256": sha256Hex(territories), "records": float64(2),
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

// sha256Hex is the hex SHA-256 of s, as the audit record names a file.
func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// envPeer names the database a second console process serves.
const envPeer = "LARDER_TEST_CONSOLE_PEER_DB"

// TestConsolePeerProcess is the second process of startPeer: it serves the
// console on the database envPeer names, writes its address to its output
// and serves until its input closes.
func TestConsolePeerProcess(t *testing.T) {
	db := os.Getenv(envPeer)
	if db == "" {
		t.Skip("the second console process of the tests that need one; it runs when they start it")
	}
	d := newDesk(t, dbtest.OpenURL(t, db))
	fmt.Println("peer " + d.srv.URL)
	_, _ = io.Copy(io.Discard, os.Stdin)
}

// startPeer starts the test binary again as a second console process on the
// database of st (TestConsolePeerProcess) and returns a desk that reaches it,
// and a function that stops it and waits for it to end.
func startPeer(t *testing.T, st *store.Store) (*desk, func()) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestConsolePeerProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), envPeer+"="+dbtest.URLOf(t, st))
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stop := sync.OnceFunc(func() {
		in.Close()
		if err := cmd.Wait(); err != nil {
			t.Errorf("the second console process: %v", err)
		}
	})
	t.Cleanup(stop)
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if u, ok := strings.CutPrefix(sc.Text(), "peer "); ok {
				found <- u
			}
		}
		close(found)
	}()
	select {
	case u, ok := <-found:
		if !ok {
			t.Fatal("the second console process ended without serving")
		}
		// The desk of another process: only its address is known here.
		return &desk{t: t, st: st, srv: &httptest.Server{URL: u}}, stop
	case <-time.After(60 * time.Second):
		t.Fatal("the second console process did not start within a minute")
	}
	return nil, nil
}

// on is the browser, with its cookies, pointed at another console.
func (b *browser) on(d *desk) *browser { return &browser{d: d, c: b.c, jar: b.jar} }

// territoryFile is a clean territories file of two records.
const territoryFile = "code,name\nPEER-N,North\nPEER-S,South\n"

// checked checks territoryFile in the test account through b and returns
// the check's id.
func checked(t *testing.T, b *browser) string {
	t.Helper()
	res := b.upload(url.Values{"env": {"test"}, "list": {"territories"}}, "territories.csv", territoryFile)
	m := importCheck.FindStringSubmatch(res.body)
	if res.status != http.StatusOK || m == nil {
		t.Fatalf("check %d: %s", res.status, res.body)
	}
	return m[1]
}

// territories are the codes and names of the territories of org's test
// account.
func territories(t *testing.T, st *store.Store, org *dbtest.Org) []string {
	t.Helper()
	ts, err := st.Client.Territory.Query().Order(ent.Asc("code")).All(org.Ctx(policy.Test))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, x := range ts {
		out = append(out, x.Code+" "+x.Name)
	}
	return out
}

// imported counts org's audit records of imports.
func imported(t *testing.T, st *store.Store, org *dbtest.Org) int {
	t.Helper()
	h, err := audit.History(context.Background(), st.Client, org.Org.ID)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range h {
		if r.Action == "reference_list_imported" {
			n++
		}
	}
	return n
}

// A file checked through one console process is imported through another
// on the same database, after the first has stopped: the check waits in the
// database, not in a process's memory. It imports once: importing it again,
// or twice at once, writes nothing more.
func TestImportCheckedInOneProcessImportedInAnother(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		d := newDesk(t, st)
		org := dbtest.NewOrg(t, st, "")
		b, _ := d.signedIn(org.Org.ID, people.Operator)
		peer, stop := startPeer(t, st)
		id := checked(t, b.on(peer))
		stop()
		res := b.post("/console/imports/import", url.Values{"env": {"test"}, "check": {id}})
		if res.status != http.StatusSeeOther {
			t.Fatalf("import through the other process %d: %s", res.status, res.body)
		}
		if page := b.get("/console/imports?env=test"); !strings.Contains(page.body, "Territories imported from territories.csv: 2 created, 0 updated, 0 unchanged.") {
			t.Fatalf("no message: %s", page.body)
		}
		want := []string{"PEER-N North", "PEER-S South"}
		if diff := cmp.Diff(want, territories(t, st, org)); diff != "" {
			t.Fatalf("territories (-want +got):\n%s", diff)
		}
		after := importState(t, st, org)
		res = b.post("/console/imports/import", url.Values{"env": {"test"}, "check": {id}})
		if res.status != http.StatusConflict || !strings.Contains(res.body, "This file is no longer waiting to be imported") {
			t.Fatalf("import again %d: %s", res.status, res.body)
		}
		if diff := cmp.Diff(after, importState(t, st, org)); diff != "" {
			t.Fatalf("the second import wrote (-before +after):\n%s", diff)
		}
		if n := imported(t, st, org); n != 1 {
			t.Errorf("%d imports recorded, want 1", n)
		}

		// Two imports of one check at once: one imports, the other finds
		// nothing; the file is written once.
		second := dbtest.NewOrg(t, st, "")
		b2, _ := d.signedIn(second.Org.ID, people.Operator)
		id = checked(t, b2)
		statuses := make(chan int, 2)
		for range 2 {
			go func() {
				statuses <- b2.post("/console/imports/import", url.Values{"env": {"test"}, "check": {id}}).status
			}()
		}
		got := []int{<-statuses, <-statuses}
		slices.Sort(got)
		if diff := cmp.Diff([]int{http.StatusSeeOther, http.StatusConflict}, got); diff != "" {
			t.Errorf("two imports at once (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(want, territories(t, st, second)); diff != "" {
			t.Errorf("territories after two imports at once (-want +got):\n%s", diff)
		}
		if n := imported(t, st, second); n != 1 {
			t.Errorf("%d imports recorded after two at once, want 1", n)
		}
	})
}

// A check waits 60 minutes: past them its import is refused, saying so, and
// writes nothing. Another organization's person, or another person of the
// same organization, finds nothing at a check's id, and the check still
// imports for the person who made it.
func TestImportCheckExpiresAndBelongsToItsPerson(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		d := newDesk(t, st)
		org := dbtest.NewOrg(t, st, "")
		b, _ := d.signedIn(org.Org.ID, people.Operator)
		res := b.upload(url.Values{"env": {"test"}, "list": {"territories"}}, "territories.csv", territoryFile)
		if !strings.Contains(res.body, "The checked file waits 60 minutes for its import.") {
			t.Errorf("the check does not say how long it waits: %s", res.body)
		}
		id := checked(t, b)
		other := dbtest.NewOrg(t, st, "")
		ob, _ := d.signedIn(other.Org.ID, people.Admin)
		colleague, _ := d.signedIn(org.Org.ID, people.Admin)
		before := importState(t, st, org)
		for name, x := range map[string]struct {
			b   *browser
			org *dbtest.Org
		}{"another organization": {ob, other}, "another person": {colleague, org}} {
			xBefore := importState(t, st, x.org)
			res := x.b.post("/console/imports/import", url.Values{"env": {"test"}, "check": {id}})
			if res.status != http.StatusConflict || !strings.Contains(res.body, "This file is no longer waiting to be imported") {
				t.Errorf("%s imports the check: %d %s", name, res.status, res.body)
			}
			if diff := cmp.Diff(xBefore, importState(t, st, x.org)); diff != "" {
				t.Errorf("%s's refused import wrote (-before +after):\n%s", name, diff)
			}
		}
		// A check made for the test account is not imported into live.
		if res := b.post("/console/imports/import", url.Values{"env": {"live"}, "check": {id}}); res.status != http.StatusConflict {
			t.Errorf("the test check imported into live: %d %s", res.status, res.body)
		}
		if diff := cmp.Diff(before, importState(t, st, org)); diff != "" {
			t.Fatalf("refused imports wrote (-before +after):\n%s", diff)
		}

		d.after(61 * time.Minute)
		res = b.post("/console/imports/import", url.Values{"env": {"test"}, "check": {id}})
		if res.status != http.StatusConflict || !strings.Contains(res.body, "This check expired: a checked file waits 60 minutes for its import.") {
			t.Fatalf("an expired check: %d %s", res.status, res.body)
		}
		if diff := cmp.Diff(before, importState(t, st, org)); diff != "" {
			t.Fatalf("an expired check wrote (-before +after):\n%s", diff)
		}

		// Checked again, it imports for its person.
		id = checked(t, b)
		if res := b.post("/console/imports/import", url.Values{"env": {"test"}, "check": {id}}); res.status != http.StatusSeeOther {
			t.Fatalf("import %d: %s", res.status, res.body)
		}
		if diff := cmp.Diff([]string{"PEER-N North", "PEER-S South"}, territories(t, st, org)); diff != "" {
			t.Errorf("territories (-want +got):\n%s", diff)
		}
	})
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
		importFile := func(list, file, content string) {
			t.Helper()
			res := b.upload(url.Values{"env": {"test"}, "list": {list}}, file, content)
			m := importCheck.FindStringSubmatch(res.body)
			if res.status != http.StatusOK || m == nil {
				t.Fatalf("check %s: %d %s", file, res.status, res.body)
			}
			res = b.post("/console/imports/import", url.Values{"env": {"test"}, "check": {m[1]}})
			if res.status != http.StatusSeeOther {
				t.Fatalf("import %s: %d %s", file, res.status, res.body)
			}
		}
		importFile("products", "p.jsonl", `{"product_code":"CSV-EVIL","name":"=HYPERLINK(\"http://evil.example\")","product_type":"RAW_MATERIAL","description":"-2+3"}`+"\n")
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
		importFile("territories", "t.jsonl", `{"code":"T-AT","name":"@SUM(A1)","description":"+1"}`+"\n")
		if got := b.get("/console/imports/export?env=test&list=territories&format=csv").body; !strings.Contains(got, "\nT-AT,'@SUM(A1),'+1,true\n") {
			t.Fatalf("the territories export is %q", got)
		}

		// The export imports back unchanged.
		res := b.upload(url.Values{"env": {"test"}, "list": {"products"}}, "again.csv", exp.body)
		m := importCheck.FindStringSubmatch(res.body)
		if res.status != http.StatusOK || m == nil {
			t.Fatalf("check the export: %d %s", res.status, res.body)
		}
		b.post("/console/imports/import", url.Values{"env": {"test"}, "check": {m[1]}})
		r := lastRecord(t, st, org.Org.ID)
		if r.Detail["created"] != float64(0) || r.Detail["updated"] != float64(0) {
			t.Fatalf("re-importing the export changed records: %v", r.Detail)
		}
	})
}
