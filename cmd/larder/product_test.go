package main

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"larder.dev/larder/ent/account"
	"larder.dev/larder/ent/event"
	"larder.dev/larder/ent/product"
	"larder.dev/larder/ent/productlot"
	"larder.dev/larder/ent/stockmovement"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/restapi"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

// appEvents counts the outbox events of type typ with source app in
// organization org's accounts (other tests share the PostgreSQL database).
func appEvents(t *testing.T, db, org, typ string) int {
	t.Helper()
	orgID, err := strconv.Atoi(org)
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(context.Background(), db, store.Options{Snapshots: restapi.Snapshots{}})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	n, err := st.Client.Event.Query().Where(event.Type(typ), event.SourceEQ(event.SourceApp), event.HasAccountWith(account.OrganizationID(orgID))).Count(policy.System(context.Background()))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// docs/operators.md, "Catalog data": product import round-trips a file exported
// from the test account;
// every bad line is reported and nothing of a bad file is imported.
func TestProductImportExport(t *testing.T) {
	t.Parallel()
	for _, b := range dbtest.Backends(t) {
		t.Run(string(b), func(t *testing.T) {
			db := dbtest.MigratedURL(t, b)
			org := strconv.Itoa(int(cli(t, db, "org", "create", "--name", "Bakery")["id"].(float64)))
			dir := t.TempDir()
			for _, format := range []string{"jsonl", "csv"} {
				file := filepath.Join(dir, "products."+format)
				out := cli(t, db, "product", "export", "--org", org, "--env", "test", "--out", file)
				if out["exported"].(float64) < 20 || out["format"] != format {
					t.Fatalf("export %v", out)
				}
				got := cli(t, db, "product", "import", "--org", org, "--env", "test", file)
				if got["unchanged"] != out["exported"] || got["created"] != 0.0 || got["updated"] != 0.0 {
					t.Fatalf("%s round trip: %v after exporting %v", format, got, out["exported"])
				}
			}
			file := filepath.Join(dir, "products.jsonl")
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			// A recipe's routing is exported in order, with its equipment.
			if want := `"routing":["BAKE@OVEN-01","PACK@MD-01","PACK"]`; !strings.Contains(string(data), want) {
				t.Fatalf("the export lacks the cookie box's routing %s", want)
			}
			edited := strings.Replace(string(data), `"name":"Rolled oats"`, `"name":"Rolled oats, large flake"`, 1)
			edited += `{"product_code":"RM-SPELT","name":"Spelt flour","product_type":"RAW_MATERIAL","unit_of_measure":"kg","cost":2.5,"allergens":[{"allergen":"WHEAT"}],"substitutes":["RM-FLOUR"]}` + "\n"
			if err := os.WriteFile(file, []byte(edited), 0o644); err != nil {
				t.Fatal(err)
			}
			got := cli(t, db, "product", "import", "--org", org, "--env", "test", file)
			if got["created"] != 1.0 || got["updated"] != 1.0 {
				t.Fatalf("import after edits: %v", got)
			}
			if n := appEvents(t, db, org, "product.created"); n != 1 {
				t.Fatalf("%d product.created events with source app", n)
			}
			if n := appEvents(t, db, org, "product.updated"); n != 1 {
				t.Fatalf("%d product.updated events with source app", n)
			}

			bad := filepath.Join(dir, "bad.jsonl")
			body := `{"product_code":"NEW-1","product_type":"RAW_MATERIAL"}
{"product_code":"NEW-2","product_type":"BREAD"}
not json
{"product_code":"NEW-1","product_type":"RECIPE","food":"Nothing"}
{"product_code":"NEW-3","product_type":"RECIPE","cost":-1,"unit_of_measure":"zz","extra":1}
{"product_code":"NEW-4","product_type":"RECIPE","routing":["NOPE","MIX@NOPE"]}
{"product_code":"NEW-5","product_type":"RAW_MATERIAL","routing":["MIX"]}
`
			if err := os.WriteFile(bad, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
			var outb, errb strings.Builder
			err = run(context.Background(), []string{"product", "import", "--org", org, "--env", "test", bad, "--database", db}, &outb, &errb)
			if err == nil {
				t.Fatal("a bad file was imported")
			}
			for _, want := range []string{"line 2: product_type", "line 3: not a product object", "line 4: product_code", "line 4: food", "line 5: not a product object",
				"line 6: routing[0]: no operation", "line 6: routing[1]: no equipment", "line 7: routing: is a recipe field", "nothing was imported"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("report lacks %q:\n%v", want, err)
				}
			}
			fails(t, db, "no product with product_code", "product", "delete", "--org", org, "--env", "test", "--code", "NEW-1")
			// A line that does not parse refuses the file though every other
			// record is fine.
			if err := os.WriteFile(bad, []byte(`{"product_code":"NEW-1","product_type":"RAW_MATERIAL"}`+"\n{\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			fails(t, db, "line 2: not a product object", "product", "import", "--org", org, "--env", "test", bad)
			fails(t, db, "no product with product_code", "product", "delete", "--org", org, "--env", "test", "--code", "NEW-1")
			if n := appEvents(t, db, org, "product.created"); n != 1 {
				t.Fatalf("a refused file wrote events: %d", n)
			}

			// A routing is replaced whole, in the order given.
			var crumbs string
			for _, l := range strings.Split(string(data), "\n") {
				if strings.Contains(l, `"product_code":"RC-CRUMBS"`) {
					crumbs = l
				}
			}
			if crumbs == "" || !strings.Contains(crumbs, `"routing":null`) {
				t.Fatalf("RC-CRUMBS without routing not found in the export: %q", crumbs)
			}
			routed := filepath.Join(dir, "routed.jsonl")
			line := strings.Replace(crumbs, `"routing":null`, `"routing":["PROOF","BAKE@OVEN-02","MIX"]`, 1)
			if err := os.WriteFile(routed, []byte(line+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if got := cli(t, db, "product", "import", "--org", org, "--env", "test", routed); got["updated"] != 1.0 {
				t.Fatalf("routing import: %v", got)
			}
			if got := cli(t, db, "product", "import", "--org", org, "--env", "test", routed); got["unchanged"] != 1.0 {
				t.Fatalf("the same routing again: %v", got)
			}
			reordered := strings.Replace(line, `["PROOF","BAKE@OVEN-02","MIX"]`, `["MIX","BAKE@OVEN-02","PROOF"]`, 1)
			if err := os.WriteFile(routed, []byte(reordered+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if got := cli(t, db, "product", "import", "--org", org, "--env", "test", routed); got["updated"] != 1.0 {
				t.Fatalf("a reordered routing is a change: %v", got)
			}
			cli(t, db, "product", "export", "--org", org, "--env", "test", "--out", routed)
			if again, _ := os.ReadFile(routed); !strings.Contains(string(again), `"routing":["MIX","BAKE@OVEN-02","PROOF"]`) {
				t.Fatal("the export does not hold the imported routing in its order")
			}

			del := cli(t, db, "product", "delete", "--org", org, "--env", "test", "--code", "RM-SPELT")
			if del["is_deleted"] != true || appEvents(t, db, org, "product.deleted") != 1 {
				t.Fatalf("delete %v", del)
			}
			fails(t, db, "no product with product_code", "product", "delete", "--org", org, "--env", "test", "--code", "RM-SPELT")

			// The live account has none of the test account's reference rows:
			// the file is refused as a whole, naming each line.
			fails(t, db, "no PRODUCT tag named", "product", "import", "--org", org, "--env", "live", filepath.Join(dir, "products.csv"))

			seeded := cli(t, db, "seed", "--org", org, "--env", "test", "--scale", "3")
			if seeded["rows"].(float64) < 300 || seeded["rows_per_second"] == nil {
				t.Fatalf("seed %v", seeded)
			}
			fails(t, db, "--env test", "seed", "--org", org, "--env", "live", "--scale", "1")
			scaledStock(t, db, org)
			after := cli(t, db, "product", "export", "--org", org, "--env", "test", "--out", filepath.Join(dir, "after.csv"))
			if after["exported"].(float64) < 4*out(t, dir) {
				t.Fatalf("after scaling %v", after)
			}
		})
	}
}

// out counts the products of the first export.
func out(t *testing.T, dir string) float64 {
	data, err := os.ReadFile(filepath.Join(dir, "products.csv"))
	if err != nil {
		t.Fatal(err)
	}
	return float64(strings.Count(string(data), "\n") - 1)
}

// scaledStock checks the lots seed --scale wrote: four per copied product,
// each with the PRODUCT_FORM movement of its whole quantity.
func scaledStock(t *testing.T, db, org string) {
	t.Helper()
	st, err := store.Open(context.Background(), db, store.Options{Snapshots: restapi.Snapshots{}})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	id, _ := strconv.Atoi(org)
	sys := policy.System(context.Background())
	acct, err := st.Client.Account.Query().Where(account.OrganizationID(id), account.EnvironmentEQ(account.EnvironmentTest)).Only(sys)
	if err != nil {
		t.Fatal(err)
	}
	lots, err := st.Client.ProductLot.Query().
		Where(productlot.AccountID(acct.ID), productlot.HasProductWith(product.ProductCodeContains("-S00003"))).
		WithMovements().
		All(sys)
	if err != nil {
		t.Fatal(err)
	}
	products, err := st.Client.Product.Query().Where(product.AccountID(acct.ID), product.ProductCodeContains("-S00003")).Count(sys)
	if err != nil || products == 0 || len(lots) != 4*products {
		t.Fatalf("%d lots for %d products of the third copy (%v), want 4 each", len(lots), products, err)
	}
	for _, l := range lots {
		if len(l.Edges.Movements) != 1 || !l.Edges.Movements[0].QuantityBase.Equal(l.QuantityBase) || l.Edges.Movements[0].Type != stockmovement.TypePRODUCT_FORM {
			t.Fatalf("lot %d holds %s with movements %v", l.ID, l.QuantityBase, l.Edges.Movements)
		}
	}
}
