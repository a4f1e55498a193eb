package handlers_test

import (
	"context"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"testing"
	"time"

	"larder.dev/larder/ent/event"
	"larder.dev/larder/internal/modules/catalog"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

// seeded switches a to a seeded organization's test account, with an
// all-scope test key.
func seeded(t *testing.T, a *api) *api {
	b := *a
	b.org = dbtest.NewSeededOrg(t, a.st)
	b.key = b.org.Key(t, policy.Test, "all")
	return &b
}

// docs/api-behaviour.md, "Test mode": a new organization's test key can list
// meaningful data from every catalog endpoint immediately, covering every enumerated value.
func TestSeededCatalog(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		a = seeded(t, a)
		a.run(t, "every catalog list has rows", func(t *testing.T, a *api) {
			for _, p := range []string{"/v1/products", "/v1/foods", "/v1/nutrients", "/v1/preservations", "/v1/qc-checkpoints",
				"/v1/qc-units-of-measure", "/v1/countries", "/v1/allergens", "/v1/tags?ref_type=PRODUCT", "/v1/units-of-measure"} {
				if n := len(a.get(p).want(200).List()); n == 0 {
					t.Errorf("%s is empty", p)
				}
			}
		})
		a.run(t, "products of all six types, costs and conversions other than 1", func(t *testing.T, a *api) {
			types := map[string]bool{}
			for _, p := range a.get("/v1/products?limit=200").want(200).List() {
				types[p["product_type"].(string)] = true
				if p["cost"] == nil {
					t.Errorf("%s has no cost", p["product_code"])
				}
			}
			if len(types) != 6 {
				t.Fatalf("product types %v", types)
			}
			flour := a.get("/v1/products?product_code=RM-FLOUR").want(200).List()[0]
			if flour["uom_base_conversion"] != 25000.0 || flour["material"].(map[string]any)["food_id"] == nil {
				t.Fatalf("flour %v", flour)
			}
		})
		a.run(t, "every QC input type", func(t *testing.T, a *api) {
			got := a.column("/v1/qc-checkpoints?sort=code", "input_type")
			slices.Sort(got)
			want := []string{"CHECKBOX", "NUMBER", "RADIO", "RANGE", "RANGE", "TEXTAREA", "YES_NO"}
			if diff := cmpDiff(want, got); diff != "" {
				t.Fatalf("(-want +got):\n%s", diff)
			}
		})
		a.run(t, "all 249 countries with French names", func(t *testing.T, a *api) {
			l := a.get("/v1/countries?code=CA").want(200)
			if l.JSON()["pagination"].(map[string]any)["total"] != 1.0 || l.List()[0]["name_fr"] != "Canada" {
				t.Fatalf("%s", l.Body)
			}
			if total := a.get("/v1/countries?limit=1").want(200).JSON()["pagination"].(map[string]any)["total"]; total != 249.0 {
				t.Fatalf("%v countries", total)
			}
		})
	})
}

