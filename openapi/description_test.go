package openapi_test

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"larder.dev/larder/openapi"
)

// document is the published description as a JSON tree.
func document(t *testing.T) map[string]any {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(openapi.Document, &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// walk calls f on every object of v with its JSON pointer.
func walk(v any, at string, f func(at string, o map[string]any)) {
	switch x := v.(type) {
	case map[string]any:
		f(at, x)
		for k, c := range x {
			walk(c, at+"/"+k, f)
		}
	case []any:
		for i, c := range x {
			walk(c, at+"/"+strconv.Itoa(i), f)
		}
	}
}

// clauseEnd ends a clause: a full stop or a semicolon before a space or the end.
var clauseEnd = regexp.MustCompile(`[.;](\s+|$)`)

// Every description of the published description says each thing once: no
// clause (a sentence, or a part of one between semicolons) comes twice.
func TestDescriptionsSayEachThingOnce(t *testing.T) {
	n := 0
	walk(document(t), "#", func(at string, o map[string]any) {
		d, ok := o["description"].(string)
		if !ok {
			return
		}
		n++
		seen := map[string]bool{}
		for _, c := range clauseEnd.Split(d, -1) {
			c = strings.ToLower(strings.TrimSpace(c))
			if c == "" {
				continue
			}
			if seen[c] {
				t.Errorf("%s says %q twice: %q", at, c, d)
			}
			seen[c] = true
		}
	})
	if n < 500 {
		t.Fatalf("only %d descriptions seen", n)
	}
}

// A field or edge absent from lists is described by the operations its
// resource has: a resource without lists and retrievals (shipments, only
// created) speaks of neither; one with them says so once.
func TestSingleOnlyDescriptionsFitTheirResource(t *testing.T) {
	props := func(schema string) map[string]any {
		s := document(t)["components"].(map[string]any)["schemas"].(map[string]any)[schema].(map[string]any)
		return s["properties"].(map[string]any)
	}
	desc := func(schema, prop string) string {
		return props(schema)[prop].(map[string]any)["description"].(string)
	}
	if d := desc("Shipment", "lines"); strings.Contains(d, "retrieval") || strings.Contains(d, "list") {
		t.Errorf("Shipment.lines speaks of retrievals or lists shipments do not have: %q", d)
	}
	for _, c := range []struct{ schema, want string }{
		{"Bill", "Only on single retrieval and writes; null in lists."},
		{"PurchaseOrder", "Only on single retrieval and writes; null in lists."},
		{"SalesOrder", "Only on single retrieval and writes; null in lists."},
		{"Invoice", "Only on single retrieval; null in lists."}, // invoices are only read
	} {
		if d := desc(c.schema, "lines"); strings.Count(d, "null in lists") != 1 || !strings.HasSuffix(d, c.want) {
			t.Errorf("%s.lines: %q, want it to end %q, once", c.schema, d, c.want)
		}
	}
}

// The description's one server is relative: a page or a client reading the
// served description calls the server it read it from.
func TestServerIsRelative(t *testing.T) {
	servers, _ := document(t)["servers"].([]any)
	if len(servers) != 1 || servers[0].(map[string]any)["url"] != "/v1" {
		t.Fatalf("servers %v, want the one relative /v1", servers)
	}
}

// Enums are open where the API answers and closed where it is asked: every
// reference to an enum reachable from a response or a webhook payload sits in
// an anyOf beside a plain string, and none reachable from a parameter or a
// request body does, so generated clients accept a value added later and
// still send only the known ones.
func TestEnumsOpenInAnswersClosedInRequests(t *testing.T) {
	doc := document(t)
	comps := doc["components"].(map[string]any)
	schemas := comps["schemas"].(map[string]any)
	enum := func(v any) string {
		o, _ := v.(map[string]any)
		ref, _ := o["$ref"].(string)
		name := strings.TrimPrefix(ref, "#/components/schemas/")
		if s, _ := schemas[name].(map[string]any); s != nil && s["enum"] != nil {
			return name
		}
		return ""
	}
	// uses lists, for every enum reference reachable from v, whether an
	// anyOf beside it allows any string.
	type use struct {
		at   string
		open bool
	}
	uses := func(v any) []use {
		var out []use
		seen := map[string]bool{}
		inAnyOf := map[string]bool{}
		var visit func(v any, at string)
		visit = func(v any, at string) {
			walk(v, at, func(at string, o map[string]any) {
				if list, ok := o["anyOf"].([]any); ok {
					open := false
					for _, x := range list {
						if x.(map[string]any)["type"] == "string" {
							open = true
						}
					}
					for i, x := range list {
						if enum(x) != "" {
							out = append(out, use{at + "/anyOf/" + strconv.Itoa(i), open})
							inAnyOf[at+"/anyOf/"+strconv.Itoa(i)] = true
						}
					}
				}
				if enum(o) != "" {
					if !inAnyOf[at] {
						out = append(out, use{at, false}) // a bare reference
					}
					return
				}
				ref, _ := o["$ref"].(string)
				parts := strings.Split(strings.TrimPrefix(ref, "#/components/"), "/")
				if len(parts) != 2 || seen[ref] {
					return
				}
				seen[ref] = true
				visit(comps[parts[0]].(map[string]any)[parts[1]], ref)
			})
		}
		visit(v, "#")
		return out
	}
	var answers, requests []use
	for p, item := range doc["paths"].(map[string]any) {
		for m, op := range item.(map[string]any) {
			op := op.(map[string]any)
			answers = append(answers, uses(op["responses"])...)
			for _, u := range uses([]any{op["parameters"], op["requestBody"]}) {
				u.at = strings.ToUpper(m) + " " + p + " " + u.at
				requests = append(requests, u)
			}
		}
	}
	for _, item := range doc["webhooks"].(map[string]any) {
		answers = append(answers, uses(item.(map[string]any)["post"].(map[string]any)["requestBody"])...)
	}
	for _, u := range answers {
		if !u.open {
			t.Errorf("answered closed: %s", u.at)
		}
	}
	for _, u := range requests {
		if u.open {
			t.Errorf("requested open: %s", u.at)
		}
	}
	if len(answers) < 40 || len(requests) < 12 { // status changes, filters, tag and sales-order line bodies
		t.Fatalf("%d enum uses in answers, %d in requests: the walk missed them", len(answers), len(requests))
	}
}
