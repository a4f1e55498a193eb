package handlers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"larder.dev/larder/ent/event"
	"larder.dev/larder/internal/generators/access"
	"larder.dev/larder/internal/platform/config"
	"larder.dev/larder/internal/platform/problem"
	"larder.dev/larder/policy"
)

var pathParam = regexp.MustCompile(`\{[a-z_]+\}`)

// docs/ACCESS.md: every row of the report's operation × scope table
// holds through the HTTP server, on both databases. A key holding exactly
// the operation's scope gets through the scope check (whatever the answer
// then: 404 for the made-up ids, 400 for the empty bodies); a key holding
// every scope that does not grant it is 403 INSUFFICIENT_SCOPE. The table
// is the generated report, so a new operation is tested as it appears.
func TestAccessReportScopes(t *testing.T) {
	r, err := access.Build()
	if err != nil {
		t.Fatal(err)
	}
	run(t, func(t *testing.T, a *api) {
		keys := map[string]string{}
		keyOf := func(scopes []string) string {
			slices.Sort(scopes)
			s := strings.Join(scopes, ",")
			if keys[s] == "" {
				keys[s] = a.org.Key(t, policy.Live, s)
			}
			return keys[s]
		}
		checked := 0
		for _, o := range r.Operations {
			path := pathParam.ReplaceAllString(o.Path, "999999999")
			var body any
			if o.Method != "GET" && o.Method != "DELETE" {
				body = map[string]any{}
			}
			if o.NoKey {
				if res := a.do(o.Method, path, "", nil); res.Status != 200 {
					t.Errorf("%s %s without a key: %d, want 200", o.Method, o.Path, res.Status)
				}
				continue
			}
			if o.Scope == "" { // any valid key: the least of them
				if res := a.do(o.Method, path, keyOf([]string{string(policy.CostRead)}), body); res.Status == 403 {
					t.Errorf("%s %s with a cost:read key: 403 %s", o.Method, o.Path, res.Body)
				}
				continue
			}
			if res := a.do(o.Method, path, keyOf([]string{o.Scope}), body); res.Status == 403 && code(res.Body) == string(problem.InsufficientScope) {
				t.Errorf("%s %s with exactly %s: %s", o.Method, o.Path, o.Scope, res.Body)
			}
			var lacking []string
			for _, s := range policy.Known() {
				if !slices.Contains(o.GrantedBy, string(s)) {
					lacking = append(lacking, string(s))
				}
			}
			if res := a.do(o.Method, path, keyOf(lacking), body); res.Status != 403 || code(res.Body) != string(problem.InsufficientScope) {
				t.Errorf("%s %s with every scope but %v: %d %s, want 403 INSUFFICIENT_SCOPE", o.Method, o.Path, o.GrantedBy, res.Status, res.Body)
			}
			checked++
		}
		if checked < 100 {
			t.Fatalf("only %d operations checked; the report lists %d", checked, len(r.Operations))
		}
	}, func(c *config.Config) { c.RateLimit = 1 << 20 })
}

func code(body []byte) string {
	var p struct{ Code string }
	_ = json.Unmarshal(body, &p)
	return p.Code
}

// docs/ACCESS.md: the report names every operation the server
// describes, once, with the description's method and path.
func TestAccessReportCoversTheDescription(t *testing.T) {
	r, err := access.Build()
	if err != nil {
		t.Fatal(err)
	}
	run(t, func(t *testing.T, a *api) {
		var doc struct {
			Paths      map[string]map[string]json.RawMessage
			Components struct {
				Schemas map[string]struct {
					Properties map[string]struct{ Description string }
				}
			}
		}
		if err := json.Unmarshal(a.do("GET", "/v1/openapi.json", "", nil).want(200).Body, &doc); err != nil {
			t.Fatal(err)
		}
		served := map[string]bool{}
		for p, ms := range doc.Paths {
			for m := range ms {
				if m != "parameters" {
					served[strings.ToUpper(m)+" /v1"+p] = true
				}
			}
		}
		reported := map[string]bool{}
		for _, o := range r.Operations {
			k := o.Method + " " + o.Path
			if reported[k] || !served[k] {
				t.Errorf("report row %s: repeated or not served", k)
			}
			reported[k] = true
		}
		for k := range served {
			if !reported[k] {
				t.Errorf("served operation %s has no row in the report", k)
			}
		}
		// Cost fields: the output schemas' properties the description marks.
		described := map[string]bool{}
		for name, sc := range doc.Components.Schemas {
			if strings.HasSuffix(name, "Input") || strings.HasSuffix(name, "Create") || strings.HasSuffix(name, "Update") {
				continue
			}
			for p, prop := range sc.Properties {
				if strings.Contains(prop.Description, "Cost field: null unless the key holds cost:read") {
					described[name+"."+p] = true
				}
			}
		}
		listed := map[string]bool{}
		for _, c := range r.CostFields {
			listed[c.Entity+"."+c.Field] = true
			if !described[c.Entity+"."+c.Field] {
				t.Errorf("report cost field %s.%s is not a cost field of the description", c.Entity, c.Field)
			}
		}
		for k := range described {
			if !listed[k] {
				t.Errorf("the description's cost field %s has no row in the report", k)
			}
		}
		if len(listed) < 30 {
			t.Fatalf("only %d cost fields", len(listed))
		}
		// Entities: every served collection is an entity's, and back.
		for _, e := range r.Entities {
			if e.Path != "" && !served["GET "+e.Path] && !served["POST "+e.Path] {
				t.Errorf("entity %s is reported at %s, which is not served", e.Name, e.Path)
			}
		}
		for k := range served {
			path := strings.SplitN(k, " ", 2)[1]
			if strings.Contains(path, "{") || path == "/v1/organization" || path == "/v1/openapi.json" {
				continue
			}
			if !slices.ContainsFunc(r.Entities, func(e access.Entity) bool { return e.Path == path }) {
				t.Errorf("served collection %s is no entity's in the report", path)
			}
		}
	})
}

