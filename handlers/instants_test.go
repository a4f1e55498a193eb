package handlers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"larder.dev/larder/ent/billline"
	"larder.dev/larder/ent/purchaseorderline"
	"larder.dev/larder/policy"
)

// bodyTimestamps walks the served description from every request body and
// returns, by "Schema.property", the schema of each property that holds a
// point in time (a date-time, alone or among alternatives).
func bodyTimestamps(t *testing.T, a *api) map[string]map[string]any {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(a.get("/v1/openapi.json").want(200).Body, &doc); err != nil {
		t.Fatal(err)
	}
	schemas := doc["components"].(map[string]any)["schemas"].(map[string]any)
	out := map[string]map[string]any{}
	seen := map[string]bool{}
	var visit func(name string, s map[string]any)
	visit = func(name string, s map[string]any) {
		if ref, ok := s["$ref"].(string); ok {
			n := strings.TrimPrefix(ref, "#/components/schemas/")
			if !seen[n] {
				seen[n] = true
				visit(n, schemas[n].(map[string]any))
			}
			return
		}
		for _, k := range []string{"anyOf", "allOf", "oneOf"} {
			alts, _ := s[k].([]any)
			for _, x := range alts {
				visit(name, x.(map[string]any))
			}
		}
		if items, ok := s["items"].(map[string]any); ok {
			visit(name, items)
		}
		props, _ := s["properties"].(map[string]any)
		for p, v := range props {
			ps := v.(map[string]any)
			formats := []any{ps["format"]}
			alts, _ := ps["anyOf"].([]any)
			for _, x := range alts {
				formats = append(formats, x.(map[string]any)["format"])
			}
			for _, f := range formats {
				if f == "date-time" {
					out[name+"."+p] = ps
				}
			}
			visit(name, ps)
		}
	}
	for _, item := range doc["paths"].(map[string]any) {
		for _, op := range item.(map[string]any) {
			o, ok := op.(map[string]any)
			if !ok {
				continue
			}
			if rb, ok := o["requestBody"].(map[string]any); ok {
				for _, media := range rb["content"].(map[string]any) {
					visit("", media.(map[string]any)["schema"].(map[string]any))
				}
			}
		}
	}
	return out
}

