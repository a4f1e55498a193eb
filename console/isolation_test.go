package console_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/shopspring/decimal"

	"larder.dev/larder/console"
	"larder.dev/larder/ent"
	"larder.dev/larder/ent/product"
	"larder.dev/larder/ent/productlot"
	"larder.dev/larder/ent/supplier"
	"larder.dev/larder/internal/identity/auth"
	"larder.dev/larder/internal/identity/people"
	"larder.dev/larder/internal/identity/tenancy"
	"larder.dev/larder/internal/modules/manufacturing"
	"larder.dev/larder/internal/platform/ids"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/reqlog"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/internal/webhooks"
	"larder.dev/larder/policy"
)

// records are one organization's records that console routes name by id.
type records struct {
	org      int
	key      int
	person   int
	endpoint int
	delivery int
	request  int
	lot      int
	supplier int
	invoice  int
	bill     int
	run      int
	product  int
}

// makeRecords gives org a key, a person, an endpoint, a delivery, and a
// logged request and a product lot of the live account.
func makeRecords(t *testing.T, d *desk, org int) records {
	t.Helper()
	ctx := context.Background()
	k, err := auth.CreateKey(ctx, d.st.Client, org, auth.Holder, policy.Live, policy.Known(), "target")
	if err != nil {
		t.Fatal(err)
	}
	p, _, err := d.people.Invite(ctx, org, fmt.Sprintf("target-%d@example.com", org), people.Developer)
	if err != nil {
		t.Fatal(err)
	}
	reg := &webhooks.Registry{Client: d.st.Client, AllowPrivate: true}
	ep, err := reg.Create(ctx, org, policy.Live, "http://127.0.0.1:9/hook", "", "target", nil)
	if err != nil {
		t.Fatal(err)
	}
	_, del, err := reg.Ping(ctx, org, ep.ID)
	if err != nil {
		t.Fatal(err)
	}
	acct, err := tenancy.Account(ctx, d.st.Client, org, policy.Live)
	if err != nil {
		t.Fatal(err)
	}
	stored, err := reqlog.Insert(ctx, d.st, &ent.APIRequest{CreatedAt: time.Now(), AccountID: acct.ID, APIKeyID: &k.Record.ID,
		Method: "GET", Operation: "listTags", Path: "/v1/tags", Status: 200, RequestID: ids.New("req_"), DurationUs: 100})
	if err != nil {
		t.Fatal(err)
	}
	req := stored[0]
	live := policy.App(ctx, acct.ID, policy.Live)
	tx, err := d.st.Client.Tx(live)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	prod, err := tx.Product.Create().SetName("Target flour").SetProductCode("TARGET").SetKind(product.KindMaterial).
		SetProductType(product.ProductTypeRAW_MATERIAL).Save(live)
	if err != nil {
		t.Fatal(err)
	}
	lot, err := tx.ProductLot.Create().SetProductID(prod.ID).SetLotNumber("TARGET-1").SetQuantityBase(decimal.NewFromInt(5)).Save(live)
	if err != nil {
		t.Fatal(err)
	}
	sup, err := tx.Supplier.Create().SetSupplierCode("TARGET").SetCompany("Target Mills").Save(live)
	if err != nil {
		t.Fatal(err)
	}
	bill, err := tx.Bill.Create().SetSupplierID(sup.ID).SetBillDate(time.Date(2026, 11, 6, 0, 0, 0, 0, time.UTC)).Save(live)
	if err != nil {
		t.Fatal(err)
	}
	cust, err := tx.Customer.Create().SetCompany("Target grocer").SetCustomerCode("TGROCER").Save(live)
	if err != nil {
		t.Fatal(err)
	}
	order, err := tx.SalesOrder.Create().SetCustomerID(cust.ID).SetOrderDate(time.Date(2026, 11, 6, 0, 0, 0, 0, time.UTC)).Save(live)
	if err != nil {
		t.Fatal(err)
	}
	inv, err := tx.Invoice.Create().SetCustomerID(cust.ID).SetSalesOrderID(order.ID).SetInvoiceDate(time.Date(2026, 11, 7, 0, 0, 0, 0, time.UTC)).Save(live)
	if err != nil {
		t.Fatal(err)
	}
	run, err := manufacturing.Create(live, tx, manufacturing.Plan{ProductID: prod.ID})
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	return records{org: org, key: k.Record.ID, person: p.ID, endpoint: ep.ID, delivery: del.ID, request: req.ID, lot: lot.ID, supplier: sup.ID, invoice: inv.ID, bill: bill.ID, run: run.ID, product: prod.ID}
}

