package handlers_test

import (
	"bytes"
	"os"
	"sort"
	"strings"
	"testing"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/rest"
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
					names = append(names, ref[strings.LastIndex(ref, "/")+1:])
				} else if pm["in"] == "query" {
					names = append(names, pm["name"].(string))
				}
			}
			got := rest.QueryParams[pascal(op["operationId"].(string))]
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
		if len(want) != 61 {
			t.Fatalf("%d event types, want the 60 of DECISIONS.md plus ping", len(want))
		}
	})
}
