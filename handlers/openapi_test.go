package handlers_test

import (
	"bytes"
	"os"
	"sort"
	"testing"

	"larder.dev/larder/ent"
)

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
		if len(want) != 16 {
			t.Fatalf("%d event types, want 15 for the five resources plus ping", len(want))
		}
	})
}
