package apicompat

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"larder.dev/larder/openapi/releases"
)

var reconstruct = flag.Bool("reconstruct", false, "write openapi/releases/1.0.json and 1.1.json from 1.2.json")

// Releases 1.0 and 1.1 came before descriptions were kept: they are
// reconstructed from 1.2, the first description kept as it was served,
// by taking away what each later release added, as the specification's
// history and the project's record name it. 1.2 added cursor paging (the
// `cursor` parameter and `pagination.next_cursor`), the lot trace
// (GET /product-lots/{lot_id}/trace) and `user_id` in the webhook
// envelope; 1.1 added the webhooks. What is not named there is taken as
// released in 1.0. The reconstruction is run here so that how the files
// were made is checked, not told: with -reconstruct it writes them.
func TestReleasesOneZeroAndOneOneAreReconstructed(t *testing.T) {
	src, err := releases.Document("1.2")
	if err != nil {
		t.Fatal(err)
	}
	one1 := reconstructOneOne(t, src)
	one0 := reconstructOneZero(t, one1)
	for v, doc := range map[string]map[string]any{"1.1": one1, "1.0": one0} {
		want, err := json.MarshalIndent(doc, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, '\n')
		path := filepath.Join("..", "..", "..", "openapi", "releases", v+".json")
		if *reconstruct {
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := releases.Document(v)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("openapi/releases/%s.json is not the reconstruction from 1.2 (go test ./internal/generators/apicompat -run Reconstructed -reconstruct)", v)
		}
	}
}

func decode(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// reconstructOneOne is 1.2 without what 1.2 added.
func reconstructOneOne(t *testing.T, src []byte) map[string]any {
	doc := decode(t, src)
	doc["info"].(map[string]any)["version"] = "1.1.0"
	comps := doc["components"].(map[string]any)
	delete(comps["parameters"].(map[string]any), "cursor")
	delete(doc["paths"].(map[string]any), "/product-lots/{lot_id}/trace")
	for _, item := range doc["paths"].(map[string]any) {
		for _, op := range item.(map[string]any) {
			op := op.(map[string]any)
			params, ok := op["parameters"].([]any)
			if !ok {
				continue
			}
			var kept []any
			for _, p := range params {
				if p.(map[string]any)["$ref"] != "#/components/parameters/cursor" {
					kept = append(kept, p)
				}
			}
			op["parameters"] = kept
		}
	}
	// next_cursor in the paging object and its examples; user_id in the
	// webhook envelopes and theirs.
	eachObject(doc, func(o map[string]any) {
		if _, ok := o["has_more"]; ok {
			delete(o, "next_cursor")
		}
		if props, ok := o["properties"].(map[string]any); ok {
			if _, ok := props["has_more"]; ok {
				delete(props, "next_cursor")
				o["required"] = without(o["required"], "next_cursor")
			}
			if _, ok := props["snapshot"]; ok {
				delete(props, "user_id")
			}
		}
		if _, ok := o["snapshot"]; ok {
			delete(o, "user_id")
		}
	})
	dropUnreferenced(doc)
	return doc
}

// reconstructOneZero is 1.1 without the webhooks, which 1.1 added.
func reconstructOneZero(t *testing.T, one1 map[string]any) map[string]any {
	b, err := json.Marshal(one1)
	if err != nil {
		t.Fatal(err)
	}
	doc := decode(t, b)
	doc["info"].(map[string]any)["version"] = "1.0.0"
	delete(doc, "webhooks")
	var tags []any
	for _, tag := range doc["tags"].([]any) {
		if tag.(map[string]any)["name"] != "Webhooks" {
			tags = append(tags, tag)
		}
	}
	doc["tags"] = tags
	dropUnreferenced(doc)
	return doc
}

func without(v any, name string) any {
	list, ok := v.([]any)
	if !ok {
		return v
	}
	var out []any
	for _, x := range list {
		if x != name {
			out = append(out, x)
		}
	}
	return out
}

func eachObject(v any, f func(map[string]any)) {
	switch x := v.(type) {
	case map[string]any:
		f(x)
		for _, c := range x {
			eachObject(c, f)
		}
	case []any:
		for _, c := range x {
			eachObject(c, f)
		}
	}
}

// dropUnreferenced removes the components nothing outside them refers to,
// until none is left.
func dropUnreferenced(doc map[string]any) {
	comps := doc["components"].(map[string]any)
	for {
		refs := map[string]bool{}
		for k, v := range doc {
			if k == "components" {
				continue
			}
			collectRefs(v, refs)
		}
		for kind, group := range comps {
			group, ok := group.(map[string]any)
			if !ok {
				continue
			}
			for name, v := range group {
				inner := map[string]bool{}
				collectRefs(v, inner)
				for r := range inner {
					if r != "#/components/"+kind+"/"+name {
						refs[r] = true
					}
				}
			}
		}
		dropped := false
		for _, kind := range []string{"schemas", "parameters", "responses", "headers"} {
			group, _ := comps[kind].(map[string]any)
			for name := range group {
				if !refs["#/components/"+kind+"/"+name] {
					delete(group, name)
					dropped = true
				}
			}
		}
		if !dropped {
			return
		}
	}
}

func collectRefs(v any, refs map[string]bool) {
	eachObject(v, func(o map[string]any) {
		if r, ok := o["$ref"].(string); ok && strings.HasPrefix(r, "#/components/") {
			refs[r] = true
		}
	})
}