// Spec "Common value types": timestamps are ISO 8601. Every timestamp a body
// writes accepts a date (midnight UTC) or a date-time, is described so, and
// a value that is neither is a 400 naming the field and the format; a date
// and the date-time of its midnight UTC are stored alike, on each operation
// that writes one.
func TestTimestampInputs(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		a = seeded(t, a)
		sys := policy.System(context.Background())
		flour := a.productID("RM-FLOUR")
		sup := a.supplierFor("INSTANT")

		a.run(t, "every timestamp of a body is described as a date or a date-time", func(t *testing.T, a *api) {
			found := bodyTimestamps(t, a)
			for _, want := range []string{"ProductLotCreate.expiration_date", "ProductLotUpdate.expiration_date",
				"PurchaseOrderLineInput.expiration_date", "BillLineInput.expiration_date"} {
				if found[want] == nil {
					t.Errorf("no timestamp %s among %d found in bodies", want, len(found))
				}
			}
			for name, s := range found {
				var formats []any
				alts, _ := s["anyOf"].([]any)
				for _, x := range alts {
					formats = append(formats, x.(map[string]any)["format"])
				}
				desc, _ := s["description"].(string)
				if len(formats) < 2 || formats[0] != "date" || formats[1] != "date-time" || !strings.Contains(desc, "midnight UTC") {
					t.Errorf("%s: %v, want anyOf a date and a date-time, described as such", name, s)
				}
			}
		})

		n := 0
		unique := func() string { n++; return fmt.Sprintf("IN-%d", n) }
		lot := a.post("/v1/product-lots", map[string]any{"product_id": flour, "lot_number": unique(), "quantity_base": 1}).want(201).ID()
		po := a.post("/v1/purchase-orders", map[string]any{"supplier_id": sup, "lines": []any{line(flour, 1)}}).want(201).ID()
		answered := func(r *response, i int) any {
			if i < 0 {
				return r.Data()["expiration_date"]
			}
			return r.Data()["lines"].([]any)[i].(map[string]any)["expiration_date"]
		}
		lineExpiry := func(r *response) *time.Time {
			return a.st.Client.PurchaseOrderLine.Query().Where(purchaseorderline.PurchaseOrderID(r.ID())).
				Order(purchaseorderline.ByID()).AllX(sys)[1].ExpirationDate
		}
		writes := []struct {
			name, field string
			line        int // the line the value is on; -1 for the record
			send        func(v any) *response
			stored      func(r *response) *time.Time
		}{
			{"POST /product-lots", "expiration_date", -1, func(v any) *response {
				return a.post("/v1/product-lots", map[string]any{"product_id": flour, "lot_number": unique(), "quantity_base": 1, "expiration_date": v})
			}, func(r *response) *time.Time { return a.st.Client.ProductLot.GetX(sys, r.ID()).ExpirationDate }},
			{"PATCH /product-lots/{id}", "expiration_date", -1, func(v any) *response {
				return a.patch(path("/v1/product-lots", lot), map[string]any{"expiration_date": v})
			}, func(r *response) *time.Time { return a.st.Client.ProductLot.GetX(sys, lot).ExpirationDate }},
			{"POST /purchase-orders", "lines[1].expiration_date", 1, func(v any) *response {
				return a.post("/v1/purchase-orders", map[string]any{"supplier_id": sup,
					"lines": []any{line(flour, 1), line(flour, 1, "expiration_date", v)}})
			}, lineExpiry},
			{"PATCH /purchase-orders/{id}", "lines[1].expiration_date", 1, func(v any) *response {
				return a.patch(path("/v1/purchase-orders", po), map[string]any{
					"lines": []any{line(flour, 1), line(flour, 1, "expiration_date", v)}})
			}, lineExpiry},
			{"POST /bills", "lines[1].expiration_date", 1, func(v any) *response {
				return a.post("/v1/bills", map[string]any{"supplier_id": sup, "bill_date": "2026-11-20",
					"lines": []any{line(flour, 1, "lot_number", unique()), line(flour, 1, "lot_number", unique(), "expiration_date", v)}})
			}, func(r *response) *time.Time {
				l := a.st.Client.BillLine.Query().Where(billline.BillID(r.ID())).Order(billline.ByID()).AllX(sys)[1]
				if lot := a.st.Client.ProductLot.GetX(sys, *l.LotID); !timeEqual(lot.ExpirationDate, l.ExpirationDate) {
					t.Errorf("the bill line's expiry %v, its lot's %v", l.ExpirationDate, lot.ExpirationDate)
				}
				return l.ExpirationDate
			}},
		}
		midnight := time.Date(2027, 3, 1, 0, 0, 0, 0, time.UTC)
		accepted := []struct {
			sent   string
			want   time.Time
			answer string
		}{
			{"2027-03-01", midnight, "2027-03-01T00:00:00Z"},
			{"2027-03-01T00:00:00Z", midnight, "2027-03-01T00:00:00Z"},
			{"2027-03-01T02:00:00+02:00", midnight, "2027-03-01T00:00:00Z"},
			{"2027-02-28T19:00:00-05:00", midnight, "2027-03-01T00:00:00Z"},
			{"2027-03-01T09:30:00", midnight.Add(9*time.Hour + 30*time.Minute), "2027-03-01T09:30:00Z"},
			{"2027-03-01T09:30:15.25Z", midnight.Add(9*time.Hour + 30*time.Minute + 15250*time.Millisecond), ""},
		}
		refused := []any{"2027-02-30", "01/03/2027", "2027-03-01T25:00:00Z", "2027-3-1", "", "tomorrow", 20270301, true, map[string]any{}}
		a.run(t, "a date-only field takes a date and says so", func(t *testing.T, a *api) {
			for _, v := range []any{"2026-13-01", "2026-01-15T00:00:00Z", "15/01/2026"} {
				for _, r := range []struct {
					field string
					res   *response
				}{
					{"order_date", a.post("/v1/purchase-orders", map[string]any{"supplier_id": sup, "order_date": v, "lines": []any{line(flour, 1)}})},
					{"bill_date", a.post("/v1/bills", map[string]any{"supplier_id": sup, "bill_date": v, "lines": []any{line(flour, 1, "lot_number", unique())}})},
					{"order_date_from", a.get("/v1/purchase-orders?order_date_from=" + v.(string))},
				} {
					p := r.res.field(400, "VALIDATION_ERROR", r.field)
					if detail, _ := p["detail"].(string); !strings.Contains(detail, "must be a date (YYYY-MM-DD)") {
						t.Errorf("%s %q: detail %q does not give the format", r.field, v, detail)
					}
				}
			}
		})
		for _, w := range writes {
			a.run(t, w.name, func(t *testing.T, a *api) {
				for _, c := range accepted {
					r := w.send(c.sent)
					if r.Status != 200 && r.Status != 201 {
						t.Fatalf("%q: %d %s", c.sent, r.Status, r.Body)
					}
					if got := w.stored(r); got == nil || !got.Equal(c.want) {
						t.Errorf("%q stored as %v, want %v", c.sent, got, c.want)
					}
					if got := answered(r, w.line); c.answer != "" && got != c.answer {
						t.Errorf("%q answered %v, want %s", c.sent, got, c.answer)
					}
				}
				for _, v := range refused {
					p := w.send(v).field(400, "VALIDATION_ERROR", w.field)
					if detail, _ := p["detail"].(string); !strings.Contains(detail, "YYYY-MM-DD") || !strings.Contains(detail, "date-time") {
						t.Errorf("%#v: detail %q does not give the format", v, detail)
					}
				}
			})
		}
	})
}

func timeEqual(a, b *time.Time) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a.Equal(*b)
}
