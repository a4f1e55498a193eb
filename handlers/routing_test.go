package handlers_test

import (
	"net/url"
	"testing"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/productionoperation"
	"larder.dev/larder/ent/recipestep"
	"larder.dev/larder/internal/modules/manufacturing"
	"larder.dev/larder/policy"
)

// idByCode is the id of the row of collection whose code is code.
func (a *api) idByCode(collection, code string) int {
	a.t.Helper()
	for _, r := range a.get(collection + "?code=" + url.QueryEscape(code)).want(200).List() {
		if r["code"] == code {
			return int(r["id"].(float64))
		}
	}
	a.t.Fatalf("no %s with code %s", collection, code)
	return 0
}

// Spec "Reference resources with writes": an operation is 409 IN_USE while a
// recipe step or run uses it, equipment while a line or run uses it; a
// deleted (soft) line no longer uses its equipment. Runs copy their recipe's
// routing when planned, so a run keeps its operations and equipment in use
// after the recipe changes.
func TestRoutingInUse(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		a = seeded(t, a)
		ctx := a.org.Ctx(policy.Test)
		bars := a.productID("RC-BAR")
		// step gives the recipe a routing step and returns a function that removes it.
		step := func(t *testing.T, product, position, op int, eq *int) func() {
			t.Helper()
			s, err := a.st.Client.RecipeStep.Create().
				SetAccountID(a.org.Test.ID).
				SetProductID(product).
				SetPosition(position).
				SetOperationID(op).
				SetNillableEquipmentID(eq).
				Save(ctx)
			if err != nil {
				t.Fatal(err)
			}
			return func() {
				t.Helper()
				if err := a.st.Client.RecipeStep.DeleteOne(s).Exec(ctx); err != nil {
					t.Fatal(err)
				}
			}
		}
		plan := func(t *testing.T, product int) int {
			t.Helper()
			var id int
			err := ent.RunInTx(ctx, a.st.Client, func(tx *ent.Tx) error {
				run, err := manufacturing.Create(ctx, tx, manufacturing.Plan{ProductID: product})
				if err == nil {
					id = run.ID
				}
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			return id
		}

		a.run(t, "the seeded account has operations and equipment in use and free", func(t *testing.T, a *api) {
			for _, code := range []string{"MIX", "BAKE", "PACK"} {
				a.del(path("/v1/operations", a.idByCode("/v1/operations", code))).problem(409, "IN_USE")
			}
			for _, code := range []string{"MIX-01", "OVEN-01", "OVEN-02", "FLOW-01", "MD-01", "DEP-01"} {
				a.del(path("/v1/equipment", a.idByCode("/v1/equipment", code))).problem(409, "IN_USE")
			}
			a.del(path("/v1/operations", a.idByCode("/v1/operations", "PROOF"))).want(200)
			a.del(path("/v1/equipment", a.idByCode("/v1/equipment", "SCALE-P1"))).want(200)
		})

		a.run(t, "an operation a recipe step uses is in use until the step goes", func(t *testing.T, a *api) {
			op := a.post("/v1/operations", map[string]any{"code": "R-OP", "name": "Cutting"}).want(201).ID()
			remove := step(t, bars, 90, op, nil)
			a.del(path("/v1/operations", op)).problem(409, "IN_USE")
			a.get(path("/v1/operations", op)).want(200)
			remove()
			a.del(path("/v1/operations", op)).want(200)
		})

		a.run(t, "a run keeps its recipe's operation and equipment in use", func(t *testing.T, a *api) {
			op := a.post("/v1/operations", map[string]any{"code": "RUN-OP", "name": "Slicing"}).want(201).ID()
			eq := a.post("/v1/equipment", map[string]any{"code": "RUN-EQ", "name": "Slicer"}).want(201).ID()
			remove := step(t, bars, 91, op, &eq)
			id := plan(t, bars)
			remove()
			a.del(path("/v1/operations", op)).problem(409, "IN_USE")
			a.del(path("/v1/equipment", eq)).problem(409, "IN_USE")
			// The run's routing is the recipe's, in order, as it stood.
			want, err := a.st.Client.RecipeStep.Query().Where(recipestep.ProductID(bars)).Order(recipestep.ByPosition()).All(ctx)
			if err != nil {
				t.Fatal(err)
			}
			got, err := a.st.Client.ProductionOperation.Query().Where(productionoperation.ProductionID(id)).Order(productionoperation.ByPosition()).All(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want)+1 {
				t.Fatalf("the run has %d routing steps, want the recipe's %d plus the removed one", len(got), len(want))
			}
			for i, s := range want {
				if got[i].Position != i+1 || got[i].OperationID != s.OperationID || !equalIntPtr(got[i].EquipmentID, s.EquipmentID) {
					t.Fatalf("run step %d = %+v, want the recipe's %+v", i, got[i], s)
				}
			}
			if last := got[len(got)-1]; last.OperationID != op || last.EquipmentID == nil || *last.EquipmentID != eq {
				t.Fatalf("last run step = %+v, want operation %d on equipment %d", last, op, eq)
			}
		})

		a.run(t, "equipment a line uses is in use until the line is deleted", func(t *testing.T, a *api) {
			eq := a.post("/v1/equipment", map[string]any{"code": "LINE-EQ", "name": "Depositor"}).want(201).ID()
			line := a.post("/v1/production-lines", map[string]any{"name": "Routing line"}).want(201).ID()
			err := a.st.Client.ProductionLineEquipment.Create().
				SetAccountID(a.org.Test.ID).
				SetProductionLineID(line).
				SetEquipmentID(eq).
				Exec(ctx)
			if err != nil {
				t.Fatal(err)
			}
			a.del(path("/v1/equipment", eq)).problem(409, "IN_USE")
			a.patch(path("/v1/production-lines", line), map[string]any{"description": "still in use"}).want(200)
			a.del(path("/v1/equipment", eq)).problem(409, "IN_USE")
			a.del(path("/v1/production-lines", line)).want(200)
			a.del(path("/v1/equipment", eq)).want(200)
		})

		a.run(t, "a run of a product without routing uses no operation", func(t *testing.T, a *api) {
			id := plan(t, a.productID("RC-CRUMBS"))
			n, err := a.st.Client.ProductionOperation.Query().Where(productionoperation.ProductionID(id)).Count(ctx)
			if err != nil || n != 0 {
				t.Fatalf("%d routing steps (%v), want none", n, err)
			}
		})
	})
}

// equalIntPtr says whether two optional ids are equal.
func equalIntPtr(a, b *int) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}