// docs/ACCESS.md: every cost field of the report is shown to a key
// holding cost:read and null to one without, in lists and single reads (and
// inside the lines of a document), read from the seeded test account on
// both databases. neverSet are the fields the seed (and the API) leave null.
func TestAccessReportCostFields(t *testing.T) {
	r, err := access.Build()
	if err != nil {
		t.Fatal(err)
	}
	neverSet := map[string]string{
		"Bill.paid_amount":        "payments are not recorded yet: always null",
		"Invoice.paid_amount":     "payments are not recorded yet: always null",
		"Bill.tax1_rate":          "bills are recorded without taxes: always null",
		"Bill.tax2_rate":          "bills are recorded without taxes: always null",
		"PurchaseOrder.tax1_rate": "purchase orders are recorded without taxes: always null",
		"PurchaseOrder.tax2_rate": "purchase orders are recorded without taxes: always null",
	}
	run(t, func(t *testing.T, a *api) {
		a = seeded(t, a)
		withCost := a.org.Key(t, policy.Test, "all")
		without := a.org.Key(t, policy.Test, "read-all")
		for _, c := range r.CostFields {
			inLines := strings.HasPrefix(c.ServedIn, "lines of ")
			path := strings.TrimPrefix(c.ServedIn, "lines of ")
			if !strings.HasPrefix(path, "/v1/") || strings.Contains(path, "{") {
				t.Errorf("%s.%s: served in %q, which this test cannot read", c.Entity, c.Field, c.ServedIn)
				continue
			}
			// values reads the field in the list (or, for lines, in the
			// single reads of the list's records) and in single reads.
			values := func(key string) (list, single []any) {
				var page struct{ Data []map[string]any }
				if err := json.Unmarshal(a.do("GET", path+"?limit=100", key, nil).want(200).Body, &page); err != nil {
					t.Fatal(err)
				}
				for _, row := range page.Data {
					var one struct{ Data map[string]any }
					if err := json.Unmarshal(a.do("GET", path+"/"+jsonID(row["id"]), key, nil).want(200).Body, &one); err != nil {
						t.Fatal(err)
					}
					if !inLines {
						list, single = append(list, row[c.Field]), append(single, one.Data[c.Field])
						continue
					}
					lines, _ := one.Data["lines"].([]any)
					for _, l := range lines {
						single = append(single, l.(map[string]any)[c.Field])
					}
				}
				return list, single
			}
			l1, s1 := values(withCost)
			l0, s0 := values(without)
			if slices.ContainsFunc(append(l0, s0...), func(v any) bool { return v != nil }) {
				t.Errorf("%s.%s: a key without cost:read read a value (%s)", c.Entity, c.Field, c.ServedIn)
			}
			if why, ok := neverSet[c.Entity+"."+c.Field]; ok {
				t.Logf("%s.%s: only null is checked: %s", c.Entity, c.Field, why)
				continue
			}
			if !inLines && !slices.ContainsFunc(l1, func(v any) bool { return v != nil }) {
				t.Errorf("%s.%s: no seeded row shows a value in the list with cost:read, so redaction is not proven", c.Entity, c.Field)
			}
			if !slices.ContainsFunc(s1, func(v any) bool { return v != nil }) {
				t.Errorf("%s.%s: no seeded record shows a value with cost:read (%s), so redaction is not proven", c.Entity, c.Field, c.ServedIn)
			}
		}
	}, func(c *config.Config) { c.RateLimit = 1 << 20 })
}

