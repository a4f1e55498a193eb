package handlers_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var updateAnswers = flag.Bool("update-answers", false, "rewrite testdata/refusals.txt from the server's answers")

// requestIDField is the one part of a refusal that differs between runs.
var requestIDField = regexp.MustCompile(`"request_id":"req_[^"]*"`)

// The refusals of malformed, mistyped and invalid requests, byte for byte:
// each request's status, Content-Type and body (its request id left out) as
// testdata/refusals.txt holds them. A change of wording shows here as a
// change of that file (go test ./handlers -run TestRefusalsByteForByte
// -update-answers).
func TestRefusalsByteForByte(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		customer := a.post("/v1/customers", map[string]any{"company": "Refusals", "customer_code": "REF-1"}).want(201).ID()
		tag := a.post("/v1/tags", map[string]any{"name": "refusals", "ref_type": "PRODUCT"}).want(201).ID()
		cases := []struct{ method, path, body string }{
			// Bodies that are not JSON objects.
			{"POST", "/v1/allergens", `{"name":`},
			{"POST", "/v1/allergens", `{"name":"a"`},
			{"POST", "/v1/allergens", `[]`},
			{"POST", "/v1/allergens", `null`},
			{"POST", "/v1/allergens", `"text"`},
			{"POST", "/v1/allergens", `12`},
			{"POST", "/v1/allergens", `{"name":"a","name_fr":"b"} {}`},
			{"POST", "/v1/allergens", `{"name":"a","name_fr":"b"}x`},
			{"POST", "/v1/allergens", `{name:"a"}`},
			{"POST", "/v1/allergens", `{"name":"a",}`},
			{"POST", "/v1/allergens", "\xff"},
			// Fields of the wrong type, null, or unknown.
			{"POST", "/v1/allergens", `{"name":5,"name_fr":"b"}`},
			{"POST", "/v1/allergens", `{"name":null,"name_fr":"b"}`},
			{"POST", "/v1/allergens", `{"name":"a","name_fr":"b","is_major_allergen":"yes"}`},
			{"POST", "/v1/allergens", `{"name":"a","name_fr":"b","is_major_allergen":null}`},
			{"POST", "/v1/allergens", `{"name":"a","name_fr":"b","is_major_allergen":tru}`},
			{"POST", "/v1/allergens", `{"name":"a","name_fr":"b","code":7}`},
			{"POST", "/v1/allergens", `{"name":"a","name_fr":"b","colour":"red"}`},
			{"POST", "/v1/allergens", `{"name":"a","name_fr":"b","name":"c"}`},
			{"POST", "/v1/allergens", `{"name":"a"}`},
			{"POST", "/v1/allergens", `{}`},
			{"POST", "/v1/allergens", `{"name":"","name_fr":"b"}`},
			{"POST", "/v1/allergens", `{"name":"` + strings.Repeat("n", 101) + `","name_fr":"b"}`},
			{"POST", "/v1/allergens", `{"name":"a\u0000b","name_fr":"b"}`},
			{"POST", "/v1/allergens", `{"name":"a","name_fr":"b","description":{"x":1}}`},
			{"POST", "/v1/allergens", `{"name":"a","name_fr":"b","description":["x"]}`},
			{"POST", "/v1/allergens", `{"name":"a","name_fr":"b","\u0000":1}`},
			{"POST", "/v1/tags", `{"name":"a","ref_type":"NOPE"}`},
			{"POST", "/v1/tags", `{"name":"a","ref_type":5}`},
			{"POST", "/v1/tags", `{"name":"a","ref_type":null}`},
			{"PATCH", "/v1/tags/{tag}", `{"ref_type":"PRODUCT"}`},
			{"PATCH", "/v1/tags/{tag}", `{"name":null}`},
			{"PATCH", "/v1/tags/{tag}", `{"nope":1}`},
			{"POST", "/v1/production-lines", `{"name":"a","warehouse_id":"x"}`},
			{"POST", "/v1/production-lines", `{"name":"a","warehouse_id":1.5}`},
			{"POST", "/v1/production-lines", `{"name":"a","warehouse_id":-1}`},
			{"POST", "/v1/production-lines", `{"name":"a","warehouse_id":99999999999999999999}`},
			{"POST", "/v1/production-lines", `{"name":"a","warehouse_id":1e3}`},
			{"POST", "/v1/production-lines", `{"name":"a","warehouse_id":01}`},
			{"POST", "/v1/production-lines", `{"name":"a","warehouse_id":-}`},
			// Nested objects and document lines.
			{"POST", "/v1/customers", `{"company":"c","customer_code":"c","address":{"city":5}}`},
			{"POST", "/v1/customers", `{"company":"c","customer_code":"c","address":{"town":"x"}}`},
			{"POST", "/v1/customers", `{"company":"c","customer_code":"c","address":"x"}`},
			{"POST", "/v1/customers", `{"company":"c","customer_code":"c","tag_ids":[1,"x"]}`},
			{"POST", "/v1/customers", `{"company":"c","customer_code":"c","tag_ids":{}}`},
			{"POST", "/v1/customers", `{"company":"c","customer_code":"c","customer_type_id":0}`},
			{"POST", "/v1/customers", `{"company":"c","customer_code":"c","email":"` + strings.Repeat("e", 101) + `"}`},
			{"POST", "/v1/customers", `{"company":"c","customer_code":"c","active":"true"}`},
			{"POST", "/v1/sales-orders", `{"customer_id":{customer},"lines":[]}`},
			{"POST", "/v1/sales-orders", `{"customer_id":{customer}}`},
			{"POST", "/v1/sales-orders", `{"customer_id":{customer},"lines":null}`},
			{"POST", "/v1/sales-orders", `{"customer_id":{customer},"lines":[{"product_id":1,"order_qty":1,"uom_type":"BASE_UOM"},{"product_id":1,"order_qty":"x","uom_type":"BASE_UOM"}]}`},
			{"POST", "/v1/sales-orders", `{"customer_id":{customer},"lines":[{"product_id":1,"order_qty":1,"uom_type":"BASE_UOM"},{"product_id":1,"order_qty":0,"uom_type":"BASE_UOM"}]}`},
			{"POST", "/v1/sales-orders", `{"customer_id":{customer},"lines":[{"product_id":1,"order_qty":-1,"uom_type":"BASE_UOM"}]}`},
			{"POST", "/v1/sales-orders", `{"customer_id":{customer},"lines":[{"product_id":1,"order_qty":1,"uom_type":"BASE_UOM","discount_rate":101}]}`},
			{"POST", "/v1/sales-orders", `{"customer_id":{customer},"lines":[{"product_id":1,"order_qty":1,"uom_type":"BASE_UOM","discount_rate":-0.5}]}`},
			{"POST", "/v1/sales-orders", `{"customer_id":{customer},"lines":[{"product_id":1,"order_qty":1,"uom_type":"BASE_UOM","discount_rate":1.1234567}]}`},
			{"POST", "/v1/sales-orders", `{"customer_id":{customer},"lines":[{"product_id":1,"order_qty":1,"uom_type":"NOPE"}]}`},
			{"POST", "/v1/sales-orders", `{"customer_id":{customer},"lines":[{"product_id":1,"order_qty":1}]}`},
			{"POST", "/v1/sales-orders", `{"customer_id":{customer},"lines":[{"product_id":1,"order_qty":1,"uom_type":"BASE_UOM","colour":1}]}`},
			{"POST", "/v1/sales-orders", `{"customer_id":{customer},"lines":[{"product_id":null,"order_qty":1,"uom_type":"BASE_UOM"}]}`},
			{"POST", "/v1/sales-orders", `{"customer_id":{customer},"lines":[5]}`},
			{"POST", "/v1/sales-orders", `{"customer_id":{customer},"lines":[{"product_id":1,"order_qty":1,"uom_type":"BASE_UOM"}],"order_date":"2026-13-01"}`},
			{"POST", "/v1/sales-orders", `{"customer_id":{customer},"lines":[{"product_id":1,"order_qty":1,"uom_type":"BASE_UOM"}],"order_date":"yesterday"}`},
			{"POST", "/v1/sales-orders", `{"customer_id":{customer},"lines":[{"product_id":1,"order_qty":1,"uom_type":"BASE_UOM"}],"order_date":5}`},
			{"POST", "/v1/sales-orders", `{"customer_id":{customer},"lines":[{"product_id":1,"order_qty":1,"uom_type":"BASE_UOM"}],"shipping_address":{"line1":[]}}`},
			{"POST", "/v1/sales-orders", `{"customer_id":"x","lines":[{"product_id":1,"order_qty":1,"uom_type":"BASE_UOM"}]}`},
			{"POST", "/v1/sales-orders", `{"customer_id":0,"lines":[{"product_id":1,"order_qty":1,"uom_type":"BASE_UOM"}]}`},
			// Parameters.
			{"GET", "/v1/tags/0", ""},
			{"GET", "/v1/tags/-4", ""},
			{"GET", "/v1/tags/abc", ""},
			{"GET", "/v1/tags/1.5", ""},
			{"GET", "/v1/tags/99999999999999999999", ""},
			{"GET", "/v1/tags?limit=0", ""},
			{"GET", "/v1/tags?limit=201", ""},
			{"GET", "/v1/tags?limit=abc", ""},
			{"GET", "/v1/tags?limit=", ""},
			{"GET", "/v1/tags?offset=-1", ""},
			{"GET", "/v1/tags?offset=10001", ""},
			{"GET", "/v1/tags?ref_type=NOPE", ""},
			{"GET", "/v1/tags?ref_type=", ""},
			{"GET", "/v1/tags?cursor=" + strings.Repeat("c", 4097), ""},
			{"GET", "/v1/customers?active=maybe", ""},
			{"GET", "/v1/customers?updated_since=yesterday", ""},
			{"GET", "/v1/productions?status=NOPE", ""},
		}
		// The records' ids, which the database chooses, are named in the
		// file by their place.
		ids := strings.NewReplacer("{customer}", strconv.Itoa(customer), "{tag}", strconv.Itoa(tag))
		var out bytes.Buffer
		for _, c := range cases {
			var r *response
			if c.body == "" && c.method == "GET" {
				r = a.do(c.method, ids.Replace(c.path), a.key, nil)
			} else {
				r = a.rawDo(c.method, ids.Replace(c.path), ids.Replace(c.body), "Content-Type", "application/json")
			}
			fmt.Fprintf(&out, "%s %s %s\n%d %s\n%s\n\n", c.method, c.path, quote(c.body), r.Status, r.Header.Get("Content-Type"), answer(r))
		}
		// Bodies of other media types, or none.
		for _, ct := range []string{"text/plain", "application/json;;", "application/json; charset", "/", "application/json; charset=latin1", ""} {
			var hs []string
			if ct != "" {
				hs = []string{"Content-Type", ct}
			}
			for _, body := range []string{`{"name":"a","name_fr":"b"}`, ""} {
				r := a.rawDo("POST", "/v1/allergens", body, hs...)
				fmt.Fprintf(&out, "POST /v1/allergens %s (Content-Type %q)\n%d %s\n%s\n\n", quote(body), ct, r.Status, r.Header.Get("Content-Type"), answer(r))
			}
		}
		const golden = "testdata/refusals.txt"
		if *updateAnswers {
			if err := os.WriteFile(golden, out.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(want, out.Bytes()) {
			wl, gl := strings.Split(string(want), "\n"), strings.Split(out.String(), "\n")
			for i := range max(len(wl), len(gl)) {
				w, g := "", ""
				if i < len(wl) {
					w = wl[i]
				}
				if i < len(gl) {
					g = gl[i]
				}
				if w != g {
					t.Fatalf("%s line %d:\nwant %s\n got %s", golden, i+1, w, g)
				}
			}
		}
	})
}

// answer is the body of a refusal without its request id; of an acceptance,
// which holds ids the database chose, a mark.
func answer(r *response) []byte {
	if r.Status < 300 {
		return []byte("(accepted)")
	}
	return requestIDField.ReplaceAll(r.Body, []byte(`"request_id":"…"`))
}

// quote is a request body as one line of the file.
func quote(s string) string {
	b, _ := json.Marshal(s)
	if len(b) > 300 {
		return string(b[:300]) + "…"
	}
	return string(b)
}
