package handlers_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"

	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

// Benchmarks of whole requests through the real server (middleware, key,
// limits, router, handler, database), per backend. Compare runs with
// benchstat; see bench/ for the load test against a hand-written baseline.
func BenchmarkRequests(b *testing.B) {
	for _, be := range dbtest.Backends(b) {
		st := dbtest.Open(b, be)
		a := newAPI(b, st, limit(1<<30))
		var id int
		for i := range 200 {
			id = a.post("/v1/tags", map[string]any{"name": fmt.Sprintf("bench %03d", i), "ref_type": "PRODUCT"}).ID()
		}
		for _, c := range []struct{ name, path string }{
			{"get-tag", path("/v1/tags", id)},
			{"list-200-tags", "/v1/tags?ref_type=PRODUCT&limit=200"},
		} {
			b.Run(string(be)+"/"+c.name, func(b *testing.B) {
				req, _ := http.NewRequest("GET", a.url+c.path, nil)
				req.Header.Set("Authorization", "Bearer "+a.key)
				b.ReportAllocs()
				for b.Loop() {
					res, err := http.DefaultClient.Do(req)
					if err != nil || res.StatusCode != 200 {
						b.Fatalf("%v %v", res, err)
					}
					// Read to the end, or the client drops the
					// connection and each request dials anew.
					_, _ = io.Copy(io.Discard, res.Body)
					_ = res.Body.Close()
				}
			})
		}
	}
}

// BenchmarkSnapshotReads compares the same GETs with a live key and with a
// test key, whose reads run in a snapshot of their own (a read-only
// transaction: BEGIN and ROLLBACK around the request's statements), per
// backend: "live" and "test" runs of each case differ by what the snapshot
// costs.
func BenchmarkSnapshotReads(b *testing.B) {
	for _, be := range dbtest.Backends(b) {
		st := dbtest.Open(b, be)
		a := newAPI(b, st, limit(1<<30))
		keys := map[policy.Environment]string{policy.Live: a.key, policy.Test: a.org.Key(b, policy.Test, "all")}
		ids := map[policy.Environment]int{}
		for _, env := range []policy.Environment{policy.Live, policy.Test} {
			a.key = keys[env]
			for i := range 200 {
				ids[env] = a.post("/v1/tags", map[string]any{"name": fmt.Sprintf("bench %03d", i), "ref_type": "PRODUCT"}).ID()
			}
		}
		for _, c := range []struct {
			name string
			path func(env policy.Environment) string
		}{
			{"get-tag", func(env policy.Environment) string { return path("/v1/tags", ids[env]) }},
			{"list-200-tags", func(policy.Environment) string { return "/v1/tags?ref_type=PRODUCT&limit=200" }},
		} {
			for _, env := range []policy.Environment{policy.Live, policy.Test} {
				b.Run(string(be)+"/"+c.name+"/"+string(env), func(b *testing.B) {
					req, _ := http.NewRequest("GET", a.url+c.path(env), nil)
					req.Header.Set("Authorization", "Bearer "+keys[env])
					b.ReportAllocs()
					for b.Loop() {
						res, err := http.DefaultClient.Do(req)
						if err != nil || res.StatusCode != 200 {
							b.Fatalf("%v %v", res, err)
						}
						_, _ = io.Copy(io.Discard, res.Body)
						_ = res.Body.Close()
					}
				})
			}
		}
	}
}

// BenchmarkPurchaseOrder creates the purchase order of bench/documents.sh
// (200 lines over 20 materials of the seeded account) through the real
// server, per backend: with -benchmem and -cpuprofile it shows what a
// document's create costs in process, without the load generator.
func BenchmarkPurchaseOrder(b *testing.B) {
	benchDocuments(b, "/v1/purchase-orders", func(a *api, products []int) map[string]any {
		ls := make([]any, 200)
		for i := range ls {
			ls[i] = line(products[i%20], 3, "cost", 1.25)
		}
		return map[string]any{"supplier_id": a.supplierFor("BENCH"), "lines": ls}
	})
}

// BenchmarkBill creates the heaviest bill of bench/documents.sh: 1000 lines,
// each a new lot (its number made unique per create) with its movement and
// its outbox events.
func BenchmarkBill(b *testing.B) {
	benchDocuments(b, "/v1/bills", func(a *api, products []int) map[string]any {
		_, area := a.warehouse("BENCH")
		ls := make([]any, 1000)
		for i := range ls {
			ls[i] = line(products[i%20], 3, "cost", 1.25, "lot_number", fmt.Sprintf("LOT-%d", i),
				"location_id", area, "expiration_date", "2027-06-30")
		}
		return map[string]any{"supplier_id": a.supplierFor("BENCH"), "bill_date": "2026-11-24", "lines": ls}
	})
}

// benchDocuments posts the document body makes, over 20 materials of a
// seeded account, to path once per iteration, per backend. Each create's
// "LOT-" becomes "LOT<n>-", so that lot numbers stay unique.
func benchDocuments(b *testing.B, path string, body func(a *api, products []int) map[string]any) {
	for _, be := range dbtest.Backends(b) {
		st := dbtest.Open(b, be)
		a := newAPI(b, st, limit(1<<30))
		a.org = dbtest.NewSeededOrg(b, st)
		a.key = a.org.Key(b, policy.Test, "all")
		var products []int
		for _, p := range a.get("/v1/products?limit=100").want(200).List() {
			if t := p["product_type"]; len(products) < 20 && (t == "RAW_MATERIAL" || t == "PACKAGING" || t == "MISCELLANEOUS") {
				products = append(products, int(p["id"].(float64)))
			}
		}
		if len(products) < 20 {
			b.Fatalf("the seeded account has %d materials, 20 are needed", len(products))
		}
		doc, err := json.Marshal(body(a, products))
		if err != nil {
			b.Fatal(err)
		}
		n := 0 // across runs too: -count runs the function again on the same database
		b.Run(string(be), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				n++
				req, _ := http.NewRequest("POST", a.url+path, bytes.NewReader(bytes.ReplaceAll(doc, []byte(`"LOT-`), fmt.Appendf(nil, `"LOT%d-`, n))))
				req.Header.Set("Authorization", "Bearer "+a.key)
				req.Header.Set("Content-Type", "application/json")
				res, err := http.DefaultClient.Do(req)
				if err != nil || res.StatusCode != 201 {
					b.Fatalf("%v %v", res, err)
				}
				_, _ = io.Copy(io.Discard, res.Body)
				_ = res.Body.Close()
			}
		})
	}
}