func jsonID(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// docs/ACCESS.md, write responses and snapshots: a document or
// record written through the API answers its cost fields (and its lines')
// to a key holding cost:read and null to one without, and its webhook
// snapshot never holds them. Every cost field of a resource the API creates
// must have a writer here.
func TestAccessReportCostWrites(t *testing.T) {
	r, err := access.Build()
	if err != nil {
		t.Fatal(err)
	}
	neverSet := map[string]bool{"Bill.paid_amount": true, "Bill.tax1_rate": true, "Bill.tax2_rate": true,
		"PurchaseOrder.tax1_rate": true, "PurchaseOrder.tax2_rate": true}
	run(t, func(t *testing.T, a *api) {
		a = seeded(t, a)
		flour, bar := a.productID("RM-FLOUR"), a.productID("FG-BAR6")
		sup, cust := a.supplierFor("ACCESS-SUP"), a.customerFor("ACCESS-CUST")
		n := 0
		writers := map[string]func(key string) *response{
			"/v1/operations": func(key string) *response {
				n++
				return a.do("POST", "/v1/operations", key, map[string]any{"code": fmt.Sprintf("ACC-%d", n), "name": "Access check", "cost": 12.5})
			},
			"/v1/purchase-orders": func(key string) *response {
				return a.do("POST", "/v1/purchase-orders", key, map[string]any{"supplier_id": sup,
					"lines": []any{line(flour, 2, "cost", 3.5, "discount_rate", 10)}})
			},
			"/v1/bills": func(key string) *response {
				n++
				return a.do("POST", "/v1/bills", key, map[string]any{"supplier_id": sup, "bill_date": "2026-11-02",
					"lines": []any{line(flour, 1, "cost", 2.5, "discount_rate", 5, "lot_number", fmt.Sprintf("ACC-%d", n))}})
			},
			"/v1/sales-orders": func(key string) *response {
				return a.do("POST", "/v1/sales-orders", key, map[string]any{"customer_id": cust,
					"lines": []any{sold(bar, 2, "price", 4.5, "discount_rate", 5, "tax1", true, "tax2", true)}})
			},
		}
		withCost := a.org.Key(t, policy.Test, "all")
		without := a.org.Key(t, policy.Test, "catalog:write,inventory:write,manufacturing:write,sales:write,purchasing:write")
		byPath := map[string][]access.CostField{}
		for _, c := range r.CostFields {
			path := strings.TrimPrefix(c.ServedIn, "lines of ")
			for _, e := range r.Entities {
				if e.Path == path && slices.Contains(e.Ops, "create") {
					byPath[path] = append(byPath[path], c)
				}
			}
		}
		for path, fields := range byPath {
			write := writers[path]
			if write == nil {
				t.Errorf("POST %s answers cost fields %v, and this test has no writer for it", path, fields)
				continue
			}
			shown, hidden := write(withCost).want(201).Data(), write(without).want(201).Data()
			ev, err := a.st.Client.Event.Query().Where(event.ResourceID(int(hidden["id"].(float64))),
				event.Type(strings.TrimSuffix(strings.ReplaceAll(strings.TrimPrefix(path, "/v1/"), "-", "_"), "s")+".created")).
				Order(event.ByID()).All(policy.System(context.Background()))
			if err != nil || len(ev) == 0 {
				t.Fatalf("POST %s: no created event (%v)", path, err)
			}
			var snapshot map[string]any
			if err := json.Unmarshal(ev[len(ev)-1].Snapshot, &snapshot); err != nil {
				t.Fatal(err)
			}
			for _, c := range fields {
				read := func(d map[string]any) []any {
					if !strings.HasPrefix(c.ServedIn, "lines of ") {
						return []any{d[c.Field]}
					}
					var out []any
					for _, l := range d["lines"].([]any) {
						out = append(out, l.(map[string]any)[c.Field])
					}
					return out
				}
				if slices.ContainsFunc(read(hidden), func(v any) bool { return v != nil }) {
					t.Errorf("POST %s without cost:read answered %s.%s: %v", path, c.Entity, c.Field, read(hidden))
				}
				if !neverSet[c.Entity+"."+c.Field] && slices.Contains(read(shown), nil) {
					t.Errorf("POST %s with cost:read answered %s.%s null, so redaction is not proven", path, c.Entity, c.Field)
				}
				if v, ok := snapshot[c.Field]; ok && v != nil && !strings.HasPrefix(c.ServedIn, "lines of ") {
					t.Errorf("the %s snapshot holds cost field %s: %v", ev[len(ev)-1].Type, c.Field, v)
				}
			}
			if _, ok := snapshot["lines"]; ok {
				t.Errorf("the %s snapshot holds lines", ev[len(ev)-1].Type)
			}
		}
		if len(byPath) < 4 {
			t.Fatalf("only %d written resources with cost fields: %v", len(byPath), byPath)
		}
	}, func(c *config.Config) { c.RateLimit = 1 << 20 })
}
