package testaccount_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/shopspring/decimal"

	"larder.dev/larder/ent"
	entproduct "larder.dev/larder/ent/product"
	"larder.dev/larder/ent/productlot"
	"larder.dev/larder/internal/identity/tenancy"
	"larder.dev/larder/internal/modules/inventory"
	"larder.dev/larder/internal/modules/testaccount"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/seed"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

// The test account holds what it promises whatever the day it is seeded or
// reset, checked on days past every date the seed once held fixed: an
// account created on 2027-06-01, one created on 2031-01-01, and the first
// reset on 2031-01-01 hold the same dataset, every date in it the same
// number of days from the day seeded, and the promises hold as of that day
// (see promises).
func TestSeedFollowsTheDaySeeded(t *testing.T) {
	first := time.Date(2027, 6, 1, 10, 30, 0, 0, time.UTC)
	later := time.Date(2031, 1, 1, 10, 30, 0, 0, time.UTC)
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		create := func(name string, now time.Time) *tenancy.Organization {
			t.Helper()
			o, err := tenancy.Create(ctx, st.Client, name, tenancy.Entitled, "CAD", seed.TestAccountAt(now))
			if err != nil {
				t.Fatalf("create an organization on %s: %v", now.Format(time.DateOnly), err)
			}
			return o
		}

		a := create(t.Name()+" a", first)
		promises(t, st, a, first)
		want := dated(t, st, a, first)
		if len(want) < 60 {
			t.Fatalf("%d dates in the seed: too few to compare", len(want))
		}

		b := create(t.Name()+" b", later)
		promises(t, st, b, later)
		if d := cmp.Diff(want, dated(t, st, b, later)); d != "" {
			t.Errorf("seeded on %s and on %s, dates from the day seeded differ (-first +later):\n%s", first.Format(time.DateOnly), later.Format(time.DateOnly), d)
		}

		if _, err := testaccount.ResetTestAt(ctx, st.Client, a.Org.ID, later); err != nil {
			t.Fatalf("reset on %s: %v", later.Format(time.DateOnly), err)
		}
		promises(t, st, a, later)
		if d := cmp.Diff(want, dated(t, st, a, later)); d != "" {
			t.Errorf("seeded on %s and reset on %s, dates from the day seeded differ (-seeded +reset):\n%s", first.Format(time.DateOnly), later.Format(time.DateOnly), d)
		}
	})
}

