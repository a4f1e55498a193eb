package handlers_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/event"
	"larder.dev/larder/internal/generators/access"
	"larder.dev/larder/internal/modules/catalog"
	"larder.dev/larder/internal/platform/config"
	"larder.dev/larder/policy"
)

// The snapshot of an event holds the record's top-level fields as a read
// just after the change shows them, borrowed fields (a lot's product code,
// its location's name), groups (a product's material or recipe) and the
// arrays of a single retrieval (a product's allergens, a production's steps)
// included, without lines and without cost fields. For every resource that
// emits events (the generated event table), writes through the API with a
// key holding every scope but cost:read, and the app actions where the API
// does not write, and each event's snapshot is compared with the GET of its
// record: every value equal, every field left out either a cost field (null
// in the GET) or lines.
func TestSnapshotsAreTheRecord(t *testing.T) {
	report, err := access.Build()
	if err != nil {
		t.Fatal(err)
	}
	paths, costs := map[string]string{}, map[string][]string{}
	for _, e := range report.Entities {
		paths[e.Name], costs[e.Name] = e.Path, e.CostFields
	}
	typeOf := map[string]string{} // resource → ent type
	for typ, res := range ent.EventResources {
		if res.Parent == "" {
			typeOf[res.Name] = typ
		}
	}
	run(t, func(t *testing.T, a *api) {
		a = seeded(t, a)
		var scopes []string
		for _, s := range policy.Known() {
			if s != policy.CostRead {
				scopes = append(scopes, string(s))
			}
		}
		a.key = a.org.Key(t, policy.Test, strings.Join(scopes, ","))
		sys := policy.System(context.Background())
		last, checked := 0, map[string]int{}

		// compare checks the events written since the last call, each
		// record's latest, against the record read now.
		compare := func(t *testing.T, what string) {
			t.Helper()
			evs := a.st.Client.Event.Query().Where(event.AccountID(a.org.Test.ID), event.IDGT(last)).Order(event.ByID()).AllX(sys)
			if len(evs) == 0 {
				t.Fatalf("%s wrote no event", what)
			}
			latest := map[string]*ent.Event{}
			var order []string
			for _, e := range evs {
				k := e.ResourceType + "/" + strconv.Itoa(e.ResourceID)
				if latest[k] == nil {
					order = append(order, k)
				}
				latest[k], last = e, e.ID
			}
			for _, k := range order {
				e := latest[k]
				typ := typeOf[e.ResourceType]
				path := paths[typ]
				if path == "" {
					t.Fatalf("%s: no path serves %s (%q)", what, e.ResourceType, typ)
				}
				var snap map[string]any
				if err := json.Unmarshal(e.Snapshot, &snap); err != nil {
					t.Fatal(err)
				}
				got := a.get(fmt.Sprintf("%s/%d", path, e.ResourceID)).want(200).Data()
				for f, v := range snap {
					want, ok := got[f]
					if !ok {
						t.Errorf("%s %s: snapshot field %s is not the record's", what, e.Type, f)
					} else if diff := cmpDiff(want, v); diff != "" {
						t.Errorf("%s %s %d: %s (-record +snapshot):\n%s", what, e.Type, e.ResourceID, f, diff)
					}
				}
				for f, v := range got {
					if _, ok := snap[f]; ok {
						continue
					}
					switch {
					case slices.Contains(costs[typ], f):
						if v != nil {
							t.Errorf("%s: cost field %s.%s shown without cost:read: %v", what, typ, f, v)
						}
					case f != "lines":
						t.Errorf("%s %s: the snapshot lacks %s (%v)", what, e.Type, f, v)
					}
				}
				for _, f := range costs[typ] {
					if _, ok := snap[f]; ok {
						t.Errorf("%s %s: the snapshot holds cost field %s", what, e.Type, f)
					}
				}
				checked[e.ResourceType]++
				switch e.ResourceType {
				case "product_lot":
					for _, f := range []string{"product_code", "product_name", "unit_of_measure_id", "uom_base_id", "uom_qty",
						"uom_base_conversion", "location_code", "location_name"} {
						if snap[f] == nil {
							t.Errorf("%s %s %d: borrowed %s is null", what, e.Type, e.ResourceID, f)
						}
					}
				case "product":
					if snap[snap["kind"].(string)] == nil {
						t.Errorf("%s %s %d: %s is null", what, e.Type, e.ResourceID, snap["kind"])
					}
				}
			}
		}
		write := func(what, method, path string, body any, status int) map[string]any {
			t.Helper()
			d := a.do(method, path, a.key, body).want(status).Data()
			compare(t, what)
			return d
		}
		id := func(d map[string]any) int { return int(d["id"].(float64)) }

		flour := a.productID("RM-FLOUR")
		write("tag", "POST", "/v1/tags", map[string]any{"name": "Snap", "ref_type": "PRODUCT"}, 201)
		unit := id(write("unit", "POST", "/v1/units-of-measure", map[string]any{"code": "snp", "name": "Snap", "weight_in_grams": 1}, 201))
		write("unit update", "PATCH", path("/v1/units-of-measure", unit), map[string]any{"name": "Snapped"}, 200)
		write("allergen", "POST", "/v1/allergens", map[string]any{"name": "Snap", "name_fr": "Snap"}, 201)
		site, area := a.warehouseWithArea("SNAP")
		compare(t, "warehouse")
		write("operation", "POST", "/v1/operations", map[string]any{"code": "SNAP", "name": "Snap"}, 201)
		write("equipment", "POST", "/v1/equipment", map[string]any{"code": "SNAP", "name": "Snap", "warehouse_id": site}, 201)
		write("food", "POST", "/v1/foods", map[string]any{"name": "Oat milk", "name_fr": "Boisson d'avoine"}, 201)
		write("production line", "POST", "/v1/production-lines", map[string]any{"name": "Snap line", "warehouse_id": site}, 201)
		supplier := id(write("supplier", "POST", "/v1/suppliers", map[string]any{"supplier_code": "SNAP", "company": "Snap"}, 201))
		write("supplier update", "PATCH", path("/v1/suppliers", supplier), map[string]any{"company": "Snapped"}, 200)
		customer := id(write("customer", "POST", "/v1/customers", map[string]any{"customer_code": "SNAP", "company": "Snap"}, 201))
		lot := id(write("lot", "POST", "/v1/product-lots", map[string]any{"product_id": flour, "lot_number": "SNAP-1",
			"location_id": area, "quantity_base": 100}, 201))
		write("lot update", "PATCH", path("/v1/product-lots", lot), map[string]any{"quantity_base": 150}, 200)
		write("lot archive", "POST", path("/v1/product-lots", lot)+"/archive", nil, 200)
		mill := a.get("/v1/suppliers?supplier_code=MILL").want(200).List()[0]
		write("purchase order", "POST", "/v1/purchase-orders", map[string]any{"supplier_id": mill["id"],
			"lines": []any{line(flour, 2)}}, 201)
		write("bill", "POST", "/v1/bills", map[string]any{"supplier_id": mill["id"], "bill_date": "2026-11-02",
			"lines": []any{line(flour, 1, "lot_number", "SNAP-B", "location_id", area)}}, 201)
		order := write("sales order", "POST", "/v1/sales-orders", map[string]any{"customer_id": customer,
			"lines": []any{map[string]any{"product_id": flour, "order_qty": 1}}}, 201)
		orderLine := id(order["lines"].([]any)[0].(map[string]any))
		write("shipment", "POST", path("/v1/sales-orders", id(order))+"/shipments", map[string]any{
			"lines": []any{map[string]any{"sales_order_line_id": orderLine, "quantity_base": 1}}}, 201)
		prod := a.floorRun(t, "PLANNED", false)
		compare(t, "production (app)")
		write("production status", "POST", path("/v1/productions", prod)+"/status", map[string]any{"status": "ON_HOLD"}, 200)

		// Products are written by the catalog import (an app action), which
		// writes each product's row before its links.
		app := a.org.Ctx(policy.Test)
		var file bytes.Buffer
		w, err := catalog.NewWriter(&file, catalog.JSONLines)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := catalog.Export(app, a.st.Client, w); err != nil {
			t.Fatal(err)
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		lines, problems := catalog.Read(&file, catalog.JSONLines)
		if len(problems) > 0 {
			t.Fatal(problems)
		}
		for i := range lines {
			d := "Reimported"
			lines[i].R.Description = &d
			// A changed link: the snapshot shows the links as the import
			// left them, though it writes them after the product's row.
			switch lines[i].R.ProductType {
			case "RAW_MATERIAL", "PACKAGING", "MISCELLANEOUS":
				if !slices.Contains(lines[i].R.BannedCountries, "CA") {
					lines[i].R.BannedCountries = append(lines[i].R.BannedCountries, "CA")
				}
				lines[i].R.Suppliers = nil
			default:
				lines[i].R.QCCheckpoints = nil
			}
		}
		if res, err := catalog.Import(app, a.st.Client, lines, nil); err != nil || res.Updated != len(lines) {
			t.Fatalf("import: %+v, %v", res, err)
		}
		compare(t, "catalog import")

		for res := range typeOf {
			if checked[res] == 0 {
				t.Errorf("no write here emits a %s event to compare: add one", res)
			}
		}
	}, func(c *config.Config) { c.RateLimit = 1 << 20 })
}
