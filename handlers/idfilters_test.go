package handlers_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// listIDFilter is an id filter of a list in the served description.
type listIDFilter struct {
	path, param string
	schema      map[string]any
}

// listIDFilters are the *_id query parameters of every list the served
// description has: GET operations on a collection (no path parameter of
// their own at the end).
func listIDFilters(t *testing.T, a *api) []listIDFilter {
	t.Helper()
	var doc struct {
		Paths map[string]map[string]struct {
			Parameters []struct {
				Ref    string         `json:"$ref"`
				Name   string         `json:"name"`
				In     string         `json:"in"`
				Schema map[string]any `json:"schema"`
			} `json:"parameters"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(a.get("/v1/openapi.json").want(200).Body, &doc); err != nil {
		t.Fatal(err)
	}
	var out []listIDFilter
	for p, item := range doc.Paths {
		op, ok := item["get"]
		if !ok || strings.Contains(p, "{") {
			continue // a single retrieval, or a nested list (none has an id filter)
		}
		for _, prm := range op.Parameters {
			if prm.In == "query" && strings.HasSuffix(prm.Name, "_id") {
				out = append(out, listIDFilter{p, prm.Name, prm.Schema})
			}
		}
	}
	slices.SortFunc(out, func(x, y listIDFilter) int { return strings.Compare(x.path+"?"+x.param, y.path+"?"+y.param) })
	return out
}

// Spec "Purchase orders": supplier_id (>0); every id is an integer greater
// than 0. Every id filter of every list, taken from the served description,
// says so (minimum 1) and refuses 0 and negative ids with a 400 naming the
// parameter, while a well-formed id that matches nothing lists nothing.
func TestIDFiltersArePositive(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		filters := listIDFilters(t, a)
		for _, want := range []string{"/purchase-orders?supplier_id", "/bills?purchase_order_id", "/product-lots?warehouse_id", "/productions?production_line_id"} {
			if !slices.ContainsFunc(filters, func(f listIDFilter) bool { return f.path+"?"+f.param == want }) {
				t.Fatalf("the description has no id filter %s among %v", want, filters)
			}
		}
		for _, f := range filters {
			a.run(t, f.path+"?"+f.param, func(t *testing.T, a *api) {
				if f.schema["type"] != "integer" || f.schema["minimum"] != 1.0 {
					t.Errorf("schema %v, want an integer with minimum 1", f.schema)
				}
				for _, v := range []string{"0", "-1", "-9223372036854775808"} {
					p := a.get("/v1"+f.path+"?"+f.param+"="+v).field(400, "VALIDATION_ERROR", f.param)
					if detail, _ := p["detail"].(string); !strings.Contains(detail, "at least 1") {
						t.Errorf("%s=%s: detail %q does not give the bound", f.param, v, detail)
					}
				}
				if n := len(a.get("/v1" + f.path + "?" + f.param + "=999999999").want(200).List()); n != 0 {
					t.Errorf("%s=999999999 lists %d rows", f.param, n)
				}
			})
		}
	})
}