// Spec "Product" and "Products".
func TestProducts(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		a = seeded(t, a)
		byCode := map[string]map[string]any{}
		for _, p := range a.get("/v1/products?limit=200").want(200).List() {
			byCode[p["product_code"].(string)] = p
		}
		a.run(t, "lists: allergens and tag_ids null, material or recipe by kind", func(t *testing.T, a *api) {
			for code, p := range byCode {
				if p["allergens"] != nil || p["tag_ids"] != nil {
					t.Errorf("%s: allergens %v, tag_ids %v in a list", code, p["allergens"], p["tag_ids"])
				}
				material := p["product_type"] == "RAW_MATERIAL" || p["product_type"] == "PACKAGING" || p["product_type"] == "MISCELLANEOUS"
				if (p["kind"] == "material") != material {
					t.Errorf("%s: kind %v for %v", code, p["kind"], p["product_type"])
				}
				if (p["material"] != nil) != material || (p["recipe"] != nil) == material {
					t.Errorf("%s: material %v, recipe %v", code, p["material"], p["recipe"])
				}
			}
			almond := byCode["RM-ALMOND"]["material"].(map[string]any)
			if len(almond["banned_country_ids"].([]any)) != 1 || len(almond["substitute_product_ids"].([]any)) != 1 || len(almond["supplier_ids"].([]any)) != 1 {
				t.Fatalf("almond material %v", almond)
			}
		})
		a.run(t, "single retrieval: allergens and tag_ids", func(t *testing.T, a *api) {
			box := a.get(path("/v1/products", int(byCode["FG-COOKIE12"]["id"].(float64)))).want(200).Data()
			tags := box["tag_ids"].([]any)
			if len(tags) != 1 {
				t.Fatalf("tag_ids %v", tags)
			}
			allergens := box["allergens"].([]any)
			milk := map[string]any(nil)
			for _, x := range allergens {
				if e := x.(map[string]any); e["code"] == "MILK" {
					milk = e
				}
			}
			if milk == nil || milk["is_major_allergen"] != true || milk["name"] != "Milk" || milk["source"] != "RM-BUTTER" || milk["allergen_id"] == nil {
				t.Fatalf("allergens %v", allergens)
			}
			recipe := box["recipe"].(map[string]any)
			if len(recipe["qc_checkpoint_ids"].([]any)) != 3 || recipe["ingredients_fr"] == nil || box["material"] != nil {
				t.Fatalf("recipe %v", recipe)
			}
			bare := a.get(path("/v1/products", int(byCode["PK-CASE"]["id"].(float64)))).want(200).Data()
			if diff := cmpDiff([]any{}, bare["tag_ids"]); diff != "" {
				t.Fatalf("no tags is an empty array: %s", diff)
			}
		})
		a.run(t, "cost and operations_cost need cost:read", func(t *testing.T, a *api) {
			key := a.org.Key(t, policy.Test, "read-all")
			for _, p := range a.do("GET", "/v1/products?limit=200", key, nil).want(200).List() {
				if p["cost"] != nil || p["operations_cost"] != nil {
					t.Fatalf("%s: cost %v %v", p["product_code"], p["cost"], p["operations_cost"])
				}
			}
			if byCode["SR-DOUGH"]["operations_cost"] != 0.41 {
				t.Fatalf("operations_cost %v", byCode["SR-DOUGH"]["operations_cost"])
			}
		})
		a.run(t, "filters and sorts", func(t *testing.T, a *api) {
			if got := a.column("/v1/products?product_code=fg-&sort=product_code:desc", "product_code"); !slices.Equal(got, []string{"FG-COOKIE12", "FG-BAR6"}) {
				t.Fatalf("partial product_code %v", got)
			}
			got := a.column("/v1/products?product_types=PACKAGING&product_types=SUB_RECIPE&sort=product_code", "product_code")
			if !slices.Equal(got, []string{"PK-BOX12", "PK-CASE", "PK-FILM", "SR-DOUGH", "SR-GRANOLA"}) {
				t.Fatalf("product_types %v", got)
			}
			if got := a.column("/v1/products?name=granola&sort=name", "product_code"); len(got) != 3 {
				t.Fatalf("name %v", got)
			}
			if got := a.column("/v1/products?search=RM-ALM", "product_code"); !slices.Equal(got, []string{"RM-ALMOND"}) {
				t.Fatalf("search %v", got)
			}
			a.get("/v1/products?product_types=BREAD").field(400, "VALIDATION_ERROR", "product_types")
			a.get("/v1/products?sort=cost").field(400, "VALIDATION_ERROR", "sort")
			for _, s := range []string{"created_at", "id", "name", "product_code", "product_type", "updated_at"} {
				a.get("/v1/products?sort=" + s + ":desc").want(200)
			}
		})
		a.run(t, "updated_since", func(t *testing.T, a *api) {
			since := time.Now().UTC().Format(time.RFC3339Nano)
			before := len(a.get("/v1/products?limit=200&updated_since=" + url.QueryEscape(since)).want(200).List())
			if _, err := catalog.Delete(a.org.Ctx(policy.Test), a.st.Client, "RM-SUGAR"); err != nil {
				t.Fatal(err)
			}
			after := a.get("/v1/products?limit=200&updated_since=" + url.QueryEscape(since)).want(200).List()
			if len(after) != before+1 {
				t.Fatalf("%d rows changed after %s, %d before the delete", len(after), since, before)
			}
			sugar := a.get(path("/v1/products", int(byCode["RM-SUGAR"]["id"].(float64)))).want(200).Data()
			if sugar["is_deleted"] != true || sugar["active"] != false {
				t.Fatalf("deleted product %v", sugar)
			}
		})
		a.run(t, "no writes on products", func(t *testing.T, a *api) {
			id := path("/v1/products", int(byCode["RM-OATS"]["id"].(float64)))
			a.post("/v1/products", map[string]any{"name": "x"}).problem(405, "METHOD_NOT_ALLOWED")
			a.patch(id, map[string]any{"name": "x"}).problem(405, "METHOD_NOT_ALLOWED")
			a.del(id).problem(405, "METHOD_NOT_ALLOWED")
		})
		a.run(t, "another account's product is not found", func(t *testing.T, a *api) {
			other := seeded(t, a)
			other.get(path("/v1/products", int(byCode["RM-OATS"]["id"].(float64)))).problem(404, "NOT_FOUND")
		})
		a.run(t, "referenced rows cannot be deleted", func(t *testing.T, a *api) {
			organic := a.get("/v1/tags?ref_type=PRODUCT&name=Organic").want(200).List()[0]
			a.del(path("/v1/tags", int(organic["id"].(float64)))).problem(409, "IN_USE")
			tray := a.get("/v1/units-of-measure?search=tray").want(200).List()[0]
			a.del(path("/v1/units-of-measure", int(tray["id"].(float64)))).problem(409, "IN_USE")
			caramel := a.get("/v1/foods?search=House%20caramel").want(200).List()[0]
			a.del(path("/v1/foods", int(caramel["id"].(float64)))).problem(409, "IN_USE")
			// An allergen a product declares.
			sesame := a.post("/v1/allergens", map[string]any{"name": "Sesame oil", "name_fr": "Huile de sésame", "code": "SES-OIL"}).want(201).ID()
			lines := []catalog.Line{{N: 1, R: catalog.Record{ProductCode: "RM-SESOIL", ProductType: "RAW_MATERIAL",
				Allergens: []catalog.AllergenRef{{Allergen: "SES-OIL"}}}}}
			if _, err := catalog.Import(a.org.Ctx(policy.Test), a.st.Client, lines, nil); err != nil {
				t.Fatal(err)
			}
			a.del(path("/v1/allergens", sesame)).problem(409, "IN_USE")
		})
	})
}

