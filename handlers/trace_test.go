package handlers_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"larder.dev/larder/ent/stockmovement"
	"larder.dev/larder/policy"
)

// GET /v1/product-lots/{lot_id}/trace: a lot created through the API and
// shipped in part, traced from its lot and answered whole; the parameters'
// bounds; another account's lot; the scope.
func TestTraceProductLot(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		a = seeded(t, a)
		sugar := a.productID("RM-SUGAR")
		lot := a.lot(sugar, "TR-SU-1", 1000, nil)
		cust := a.customerFor("TRACED")
		so := a.post("/v1/sales-orders", map[string]any{"customer_id": cust, "order_date": "2026-11-20", "lines": []any{
			sold(sugar, 500, "price", 0.002),
		}}).want(201)
		line := so.Data()["lines"].([]any)[0].(map[string]any)["id"]
		sh := a.post(fmt.Sprintf("/v1/sales-orders/%d/shipments", so.ID()), map[string]any{"ship_date": "2026-11-21",
			"lines": []any{shipLine(line, 200, "lot_id", lot)}}).want(201).Data()
		shipID, invID := int(sh["id"].(float64)), int(sh["invoice_id"].(float64))
		invNo := a.get(path("/v1/invoices", invID)).want(200).Data()["invoice_no"]
		orderNo := so.Data()["sales_order_no"]
		ctx := a.org.Ctx(policy.Test)
		mvs := a.st.Client.StockMovement.Query().Where(stockmovement.LotID(lot)).Order(stockmovement.ByID()).AllX(ctx)
		if len(mvs) != 2 || mvs[0].Type != stockmovement.TypePRODUCT_FORM || mvs[1].Type != stockmovement.TypeSHIPPING {
			t.Fatalf("movements of the lot: %v", mvs)
		}
		at := func(i int) string { return mvs[i].CreatedAt.UTC().Truncate(time.Second).Format(time.RFC3339) }
		lotJSON := fmt.Sprintf(`{"id": %d, "product_id": %d, "product_code": "RM-SUGAR", "product_name": "Granulated sugar", "unit_code": "g",
			"lot_number": "TR-SU-1", "expiration_date": null, "qc_status": "AVAILABLE", "quantity_base": 800,
			"location_id": null, "location_code": null, "location_name": null, "archived": false}`, lot, sugar)
		shipmentJSON := fmt.Sprintf(`{"id": %d, "ship_date": "2026-11-21", "tracking_number": null, "sales_order_id": %d, "sales_order_no": %v,
			"invoice_id": %d, "invoice_no": %v, "customer_id": %d, "customer_name": "TRACED Foods"}`, shipID, so.ID(), orderNo, invID, invNo, cust)
		want := fmt.Sprintf(`{"data": {"lot_id": %[1]d, "direction": "both", "depth": 20, "truncated": false,
			"nodes": [
				{"id": "origin-created-%[2]d", "kind": "origin", "level": -1, "lot": null, "production": null, "bill": null, "shipment": null,
				 "origin": {"kind": "created", "source": "api", "at": %[3]q}},
				{"id": "lot-%[1]d", "kind": "lot", "level": 0, "lot": %[4]s, "production": null, "bill": null, "shipment": null, "origin": null},
				{"id": "shipment-%[5]d", "kind": "shipment", "level": 1, "lot": null, "production": null, "bill": null, "shipment": %[6]s, "origin": null}
			],
			"edges": [
				{"from": "origin-created-%[2]d", "to": "lot-%[1]d", "quantity_base": 1000, "date": %[3]q},
				{"from": "lot-%[1]d", "to": "shipment-%[5]d", "quantity_base": 200, "date": %[7]q}
			],
			"recall": {
				"lots": [%[4]s],
				"customers": [{"customer_id": %[8]d, "customer_name": "TRACED Foods", "shipments": [{"shipment_id": %[5]d, "ship_date": "2026-11-21",
					"sales_order_id": %[9]d, "sales_order_no": %[10]v, "invoice_id": %[11]d, "invoice_no": %[12]v,
					"lots": [{"lot_id": %[1]d, "lot_number": "TR-SU-1", "product_id": %[13]d, "product_name": "Granulated sugar", "quantity_base": 200}]}]}],
				"suppliers": []
			}}}`, lot, mvs[0].ID, at(0), lotJSON, shipID, shipmentJSON, at(1), cust, so.ID(), orderNo, invID, invNo, sugar)
		var w, got any
		if err := json.Unmarshal([]byte(want), &w); err != nil {
			t.Fatal(err)
		}
		r := a.get(fmt.Sprintf("/v1/product-lots/%d/trace", lot)).want(200)
		if err := json.Unmarshal([]byte(r.Body), &got); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(w, got); diff != "" {
			t.Errorf("trace (-want +got):\n%s", diff)
		}
		// One way only: backward keeps the origin, forward the shipment.
		back := a.get(fmt.Sprintf("/v1/product-lots/%d/trace?direction=backward&depth=1", lot)).want(200).Data()
		fwd := a.get(fmt.Sprintf("/v1/product-lots/%d/trace?direction=forward&depth=50", lot)).want(200).Data()
		if n := len(back["nodes"].([]any)); n != 2 || back["direction"] != "backward" || back["depth"] != float64(1) {
			t.Errorf("backward: %d nodes, %v", n, back)
		}
		if n := len(fwd["nodes"].([]any)); n != 2 || len(fwd["recall"].(map[string]any)["customers"].([]any)) != 1 {
			t.Errorf("forward: %d nodes, %v", n, fwd)
		}
		for q, field := range map[string]string{"depth=0": "depth", "depth=51": "depth", "direction=sideways": "direction", "depth=x": "depth"} {
			a.get(fmt.Sprintf("/v1/product-lots/%d/trace?%s", lot, q)).field(400, "VALIDATION_ERROR", field)
		}
		a.get("/v1/product-lots/0/trace").field(400, "VALIDATION_ERROR", "lot_id")
		a.get(fmt.Sprintf("/v1/product-lots/%d/trace", lot+1000000)).problem(404, "NOT_FOUND")
		// Another organization's key sees no such lot.
		other := newAPI(t, a.st)
		other.get(fmt.Sprintf("/v1/product-lots/%d/trace", lot)).problem(404, "NOT_FOUND")
		// inventory:read is the scope.
		key := a.org.Key(t, policy.Test, "sales:read")
		a.do("GET", fmt.Sprintf("/v1/product-lots/%d/trace", lot), key, nil).problem(403, "INSUFFICIENT_SCOPE")
		key = a.org.Key(t, policy.Test, "inventory:read")
		a.do("GET", fmt.Sprintf("/v1/product-lots/%d/trace", lot), key, nil).want(200)
	})
}
