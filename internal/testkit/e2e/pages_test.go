package e2e_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"larder.dev/larder/console"
	"larder.dev/larder/ent"
	"larder.dev/larder/ent/product"
	"larder.dev/larder/internal/identity/auth"
	"larder.dev/larder/internal/identity/people"
	"larder.dev/larder/internal/modules/manufacturing"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/browsertest"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

// tour opens pages and remembers which of the console's GET routes it
// opened.
type tour struct {
	s      *site
	opened map[string]bool
}

// visit opens path, the route pattern's page, expecting status, and checks
// it (axe-core, screenshot name).
func (tr *tour) visit(t *testing.T, ctx context.Context, pattern, path string, status int, name string) {
	t.Helper()
	tr.s.open(t, ctx, path, status)
	check(t, ctx, name)
	tr.opened[pattern] = true
}

// Every page of the console, each state a person meets (a form with its
// errors, a refusal, a missing page), passes axe-core with no serious or
// critical violation and is kept as a screenshot; every GET route the
// console has is among them.
func TestEveryPage(t *testing.T) {
	dbtest.RunBoth(t, func(t *testing.T, st *store.Store) {
		s := newSite(t, st)
		org := dbtest.NewOrg(t, st, "")
		tr := &tour{s: s, opened: map[string]bool{}}
		bg := context.Background()

		// Something on every page: a key, an endpoint on a receiver, and
		// an event delivered to it.
		key := org.Key(t, policy.Test, "all")
		rc := newReceiver(t)
		if _, err := s.hooks.Create(bg, org.Org.ID, policy.Test, rc.URL+"/larder", "", "Stock alerts", nil); err != nil {
			t.Fatal(err)
		}
		if r := s.call(t, "POST", "/v1/tags", key, map[string]any{"name": "Seasonal", "ref_type": "PRODUCT"}); r.status != http.StatusCreated {
			t.Fatalf("create a tag: %d %s", r.status, r.body)
		}
		waitFor(t, "the tag's event delivered", func() bool { return len(rc.received()) > 0 })

		// An admin with a second factor signs in through the code page.
		admin := s.person(org.Org.ID, people.Admin)
		e, err := s.people.BeginSecondFactor(bg, org.Org.ID, admin.ID)
		if err != nil {
			t.Fatal(err)
		}
		at := time.Now()
		if _, err := s.people.ConfirmSecondFactor(bg, org.Org.ID, admin.ID, people.Code(e.Secret, at)); err != nil {
			t.Fatal(err)
		}
		ctx := tab(t, false)
		tr.visit(t, ctx, "/console/sign-in", "/console/sign-in", http.StatusOK, "sign-in")
		submit(t, ctx, "Sign in", http.StatusBadRequest)
		check(t, ctx, "sign-in-empty")
		browsertest.Fill(t, ctx, "E-mail address", admin.Email)
		browsertest.Fill(t, ctx, "Password", "not the password")
		submit(t, ctx, "Sign in", http.StatusUnauthorized)
		check(t, ctx, "sign-in-wrong")
		browsertest.Fill(t, ctx, "Password", password)
		submit(t, ctx, "Sign in", http.StatusOK)
		if got := s.path(t, ctx); got != "/console/sign-in/code" {
			t.Fatalf("the admin's password leads to %s", got)
		}
		tr.visit(t, ctx, "/console/sign-in/code", "/console/sign-in/code", http.StatusOK, "code")
		browsertest.Fill(t, ctx, "One-time code", people.Code(e.Secret, at.Add(30*time.Second)))
		submit(t, ctx, "Continue", http.StatusOK)
		tr.visit(t, ctx, "/console/{$}", "/console/", http.StatusOK, "home")
		tr.visit(t, ctx, "/console/account", "/console/account", http.StatusOK, "account")
		submit(t, ctx, "Change password", http.StatusBadRequest)
		check(t, ctx, "account-error")

		tr.visit(t, ctx, "/console/keys", "/console/keys", http.StatusOK, "keys")
		follow(t, ctx, "Rotate "+display(key), http.StatusOK)
		tr.opened["/console/keys/{id}/rotate"] = true
		check(t, ctx, "key-rotate")
		s.open(t, ctx, "/console/keys", http.StatusOK)
		follow(t, ctx, "Revoke "+display(key), http.StatusOK)
		tr.opened["/console/keys/{id}/revoke"] = true
		check(t, ctx, "key-revoke")

		tr.visit(t, ctx, "/console/webhooks", "/console/webhooks", http.StatusOK, "webhooks")
		follow(t, ctx, rc.URL+"/larder", http.StatusOK)
		tr.opened["/console/webhooks/{id}"] = true
		check(t, ctx, "webhook")
		if got := mainText(t, ctx); !strings.Contains(got, "tag.created") {
			t.Errorf("the endpoint's log does not show the tag's event:\n%s", got)
		}
		follow(t, ctx, "Delete endpoint…", http.StatusOK)
		tr.opened["/console/webhooks/{id}/delete"] = true
		check(t, ctx, "webhook-delete")

		tr.visit(t, ctx, "/console/events", "/console/events?env=test", http.StatusOK, "events-test")
		if got := mainText(t, ctx); !strings.Contains(got, "tag.created") {
			t.Errorf("the test events do not show the tag's event:\n%s", got)
		}
		tr.visit(t, ctx, "/console/events", "/console/events?env=live", http.StatusOK, "events-live")
		// A logged request of the test account, with a cost in its body.
		k, err := auth.CreateKey(bg, st.Client, org.Org.ID, auth.Holder, policy.Test, policy.Known(), "Shop")
		if err != nil {
			t.Fatal(err)
		}
		req := logRequest(t, st, org.Test.ID, k.Record.ID, "POST", "createProduct", "/v1/products", 400, "VALIDATION_ERROR",
			`{"name":"","cost":"2.40"}`, `{"code":"VALIDATION_ERROR","errors":[{"field":"name","message":"required"}]}`)
		tr.visit(t, ctx, "/console/requests", "/console/requests?env=test", http.StatusOK, "requests-test")
		tr.visit(t, ctx, "/console/requests", "/console/requests?env=live", http.StatusOK, "requests-live")
		tr.visit(t, ctx, "/console/requests/{id}", fmt.Sprintf("/console/requests/%d?env=test", req.ID), http.StatusOK, "request")
		if got := mainText(t, ctx); !strings.Contains(got, `"cost": "2.40"`) {
			t.Errorf("the admin does not see the request's cost:\n%s", got)
		}
		// A lot of the test account, its page and its form's errors; its
		// CSV is a download, fetched as the page's link.
		lot := newLot(t, st, org)
		tr.visit(t, ctx, "/console/lots", "/console/lots?env=test", http.StatusOK, "lots-test")
		tr.visit(t, ctx, "/console/lots", "/console/lots?env=test&before=x", http.StatusBadRequest, "lots-error")
		tr.visit(t, ctx, "/console/lots/{id}", fmt.Sprintf("/console/lots/%d?env=test", lot), http.StatusOK, "lot")
		if csv := fetchLink(t, ctx, "a[download]"); csv.Status != http.StatusOK {
			t.Errorf("the trace's CSV: %d %s", csv.Status, csv.Body)
		}
		tr.opened["/console/lots/{id}/trace.csv"] = true
		tr.visit(t, ctx, "/console/lots/{id}", fmt.Sprintf("/console/lots/%d?env=test&depth=0", lot), http.StatusBadRequest, "lot-error")
		tr.visit(t, ctx, "/console/quality", "/console/quality?env=test", http.StatusOK, "quality")
		// The products of the test account and one product's page.
		tr.visit(t, ctx, "/console/products", "/console/products?env=test", http.StatusOK, "products")
		follow(t, ctx, "RM-RYE", http.StatusOK)
		tr.opened["/console/products/{id}"] = true
		check(t, ctx, "product")
		tr.visit(t, ctx, "/console/products", "/console/products?env=test&offset=x", http.StatusBadRequest, "products-error")
		// The production board and a planned run of the test account.
		run := newRun(t, st, org)
		tr.visit(t, ctx, "/console/production", "/console/production?env=test", http.StatusOK, "production")
		tr.visit(t, ctx, "/console/production/{id}", fmt.Sprintf("/console/production/%d?env=test", run), http.StatusOK, "production-run")
		tr.visit(t, ctx, "/console/production/new", "/console/production/new?env=test", http.StatusOK, "production-plan")
		tr.visit(t, ctx, "/console/production/{id}/complete", fmt.Sprintf("/console/production/%d/complete?env=test", run), http.StatusOK, "production-complete")
		// A supplier of the test account, its page and a refused decision;
		// the organization's settings.
		var sup struct{ Data struct{ ID int } }
		if r := s.call(t, "POST", "/v1/suppliers", key, map[string]any{"company": "Tour Mills", "supplier_code": "TOUR"}); r.status != http.StatusCreated {
			t.Fatalf("create a supplier: %d %s", r.status, r.body)
		} else {
			r.decode(t, &sup)
		}
		tr.visit(t, ctx, "/console/suppliers", "/console/suppliers?env=test", http.StatusOK, "suppliers-test")
		tr.visit(t, ctx, "/console/suppliers", "/console/suppliers?env=test&sort=x", http.StatusBadRequest, "suppliers-error")
		tr.visit(t, ctx, "/console/suppliers/{id}", fmt.Sprintf("/console/suppliers/%d?env=test", sup.Data.ID), http.StatusOK, "supplier")
		submit(t, ctx, "Reset to PENDING", http.StatusConflict)
		check(t, ctx, "supplier-refused")
		tr.visit(t, ctx, "/console/settings", "/console/settings", http.StatusOK, "settings")
		documentPages(t, tr, ctx, st, org)
		tr.visit(t, ctx, "/console/test-data", "/console/test-data", http.StatusOK, "test-data")
		tr.visit(t, ctx, "/console/audit", "/console/audit", http.StatusOK, "audit")

		tr.visit(t, ctx, "/console/people", "/console/people", http.StatusOK, "people")
		unfold(t, ctx, "Invite a person")
		browsertest.Fill(t, ctx, "E-mail address", "not an address")
		submit(t, ctx, "Invite", http.StatusBadRequest)
		check(t, ctx, "people-error")
		browsertest.Fill(t, ctx, "E-mail address", email("invited"))
		browsertest.Fill(t, ctx, "Role", string(people.Operator))
		submit(t, ctx, "Invite", http.StatusOK)
		check(t, ctx, "people-invited")
		if got := value(t, ctx, "#secret-link"); !strings.HasPrefix(got, s.URL+"/console/welcome/") {
			t.Errorf("the invitation's link is %q", got)
		}
		tr.visit(t, ctx, "/console/people/{id}/remove", fmt.Sprintf("/console/people/%d/remove", admin.ID), http.StatusOK, "person-remove")
		tr.visit(t, ctx, "/console/people/{id}/second-factor/remove", fmt.Sprintf("/console/people/%d/second-factor/remove", admin.ID), http.StatusOK, "second-factor-remove")

		// An invited viewer: the welcome page, then the start of setting
		// up a second factor.
		_, link := s.invite(org.Org.ID, people.Viewer)
		other := tab(t, false)
		tr.visit(t, other, "/console/welcome/{token}", link, http.StatusOK, "welcome")
		browsertest.Fill(t, other, "New password", password)
		browsertest.Fill(t, other, "New password again", password)
		submit(t, other, "Set password and sign in", http.StatusOK)
		tr.visit(t, other, "/console/welcome/{token}", link, http.StatusNotFound, "welcome-used")
		tr.visit(t, other, "/console/account/second-factor", "/console/account/second-factor", http.StatusOK, "second-factor-start")
		submit(t, other, "Set up a second factor", http.StatusOK)
		check(t, other, "second-factor")
		// What a viewer reads, and what they may not open.
		s.open(t, other, "/console/keys", http.StatusOK)
		check(t, other, "keys-viewer")
		s.open(t, other, "/console/webhooks", http.StatusOK)
		check(t, other, "webhooks-viewer")
		s.open(t, other, fmt.Sprintf("/console/requests/%d?env=test", req.ID), http.StatusOK)
		check(t, other, "request-viewer")
		if got := mainText(t, other); !strings.Contains(got, `"cost": "hidden"`) || strings.Contains(got, "2.40") {
			t.Errorf("the viewer sees the request's cost:\n%s", got)
		}
		s.open(t, other, "/console/people", http.StatusForbidden)
		check(t, other, "forbidden")
		if got := mainText(t, other); !strings.Contains(got, "viewer") {
			t.Errorf("the refusal does not name the role:\n%s", got)
		}

		tr.visit(t, ctx, "", "/console/no-such-page", http.StatusNotFound, "not-found")
		// Another organization's endpoint is not found either, nor its
		// URL shown.
		elsewhere := dbtest.NewOrg(t, st, "")
		theirs, err := s.hooks.Create(bg, elsewhere.Org.ID, policy.Test, rc.URL+"/theirs", "", "", nil)
		if err != nil {
			t.Fatal(err)
		}
		s.open(t, ctx, fmt.Sprintf("/console/webhooks/%d", theirs.ID), http.StatusNotFound)
		if got := mainText(t, ctx); strings.Contains(got, "/theirs") {
			t.Errorf("another organization's endpoint shows:\n%s", got)
		}
		refused(t, s, ctx)

		var missed []string
		for _, rt := range console.Routes() {
			if rt.Method == http.MethodGet && !tr.opened[rt.Path] {
				missed = append(missed, rt.Path)
			}
		}
		if len(missed) > 0 {
			t.Errorf("pages never opened here, so never checked: %s", strings.Join(missed, ", "))
		}
	})
}

