package handlers_test

import (
	"net/url"
	"strings"
	"testing"

	"larder.dev/larder/internal/seed"
)

// Spec "Reference resources with writes": allergens, with Canada's priority
// allergens shared by every account.
func TestAllergens(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		a.run(t, "priority allergens of Canada are shared, with French names", func(t *testing.T, a *api) {
			l := a.get("/v1/allergens?is_major_allergen=true&limit=200").want(200).List()
			byCode := map[string]map[string]any{}
			for _, x := range l {
				if x["is_global"] == true {
					byCode[x["code"].(string)] = x
				}
			}
			for _, s := range seed.Allergens {
				x, ok := byCode[s.Code]
				if !ok {
					t.Fatalf("shared allergen %s missing", s.Code)
				}
				if x["name_fr"] != s.NameFr || x["regulatory_reference"] != seed.AllergenReference {
					t.Fatalf("allergen %s: %v", s.Code, x)
				}
			}
			if byCode["MILK"]["name_fr"] != "Lait" || byCode["SESAME"]["name"] != "Sesame seeds" {
				t.Fatalf("milk %v, sesame %v", byCode["MILK"], byCode["SESAME"])
			}
		})

		lupin := a.post("/v1/allergens", map[string]any{"name": "Lupin", "name_fr": "Lupin", "code": "LUP"}).want(201)
		id := lupin.ID()
		a.run(t, "create defaults", func(t *testing.T, a *api) {
			want := map[string]any{"id": float64(id), "name": "Lupin", "name_fr": "Lupin", "code": "LUP", "description": nil,
				"is_global": false, "is_major_allergen": false, "regulatory_reference": nil}
			if diff := cmpDiff(want, lupin.Data()); diff != "" {
				t.Fatalf("(-want +got):\n%s", diff)
			}
		})
		a.run(t, "name and code are unique per account", func(t *testing.T, a *api) {
			a.post("/v1/allergens", map[string]any{"name": "Lupin", "name_fr": "x"}).field(409, "DUPLICATE", "name")
			a.post("/v1/allergens", map[string]any{"name": "Other", "name_fr": "x", "code": "LUP"}).field(409, "DUPLICATE", "code")
			// Shared rows are not the account's: their names may be reused.
			a.post("/v1/allergens", map[string]any{"name": "Milk", "name_fr": "Lait", "code": "MILK"}).want(201)
			// Codes are optional and several allergens may have none.
			a.post("/v1/allergens", map[string]any{"name": "Celery", "name_fr": "Céleri"}).want(201)
			a.post("/v1/allergens", map[string]any{"name": "Kiwi", "name_fr": "Kiwi"}).want(201)
		})
		a.run(t, "body bounds", func(t *testing.T, a *api) {
			ok := map[string]any{"name": "n", "name_fr": "n"}
			with := func(k string, v any) map[string]any {
				m := map[string]any{}
				for kk, vv := range ok {
					m[kk] = vv
				}
				m[k] = v
				return m
			}
			cases := []struct {
				body  map[string]any
				field string
			}{
				{map[string]any{"name_fr": "x"}, "name"},
				{map[string]any{"name": "x"}, "name_fr"},
				{with("name", strings.Repeat("n", 101)), "name"},
				{with("name_fr", ""), "name_fr"},
				{with("code", strings.Repeat("c", 41)), "code"},
				{with("description", strings.Repeat("d", 501)), "description"},
				{with("regulatory_reference", strings.Repeat("r", 51)), "regulatory_reference"},
				{with("is_major_allergen", "yes"), "is_major_allergen"},
			}
			for _, tc := range cases {
				a.post("/v1/allergens", tc.body).field(400, "VALIDATION_ERROR", tc.field)
			}
		})
		a.run(t, "update: all optional", func(t *testing.T, a *api) {
			d := a.patch(path("/v1/allergens", id), map[string]any{"is_major_allergen": true, "description": "Legume", "code": nil}).want(200).Data()
			if d["is_major_allergen"] != true || d["description"] != "Legume" || d["code"] != nil || d["name"] != "Lupin" {
				t.Fatalf("after update: %v", d)
			}
		})
		a.run(t, "search and named filters cannot be combined", func(t *testing.T, a *api) {
			a.get("/v1/allergens?search=lup&name=lup").field(400, "VALIDATION_ERROR", "search")
			a.get("/v1/allergens?search=lup&is_major_allergen=true").field(400, "VALIDATION_ERROR", "search")
		})
		a.run(t, "filters", func(t *testing.T, a *api) {
			cases := []struct {
				query string
				want  []string
			}{
				{"search=lupin", []string{"Lupin"}},
				{"search=LAIT", []string{"Milk", "Milk"}},
				{"name=upi", []string{"Lupin"}},
				{"code=MILK", []string{"Milk", "Milk"}},
				{"description=legu", []string{"Lupin"}},
				{"regulatory_reference=" + url.QueryEscape(seed.AllergenReference) + "&code=EGG", []string{"Eggs"}},
				{"is_major_allergen=false", []string{"Celery", "Kiwi", "Milk"}},
			}
			for _, tc := range cases {
				got := a.column("/v1/allergens?sort=name&"+tc.query, "name")
				if diff := cmpDiff(tc.want, got); diff != "" {
					t.Fatalf("%s (-want +got):\n%s", tc.query, diff)
				}
			}
		})
		a.run(t, "sorts", func(t *testing.T, a *api) {
			for _, s := range []string{"code", "id", "is_major_allergen", "name", "name_fr"} {
				r := a.get("/v1/allergens?sort=" + s + ":desc").want(200)
				if r.JSON()["order"] != s+":desc,id:asc" && !(s == "id" && r.JSON()["order"] == "id:desc") {
					t.Fatalf("sort %s: order %v", s, r.JSON()["order"])
				}
			}
			a.get("/v1/allergens?sort=description").field(400, "VALIDATION_ERROR", "sort")
		})
		a.run(t, "shared allergens refuse update and delete", func(t *testing.T, a *api) {
			egg := a.get("/v1/allergens?code=EGG").List()[0]
			eggID := int(egg["id"].(float64))
			a.patch(path("/v1/allergens", eggID), map[string]any{"name": "Egg"}).problem(403, "READ_ONLY_RECORD")
			a.del(path("/v1/allergens", eggID)).problem(403, "READ_ONLY_RECORD")
		})
		a.run(t, "delete", func(t *testing.T, a *api) {
			a.del(path("/v1/allergens", id)).want(200)
			a.get(path("/v1/allergens", id)).problem(404, "NOT_FOUND")
		})
	})
}