// promises checks what the test account of o holds as of now, the moment it
// was seeded: lots in every QC status; a RELEASED lot whose release ends
// after now; no lot but archived ones expired; each finished good sellable
// (the stock picker finds a lot of it at now); an approval and a
// certification ending in the next 30 days, an approval and a certification
// already ended; and the recall scenario traced forward to its three
// customers and backward to its supplier.
func promises(t *testing.T, st *store.Store, o *tenancy.Organization, now time.Time) {
	t.Helper()
	ctx := policy.App(context.Background(), o.Test.ID, policy.Test)
	day := now.Format(time.DateOnly)

	lots, err := st.Client.ProductLot.Query().Order(ent.Asc(productlot.FieldID)).All(ctx)
	if err != nil {
		t.Fatal(err)
	}
	statuses := map[productlot.QcStatus]bool{}
	releasedAhead := false
	for _, l := range lots {
		statuses[l.QcStatus] = true
		if l.QcStatus == productlot.QcStatusRELEASED && l.QcReleaseExpiresAt != nil && l.QcReleaseExpiresAt.After(now) {
			releasedAhead = true
		}
		if !l.Archived && l.ExpirationDate != nil && !l.ExpirationDate.After(now) {
			t.Errorf("%s: lot %s (%d) expired on %s", day, str(l.LotNumber), l.ID, l.ExpirationDate.Format(time.DateOnly))
		}
	}
	for _, s := range []productlot.QcStatus{productlot.QcStatusAVAILABLE, productlot.QcStatusON_HOLD, productlot.QcStatusQUARANTINE, productlot.QcStatusRELEASED, productlot.QcStatusREJECTED} {
		if !statuses[s] {
			t.Errorf("%s: no lot is %s", day, s)
		}
	}
	if !releasedAhead {
		t.Errorf("%s: no RELEASED lot has a release ending after today", day)
	}

	// Sellable: the picker every shipment and completion uses finds stock.
	tx, err := st.Client.Tx(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, code := range []string{"FG-BAR6", "FG-COOKIE12"} {
		p, err := tx.Product.Query().Where(entproduct.ProductCode(code)).OnlyID(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := inventory.Pick(ctx, tx, []inventory.Draw{{Product: p, Quantity: decimal.NewFromInt(1)}}, nil, now); err != nil {
			t.Errorf("%s: %s does not sell: %v", day, code, err)
		}
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}

	sups, err := st.Client.Supplier.Query().All(ctx)
	if err != nil {
		t.Fatal(err)
	}
	soon := now.Add(30 * 24 * time.Hour)
	var approvalSoon, certSoon, approvalPast, certPast []string
	for _, s := range sups {
		if e := s.ApprovalExpiry; e != nil && e.After(now) && !e.After(soon) {
			approvalSoon = append(approvalSoon, *s.SupplierCode)
		}
		if e := s.ApprovalExpiry; e != nil && !e.After(now) {
			approvalPast = append(approvalPast, *s.SupplierCode)
		}
		if e := s.CertificationExpiresOn; e != nil && e.After(now) && !e.After(soon) {
			certSoon = append(certSoon, *s.SupplierCode)
		}
		if e := s.CertificationExpiresOn; e != nil && !e.After(now) {
			certPast = append(certPast, *s.SupplierCode)
		}
	}
	for what, codes := range map[string][]string{
		"an approval ending in the next 30 days": approvalSoon, "a certification ending in the next 30 days": certSoon,
		"an approval ended": approvalPast, "a certification ended": certPast,
	} {
		if len(codes) == 0 {
			t.Errorf("%s: no supplier has %s", day, what)
		}
	}

	flour, err := st.Client.ProductLot.Query().Where(productlot.LotNumber(seed.RecallLotNumber)).Only(ctx)
	if err != nil {
		t.Fatalf("%s: %v", day, err)
	}
	fwd, err := inventory.TraceLotOf(ctx, st.Client, flour.ID, inventory.Forward, 0)
	if err != nil {
		t.Fatal(err)
	}
	var customers []string
	for _, c := range fwd.Recall.Customers {
		customers = append(customers, str(c.CustomerName))
	}
	if !slices.Equal(customers, seed.RecallCustomers) {
		t.Errorf("%s: the recall reaches %v, want %v", day, customers, seed.RecallCustomers)
	}
	out, err := st.Client.ProductLot.Query().Where(productlot.LotNumber(seed.RecallOutputLots[0])).OnlyID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	back, err := inventory.TraceLotOf(ctx, st.Client, out, inventory.Backward, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Recall.Suppliers) != 1 || str(back.Recall.Suppliers[0].SupplierName) != seed.RecallSupplier {
		t.Errorf("%s: an output lot traces back to %v, want %s", day, back.Recall.Suppliers, seed.RecallSupplier)
	}
}

// dated is every business date of o's test account as its distance from
// the day of now (days, and the hour when not midnight), keyed by record and
// field: lots, suppliers, purchase orders, bills, production runs, sales
// orders, shipments and invoices.
func dated(t *testing.T, st *store.Store, o *tenancy.Organization, now time.Time) map[string]string {
	t.Helper()
	ctx := policy.App(context.Background(), o.Test.ID, policy.Test)
	y, m, d := now.UTC().Date()
	today := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	out := map[string]string{}
	put := func(key string, at *time.Time) {
		if at == nil {
			out[key] = "none"
			return
		}
		off := at.UTC().Sub(today)
		days := int(off.Hours()) / 24
		if off < 0 && off%(24*time.Hour) != 0 {
			days--
		}
		rest := off - time.Duration(days)*24*time.Hour
		out[key] = fmt.Sprintf("%+d days %s", days, rest)
	}
	ptr := func(t time.Time) *time.Time { return &t }
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}

	lots, err := st.Client.ProductLot.Query().Order(ent.Asc(productlot.FieldID)).All(ctx)
	must(err)
	for i, l := range lots {
		k := fmt.Sprintf("lot %d %s", i, str(l.LotNumber))
		put(k+" expiration_date", l.ExpirationDate)
		put(k+" qc_status_at", l.QcStatusAt)
		put(k+" qc_release_expires_at", l.QcReleaseExpiresAt)
	}
	sups, err := st.Client.Supplier.Query().Order(ent.Asc("id")).All(ctx)
	must(err)
	for _, s := range sups {
		put("supplier "+str(s.SupplierCode)+" approval_expiry", s.ApprovalExpiry)
		put("supplier "+str(s.SupplierCode)+" certification_expires_on", s.CertificationExpiresOn)
	}
	pos, err := st.Client.PurchaseOrder.Query().Order(ent.Asc("id")).All(ctx)
	must(err)
	for _, p := range pos {
		k := fmt.Sprintf("purchase order %d", p.PurchaseOrderNo)
		put(k+" order_date", p.OrderDate)
		put(k+" expected_date", p.ExpectedDate)
		put(k+" received_date", p.ReceivedDate)
	}
	bills, err := st.Client.Bill.Query().Order(ent.Asc("id")).All(ctx)
	must(err)
	for _, b := range bills {
		k := fmt.Sprintf("bill %d", b.BillNo)
		put(k+" bill_date", ptr(b.BillDate))
		put(k+" cancelled_at", b.CancelledAt)
	}
	runs, err := st.Client.Production.Query().Order(ent.Asc("id")).All(ctx)
	must(err)
	for _, r := range runs {
		k := fmt.Sprintf("production %d", r.ProductionNo)
		put(k+" start_date", r.StartDate)
		put(k+" end_date", r.EndDate)
		put(k+" expiration_date", r.ExpirationDate)
	}
	orders, err := st.Client.SalesOrder.Query().Order(ent.Asc("id")).All(ctx)
	must(err)
	for _, s := range orders {
		k := fmt.Sprintf("sales order %d", s.SalesOrderNo)
		put(k+" order_date", s.OrderDate)
		put(k+" expected_date", s.ExpectedDate)
		put(k+" ship_date", s.ShipDate)
	}
	ships, err := st.Client.Shipment.Query().Order(ent.Asc("id")).All(ctx)
	must(err)
	for i, s := range ships {
		put(fmt.Sprintf("shipment %d ship_date", i), s.ShipDate)
	}
	invs, err := st.Client.Invoice.Query().Order(ent.Asc("id")).All(ctx)
	must(err)
	for _, v := range invs {
		k := fmt.Sprintf("invoice %d", v.InvoiceNo)
		put(k+" invoice_date", ptr(v.InvoiceDate))
		put(k+" cancelled_at", v.CancelledAt)
		put(k+" order_date", v.OrderDate)
		put(k+" ship_date", v.ShipDate)
	}
	return out
}

func str(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
