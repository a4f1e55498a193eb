package console_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"larder.dev/larder/dbtest"
	"larder.dev/larder/ent/event"
	"larder.dev/larder/ent/production"
	"larder.dev/larder/manufacturing"
	"larder.dev/larder/people"
	"larder.dev/larder/policy"
	"larder.dev/larder/store"
)

func TestProductionBoardAndRun(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		d := newDesk(t, st)
		org := dbtest.NewSeededOrg(t, st)
		tr := traceChain(t, st, org)
		for _, role := range people.Roles {
			t.Run(string(role), func(t *testing.T) {
				b, _ := d.signedIn(org.Org.ID, role)
				res := b.get("/console/production?env=test")
				if res.status != http.StatusOK {
					t.Fatalf("board: %d %s", res.status, res.body)
				}
				link := fmt.Sprintf(`<a href="/console/production/%d?env=test">No. %d</a>`, tr.run.ID, tr.run.ProductionNo)
				if !strings.Contains(res.body, link) {
					t.Errorf("the board has no link %s", link)
				}
				res = b.get(fmt.Sprintf("/console/production/%d?env=test", tr.run.ID))
				if res.status != http.StatusOK {
					t.Fatalf("run: %d %s", res.status, res.body)
				}
				if want := fmt.Sprintf(`<a href="/console/lots/%d?env=live`, tr.cookies.ID); strings.Contains(res.body, want) {
					t.Errorf("the test run links to a live lot")
				}
				if want := fmt.Sprintf(`/console/lots/%d?env=test`, tr.cookies.ID); !strings.Contains(res.body, want) {
					t.Errorf("the run does not link its output lot %s", want)
				}
				if res := b.get(fmt.Sprintf("/console/production/%d?env=live", tr.run.ID)); res.status != http.StatusNotFound {
					t.Errorf("the test run in live: %d, want 404", res.status)
				}
			})
		}
	})
}

func TestProductionSign(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		d := newDesk(t, st)
		org := dbtest.NewSeededOrg(t, st)
		tr := traceChain(t, st, org)
		path := fmt.Sprintf("/console/production/%d/sign?env=test", tr.run.ID)
		for _, role := range []people.Role{people.Viewer, people.Developer} {
			b, _ := d.signedIn(org.Org.ID, role)
			if res := b.post(path, nil); res.status != http.StatusForbidden {
				t.Errorf("%s signs: %d, want 403", role, res.status)
			}
		}
		b, p := d.signedIn(org.Org.ID, people.Operator)
		if res := b.post(path, nil); res.status != http.StatusSeeOther {
			t.Fatalf("operator signs: %d %s", res.status, res.body)
		}
		if res := b.get(fmt.Sprintf("/console/production/%d?env=test", tr.run.ID)); !strings.Contains(res.body, "COMPLETED, signed and locked") {
			t.Errorf("the signed run's page: %s", res.body)
		}
		r := lastRecord(t, st, org.Org.ID)
		if r.Action != "production_signed" || r.Env == nil || *r.Env != "test" || r.Actor != p.Email || r.UserID == nil || *r.UserID != p.ID ||
			r.Detail["production_id"] != float64(tr.run.ID) || r.Detail["signed"] != true {
			t.Errorf("record %+v", r)
		}
		res := b.post(path, nil)
		if res.status != http.StatusConflict || !strings.Contains(res.body, "The production run is signed already.") {
			t.Errorf("signing again: %d %s", res.status, res.body)
		}
		if again := lastRecord(t, st, org.Org.ID); again.ID != r.ID {
			t.Errorf("a refused signature wrote record %+v", again)
		}
	})
}

func TestProductionStart(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		d := newDesk(t, st)
		org := dbtest.NewSeededOrg(t, st)
		tr := traceChain(t, st, org)
		ctx := org.Ctx(policy.Test)
		tx, err := st.Client.Tx(ctx)
		if err != nil {
			t.Fatal(err)
		}
		run, err := manufacturing.Create(ctx, tx, manufacturing.Plan{ProductID: tr.cookies.ProductID})
		if err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		path := fmt.Sprintf("/console/production/%d/start?env=test", run.ID)
		b, _ := d.signedIn(org.Org.ID, people.Viewer)
		if res := b.post(path, nil); res.status != http.StatusForbidden {
			t.Errorf("viewer starts: %d, want 403", res.status)
		}
		b, p := d.signedIn(org.Org.ID, people.Admin)
		if res := b.post(path, nil); res.status != http.StatusSeeOther {
			t.Fatalf("admin starts: %d %s", res.status, res.body)
		}
		got, err := st.Client.Production.Get(ctx, run.ID)
		if err != nil || got.Status != production.StatusIN_PROGRESS || got.StartDate == nil {
			t.Fatalf("run after start %+v (%v)", got, err)
		}
		r := lastRecord(t, st, org.Org.ID)
		if r.Action != "production_started" || r.Env == nil || *r.Env != "test" || r.Actor != p.Email || r.UserID == nil || *r.UserID != p.ID ||
			r.Detail["production_id"] != float64(run.ID) || r.Detail["status"] != "IN_PROGRESS" {
			t.Errorf("record %+v", r)
		}
		// The run's event names the person, as a change in the web application.
		evs, err := st.Client.Event.Query().Where(event.ResourceType("production"), event.ResourceID(run.ID)).
			Order(event.ByID()).All(policy.System(context.Background()))
		if err != nil || len(evs) == 0 {
			t.Fatalf("events of the run: %v (%v)", evs, err)
		}
		if e := evs[len(evs)-1]; e.Source != event.SourceApp || e.UserID == nil || *e.UserID != p.ID {
			t.Errorf("the start's event %s: source %s, user %v, want app and %d", e.Type, e.Source, e.UserID, p.ID)
		}
		if res := b.post(path, nil); res.status != http.StatusConflict {
			t.Errorf("starting again: %d, want 409", res.status)
		}
		if again := lastRecord(t, st, org.Org.ID); again.ID != r.ID {
			t.Errorf("a refused start wrote record %+v", again)
		}
	})
}
