package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"larder.dev/larder/openapi"
)

// larder api diff: the served description against every release passes and
// lists what each release lacks; a description that removes an operation
// fails with the break named, and --against compares with one release;
// and larder api changelog prints the committed changelog.
func TestAPIDiffCommand(t *testing.T) {
	var out, errb bytes.Buffer
	if err := run(context.Background(), []string{"api", "diff"}, &out, &errb); err != nil {
		t.Fatal(err, errb.String())
	}
	for _, want := range []string{"against 1.2: 0 breaking", "against 1.1: 0 breaking", "against 1.0: 0 breaking", "adds   webhook allergen.created, webhook allergen.deleted, webhook allergen.updated and 58 more: event type added"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("api diff does not say %q:\n%.2000s", want, out.String())
		}
	}

	var doc map[string]any
	if err := json.Unmarshal(openapi.Document, &doc); err != nil {
		t.Fatal(err)
	}
	delete(doc["paths"].(map[string]any)["/tags/{tag_id}"].(map[string]any), "delete")
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "openapi.json")
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	errb.Reset()
	err = run(context.Background(), []string{"api", "diff", "--against", "1.1", "--description", file}, &out, &errb)
	if err == nil || !strings.Contains(err.Error(), "1 breaking changes") {
		t.Errorf("a removed operation: err %v", err)
	}
	if !strings.Contains(out.String(), "BREAKS DELETE /tags/{tag_id}: API removed without deprecation") || strings.Contains(out.String(), "against 1.2") {
		t.Errorf("api diff --against 1.1 of a removed operation:\n%.2000s", out.String())
	}

	out.Reset()
	if err := run(context.Background(), []string{"api", "changelog"}, &out, &errb); err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join("..", "..", "docs", "changelog.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), want) {
		t.Error("larder api changelog differs from the committed changelog")
	}
}

// larder api release keeps the current description as the next release in
// a checkout: refused for a version that does not follow the newest, then
// written with its info.version, in the release and the description alike.
func TestAPIReleaseCommand(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"openapi/releases", "docs"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, v := range []string{"1.0", "1.1", "1.2"} {
		b, err := os.ReadFile("../../openapi/releases/" + v + ".json")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, "openapi/releases", v+".json"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "openapi/openapi.json"), openapi.Document, 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if err := run(context.Background(), []string{"api", "release", "1.2", "--root", root}, &out, &errb); err == nil || !strings.Contains(err.Error(), "the newest release is 1.2") {
		t.Errorf("release 1.2 again: %v", err)
	}
	if err := run(context.Background(), []string{"api", "release", "1.3", "--root", root}, &out, &errb); err != nil {
		t.Fatal(err, errb.String())
	}
	rel, err := os.ReadFile(filepath.Join(root, "openapi/releases/1.3.json"))
	if err != nil {
		t.Fatal(err)
	}
	cur, err := os.ReadFile(filepath.Join(root, "openapi/openapi.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(rel, cur) || !bytes.Contains(rel, []byte(`    "version": "1.3.0"`)) {
		t.Errorf("release 1.3 and the description differ, or do not say 1.3.0")
	}
	if !bytes.Equal(bytes.Replace(rel, []byte(`"version": "1.3.0"`), []byte(`"version": "1.2.0"`), 1), openapi.Document) {
		t.Error("release 1.3 is not the description but for its version")
	}
	log, err := os.ReadFile(filepath.Join(root, "docs", "changelog.md"))
	if err != nil || !bytes.Contains(log, []byte("## 1.3\n\n- the API version changed from `1.2.0` to `1.3.0`\n")) {
		t.Errorf("the changelog of 1.3: %v\n%.600s", err, log)
	}
}
