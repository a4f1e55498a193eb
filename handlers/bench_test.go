package handlers_test

import (
	"fmt"
	"net/http"
	"testing"

	"larder.dev/larder/dbtest"
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
					_ = res.Body.Close()
				}
			})
		}
	}
}
