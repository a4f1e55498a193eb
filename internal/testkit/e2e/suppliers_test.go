package e2e_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"larder.dev/larder/ent/product"
	"larder.dev/larder/ent/supplier"
	"larder.dev/larder/internal/identity/people"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/browsertest"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

// An admin turns on "block unapproved suppliers" on the settings page; a
// purchase order through the API for the seed's SUSPENDED supplier is then
// refused with 409 SUPPLIER_BLOCKED, while one for a PENDING supplier is
// not blocked (only SUSPENDED and REJECTED are). An operator finds the
// suspended supplier among the test suppliers and approves it on its page;
// the same purchase order is then accepted. The supplier pages pass
// axe-core.
func TestSupplierApprovalUnblocksOrders(t *testing.T) {
	dbtest.RunBoth(t, func(t *testing.T, st *store.Store) {
		s := newSite(t, st)
		org := dbtest.NewSeededOrg(t, st)
		ctx := org.Ctx(policy.Test)
		cacao, err := st.Client.Supplier.Query().Where(supplier.SupplierCode("CACAO")).Only(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if cacao.ApprovalStatus != supplier.ApprovalStatusSUSPENDED {
			t.Fatalf("the seed's CACAO is %s, not SUSPENDED", cacao.ApprovalStatus)
		}
		nuts, err := st.Client.Supplier.Query().Where(supplier.SupplierCode("NUTS")).Only(ctx)
		if err != nil {
			t.Fatal(err)
		}
		flour, err := st.Client.Product.Query().Where(product.ProductCode("RM-FLOUR")).OnlyID(ctx)
		if err != nil {
			t.Fatal(err)
		}
		key := org.Key(t, policy.Test, "all")
		order := func(supplierID int) reply {
			t.Helper()
			return s.call(t, "POST", "/v1/purchase-orders", key, map[string]any{
				"supplier_id": supplierID, "lines": []map[string]any{{"product_id": flour, "quantity": 4, "cost": 21.75}}})
		}

		admin := s.person(org.Org.ID, people.Admin)
		at := tab(t, false)
		s.signIn(t, at, admin.Email)
		follow(t, at, "Settings", http.StatusOK)
		check(t, at, "settings")
		choose(t, at, "", "Block unapproved suppliers")
		submit(t, at, "Save the settings", http.StatusOK)
		if got := browsertest.Text(t, at, ".flash"); got != "The settings are saved." {
			t.Errorf("the settings page says %q", got)
		}
		check(t, at, "settings-saved")

		r := order(cacao.ID)
		var refusal struct{ Code string }
		r.decode(t, &refusal)
		if r.status != http.StatusConflict || refusal.Code != "SUPPLIER_BLOCKED" {
			t.Fatalf("an order for the suspended supplier: %d %s", r.status, r.body)
		}
		if r := order(nuts.ID); r.status != http.StatusCreated {
			t.Errorf("an order for the PENDING supplier: %d %s", r.status, r.body)
		}

		operator := s.person(org.Org.ID, people.Operator)
		ot := tab(t, false)
		s.signIn(t, ot, operator.Email)
		if got := mainText(t, ot); strings.Contains(got, "Settings") {
			t.Errorf("an operator's navigation lists the settings")
		}
		s.open(t, ot, "/console/suppliers?env=test", http.StatusOK)
		check(t, ot, "suppliers")
		browsertest.Fill(t, ot, "Approval status", "SUSPENDED")
		submit(t, ot, "Find suppliers", http.StatusOK)
		check(t, ot, "suppliers-suspended")
		if got := browsertest.Text(t, ot, `table[aria-labelledby="all"] tbody`); !strings.Contains(got, "CACAO") || strings.Contains(got, "NUTS") {
			t.Errorf("the suspended suppliers are:\n%s", got)
		}
		follow(t, ot, "CACAO", http.StatusOK)
		if p, want := s.path(t, ot), fmt.Sprintf("/console/suppliers/%d?env=test", cacao.ID); p != want {
			t.Errorf("the supplier's link leads to %s, want %s", p, want)
		}
		check(t, ot, "supplier")
		submit(t, ot, "Approve", http.StatusOK)
		if got := browsertest.Text(t, ot, ".flash"); got != "The supplier is approved." {
			t.Errorf("the supplier's page says %q", got)
		}
		if got := browsertest.Text(t, ot, "#approval-status"); got != "APPROVED" {
			t.Errorf("the page shows the approval %q", got)
		}
		check(t, ot, "supplier-approved")

		r = order(cacao.ID)
		var created struct {
			Data struct {
				ID         int    `json:"id"`
				SupplierID int    `json:"supplier_id"`
				Status     string `json:"status"`
			} `json:"data"`
		}
		r.decode(t, &created)
		po := created.Data
		if r.status != http.StatusCreated || po.SupplierID != cacao.ID || po.ID == 0 || po.Status != "OPEN" {
			t.Fatalf("the order after the approval: %d %s", r.status, r.body)
		}
		if r := s.call(t, "GET", fmt.Sprintf("/v1/purchase-orders/%d", po.ID), key, nil); r.status != http.StatusOK {
			t.Errorf("the accepted order: %d %s", r.status, r.body)
		}
	})
}
