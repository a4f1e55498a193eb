package handlers_test

import (
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/supplier"
	"larder.dev/larder/internal/modules/purchasing"
	"larder.dev/larder/policy"
)

// nullAddress is an address with every part null (spec "Address": always an object).
var nullAddress = map[string]any{"city": nil, "line1": nil, "line2": nil, "postal_code": nil, "state": nil}

// Spec "Supplier", "Suppliers", "States and transitions > Supplier" and
// "Address": fields, body rules, the embedded address written whole, filters
// and sorts, the delete that deactivates a supplier with history, events,
// isolation and scopes.
func TestSuppliers(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		created := a.post("/v1/suppliers", map[string]any{"supplier_code": "MILL", "company": "Prairie Mills Ltd.",
			"email": "orders@mills.example", "address": map[string]any{"line1": "1 Mill Road", "city": "Saskatoon"}}).want(201)
		id := created.ID()

		a.run(t, "create starts PENDING, fills the address with nulls and writes supplier.created", func(t *testing.T, a *api) {
			d := created.Data()
			want := map[string]any{"id": float64(id), "supplier_code": "MILL", "company": "Prairie Mills Ltd.", "active": true,
				"email": "orders@mills.example", "contact_name": nil, "phone": nil, "website": nil,
				"approval_status": "PENDING", "approval_expiry": nil, "certification_scheme": nil, "certification_expires_on": nil,
				"address":    map[string]any{"line1": "1 Mill Road", "line2": nil, "city": "Saskatoon", "state": nil, "postal_code": nil},
				"created_at": d["created_at"], "updated_at": d["updated_at"]}
			if diff := cmpDiff(want, d); diff != "" {
				t.Fatalf("(-want +got):\n%s", diff)
			}
			if diff := cmpDiff(d, a.get(path("/v1/suppliers", id)).want(200).Data()); diff != "" {
				t.Fatalf("create and read differ:\n%s", diff)
			}
			evs := a.events("supplier.")
			a.wantEvent(evs[0], "supplier.created", id, created)
		})

		a.run(t, "no address is an object of nulls", func(t *testing.T, a *api) {
			d := a.post("/v1/suppliers", map[string]any{"supplier_code": "BARE", "company": "Bare"}).want(201).Data()
			if diff := cmpDiff(nullAddress, d["address"]); diff != "" {
				t.Fatalf("address (-want +got):\n%s", diff)
			}
		})

		a.run(t, "body rules", func(t *testing.T, a *api) {
			cases := []struct {
				name  string
				body  map[string]any
				code  string
				field string
			}{
				{"company is required", map[string]any{"supplier_code": "X1"}, "VALIDATION_ERROR", "company"},
				{"supplier_code is required", map[string]any{"company": "X"}, "VALIDATION_ERROR", "supplier_code"},
				{"supplier_code is unique", map[string]any{"supplier_code": "MILL", "company": "Again"}, "DUPLICATE", "supplier_code"},
				{"approval is not writable", map[string]any{"supplier_code": "X2", "company": "X", "approval_status": "APPROVED"}, "VALIDATION_ERROR", "approval_status"},
				{"certification is not writable", map[string]any{"supplier_code": "X3", "company": "X", "certification_scheme": "SQF"}, "VALIDATION_ERROR", "certification_scheme"},
				{"an address part over 100 characters", map[string]any{"supplier_code": "X4", "company": "X", "address": map[string]any{"city": strings.Repeat("c", 101)}}, "VALIDATION_ERROR", "address.city"},
				{"a postal code over 20 characters", map[string]any{"supplier_code": "X5", "company": "X", "address": map[string]any{"postal_code": strings.Repeat("9", 21)}}, "VALIDATION_ERROR", "address.postal_code"},
				{"an unknown address part", map[string]any{"supplier_code": "X6", "company": "X", "address": map[string]any{"country": "CA"}}, "VALIDATION_ERROR", "address.country"},
				{"NUL in an address part", map[string]any{"supplier_code": "X7", "company": "X", "address": map[string]any{"line1": "a\x00b"}}, "VALIDATION_ERROR", "address.line1"},
			}
			for _, tc := range cases {
				a.run(t, tc.name, func(t *testing.T, a *api) {
					status := 400
					if tc.code == "DUPLICATE" {
						status = 409
					}
					a.post("/v1/suppliers", tc.body).field(status, tc.code, tc.field)
				})
			}
			a.get("/v1/suppliers?supplier_code=X").want(200)
			if n := len(a.get("/v1/suppliers?supplier_code=X").List()); n != 0 {
				t.Fatalf("%d refused suppliers were stored", n)
			}
		})

		a.run(t, "an address is written whole, omitted unchanged, null cleared", func(t *testing.T, a *api) {
			p := path("/v1/suppliers", id)
			d := a.patch(p, map[string]any{"address": map[string]any{"city": "Regina", "state": "SK"}}).want(200).Data()
			want := map[string]any{"line1": nil, "line2": nil, "city": "Regina", "state": "SK", "postal_code": nil}
			if diff := cmpDiff(want, d["address"]); diff != "" {
				t.Fatalf("replaced address (-want +got):\n%s", diff)
			}
			d = a.patch(p, map[string]any{"phone": "306-555-0100"}).want(200).Data()
			if diff := cmpDiff(want, d["address"]); diff != "" {
				t.Fatalf("an update without address changed it:\n%s", diff)
			}
			d = a.patch(p, map[string]any{"address": nil}).want(200).Data()
			if diff := cmpDiff(nullAddress, d["address"]); diff != "" {
				t.Fatalf("null address:\n%s", diff)
			}
			if diff := cmpDiff(d, a.get(p).want(200).Data()); diff != "" {
				t.Fatalf("update and read differ:\n%s", diff)
			}
			a.patch(p, map[string]any{"approval_status": "APPROVED"}).field(400, "VALIDATION_ERROR", "approval_status")
			a.patch(p, map[string]any{"company": nil}).field(400, "VALIDATION_ERROR", "company")
			a.patch(p, map[string]any{"supplier_code": "BARE"}).field(409, "DUPLICATE", "supplier_code")
		})

		a.run(t, "deleting a supplier without history removes it", func(t *testing.T, a *api) {
			gone := a.post("/v1/suppliers", map[string]any{"supplier_code": "GONE", "company": "Gone Ltd."}).want(201).ID()
			r := a.del(path("/v1/suppliers", gone)).want(200)
			if r.Data()["active"] != true {
				t.Fatalf("a removed supplier answers %v", r.Data())
			}
			a.get(path("/v1/suppliers", gone)).problem(404, "NOT_FOUND")
			evs := a.events("supplier.")
			a.wantEvent(evs[len(evs)-1], "supplier.deleted", gone, r)
		})

		a.run(t, "deleting a supplier with history deactivates it", func(t *testing.T, a *api) {
			kept := a.post("/v1/suppliers", map[string]any{"supplier_code": "KEPT", "company": "Kept Ltd."}).want(201).ID()
			ctx := a.org.Ctx(policy.Live)
			var flour *ent.Product
			err := ent.RunInTx(ctx, a.st.Client, func(tx *ent.Tx) (err error) {
				flour, err = tx.Product.Create().SetProductCode("RM-F").SetProductType("RAW_MATERIAL").Save(ctx)
				if err != nil {
					return err
				}
				return tx.ProductSupplier.Create().SetAccountID(a.org.Live.ID).SetProductID(flour.ID).SetSupplierID(kept).Exec(ctx)
			})
			if err != nil {
				t.Fatal(err)
			}
			before := len(a.events("supplier."))
			r := a.del(path("/v1/suppliers", kept)).want(200)
			if r.Data()["active"] != false {
				t.Fatalf("a supplier with history answers %v", r.Data())
			}
			if d := a.get(path("/v1/suppliers", kept)).want(200).Data(); d["active"] != false {
				t.Fatalf("after delete: %v", d)
			}
			evs := a.events("supplier.")
			if len(evs) != before+1 {
				t.Fatalf("%d events, want one", len(evs)-before)
			}
			a.wantEvent(evs[len(evs)-1], "supplier.updated", kept, r)
			a.del(path("/v1/suppliers", kept)).want(200)
			if n := len(a.events("supplier.")); n != before+1 {
				t.Fatalf("deleting an inactive supplier again wrote %d events", n-before-1)
			}
			if ids := a.get(path("/v1/products", flour.ID)).want(200).Data()["material"].(map[string]any)["supplier_ids"]; !slices.Contains(ids.([]any), any(float64(kept))) {
				t.Fatalf("the material lost its supplier: %v", ids)
			}
		})

		a.run(t, "another account's supplier is not found, both ways", func(t *testing.T, a *api) {
			b := newAPI(t, a.st)
			other := b.post("/v1/suppliers", map[string]any{"supplier_code": "MILL", "company": "Other mills"}).want(201).ID()
			for _, x := range []struct {
				from *api
				id   int
			}{{a, other}, {b, id}} {
				x.from.get(path("/v1/suppliers", x.id)).problem(404, "NOT_FOUND")
				x.from.patch(path("/v1/suppliers", x.id), map[string]any{"company": "Mine"}).problem(404, "NOT_FOUND")
				x.from.del(path("/v1/suppliers", x.id)).problem(404, "NOT_FOUND")
			}
			if got := b.column("/v1/suppliers", "supplier_code"); !slices.Equal(got, []string{"MILL"}) {
				t.Fatalf("the other account lists %v", got)
			}
		})

		a.run(t, "scopes", func(t *testing.T, a *api) {
			read, _ := a.newKey(policy.Live, "purchasing:read")
			write, _ := a.newKey(policy.Live, "purchasing:write")
			catalog, _ := a.newKey(policy.Live, "catalog:write,cost:read")
			a.do("GET", "/v1/suppliers", read, nil).want(200)
			a.do("POST", "/v1/suppliers", read, map[string]any{"supplier_code": "S1", "company": "S"}).problem(403, "INSUFFICIENT_SCOPE")
			a.do("GET", path("/v1/suppliers", id), write, nil).want(200)
			a.do("POST", "/v1/suppliers", write, map[string]any{"supplier_code": "S2", "company": "S"}).want(201)
			a.do("GET", "/v1/suppliers", catalog, nil).problem(403, "INSUFFICIENT_SCOPE")
			a.do("DELETE", path("/v1/suppliers", id), catalog, nil).problem(403, "INSUFFICIENT_SCOPE")
		})
	})
}