// refused submits a form of another site to the console: the browser says
// it is cross-site, and the console refuses it with its 403 page, still
// signed in.
func refused(t *testing.T, s *site, ctx context.Context) {
	t.Helper()
	// 127.0.0.1 and localhost are different sites to the browser.
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><html lang="en"><head><title>Another site</title></head><body><main>
<h1>Another site</h1><form method="post" action="%s/console/sign-out"><button type="submit">Win a prize</button></form>
</main></body></html>`, s.URL)
	}))
	t.Cleanup(other.Close)
	browsertest.Open(t, ctx, strings.Replace(other.URL, "127.0.0.1", "localhost", 1))
	submit(t, ctx, "Win a prize", http.StatusForbidden)
	check(t, ctx, "refused")
	if got := mainText(t, ctx); !strings.Contains(got, "came from another site") {
		t.Errorf("the refusal says:\n%s", got)
	}
	s.open(t, ctx, "/console/account", http.StatusOK)
	if got := s.path(t, ctx); got != "/console/account" {
		t.Errorf("after the refused sign-out the account page is %s: the session ended", got)
	}
}

// newLot makes a product and a lot of it in org's test account and returns
// the lot's id.
func newLot(t *testing.T, st *store.Store, org *dbtest.Org) int {
	t.Helper()
	ctx := org.Ctx(policy.Test)
	tx, err := st.Client.Tx(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	p, err := tx.Product.Create().SetName("Rye flour").SetProductCode("RM-RYE").SetKind(product.KindMaterial).
		SetProductType(product.ProductTypeRAW_MATERIAL).Save(ctx)
	if err != nil {
		t.Fatal(err)
	}
	l, err := tx.ProductLot.Create().SetProductID(p.ID).SetLotNumber("RYE-1").SetQuantityBase(decimal.NewFromInt(25000)).Save(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	return l.ID
}

// newRun plans a production run of a new product in org's test account and
// returns its id.
func newRun(t *testing.T, st *store.Store, org *dbtest.Org) int {
	t.Helper()
	ctx := org.Ctx(policy.Test)
	var id int
	err := ent.RunInTx(ctx, st.Client, func(tx *ent.Tx) error {
		p, err := tx.Product.Create().SetName("Rye loaf").SetProductCode("FG-RYE").SetKind(product.KindRecipe).
			SetProductType(product.ProductTypeFINISHED_GOOD).Save(ctx)
		if err != nil {
			return err
		}
		run, err := manufacturing.Create(ctx, tx, manufacturing.Plan{ProductID: p.ID})
		if err != nil {
			return err
		}
		id = run.ID
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return id
}