// world is what the console could change of an organization's records.
func world(t *testing.T, d *desk, org int) string {
	t.Helper()
	ctx := context.Background()
	keys, err := auth.ListKeys(ctx, d.st.Client, org)
	if err != nil {
		t.Fatal(err)
	}
	ps, err := d.people.List(ctx, org)
	if err != nil {
		t.Fatal(err)
	}
	reg := &webhooks.Registry{Client: d.st.Client}
	eps, err := reg.List(ctx, org)
	if err != nil {
		t.Fatal(err)
	}
	acct, err := tenancy.Account(ctx, d.st.Client, org, policy.Live)
	if err != nil {
		t.Fatal(err)
	}
	lots, err := d.st.Client.ProductLot.Query().Where(productlot.AccountID(acct.ID)).All(policy.System(ctx))
	if err != nil {
		t.Fatal(err)
	}
	sups, err := d.st.Client.Supplier.Query().Where(supplier.AccountID(acct.ID)).All(policy.System(ctx))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, l := range lots {
		fmt.Fprintf(&b, "lot %d %s at=%v\n", l.ID, l.QcStatus, l.QcStatusAt)
	}
	for _, s := range sups {
		fmt.Fprintf(&b, "supplier %d %s\n", s.ID, supplierState(s))
	}
	// The documents of the organization's live account, as a cancellation
	// would change them.
	live := policy.App(ctx, acct.ID, policy.Live)
	invs, err := d.st.Client.Invoice.Query().All(live)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range invs {
		fmt.Fprintf(&b, "invoice %d cancelled=%v\n", x.ID, x.IsCancelled)
	}
	bills, err := d.st.Client.Bill.Query().All(live)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range bills {
		fmt.Fprintf(&b, "bill %d cancelled=%v\n", x.ID, x.IsCancelled)
	}
	runs, err := d.st.Client.Production.Query().All(live)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range runs {
		fmt.Fprintf(&b, "run %d %s signed=%v started=%v\n", x.ID, x.Status, x.Signed, x.StartDate)
	}
	for _, k := range keys {
		fmt.Fprintf(&b, "key %d revoked=%v expires=%v\n", k.ID, k.RevokedAt, k.ExpiresAt)
	}
	for _, p := range ps {
		fmt.Fprintf(&b, "person %d %s active=%v 2fa=%v\n", p.ID, p.Role, p.Active, p.SecondFactor)
	}
	for _, e := range eps {
		fmt.Fprintf(&b, "endpoint %d %s enabled=%v secret=%s\n", e.ID, e.URL, e.Enabled, e.Secret)
		dels, err := reg.Deliveries(ctx, org, e.ID, webhooks.DeliveryFilter{})
		if err != nil {
			t.Fatal(err)
		}
		for _, dl := range dels {
			fmt.Fprintf(&b, "  delivery %d attempts=%d\n", dl.ID, len(dl.Attempts))
		}
	}
	return b.String()
}

// idOf fills a route's pattern with the ids of r: {id} is the record the
// route's page is about, {delivery} a delivery of that endpoint.
func idOf(pattern string, r records) (string, bool) {
	var id int
	switch {
	case strings.HasPrefix(pattern, "/console/keys/"):
		id = r.key
	case strings.HasPrefix(pattern, "/console/people/"):
		id = r.person
	case strings.HasPrefix(pattern, "/console/webhooks/"):
		id = r.endpoint
	case strings.HasPrefix(pattern, "/console/requests/"):
		id = r.request
	case strings.HasPrefix(pattern, "/console/lots/"):
		id = r.lot
	case strings.HasPrefix(pattern, "/console/suppliers/"):
		id = r.supplier
	case strings.HasPrefix(pattern, "/console/invoices/"):
		id = r.invoice
	case strings.HasPrefix(pattern, "/console/bills/"):
		id = r.bill
	case strings.HasPrefix(pattern, "/console/production/"):
		id = r.run
	case strings.HasPrefix(pattern, "/console/products/"):
		id = r.product
	default:
		return "", false
	}
	p := strings.ReplaceAll(pattern, "{id}", strconv.Itoa(id))
	p = strings.ReplaceAll(p, "{delivery}", strconv.Itoa(r.delivery))
	return p, !regexp.MustCompile(`\{`).MatchString(p)
}

// everything is a form a route would act on if the record were the
// caller's: every field any console form reads, with a value that passes.
var everything = url.Values{
	"confirm": {"yes"}, "understand": {"yes"}, "grace": {"1h"}, "role": {"viewer"},
	"url": {"http://127.0.0.1:9/moved"}, "description": {"moved"}, "email": {""}, "events": {"all"},
	"since": {"2000-01-01T00:00"}, "required": {"yes"},
	"status": {"REJECTED"}, "note": {"moved"},
	"env": {"live"}, "expires": {"2099-01-01"}, "scheme": {"SQF"}, "expires_on": {"2099-01-01"},
	"produced": {"1"}, "release": {"yes"},
}

// Every console route that names a record by id, as an admin of another
// organization, finds nothing: GET and POST answer 404 and the owner's keys,
// people, endpoints, deliveries, lots' quality decisions, suppliers,
// documents and production runs are as they were. Both directions. The routes come from the console's table; a
// route with an id this test cannot fill fails it, so a new one gets covered.
func TestOtherOrganizationsRecordsAreNotFound(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		d := newDesk(t, st)
		a := makeRecords(t, d, dbtest.NewOrg(t, st, "").Org.ID)
		b := makeRecords(t, d, dbtest.NewOrg(t, st, "").Org.ID)
		for _, dir := range []struct {
			name           string
			caller, target records
		}{{"A on B", a, b}, {"B on A", b, a}} {
			t.Run(dir.name, func(t *testing.T) {
				br, _ := d.signedIn(dir.caller.org, people.Admin)
				before := world(t, d, dir.target.org)
				for _, rt := range console.Routes() {
					if rt.Public || !strings.Contains(rt.Path, "{") || strings.HasSuffix(rt.Path, "{$}") {
						continue
					}
					path, ok := idOf(rt.Path, dir.target)
					if !ok {
						t.Errorf("%s %s names a record this test does not make", rt.Method, rt.Path)
						continue
					}
					var res answer
					if rt.Method == http.MethodPost {
						res = br.post(path, everything)
					} else {
						res = br.get(path)
					}
					if res.status != http.StatusNotFound {
						t.Errorf("%s %s: %d, want 404", rt.Method, path, res.status)
					}
				}
				if diff := cmp.Diff(before, world(t, d, dir.target.org)); diff != "" {
					t.Errorf("the other organization's records changed (-before +after):\n%s", diff)
				}
			})
		}
	})
}