// Spec "Suppliers" list rules and the seeded test account's guarantee:
// suppliers in every approval status and certification scheme (one with
// none recorded), an expired approval read as PENDING.
func TestSeededSuppliers(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		a = seeded(t, a)
		rows := a.get("/v1/suppliers?limit=200").want(200).List()
		statuses, schemes := map[any]bool{}, map[any]bool{}
		for _, r := range rows {
			statuses[r["approval_status"]] = true
			schemes[r["certification_scheme"]] = true
			if _, ok := r["address"].(map[string]any); !ok {
				t.Fatalf("address is not an object: %v", r)
			}
		}
		for _, s := range []string{"PENDING", "APPROVED", "REJECTED", "SUSPENDED"} {
			if !statuses[s] {
				t.Errorf("no seeded supplier is %s", s)
			}
		}
		for _, s := range []any{"SQF", "BRC", "GFSI", "SSC22000", "IFS", "GLOBALGAP", "PRIMUS", "GFSCANADA", "GAP", "OTHER", "NONE", nil} {
			if !schemes[s] {
				t.Errorf("no seeded supplier has certification_scheme %v", s)
			}
		}
		dairy := a.get("/v1/suppliers?supplier_code=DAIRY").want(200).List()
		if len(dairy) != 1 {
			t.Fatalf("the supplier whose approval expired: %v", dairy)
		}
		// The seed's DAIRY approval ended 324 days before the day seeded, the day the row was created.
		seededOn, err := time.Parse(time.RFC3339, dairy[0]["created_at"].(string))
		if err != nil {
			t.Fatal(err)
		}
		if dairy[0]["approval_status"] != "PENDING" || dairy[0]["approval_expiry"] != seededOn.UTC().AddDate(0, 0, -324).Format(time.DateOnly)+"T00:00:00Z" {
			t.Fatalf("the supplier whose approval expired: %v", dairy)
		}

		cases := []struct {
			name, query string
			want        []string
		}{
			{"supplier_code is partial", "supplier_code=ai", []string{"DAIRY"}},
			{"company is partial and case-insensitive", "company=PRAIRIE", []string{"MILL", "OATS"}},
			{"email is partial", "email=hive.example", []string{"HONEY"}},
			{"active", "active=false", nil},
			{"search matches company", "search=sugar", []string{"SWEET"}},
			{"search matches the code", "search=newco", []string{"NEWCO"}},
			{"sort by company", "sort=company&company=prairie", []string{"MILL", "OATS"}},
			{"sort by company descending", "sort=company:desc&company=prairie", []string{"OATS", "MILL"}},
			{"sort by supplier_code", "sort=supplier_code&limit=3", []string{"CACAO", "DAIRY", "EGGS"}},
			{"sort by supplier_code descending", "sort=supplier_code:desc&limit=2", []string{"SWEET", "SPICE"}},
		}
		for _, tc := range cases {
			a.run(t, tc.name, func(t *testing.T, a *api) {
				got := a.column("/v1/suppliers?"+tc.query, "supplier_code")
				if !slices.Equal(got, tc.want) {
					t.Fatalf("%s: %v, want %v", tc.query, got, tc.want)
				}
			})
		}
		a.run(t, "updated_since", func(t *testing.T, a *api) {
			// Every seeded row was written before the next whole second.
			next := time.Now().UTC().Truncate(time.Second).Add(time.Second)
			since := next.Format(time.RFC3339)
			time.Sleep(time.Until(next) + 50*time.Millisecond)
			nuts := a.get("/v1/suppliers?supplier_code=NUTS").List()[0]
			a.patch(path("/v1/suppliers", int(nuts["id"].(float64))), map[string]any{"website": "https://nuts.example"}).want(200)
			got := a.column("/v1/suppliers?updated_since="+url.QueryEscape(since), "supplier_code")
			if !slices.Equal(got, []string{"NUTS"}) {
				t.Fatalf("updated since %s: %v", since, got)
			}
		})
	})
}

