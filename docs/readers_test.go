package docs

import (
	"os"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// internals are what a reader of the integrators' documents has no use for:
// the server's source files and packages, its mechanisms by their Go names.
// Developers find them in developers.md.
var internals = regexp.MustCompile(`\b[a-z]\w*/\w+\.go\b` +
	"|(?:^|[\\s`(])(?:internal|fastpath|store|ent|annotate|handlers|policy|hooks|codegen|reqlog|restapi|dbtest|auth|webhooks|people|console|idempotency|inventory)/" +
	`|\b(?:ent|annotate|policy|store|fastpath|pgcancel|handlers|inventory|hooks)\.[A-Z]\w*`)

// The integrators' guide and the API's rulebook speak of the API, never of
// the packages behind it.
func TestIntegratorsDocsNameNoInternals(t *testing.T) {
	for _, doc := range []string{"integrators.md", "api-behaviour.md"} {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			if m := internals.FindString(line); m != "" {
				t.Errorf("%s:%d names %q, the server's inside: %s", doc, i+1, m, line)
			}
		}
	}
}

// The check finds a file, a package directory and a Go identifier, and
// passes the API's own words.
func TestInternalsCheck(t *testing.T) {
	for line, want := range map[string]bool{
		"see `internal/platform/store/guard.go`":        true,
		"`internal/platform/fastpath/pgcancel` cancels": true,
		"an `ent.PageTotal` carries":                    true,
		"`annotate.LineOf(...)`":                        true,
		"`GET /v1/products/{product_id}`":               false,
		"`sales_order.created` and `ping`":              false,
		"`openapi/openapi.json`":                        false,
		"the `Authorization: Bearer` header":            false,
		"a `whsec_` secret, `X-Request-Id`":             false,
		"`client/example` is an integration":            false,
		"the console's page `/console/keys`":            false,
		"`larder.dev/larder/client/verify`":             false,
	} {
		if got := internals.MatchString(line); got != want {
			t.Errorf("%q: found %v, want %v", line, got, want)
		}
	}
}

// Table cells stay short enough to read in a table: a rule that needs more
// is a paragraph below it.
const maxCell = 300

func TestTableCellsAreShort(t *testing.T) {
	for _, doc := range documents(t) {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(doc, "ACCESS.md") {
			continue // generated from what the server runs
		}
		inFence := false
		for i, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "```") {
				inFence = !inFence
			}
			if inFence || !strings.HasPrefix(line, "|") {
				continue
			}
			for _, cell := range strings.Split(strings.ReplaceAll(line, `\|`, "¦"), "|") {
				if n := utf8.RuneCountInString(strings.TrimSpace(cell)); n > maxCell {
					t.Errorf("%s:%d: a cell of %d characters (at most %d): %.80s…", strings.TrimPrefix(doc, root+"/"), i+1, n, maxCell, strings.TrimSpace(cell))
				}
			}
		}
	}
}
