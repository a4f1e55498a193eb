package handlers_test

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/event"
	"larder.dev/larder/ent/production"
	"larder.dev/larder/internal/modules/manufacturing"
	"larder.dev/larder/policy"
)

// allStatuses are the seven statuses of a run, from the spec.
var allStatuses = []string{"PLANNED", "IN_PROGRESS", "IN_PROGRESS_TRANSFORMATION", "COMPLETED", "CANCELLED", "ON_HOLD", "QUARANTINE"}

// floorRun makes a run of the seeded cookie product in status as the floor
// would (the web application's workflows), signed when asked, and returns
// its id.
func (a *api) floorRun(t *testing.T, status string, signed bool) int {
	t.Helper()
	ctx := a.org.Ctx(policy.Test)
	product := a.productID("FG-COOKIE12")
	var id int
	err := ent.RunInTx(ctx, a.st.Client, func(tx *ent.Tx) error {
		q := decimal.NewFromInt(2)
		lot := fmt.Sprintf("T-%d", time.Now().UnixNano())
		run, err := manufacturing.Create(ctx, tx, manufacturing.Plan{ProductID: product, Quantity: &q, LotNumber: &lot})
		if err != nil {
			return err
		}
		id = run.ID
		now := time.Now()
		steps := map[string][]production.Status{
			"PLANNED":                    nil,
			"IN_PROGRESS":                {production.StatusIN_PROGRESS},
			"IN_PROGRESS_TRANSFORMATION": {production.StatusIN_PROGRESS, production.StatusIN_PROGRESS_TRANSFORMATION},
			"COMPLETED":                  {production.StatusIN_PROGRESS, production.StatusCOMPLETED},
			"CANCELLED":                  {production.StatusCANCELLED},
			"ON_HOLD":                    {production.StatusON_HOLD},
			"QUARANTINE":                 {production.StatusQUARANTINE},
		}[status]
		for _, to := range steps {
			switch to {
			case production.StatusIN_PROGRESS:
				_, err = manufacturing.Start(ctx, tx, id, now)
			case production.StatusCOMPLETED:
				_, err = manufacturing.Complete(ctx, tx, id, manufacturing.Completion{}, now)
			default:
				err = tx.Production.UpdateOneID(id).SetStatus(to).Exec(ctx)
			}
			if err != nil {
				return fmt.Errorf("to %s: %w", to, err)
			}
		}
		if signed {
			// A lock set in any state: the machine must refuse every move.
			return tx.Production.UpdateOneID(id).SetSigned(true).Exec(ctx)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("run in %s: %v", status, err)
	}
	return id
}

// Spec "Productions" and States, Production run: lists, filters and sorts
// over the seeded runs, every status move of the table, events, isolation
// and scopes.
func TestProductions(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		a = seeded(t, a)
		byLot := map[string]map[string]any{}
		for _, r := range a.get("/v1/productions?limit=200").want(200).List() {
			byLot[r["lot_number"].(string)] = r
		}
		id := func(lot string) int {
			r, ok := byLot[lot]
			if !ok {
				t.Fatalf("no seeded run %s", lot)
			}
			return int(r["id"].(float64))
		}
		lots := func(q string) []string {
			var out []string
			for _, r := range a.get("/v1/productions?limit=200&" + q).want(200).List() {
				out = append(out, r["lot_number"].(string))
			}
			sort.Strings(out)
			return out
		}

		a.run(t, "the seeded runs cover every status, numbered 1..n without gaps", func(t *testing.T, a *api) {
			seen := map[string]bool{}
			var nos []int
			for _, r := range byLot {
				seen[r["status"].(string)] = true
				nos = append(nos, int(r["production_no"].(float64)))
			}
			for _, s := range allStatuses {
				if !seen[s] {
					t.Errorf("no seeded run is %s", s)
				}
			}
			sort.Ints(nos)
			for i, n := range nos {
				if n != i+1 {
					t.Fatalf("production numbers %v, want 1..%d", nos, len(nos))
				}
			}
		})
		a.run(t, "steps are null in lists and present on single retrieval", func(t *testing.T, a *api) {
			for _, r := range a.get("/v1/productions").want(200).List() {
				for _, k := range []string{"planned_steps", "consumed_steps"} {
					if v, ok := r[k]; !ok || v != nil {
						t.Fatalf("list row %v: %s = %v, want null", r["id"], k, v)
					}
				}
			}
			done := a.get(path("/v1/productions", id("CK-2611-30"))).want(200).Data()
			planned, _ := done["planned_steps"].([]any)
			consumed, _ := done["consumed_steps"].([]any)
			if len(planned) != 3 || len(consumed) == 0 {
				t.Fatalf("completed run: planned %v consumed %v", done["planned_steps"], done["consumed_steps"])
			}
			for _, s := range planned {
				if s.(map[string]any)["lot_id"] != nil || s.(map[string]any)["product_id"] == nil {
					t.Errorf("planned step %v: lot_id set or product_id missing", s)
				}
			}
			for _, s := range consumed {
				if s.(map[string]any)["lot_id"] == nil || s.(map[string]any)["quantity_base"] == nil {
					t.Errorf("consumed step %v: lot_id or quantity missing", s)
				}
			}
			if done["produced_qty_display_units"] != float64(20) || done["end_date"] == nil || done["start_date"] == nil {
				t.Errorf("completed run %v", done)
			}
			for _, k := range []string{"signed", "account_id", "created_at"} {
				if _, ok := done[k]; ok {
					t.Errorf("hidden field %s is served", k)
				}
			}
			planOnly := a.get(path("/v1/productions", id("CK-2611-40"))).want(200).Data()
			if p, _ := planOnly["planned_steps"].([]any); len(p) != 2 || planOnly["consumed_steps"] == nil || len(planOnly["consumed_steps"].([]any)) != 0 {
				t.Fatalf("planned run: %v / %v", planOnly["planned_steps"], planOnly["consumed_steps"])
			}
		})
		a.run(t, "filters", func(t *testing.T, a *api) {
			bar := a.productID("FG-BAR6")
			var line int
			for _, l := range a.get("/v1/production-lines?name=" + url.QueryEscape("Bar line")).want(200).List() {
				line = int(l["id"].(float64))
			}
			no := int(byLot["BR-2611-41"]["production_no"].(float64))
			cases := []struct {
				name, query string
				want        []string
			}{
				{"status, repeated", "status=ON_HOLD&status=QUARANTINE", []string{"BR-2611-41", "CK-2611-42"}},
				{"status, once", "status=CANCELLED", []string{"BR-2611-42"}},
				{"product_id", fmt.Sprintf("product_id=%d", bar), []string{"BR-2611-30", "BR-2611-40", "BR-2611-41", "BR-2611-42"}},
				{"production_line_id", fmt.Sprintf("production_line_id=%d", line), []string{"BR-2611-30", "BR-2611-40", "BR-2611-41", "BR-2611-42"}},
				{"lot_number", "lot_number=CK-2611-30", []string{"CK-2611-30"}},
				{"search, lot number", "search=ck-2611-4", []string{"CK-2611-40", "CK-2611-41", "CK-2611-42"}},
				{"search, production number", fmt.Sprintf("search=%d", no+100), nil},
				{"filters combine", fmt.Sprintf("status=COMPLETED&product_id=%d", bar), []string{"BR-2611-30"}},
			}
			for _, tc := range cases {
				if got := lots(tc.query); !slices.Equal(got, tc.want) {
					t.Errorf("%s (%s): %v, want %v", tc.name, tc.query, got, tc.want)
				}
			}
			found := false
			for _, r := range a.get(fmt.Sprintf("/v1/productions?search=%d", no)).want(200).List() {
				if int(r["production_no"].(float64)) == no {
					found = true
				}
			}
			if !found {
				t.Errorf("search=%d does not find run no. %d", no, no)
			}
			a.get("/v1/productions?status=SHIPPED").field(400, "VALIDATION_ERROR", "status")
			a.get("/v1/productions?product_id=abc").field(400, "VALIDATION_ERROR", "product_id")
			a.get("/v1/productions?colour=red").problem(400, "VALIDATION_ERROR")
			a.get("/v1/productions?sort=lot_number:asc").field(400, "VALIDATION_ERROR", "sort")
		})
		a.run(t, "sorts order the rows", func(t *testing.T, a *api) {
			for _, field := range []string{"production_no", "status", "start_date", "end_date", "id"} {
				for _, dir := range []string{"asc", "desc"} {
					rows := a.get("/v1/productions?limit=200&sort=" + field + ":" + dir).want(200).List()
					var vals []string
					for _, r := range rows {
						if r[field] == nil {
							continue
						}
						switch v := r[field].(type) {
						case float64:
							vals = append(vals, fmt.Sprintf("%012d", int(v)))
						default:
							vals = append(vals, fmt.Sprint(v))
						}
					}
					if len(vals) < 2 {
						t.Fatalf("%s: too few values to check an order: %v", field, vals)
					}
					want := slices.Clone(vals)
					sort.Strings(want)
					if dir == "desc" {
						slices.Reverse(want)
					}
					if !slices.Equal(vals, want) {
						t.Errorf("sort=%s:%s gives %v", field, dir, vals)
					}
				}
			}
		})
		a.run(t, "status moves", func(t *testing.T, a *api) {
			type move struct {
				from    string
				signed  bool
				to      string
				allowed bool
			}
			var cases []move
			open := []string{"PLANNED", "IN_PROGRESS", "IN_PROGRESS_TRANSFORMATION", "ON_HOLD", "QUARANTINE"}
			for _, from := range allStatuses {
				for _, to := range allStatuses {
					allowed := slices.Contains(open, from) && slices.Contains([]string{"PLANNED", "ON_HOLD", "QUARANTINE", "CANCELLED"}, to)
					cases = append(cases, move{from, false, to, allowed})
				}
			}
			for _, from := range []string{"PLANNED", "IN_PROGRESS", "ON_HOLD", "COMPLETED"} {
				for _, to := range allStatuses {
					cases = append(cases, move{from, true, to, false})
				}
			}
			for _, tc := range cases {
				name := fmt.Sprintf("%s signed=%v to %s", tc.from, tc.signed, tc.to)
				rid := a.floorRun(t, tc.from, tc.signed)
				r := a.post(path("/v1/productions", rid)+"/status", map[string]any{"status": tc.to})
				if !tc.allowed {
					if r.Status != 409 {
						t.Errorf("%s: %d %s, want 409", name, r.Status, r.Body)
						continue
					}
					r.problem(409, "INVALID_STATE")
					if got := a.get(path("/v1/productions", rid)).want(200).Data()["status"]; got != tc.from {
						t.Errorf("%s: refused, but the run is now %v", name, got)
					}
					continue
				}
				if r.Status != 200 {
					t.Errorf("%s: %d %s, want 200", name, r.Status, r.Body)
					continue
				}
				d := r.Data()
				if d["status"] != tc.to || d["planned_steps"] != nil || d["consumed_steps"] != nil {
					t.Errorf("%s: answer %v", name, d)
				}
				kind := "production.status_changed"
				if tc.to == "CANCELLED" {
					kind = "production.cancelled"
				}
				evs, err := a.st.Client.Event.Query().
					Where(event.ResourceID(rid), event.TypeHasPrefix("production."), event.SourceEQ(event.SourceAPI)).
					All(policy.System(context.Background()))
				if err != nil || len(evs) != 1 || evs[0].Type != kind {
					t.Errorf("%s: api events %v (%v), want one %s", name, evs, err, kind)
				}
			}
		})
		a.run(t, "status body rules", func(t *testing.T, a *api) {
			rid := id("CK-2611-40")
			a.post(path("/v1/productions", rid)+"/status", map[string]any{"status": "SHIPPED"}).field(400, "VALIDATION_ERROR", "status")
			a.post(path("/v1/productions", rid)+"/status", map[string]any{}).field(400, "VALIDATION_ERROR", "status")
			a.post(path("/v1/productions", rid)+"/status", map[string]any{"status": "PLANNED", "lot_number": "X"}).problem(400, "VALIDATION_ERROR")
			a.post("/v1/productions/0/status", map[string]any{"status": "PLANNED"}).problem(400, "VALIDATION_ERROR")
			a.post("/v1/productions/999999999/status", map[string]any{"status": "PLANNED"}).problem(404, "NOT_FOUND")
			a.get("/v1/productions/999999999").problem(404, "NOT_FOUND")
		})
		a.run(t, "the seeded signed run refuses every move", func(t *testing.T, a *api) {
			for _, to := range allStatuses {
				a.post(path("/v1/productions", id("BR-2611-30"))+"/status", map[string]any{"status": to}).problem(409, "INVALID_STATE")
			}
		})
		a.run(t, "no writes beyond the status action", func(t *testing.T, a *api) {
			a.post("/v1/productions", map[string]any{"status": "PLANNED"}).want(405)
			a.patch(path("/v1/productions", id("CK-2611-40")), map[string]any{"lot_number": "X"}).want(405)
			a.del(path("/v1/productions", id("CK-2611-40"))).want(405)
		})
		a.run(t, "isolation both ways", func(t *testing.T, a *api) {
			b := seeded(t, newAPI(t, a.st))
			theirs := b.get("/v1/productions?status=PLANNED").want(200).List()
			if len(theirs) == 0 {
				t.Fatal("the other account has no runs")
			}
			other := int(theirs[0]["id"].(float64))
			mine := id("CK-2611-40")
			a.get(path("/v1/productions", other)).problem(404, "NOT_FOUND")
			a.post(path("/v1/productions", other)+"/status", map[string]any{"status": "ON_HOLD"}).problem(404, "NOT_FOUND")
			b.get(path("/v1/productions", mine)).problem(404, "NOT_FOUND")
			b.post(path("/v1/productions", mine)+"/status", map[string]any{"status": "ON_HOLD"}).problem(404, "NOT_FOUND")
			for _, r := range a.get("/v1/productions?limit=200").want(200).List() {
				if int(r["id"].(float64)) == other {
					t.Fatal("a lists b's run")
				}
			}
			for _, r := range b.get("/v1/productions?limit=200").want(200).List() {
				if int(r["id"].(float64)) == mine {
					t.Fatal("b lists a's run")
				}
			}
			if got := b.get(path("/v1/productions", other)).want(200).Data()["status"]; got != "PLANNED" {
				t.Fatalf("b's run moved: %v", got)
			}
		})
		a.run(t, "scopes", func(t *testing.T, a *api) {
			read := a.org.Key(t, policy.Test, "manufacturing:read")
			rid := id("CK-2611-40")
			a.do("GET", "/v1/productions", read, nil).want(200)
			a.do("GET", path("/v1/productions", rid), read, nil).want(200)
			a.do("POST", path("/v1/productions", rid)+"/status", read, map[string]any{"status": "ON_HOLD"}).problem(403, "INSUFFICIENT_SCOPE")
			other := a.org.Key(t, policy.Test, "inventory:write")
			a.do("GET", "/v1/productions", other, nil).problem(403, "INSUFFICIENT_SCOPE")
			a.do("POST", path("/v1/productions", rid)+"/status", other, map[string]any{"status": "ON_HOLD"}).problem(403, "INSUFFICIENT_SCOPE")
			a.do("POST", path("/v1/productions", rid)+"/status", a.org.Key(t, policy.Test, "manufacturing:write"), map[string]any{"status": "ON_HOLD"}).want(200)
		})
		a.run(t, "a warehouse a run's output is placed in cannot be deleted", func(t *testing.T, a *api) {
			ctx := a.org.Ctx(policy.Test)
			site := a.post("/v1/warehouses", map[string]any{"code": "RUNS", "name": "Runs only"}).want(201).ID()
			product := a.productID("FG-BAR6")
			err := ent.RunInTx(ctx, a.st.Client, func(tx *ent.Tx) error {
				_, err := manufacturing.Create(ctx, tx, manufacturing.Plan{ProductID: product, LocationID: &site})
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			a.del(path("/v1/warehouses", site)).problem(409, "IN_USE")
		})
		a.run(t, "a deleted line stays on its runs", func(t *testing.T, a *api) {
			for _, r := range a.get("/v1/production-lines").want(200).List() {
				// Production lines are soft-deleted: runs keep referencing them.
				a.del(path("/v1/production-lines", int(r["id"].(float64)))).want(200)
			}
			if got := a.get(path("/v1/productions", id("BR-2611-40"))).want(200).Data()["production_line_id"]; got == nil {
				t.Fatal("a run lost its deleted line")
			}
		})
	})
}
