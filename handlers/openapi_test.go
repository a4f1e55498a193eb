package handlers_test

import (
	"bytes"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"

	"larder.dev/larder/client/bounds"

	"larder.dev/larder/ent"
	"larder.dev/larder/internal/restapi"
)

func sorted(s []string) []string {
	out := append([]string{}, s...)
	sort.Strings(out)
	if len(out) == 0 {
		return nil
	}
	return out
}

// pascal is ogen's operation name of an operationId ("listTags" → "ListTags").
func pascal(id string) string { return strings.ToUpper(id[:1]) + id[1:] }

// The API description is served without a key, is the generated file, and
// publishes the paths, errors, headers and webhooks of what exists.
func TestOpenAPIDescription(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		r := a.do("GET", "/v1/openapi.json", "", nil).want(200)
		file, err := os.ReadFile("../openapi/openapi.json")
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(r.Body, file) {
			t.Fatal("the served description differs from openapi/openapi.json")
		}
		doc := r.JSON()
		if doc["openapi"] != "3.1.0" {
			t.Fatalf("openapi %v", doc["openapi"])
		}
		paths := doc["paths"].(map[string]any)
		for _, p := range []string{"/organization", "/tags", "/tags/{tag_id}", "/units-of-measure", "/units-of-measure/{uom_id}",
			"/allergens", "/allergens/{allergen_id}", "/warehouses", "/warehouses/{warehouse_id}", "/operations", "/operations/{operation_id}", "/openapi.json"} {
			if paths[p] == nil {
				t.Errorf("path %s missing", p)
			}
		}
		list := paths["/tags"].(map[string]any)["get"].(map[string]any)
		for _, status := range []string{"200", "400", "401", "403", "429", "500", "503"} {
			if list["responses"].(map[string]any)[status] == nil {
				t.Errorf("GET /tags lacks response %s", status)
			}
		}
		headers := doc["components"].(map[string]any)["headers"].(map[string]any)
		for _, h := range []string{"X-Request-Id", "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "Retry-After", "Sunset"} {
			if headers[h] == nil {
				t.Errorf("header %s missing", h)
			}
		}
		// The generated table of accepted query parameters is the description's.
		for p, item := range paths {
			op, ok := item.(map[string]any)["get"].(map[string]any)
			if !ok || op["operationId"] == "getOpenAPI" {
				continue
			}
			var names []string
			params, _ := op["parameters"].([]any)
			for _, x := range params {
				pm := x.(map[string]any)
				if ref, ok := pm["$ref"].(string); ok {
					name := ref[strings.LastIndex(ref, "/")+1:]
					if doc["components"].(map[string]any)["parameters"].(map[string]any)[name].(map[string]any)["in"] == "query" {
						names = append(names, name)
					}
				} else if pm["in"] == "query" {
					names = append(names, pm["name"].(string))
				}
			}
			got := restapi.QueryParams[pascal(op["operationId"].(string))]
			if diff := cmpDiff(sorted(names), sorted(got)); diff != "" {
				t.Errorf("%s query parameters (-description +table):\n%s", p, diff)
			}
		}
		var hooks []string
		for k := range doc["webhooks"].(map[string]any) {
			hooks = append(hooks, k)
		}
		sort.Strings(hooks)
		want := append(ent.EventTypes(), "ping")
		sort.Strings(want)
		if diff := cmpDiff(want, hooks); diff != "" {
			t.Fatalf("webhooks (-want +got):\n%s", diff)
		}
	})
}

