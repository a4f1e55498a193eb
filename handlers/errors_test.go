package handlers_test

import (
	"strings"
	"testing"
)

// The specification's Errors 1 and docs/api-behaviour.md, "Errors": every response carries a generated
// X-Request-Id; every error is a problem document repeating it; a caller's id
// is never echoed; nothing internal reaches the client.
func TestErrorsEverywhere(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		cases := []struct {
			name, method, path, key string
			body                    any
			status                  int
			code                    string
		}{
			{"unknown route", "GET", "/v1/nothing-here", a.key, nil, 404, "NOT_FOUND"},
			{"outside /v1", "GET", "/tags", a.key, nil, 404, "NOT_FOUND"},
			{"unknown route without a key", "GET", "/v2/tags", "", nil, 404, "NOT_FOUND"},
			{"wrong method", "PUT", "/v1/tags", a.key, nil, 405, "METHOD_NOT_ALLOWED"},
			{"wrong method on an item", "POST", "/v1/tags/1", a.key, nil, 405, "METHOD_NOT_ALLOWED"},
			{"missing record", "GET", "/v1/tags/987654321", a.key, nil, 404, "NOT_FOUND"},
			{"path id zero", "GET", "/v1/tags/0", a.key, nil, 400, "VALIDATION_ERROR"},
			{"path id negative", "GET", "/v1/allergens/-4", a.key, nil, 400, "VALIDATION_ERROR"},
			{"path id not a number", "GET", "/v1/allergens/abc", a.key, nil, 400, "VALIDATION_ERROR"},
			{"path id too large", "GET", "/v1/allergens/99999999999999999999", a.key, nil, 400, "VALIDATION_ERROR"},
			{"malformed JSON", "POST", "/v1/allergens", a.key, `{"name":`, 400, "VALIDATION_ERROR"},
			{"JSON array body", "POST", "/v1/allergens", a.key, `[]`, 400, "VALIDATION_ERROR"},
			{"empty body", "POST", "/v1/allergens", a.key, ``, 400, "VALIDATION_ERROR"},
			{"trailing data", "POST", "/v1/allergens", a.key, `{"name":"a","name_fr":"b"} {}`, 400, "VALIDATION_ERROR"},
			{"invalid key", "GET", "/v1/tags", "key_live_nope", nil, 401, "INVALID_API_KEY"},
			{"too large a body", "POST", "/v1/allergens", a.key, `{"name":"` + strings.Repeat("x", 5<<20) + `"}`, 413, "PAYLOAD_TOO_LARGE"},
		}
		for _, tc := range cases {
			a.run(t, tc.name, func(t *testing.T, a *api) {
				r := a.do(tc.method, tc.path, tc.key, tc.body, "X-Request-Id", "caller-123")
				p := r.problem(tc.status, tc.code)
				if r.Header.Get("X-Request-Id") == "caller-123" || strings.Contains(string(r.Body), "caller-123") {
					t.Fatal("the caller's X-Request-Id was echoed")
				}
				if tc.status == 405 && r.Header.Get("Allow") == "" {
					t.Fatal("405 without Allow")
				}
				if tc.status == 400 && len(p["errors"].([]any)) == 0 {
					t.Fatal("400 without errors[]")
				}
			})
		}
		a.run(t, "successes carry a request id too", func(t *testing.T, a *api) {
			r := a.get("/v1/organization").want(200)
			if !strings.HasPrefix(r.Header.Get("X-Request-Id"), "req_") {
				t.Fatalf("X-Request-Id %q", r.Header.Get("X-Request-Id"))
			}
			a.do("GET", "/v1/openapi.json", "", nil).want(200)
		})
		a.run(t, "request ids are unique", func(t *testing.T, a *api) {
			seen := map[string]bool{}
			for range 20 {
				id := a.get("/v1/organization").Header.Get("X-Request-Id")
				if seen[id] {
					t.Fatalf("request id %s repeated", id)
				}
				seen[id] = true
			}
		})
		a.run(t, "conflicts reveal no SQL or constraint names", func(t *testing.T, a *api) {
			a.post("/v1/tags", map[string]any{"name": "Dup", "ref_type": "PRODUCT"}).want(201)
			r := a.post("/v1/tags", map[string]any{"name": "Dup", "ref_type": "PRODUCT"})
			r.problem(409, "DUPLICATE")
			body := strings.ToLower(string(r.Body))
			for _, leak := range []string{"constraint", "unique", "sql", "tag_account", "insert", "pq:", "ent:"} {
				if strings.Contains(body, leak) {
					t.Fatalf("body leaks %q: %s", leak, r.Body)
				}
			}
		})
	})
}
