package e2e_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/invoice"
	entproduct "larder.dev/larder/ent/product"
	"larder.dev/larder/internal/identity/people"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/browsertest"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

// chooseFile puts the file at path into the page's file input.
func chooseFile(t *testing.T, ctx context.Context, path string) {
	t.Helper()
	fctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := chromedp.Do(fctx, chromedp.SetUploadFiles(chromedp.CSS(`input[type=file][name=file]`), []string{path})); err != nil {
		t.Fatalf("choose %s: %v", path, err)
	}
}

// An operator opens an open invoice of the test account, reads what
// cancelling it does on the page that asks once, confirms, and finds it
// cancelled. They then check a products file with one bad line, read the
// problem with its line and field, correct the file, check it again and
// import it, and the products are in the test account. Every page passes
// axe-core.
func TestCancelAndImport(t *testing.T) {
	dbtest.RunBoth(t, func(t *testing.T, st *store.Store) {
		s := newSite(t, st)
		org := dbtest.NewSeededOrg(t, st)
		ctx := org.Ctx(policy.Test)
		inv, err := st.Client.Invoice.Query().Where(invoice.IsCancelled(false), invoice.HasLines()).Order(ent.Asc(invoice.FieldID)).First(ctx)
		if err != nil {
			t.Fatal(err)
		}
		op := s.person(org.Org.ID, people.Operator)
		tb := tab(t, false)
		s.signIn(t, tb, op.Email)

		s.open(t, tb, "/console/invoices?env=live", http.StatusOK)
		check(t, tb, "invoices-live")
		submit(t, tb, "Test", http.StatusOK) // the environment switch
		check(t, tb, "invoices-test")
		browsertest.Fill(t, tb, "Number", strconv.Itoa(inv.InvoiceNo))
		submit(t, tb, "Find invoices", http.StatusOK)
		follow(t, tb, fmt.Sprintf("invoice %d", inv.InvoiceNo), http.StatusOK)
		if p, want := s.path(t, tb), fmt.Sprintf("/console/invoices/%d?env=test", inv.ID); p != want {
			t.Fatalf("the invoice's link leads to %s, want %s", p, want)
		}
		check(t, tb, "invoice")
		follow(t, tb, "Cancel this invoice…", http.StatusOK)
		check(t, tb, "invoice-cancel")
		if got := mainText(t, tb); !strings.Contains(got, "What cancelling does") || !strings.Contains(got, "what shipped stays shipped") ||
			!strings.Contains(got, fmt.Sprintf("The sales order %d and its shipment are unchanged.", inv.SalesOrderID)) {
			t.Errorf("the consequences say:\n%s", got)
		}
		button := fmt.Sprintf("Cancel invoice %d", inv.InvoiceNo)
		if x, err := st.Client.Invoice.Get(ctx, inv.ID); err != nil || x.IsCancelled {
			t.Fatalf("reading what cancelling does cancelled: %v %v", x, err)
		}
		// The page is the one confirmation: its button cancels.
		submit(t, tb, button, http.StatusOK)
		if got := mainText(t, tb); !strings.Contains(got, fmt.Sprintf("Invoice %d is cancelled.", inv.InvoiceNo)) || !strings.Contains(got, "Cancelled on") {
			t.Errorf("after the cancellation the page says:\n%s", got)
		}
		check(t, tb, "invoice-cancelled")
		if x, err := st.Client.Invoice.Get(ctx, inv.ID); err != nil || !x.IsCancelled {
			t.Fatalf("the invoice is not cancelled: %v %v", x, err)
		}

		s.open(t, tb, "/console/bills?env=test", http.StatusOK)
		check(t, tb, "bills-test")

		s.open(t, tb, "/console/imports?env=test", http.StatusOK)
		check(t, tb, "imports")
		dir := t.TempDir()
		file := filepath.Join(dir, "new-products.csv")
		write := func(body string) {
			if err := os.WriteFile(file, []byte(body), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		write("product_code,name,product_type\nE2E-SPELT,Spelt flour,RAW_MATERIAL\nE2E-HONEY,Clover honey,SWEET\n")
		browsertest.Fill(t, tb, "List", "products")
		chooseFile(t, tb, file)
		submit(t, tb, "Check the file", http.StatusUnprocessableEntity)
		check(t, tb, "imports-problems")
		if got := browsertest.Text(t, tb, "table.problems tbody"); !strings.Contains(got, "3\tproduct_type\tmust be one of") {
			t.Errorf("the problems read:\n%q", got)
		}
		if n, err := st.Client.Product.Query().Where(entproduct.ProductCodeHasPrefix("E2E-")).Count(ctx); err != nil || n != 0 {
			t.Fatalf("a file with a problem wrote %d products (%v)", n, err)
		}
		write("product_code,name,product_type\nE2E-SPELT,Spelt flour,RAW_MATERIAL\nE2E-HONEY,Clover honey,RAW_MATERIAL\n")
		browsertest.Fill(t, tb, "List", "products")
		chooseFile(t, tb, file)
		submit(t, tb, "Check the file", http.StatusOK)
		check(t, tb, "imports-checked")
		submit(t, tb, "Import 2 records", http.StatusOK)
		if got := mainText(t, tb); !strings.Contains(got, "Products imported from new-products.csv: 2 created, 0 updated, 0 unchanged.") {
			t.Errorf("after the import the page says:\n%s", got)
		}
		check(t, tb, "imports-done")
		ps, err := st.Client.Product.Query().Where(entproduct.ProductCodeHasPrefix("E2E-")).Order(ent.Asc(entproduct.FieldProductCode)).All(ctx)
		if err != nil || len(ps) != 2 || *ps[0].Name != "Clover honey" || *ps[1].Name != "Spelt flour" {
			t.Fatalf("the products imported: %v (%v)", ps, err)
		}
	})
}

// documentPages visits the invoice, bill and import pages for the tour of
// every page, on an invoice and a bill made in org's test account.
func documentPages(t *testing.T, tr *tour, ctx context.Context, st *store.Store, org *dbtest.Org) {
	t.Helper()
	test := org.Ctx(policy.Test)
	tx, err := st.Client.Tx(test)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	day := time.Date(2026, 11, 6, 0, 0, 0, 0, time.UTC)
	sup, err := tx.Supplier.Create().SetCompany("Tour mill").SetSupplierCode("TOURMILL").Save(test)
	if err != nil {
		t.Fatal(err)
	}
	bill, err := tx.Bill.Create().SetSupplierID(sup.ID).SetBillDate(day).Save(test)
	if err != nil {
		t.Fatal(err)
	}
	cust, err := tx.Customer.Create().SetCompany("Tour grocer").SetCustomerCode("TOURGROCER").Save(test)
	if err != nil {
		t.Fatal(err)
	}
	order, err := tx.SalesOrder.Create().SetCustomerID(cust.ID).SetOrderDate(day).Save(test)
	if err != nil {
		t.Fatal(err)
	}
	inv, err := tx.Invoice.Create().SetCustomerID(cust.ID).SetSalesOrderID(order.ID).SetInvoiceDate(day).Save(test)
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	for _, x := range []struct {
		kind string
		id   int
	}{{"invoices", inv.ID}, {"bills", bill.ID}} {
		one := strings.TrimSuffix(x.kind, "s")
		tr.visit(t, ctx, "/console/"+x.kind, "/console/"+x.kind+"?env=test", http.StatusOK, x.kind)
		tr.visit(t, ctx, "/console/"+x.kind, "/console/"+x.kind+"?env=test&number=first", http.StatusBadRequest, x.kind+"-error")
		tr.visit(t, ctx, "/console/"+x.kind+"/{id}", fmt.Sprintf("/console/%s/%d?env=test", x.kind, x.id), http.StatusOK, one)
		tr.visit(t, ctx, "/console/"+x.kind+"/{id}/cancel", fmt.Sprintf("/console/%s/%d/cancel?env=test", x.kind, x.id), http.StatusOK, one+"-cancel")
	}
	tr.visit(t, ctx, "/console/imports", "/console/imports?env=test", http.StatusOK, "imports")
	if csv := fetchLink(t, ctx, "a[download]"); csv.Status != http.StatusOK || !strings.HasPrefix(csv.Body, "product_code,") {
		t.Errorf("the products' CSV: %d %s", csv.Status, csv.Body)
	}
	tr.opened["/console/imports/export"] = true
	// A list's template is a download too, fetched as the reference's link.
	if csv := fetchLink(t, ctx, `a[href^="/console/imports/template?list=territories"]`); csv.Status != http.StatusOK || !strings.HasPrefix(csv.Body, "code,name,") {
		t.Errorf("the territories' template: %d %s", csv.Status, csv.Body)
	}
	tr.opened["/console/imports/template"] = true
}