// Every operation declares the answers the middleware gives around it (405
// with Allow, 413 and 415 for a body, the challenge of a 401, ETag and 304
// on reads), the description names its contact, and every body of the
// description has an example; the problem examples are those of their status.
func TestDescriptionDeclaresHTTPAndExamples(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		doc := a.do("GET", "/v1/openapi.json", "", nil).want(200).JSON()
		comps := doc["components"].(map[string]any)
		bodies := 0
		hasExamples := func(where string, content any) {
			c, _ := content.(map[string]any)
			for mt, m := range c {
				bodies++
				if _, ok := m.(map[string]any)["example"]; !ok {
					t.Errorf("%s %s: no example", where, mt)
				}
			}
		}
		for p, item := range doc["paths"].(map[string]any) {
			for m, x := range item.(map[string]any) {
				op := x.(map[string]any)
				rs := op["responses"].(map[string]any)
				where := strings.ToUpper(m) + " " + p
				if rs["405"] == nil {
					t.Errorf("%s: no 405", where)
				}
				rb, hasBody := op["requestBody"].(map[string]any)
				if (rs["413"] != nil) != hasBody || (rs["415"] != nil) != hasBody {
					t.Errorf("%s: 413 declared %v, 415 %v, body %v", where, rs["413"] != nil, rs["415"] != nil, hasBody)
				}
				if hasBody {
					hasExamples(where+" request", rb["content"])
				}
				if m == "get" {
					ok := rs["200"].(map[string]any)
					if ok["headers"].(map[string]any)["ETag"] == nil || rs["304"] == nil {
						t.Errorf("%s: no ETag or 304", where)
					}
					found := false
					for _, x := range op["parameters"].([]any) {
						found = found || x.(map[string]any)["$ref"] == "#/components/parameters/If-None-Match"
					}
					if !found {
						t.Errorf("%s: no If-None-Match", where)
					}
				} else if rs["304"] != nil {
					t.Errorf("%s: 304 on a write", where)
				}
				for code, r := range rs {
					hasExamples(where+" "+code, r.(map[string]any)["content"])
				}
			}
		}
		for event, item := range doc["webhooks"].(map[string]any) {
			media := item.(map[string]any)["post"].(map[string]any)["requestBody"].(map[string]any)["content"].(map[string]any)["application/json"].(map[string]any)
			if ex, _ := media["example"].(map[string]any); ex["type"] != event {
				t.Errorf("webhook %s: example type %v", event, ex["type"])
			}
		}
		for name, r := range comps["responses"].(map[string]any) {
			hasExamples("response "+name, r.(map[string]any)["content"])
		}
		if bodies < 150 {
			t.Errorf("only %d bodies seen", bodies)
		}
		// Each shared error response shows a problem of its own status, and
		// the server answers those statuses as declared.
		for code, name := range map[string]string{"400": "BadRequest", "404": "NotFound", "405": "MethodNotAllowed", "413": "PayloadTooLarge", "415": "UnsupportedMediaType", "429": "TooManyRequests"} {
			ex := comps["responses"].(map[string]any)[name].(map[string]any)["content"].(map[string]any)["application/problem+json"].(map[string]any)["example"].(map[string]any)
			if got := ex["status"].(float64); strconv.Itoa(int(got)) != code {
				t.Errorf("%s example status %v", name, got)
			}
		}
		r := a.do("PUT", "/v1/products", a.key, nil).want(405)
		if r.Header.Get("Allow") == "" {
			t.Error("405 without Allow")
		}
		if !strings.Contains(comps["responses"].(map[string]any)["MethodNotAllowed"].(map[string]any)["headers"].(map[string]any)["Allow"].(map[string]any)["$ref"].(string), "Allow") {
			t.Error("405 does not declare Allow")
		}
		a.do("POST", "/v1/tags", a.key, strings.Repeat(" ", bounds.MaxBodyBytes+1)).want(413)
		a.do("POST", "/v1/tags", a.key, "name=x", "Content-Type", "text/plain").want(415)
		unauthorized := comps["responses"].(map[string]any)["Unauthorized"].(map[string]any)["headers"].(map[string]any)
		if unauthorized["WWW-Authenticate"] == nil {
			t.Error("401 does not declare WWW-Authenticate")
		}
		if c := a.do("GET", "/v1/organization", "", nil).want(401).Header.Get("WWW-Authenticate"); c != `Bearer realm="larder"` {
			t.Errorf("401 with WWW-Authenticate %q", c)
		}
		if contact, _ := doc["info"].(map[string]any)["contact"].(map[string]any); contact["name"] != "Larder" || contact["url"] != "https://larder.dev" {
			t.Errorf("info.contact %v", contact)
		}
		tag := a.do("GET", "/v1/allergens", a.key, nil).want(200).Header.Get("ETag")
		a.do("GET", "/v1/allergens", a.key, nil, "If-None-Match", tag).want(304)
	})
}
