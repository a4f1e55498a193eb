package handlers_test

import (
	"fmt"
	"testing"
)

// Spec "Common rules" and Limits: paging bounds are refused, not clamped; sort
// pairs with id appended and reflected in order; pagination totals.
func TestLists(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		for i := 0; i < 7; i++ {
			a.post("/v1/tags", map[string]any{"name": fmt.Sprintf("t%d", i%3) + fmt.Sprint(i), "ref_type": "SUPPLIER"}).want(201)
		}
		base := "/v1/tags?ref_type=SUPPLIER"
		a.run(t, "bounds", func(t *testing.T, a *api) {
			cases := []struct {
				query, field string
			}{
				{"&limit=0", "limit"},
				{"&limit=201", "limit"},
				{"&limit=-1", "limit"},
				{"&limit=ten", "limit"},
				{"&offset=-1", "offset"},
				{"&offset=10001", "offset"},
				{"&sort=color", "sort"},
				{"&sort=name:up", "sort"},
				{"&sort=name,name", "sort"},
				{"&sort=name,,id", "sort"},
				{"&sort=cost", "sort"},
			}
			for _, tc := range cases {
				a.get(base+tc.query).field(400, "VALIDATION_ERROR", tc.field)
			}
			a.get(base + "&limit=200&offset=10000").want(200)
		})
		a.run(t, "defaults", func(t *testing.T, a *api) {
			j := a.get(base).want(200).JSON()
			want := map[string]any{"limit": float64(50), "offset": float64(0), "total": float64(7), "has_more": false, "next_cursor": nil}
			if diff := cmpDiff(want, j["pagination"]); diff != "" {
				t.Fatalf("pagination (-want +got):\n%s", diff)
			}
			if j["order"] != "id:asc" {
				t.Fatalf("order %v", j["order"])
			}
		})
		a.run(t, "pages", func(t *testing.T, a *api) {
			var seen []string
			for off := 0; off < 7; off += 3 {
				r := a.get(fmt.Sprintf("%s&limit=3&offset=%d&sort=name:desc", base, off)).want(200)
				p := r.JSON()["pagination"].(map[string]any)
				if p["total"] != float64(7) || p["has_more"] != (off+3 < 7) {
					t.Fatalf("offset %d: %v", off, p)
				}
				for _, x := range r.List() {
					seen = append(seen, x["name"].(string))
				}
			}
			want := []string{"t25", "t22", "t14", "t11", "t06", "t03", "t00"}
			if diff := cmpDiff(want, seen); diff != "" {
				t.Fatalf("pages (-want +got):\n%s", diff)
			}
		})
		a.run(t, "order reflects the sort with id appended", func(t *testing.T, a *api) {
			cases := map[string]string{
				"":                   "id:asc",
				"&sort=name":         "name:asc,id:asc",
				"&sort=name:DESC":    "name:desc,id:asc",
				"&sort=id:desc":      "id:desc",
				"&sort=name,id:desc": "name:asc,id:desc",
				"&sort=+name+:+asc+": "name:asc,id:asc",
			}
			for q, want := range cases {
				if got := a.get(base + q).want(200).JSON()["order"]; got != want {
					t.Fatalf("%q: order %v, want %s", q, got, want)
				}
			}
		})
		a.run(t, "beyond the end", func(t *testing.T, a *api) {
			// No row carries the page's total: it is counted on its own.
			r := a.get(base + "&offset=100").want(200)
			p := r.JSON()["pagination"].(map[string]any)
			if len(r.List()) != 0 || p["has_more"] != false || p["total"] != float64(7) {
				t.Fatalf("%s", r.Body)
			}
		})
	})
}

// docs/api-behaviour.md, "Requests": an invalid query is a 400 naming the parameter, and a
// parameter the operation does not define is invalid.
func TestUnknownQueryParameters(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		cases := []struct{ path, field string }{
			{"/v1/tags?ref_type=PRODUCT&nmae=x", "nmae"},
			{"/v1/tags?ref_type=PRODUCT&updated_since=2026-01-01", "updated_since"},
			{"/v1/tags/1?limit=5", "limit"},
			{"/v1/organization?verbose=1", "verbose"},
			{"/v1/units-of-measure?code=kg", "code"},
		}
		for _, tc := range cases {
			a.get(tc.path).field(400, "VALIDATION_ERROR", tc.field)
		}
		a.get("/v1/units-of-measure?limit=5&offset=0&sort=code&search=k").want(200)
	})
}

// An empty search is no search: it neither filters nor blocks named filters.
func TestEmptySearch(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		if l := a.get("/v1/allergens?search=&code=MILK").want(200).List(); len(l) != 1 {
			t.Fatalf("search= with code=MILK: %d rows", len(l))
		}
		a.get("/v1/allergens?is_major_allergen=maybe").field(400, "VALIDATION_ERROR", "is_major_allergen")
	})
}

// Nulls sort the same on both databases: last ascending, first descending.
func TestNullsOrderAlike(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		a.post("/v1/allergens", map[string]any{"name": "Zzz no code", "name_fr": "Zzz"}).want(201)
		asc := a.get("/v1/allergens?sort=code&limit=200").want(200).List()
		desc := a.get("/v1/allergens?sort=code:desc&limit=200").want(200).List()
		if asc[len(asc)-1]["code"] != nil || asc[0]["code"] == nil {
			t.Fatalf("ascending: first %v, last %v; want nulls last", asc[0]["code"], asc[len(asc)-1]["code"])
		}
		if desc[0]["code"] != nil {
			t.Fatalf("descending: first %v; want nulls first", desc[0]["code"])
		}
	})
}
