package console_test

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/event"
	"larder.dev/larder/ent/production"
	"larder.dev/larder/internal/identity/people"
	"larder.dev/larder/internal/modules/manufacturing"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
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
		before := lastRecord(t, st, org.Org.ID)
		// No password, then a wrong one: the field says so, the run stays
		// unsigned, and only the wrong one is recorded.
		for _, c := range []struct {
			pw, msg  string
			recorded bool
		}{
			{"", "Enter your password to sign", false},
			{"not my password!", "That is not your password: nothing was signed or changed.", true},
		} {
			res := b.post(path, url.Values{"signature_password": {c.pw}})
			if res.status != http.StatusBadRequest || !strings.Contains(res.body, `id="e-signature_password"`) || !strings.Contains(res.body, html.EscapeString(c.msg)) {
				t.Errorf("signing with %q: %d, want 400 naming the field: %s", c.pw, res.status, res.body)
			}
			run, err := st.Client.Production.Get(org.Ctx(policy.Test), tr.run.ID)
			if err != nil || run.Signed {
				t.Fatalf("after signing with %q: signed %v %v, want unsigned", c.pw, run.Signed, err)
			}
			r := lastRecord(t, st, org.Org.ID)
			switch {
			case !c.recorded && r.ID != before.ID:
				t.Errorf("a missing password wrote record %+v", r)
			case c.recorded && (r.Action != "signature_failed" || r.Actor != p.Email || r.Detail["signing"] != "production_run" || r.Detail["production_id"] != float64(tr.run.ID)):
				t.Errorf("a wrong password's record %+v, want signature_failed naming the run", r)
			}
		}
		if res := b.post(path, url.Values{"signature_password": {password}}); res.status != http.StatusSeeOther {
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
		want := map[string]any{"by": p.Email, "user_id": float64(p.ID), "with": "password"}
		if diff := cmp.Diff(want, r.Detail["signature"]); diff != "" {
			t.Errorf("the record's signature (-want +got):\n%s", diff)
		}
		res := b.post(path, url.Values{"signature_password": {password}})
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

// boardPage reads one page of a board column: its runs' ids in order and
// its links to the pages after and before it.
func boardPage(t *testing.T, b *browser, path string) (ids []int, next, prev string) {
	t.Helper()
	res := b.get(path)
	if res.status != http.StatusOK {
		t.Fatalf("%s: %d %s", path, res.status, res.body)
	}
	for _, m := range regexp.MustCompile(`<a href="/console/production/(\d+)\?env=test">`).FindAllStringSubmatch(res.body, -1) {
		id, _ := strconv.Atoi(m[1])
		ids = append(ids, id)
	}
	link := func(rel, text string) string {
		m := regexp.MustCompile(`<a href="([^"]+)" rel="` + rel + `">` + text + `</a>`).FindStringSubmatch(res.body)
		if m == nil {
			return ""
		}
		return html.UnescapeString(m[1])
	}
	return ids, link("next", "Next runs"), link("prev", "Previous runs")
}

// A board column pages by its order's key and then id, so a run that leaves
// the column between two pages moves no other: walking the pages forwards
// lists every run that stayed, once each, in the order; walking them back
// lists the same pages. A link whose cursor is damaged, of another order, or
// without its column is refused with 400.
func TestProductionBoardCursorPaging(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		d := newDesk(t, st)
		org := dbtest.NewSeededOrg(t, st)
		ctx := org.Ctx(policy.Test)
		product, err := st.Client.Product.Query().FirstID(ctx)
		if err != nil {
			t.Fatal(err)
		}
		tx, err := st.Client.Tx(ctx)
		if err != nil {
			t.Fatal(err)
		}
		// 110 planned runs: two in three with one of five start dates (ties
		// for the sorts by date), the others without one (last in both
		// directions).
		day := time.Date(2026, 11, 2, 6, 0, 0, 0, time.UTC)
		for i := range 110 {
			run, err := manufacturing.Create(ctx, tx, manufacturing.Plan{ProductID: product})
			if err != nil {
				t.Fatal(err)
			}
			if i%3 != 0 {
				if err := tx.Production.UpdateOneID(run.ID).SetStartDate(day.Add(time.Duration(i%5) * 90 * time.Minute)).Exec(ctx); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		b, _ := d.signedIn(org.Org.ID, people.Viewer)

		// order sorts runs as the board's sort s does: by the key, runs
		// without it last, then by id highest first.
		order := func(runs []*ent.Production, s string) []int {
			field, desc := strings.CutPrefix(s, "-")
			key := func(r *ent.Production) (int64, bool) {
				switch field {
				case "production_no":
					return int64(r.ProductionNo), true
				case "start_date":
					if r.StartDate == nil {
						return 0, false
					}
					return r.StartDate.UnixMicro(), true
				case "status":
					return 0, true // one status in the column
				}
				return int64(r.ID), true
			}
			slices.SortFunc(runs, func(a, b *ent.Production) int {
				ka, oka := key(a)
				kb, okb := key(b)
				switch {
				case oka != okb && !oka:
					return 1
				case oka != okb:
					return -1
				case ka != kb && (ka < kb) != desc:
					return -1
				case ka != kb:
					return 1
				}
				return b.ID - a.ID
			})
			ids := make([]int, len(runs))
			for i, r := range runs {
				ids[i] = r.ID
			}
			return ids
		}

		for _, sort := range []string{"-id", "id", "production_no", "-production_no", "start_date", "-start_date", "status"} {
			t.Run(sort, func(t *testing.T) {
				runs, err := st.Client.Production.Query().Where(production.StatusEQ(production.StatusPLANNED)).All(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if len(runs) <= 2*50 {
					t.Fatalf("%d planned runs, want more than 100: the walk crosses two pages' ends", len(runs))
				}
				first := "/console/production?env=test&column=planned&sort=" + sort
				page1, next, prev := boardPage(t, b, first)
				if len(page1) != 50 || next == "" || prev != "" {
					t.Fatalf("page 1: %d runs, next %q, previous %q", len(page1), next, prev)
				}
				// A run of page 1 leaves the column before page 2 is read.
				moved := page1[len(page1)/2]
				mtx, err := st.Client.Tx(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := manufacturing.ChangeStatus(ctx, mtx, moved, production.StatusON_HOLD); err != nil {
					t.Fatal(err)
				}
				if err := mtx.Commit(); err != nil {
					t.Fatal(err)
				}
				var want []int
				for _, id := range order(runs, sort) {
					if id != moved {
						want = append(want, id)
					}
				}
				got := slices.DeleteFunc(slices.Clone(page1), func(id int) bool { return id == moved })
				pages := [][]int{page1}
				for next != "" {
					if len(pages) > 5 {
						t.Fatal("more pages than the runs fill")
					}
					var ids []int
					ids, next, prev = boardPage(t, b, next)
					if prev == "" {
						t.Errorf("page %d has no link to the page before", len(pages)+1)
					}
					got = append(got, ids...)
					pages = append(pages, ids)
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Fatalf("the pages forwards, without the run that left (-want +got):\n%s", diff)
				}
				// Back from the last page: the same pages, page 1 without the
				// run that left.
				pages[0] = slices.DeleteFunc(pages[0], func(id int) bool { return id == moved })
				for i := len(pages) - 2; i >= 0; i-- {
					if prev == "" {
						t.Fatalf("page %d has no link back", i+2)
					}
					var ids []int
					ids, next, prev = boardPage(t, b, prev)
					if diff := cmp.Diff(pages[i], ids); diff != "" {
						t.Errorf("page %d walked back (-want +got):\n%s", i+1, diff)
					}
					if next == "" {
						t.Errorf("page %d walked back has no link forwards", i+1)
					}
				}
				if prev != "" {
					t.Errorf("the first page walked back links a page before it: %s", prev)
				}
			})
		}

		_, next, _ := boardPage(t, b, "/console/production?env=test&column=planned&sort=id")
		cursor := regexp.MustCompile(`cursor=([^&]+)`).FindStringSubmatch(next)
		if cursor == nil {
			t.Fatalf("no cursor in %q", next)
		}
		for name, query := range map[string]string{
			"damaged":          "column=planned&sort=id&cursor=" + cursor[1][:len(cursor[1])-2],
			"not base64":       "column=planned&sort=id&cursor=%25%25",
			"of another order": "column=planned&sort=-id&cursor=" + cursor[1],
			"without a column": "sort=id&cursor=" + cursor[1],
		} {
			res := b.get("/console/production?env=test&" + query)
			if res.status != http.StatusBadRequest || !strings.Contains(res.body, "This page&#39;s link is damaged; start again from the board.") {
				t.Errorf("a cursor %s: %d %s", name, res.status, res.body)
			}
		}
	})
}