// Spec "Foods" and "Food nutrient entry".
func TestFoods(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		created := a.post("/v1/foods", map[string]any{"name": "Oat milk", "name_fr": "Boisson d'avoine", "suggested_yield_pct": 97.5}).want(201)
		id := created.ID()
		a.run(t, "created with no nutrient values", func(t *testing.T, a *api) {
			got := a.get(path("/v1/foods", id)).want(200).Data()
			if diff := cmpDiff([]any{}, got["nutrients"]); diff != "" {
				t.Fatalf("nutrients of a new food: %s", diff)
			}
			if got["is_global"] != false || got["source"] != nil || got["suggested_yield_pct"] != 97.5 {
				t.Fatalf("%v", got)
			}
		})
		a.run(t, "nutrients null in lists, entries on single retrieval", func(t *testing.T, a *api) {
			l := a.get("/v1/foods?search=" + url.QueryEscape("Wheat flour, all-purpose")).want(200).List()
			if len(l) != 1 || l[0]["nutrients"] != nil || l[0]["is_global"] != true {
				t.Fatalf("list %v", l)
			}
			flour := a.get(path("/v1/foods", int(l[0]["id"].(float64)))).want(200).Data()
			var energy map[string]any
			for _, x := range flour["nutrients"].([]any) {
				if e := x.(map[string]any); e["label"] == "Calories" {
					energy = e
				}
			}
			if energy == nil || energy["uom"] != "kcal" || energy["value"] != 364.0 || energy["nutrient_id"] == nil || energy["name"] == nil {
				t.Fatalf("energy entry %v in %v", energy, flour["source"])
			}
		})
		a.run(t, "search by id, name or French name; sorts", func(t *testing.T, a *api) {
			if got := a.column("/v1/foods?search="+strconv.Itoa(id), "name"); !slices.Contains(got, "Oat milk") {
				t.Fatalf("id search %v", got)
			}
			if got := a.column("/v1/foods?search=avoine", "name"); !slices.Contains(got, "Oat milk") {
				t.Fatalf("French search %v", got)
			}
			names := a.column("/v1/foods?sort=name&limit=200", "name")
			if !sort.StringsAreSorted(names) {
				t.Fatalf("not by name: %v", names)
			}
			a.get("/v1/foods?sort=name_fr:desc").want(200)
		})
		a.run(t, "update and required fields", func(t *testing.T, a *api) {
			got := a.patch(path("/v1/foods", id), map[string]any{"source": "Supplier specification", "name": nil}).want(200).Data()
			if got["source"] != "Supplier specification" || got["name"] != "Oat milk" {
				t.Fatalf("%v", got)
			}
			a.post("/v1/foods", map[string]any{"name": "x"}).field(400, "VALIDATION_ERROR", "name_fr")
			a.post("/v1/foods", map[string]any{"name": "x", "name_fr": "x", "nutrients": []any{}}).field(400, "VALIDATION_ERROR", "nutrients")
		})
		a.run(t, "shared foods are read-only", func(t *testing.T, a *api) {
			shared := a.get("/v1/foods?search=Honey").want(200).List()[0]
			p := path("/v1/foods", int(shared["id"].(float64)))
			a.patch(p, map[string]any{"name": "x"}).problem(403, "READ_ONLY_RECORD")
			a.del(p).problem(403, "READ_ONLY_RECORD")
		})
		a.run(t, "delete removes it and emits food.deleted", func(t *testing.T, a *api) {
			a.del(path("/v1/foods", id)).want(200)
			a.get(path("/v1/foods", id)).problem(404, "NOT_FOUND")
			n, err := a.st.Client.Event.Query().Where(event.ResourceID(id), event.Type("food.deleted")).Count(policy.System(context.Background()))
			if err != nil || n != 1 {
				t.Fatalf("%d food.deleted events, %v", n, err)
			}
		})
	})
}

