package apicompat

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"larder.dev/larder/openapi"
	"larder.dev/larder/openapi/releases"
)

// The gate: the current description keeps every promise of every released
// version 1 description. Each break is printed on a line; additions pass and
// are listed.
func TestVersionOneOnlyGrows(t *testing.T) {
	if vs := releases.Versions(); len(vs) < 3 || vs[0] != "1.0" || vs[1] != "1.1" {
		t.Fatalf("releases %v: 1.0 and 1.1 must be kept, and each later one", vs)
	}
	reports, err := Gate(openapi.Document)
	if err != nil {
		t.Fatal(err)
	}
	if len(reports) != len(releases.Versions()) {
		t.Fatalf("%d reports for %d releases", len(reports), len(releases.Versions()))
	}
	var out bytes.Buffer
	Print(&out, reports)
	t.Log("\n" + out.String())
	for _, r := range reports {
		for _, c := range r.Breaks {
			t.Errorf("breaks release %s: %s", r.Version, c.Line())
		}
	}
}

// info.version is the newest release's, which the generator reads from the
// releases.
func TestDescriptionStatesTheNewestRelease(t *testing.T) {
	vs := releases.Versions()
	var doc struct {
		Info struct{ Version string } `json:"info"`
	}
	if err := json.Unmarshal(openapi.Document, &doc); err != nil {
		t.Fatal(err)
	}
	if want := vs[len(vs)-1] + ".0"; doc.Info.Version != want {
		t.Errorf("info.version %q, want %q", doc.Info.Version, want)
	}
}

// docs/changelog.md is what the releases say.
func TestChangelogIsCurrent(t *testing.T) {
	want, err := Changelog()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("..", "..", "..", "docs", "changelog.md")
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("docs/changelog.md is stale: `larder api changelog > docs/changelog.md` writes it from openapi/releases")
	}
	for _, line := range []string{"## 1.2", "## 1.1", "## 1.0", "`GET /product-lots/{lot_id}/trace`", "`webhook tag.created`"} {
		if !bytes.Contains(want, []byte(line)) {
			t.Errorf("the changelog does not name %s", line)
		}
	}
}

// newest is the newest release, loaded once for the mutations.
var newest = sync.OnceValues(func() ([]byte, error) {
	vs := releases.Versions()
	return releases.Document(vs[len(vs)-1])
})

// mutate returns the newest release changed by f, as a description.
func mutate(t *testing.T, f func(doc map[string]any)) *openapi3.T {
	t.Helper()
	src, err := newest()
	if err != nil {
		t.Fatal(err)
	}
	doc := decode(t, src)
	f(doc)
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	rev, err := Load(b)
	if err != nil {
		t.Fatal(err)
	}
	return rev
}

func schema(doc map[string]any, name string) map[string]any {
	return doc["components"].(map[string]any)["schemas"].(map[string]any)[name].(map[string]any)
}

func props(doc map[string]any, name string) map[string]any {
	return schema(doc, name)["properties"].(map[string]any)
}

func op(doc map[string]any, path, method string) map[string]any {
	return doc["paths"].(map[string]any)[path].(map[string]any)[method].(map[string]any)
}