// Approval decisions of the web application: supplier.approval_changed, an
// approval that expires, refusals that change nothing.
func TestSupplierApproval(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		id := a.post("/v1/suppliers", map[string]any{"supplier_code": "APP", "company": "Approved Ltd."}).want(201).ID()
		ctx := a.org.Ctx(policy.Live)
		set := func(ap purchasing.Approval) error {
			return ent.RunInTx(ctx, a.st.Client, func(tx *ent.Tx) error {
				_, err := purchasing.SetApproval(ctx, tx, id, ap)
				return err
			})
		}
		past, future := time.Now().Add(-time.Hour), time.Now().Add(time.Hour)
		if err := set(purchasing.Approval{Status: supplier.ApprovalStatusAPPROVED, Expires: &future}); err != nil {
			t.Fatal(err)
		}
		if d := a.get(path("/v1/suppliers", id)).want(200).Data(); d["approval_status"] != "APPROVED" || d["approval_expiry"] == nil {
			t.Fatalf("approved: %v", d)
		}
		evs := a.events("supplier.approval_changed")
		if len(evs) != 1 || evs[0].ResourceID != id || evs[0].Source != "app" {
			t.Fatalf("approval events %+v", evs)
		}
		if err := set(purchasing.Approval{Status: supplier.ApprovalStatusAPPROVED, Expires: &past}); err != nil {
			t.Fatal(err)
		}
		if d := a.get(path("/v1/suppliers", id)).want(200).Data(); d["approval_status"] != "PENDING" {
			t.Fatalf("an expired approval reads %v", d["approval_status"])
		}
		if d := a.patch(path("/v1/suppliers", id), map[string]any{"phone": "1"}).want(200).Data(); d["approval_status"] != "PENDING" {
			t.Fatalf("a write answers %v for an expired approval", d["approval_status"])
		}
		if err := set(purchasing.Approval{Status: supplier.ApprovalStatusSUSPENDED, Expires: &future}); err == nil {
			t.Fatal("a suspension with an expiry was accepted")
		}
		if err := set(purchasing.Approval{Status: supplier.ApprovalStatusSUSPENDED}); err != nil {
			t.Fatal(err)
		}
		if err := set(purchasing.Approval{Status: supplier.ApprovalStatusSUSPENDED}); err == nil {
			t.Fatal("repeating a decision was accepted")
		}
		if d := a.get(path("/v1/suppliers", id)).want(200).Data(); d["approval_status"] != "SUSPENDED" || d["approval_expiry"] != nil {
			t.Fatalf("suspended: %v", d)
		}
		if n := len(a.events("supplier.approval_changed")); n != 3 {
			t.Fatalf("%d approval_changed events, want 3 (refusals write none)", n)
		}
	})
}