// Spec "Read-only reference resources".
func TestReferenceLists(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		a = seeded(t, a)
		a.run(t, "nutrients: unpaginated, by name, search on name, label or exact unit", func(t *testing.T, a *api) {
			all := a.get("/v1/nutrients").want(200)
			rows := all.List()
			page := all.JSON()["pagination"].(map[string]any)
			if len(rows) < 40 || page["total"] != float64(len(rows)) || page["has_more"] != false || all.JSON()["order"] != "name:asc,id:asc" {
				t.Fatalf("%d rows, pagination %v", len(rows), page)
			}
			names := make([]string, len(rows))
			for i, r := range rows {
				names[i] = r["name"].(string)
			}
			if !sort.StringsAreSorted(names) {
				t.Fatalf("not by name: %v", names)
			}
			for _, r := range a.get("/v1/nutrients?search=mg").want(200).List() {
				if r["uom"] != "mg" {
					t.Fatalf("exact unit search returned %v", r)
				}
			}
			if got := a.column("/v1/nutrients?search=Calories", "uom"); !slices.Equal(got, []string{"kcal"}) {
				t.Fatalf("label search %v", got)
			}
			a.get("/v1/nutrients?limit=10").field(400, "VALIDATION_ERROR", "limit")
			major := 0
			for _, r := range rows {
				if r["is_major_nutrient"] == true {
					major++
				}
			}
			if major != 13 {
				t.Fatalf("%d major nutrients", major)
			}
		})
		a.run(t, "QC checkpoints: search not combinable with named filters", func(t *testing.T, a *api) {
			a.get("/v1/qc-checkpoints?search=oven&code=OVEN-TEMP").field(400, "VALIDATION_ERROR", "search")
			got := a.get("/v1/qc-checkpoints?input_type=YES_NO").want(200).List()
			if len(got) != 1 || got[0]["pass_value"] != "YES" || got[0]["is_critical"] != true {
				t.Fatalf("%v", got)
			}
			a.get("/v1/qc-checkpoints?input_type=MAYBE").field(400, "VALIDATION_ERROR", "input_type")
			weight := a.get("/v1/qc-checkpoints?code=WEIGHT").want(200).List()[0]
			unit := a.get(path("/v1/qc-units-of-measure", int(weight["qc_unit_of_measure_id"].(float64)))).want(200).Data()
			if unit["code"] != "G" || unit["is_global"] != true {
				t.Fatalf("unit %v", unit)
			}
		})
		a.run(t, "preservations and QC units are shared and read-only", func(t *testing.T, a *api) {
			got := a.get("/v1/preservations?code=FROZEN").want(200).List()
			if len(got) != 1 || got[0]["name"] == nil {
				t.Fatalf("%v", got)
			}
			a.post("/v1/preservations", map[string]any{"code": "X"}).problem(405, "METHOD_NOT_ALLOWED")
			a.get("/v1/qc-units-of-measure?sort=code&limit=200").want(200)
		})
		a.run(t, "catalog:read is needed", func(t *testing.T, a *api) {
			key := a.org.Key(t, policy.Test, "sales:read")
			for _, p := range []string{"/v1/products", "/v1/foods", "/v1/nutrients", "/v1/countries", "/v1/qc-checkpoints", "/v1/preservations", "/v1/qc-units-of-measure"} {
				a.do("GET", p, key, nil).problem(403, "INSUFFICIENT_SCOPE")
			}
		})
	})
}