// Each kind of break, applied to a copy of the newest release, fails the gate
// with a line that names it; each kind of addition passes and is listed.
func TestGateCatchesEveryKindOfBreak(t *testing.T) {
	src, err := newest()
	if err != nil {
		t.Fatal(err)
	}
	base, err := Load(src)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		change func(doc map[string]any)
		// breaks are the words a break's line must hold; none: the change
		// must pass, and adds those of an addition's line.
		breaks, adds []string
	}{
		{"a field renamed", func(doc map[string]any) {
			p := props(doc, "Tag")
			p["title"] = p["name"]
			delete(p, "name")
			schema(doc, "Tag")["required"] = []any{"id", "title", "ref_type"}
		}, []string{"GET /tags/{tag_id}", "removed the required property `data/name`"}, nil},
		{"an enum value dropped", func(doc map[string]any) {
			s := schema(doc, "PurchaseOrderStatus")
			s["enum"] = without(s["enum"], "CLOSED")
		}, []string{"GET /purchase-orders/{purchase_order_id}", "removed the `CLOSED` enum value"}, nil},
		{"an optional body field made required", func(doc map[string]any) {
			s := schema(doc, "TagCreate")
			s["required"] = append(s["required"].([]any), "description")
		}, []string{"POST /tags", "the request property `description` became required"}, nil},
		{"an operation removed", func(doc map[string]any) {
			delete(doc["paths"].(map[string]any)["/tags/{tag_id}"].(map[string]any), "delete")
		}, []string{"DELETE /tags/{tag_id}", "API removed"}, nil},
		{"an integer changed to a string", func(doc map[string]any) {
			props(doc, "Pagination")["total"].(map[string]any)["type"] = "string"
		}, []string{"GET /tags", "`pagination/total`", "from `integer` to `string`"}, nil},
		{"a webhook event type removed", func(doc map[string]any) {
			delete(doc["webhooks"].(map[string]any), "tag.deleted")
		}, []string{"webhook tag.deleted", "event type removed"}, nil},
		{"an envelope field removed", func(doc map[string]any) {
			delete(props(doc, "TagEvent"), "request_id")
		}, []string{"webhook tag.created", "`request_id`"}, nil},
		{"an error code removed", func(doc map[string]any) {
			s := schema(doc, "ProblemCode")
			s["enum"] = without(s["enum"], "IN_USE")
		}, []string{"DELETE /tags/{tag_id}", "removed the `IN_USE` enum value", "`code"}, nil},
		{"an error status removed", func(doc map[string]any) {
			delete(op(doc, "/tags/{tag_id}", "delete")["responses"].(map[string]any), "409")
		}, []string{"DELETE /tags/{tag_id}", "status `409`"}, nil},
		{"a response's content type changed", func(doc map[string]any) {
			r := op(doc, "/tags/{tag_id}", "get")["responses"].(map[string]any)["200"].(map[string]any)
			c := r["content"].(map[string]any)
			c["application/xml"] = c["application/json"]
			delete(c, "application/json")
		}, []string{"GET /tags/{tag_id}", "removed the media type `application/json`"}, nil},
		{"a query parameter removed", func(doc map[string]any) {
			o := op(doc, "/tags", "get")
			var kept []any
			for _, p := range o["parameters"].([]any) {
				if p.(map[string]any)["$ref"] != "#/components/parameters/cursor" {
					kept = append(kept, p)
				}
			}
			o["parameters"] = kept
		}, []string{"GET /tags", "`cursor`"}, nil},
		{"a new optional field", func(doc map[string]any) {
			props(doc, "Tag")["color"] = map[string]any{"type": []any{"string", "null"}}
		}, nil, []string{"GET /tags/{tag_id}", "added the optional property `data/color`"}},
		{"a new operation", func(doc map[string]any) {
			item := doc["paths"].(map[string]any)["/tags/{tag_id}"].(map[string]any)
			get := item["get"].(map[string]any)
			copied := map[string]any{}
			for k, v := range get {
				copied[k] = v
			}
			copied["operationId"] = "copyTag"
			doc["paths"].(map[string]any)["/tags/{tag_id}/copy"] = map[string]any{"post": copied}
		}, nil, []string{"POST /tags/{tag_id}/copy", "endpoint added"}},
		{"a new enum value in an answer", func(doc map[string]any) {
			s := schema(doc, "SalesOrderStatus")
			s["enum"] = append(s["enum"].([]any), "ON_HOLD")
		}, nil, []string{"GET /sales-orders", "`ON_HOLD`"}},
		{"a new webhook event type", func(doc map[string]any) {
			w := doc["webhooks"].(map[string]any)
			w["tag.merged"] = w["tag.updated"]
		}, nil, []string{"webhook tag.merged", "event type added"}},
	}
	for _, c := range cases {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			r, err := Compare("newest", base, "mutated", mutate(t, c.change))
			if err != nil {
				t.Fatal(err)
			}
			named := func(list []Change, words []string) bool {
				for _, ch := range list {
					line := strings.Join(ch.Where, ", ") + ": " + ch.Text
					all := true
					for _, w := range words {
						all = all && strings.Contains(line, w)
					}
					if all {
						return true
					}
				}
				return false
			}
			lines := func(list []Change) string {
				var s []string
				for _, ch := range list {
					s = append(s, ch.Line())
				}
				return strings.Join(s, "\n")
			}
			if c.breaks != nil {
				if !named(r.Breaks, c.breaks) {
					t.Errorf("no break names %q; breaks:\n%s", c.breaks, lines(r.Breaks))
				}
				return
			}
			if r.Broken() {
				t.Errorf("an addition breaks:\n%s", lines(r.Breaks))
			}
			if !named(r.Additions, c.adds) {
				t.Errorf("no addition names %q; additions:\n%s", c.adds, lines(r.Additions))
			}
		})
	}
}

// oasdiff stays off the request path: handlers, and everything it links,
// import none of it (only cmd/larder's api commands and this package do).
func TestHandlersLinkNoDiff(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "larder.dev/larder/handlers").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 100 {
		t.Fatalf("handlers links %d packages: the list is not its dependencies", len(deps))
	}
	for _, p := range deps {
		if strings.HasPrefix(p, "github.com/oasdiff/") || strings.HasPrefix(p, "github.com/getkin/") || strings.HasSuffix(p, "/apicompat") {
			t.Errorf("handlers links %s", p)
		}
	}
}
