package console_test

import (
	"context"
	"fmt"
	"html/template"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/event"
	"larder.dev/larder/ent/tag"
	"larder.dev/larder/internal/identity/people"
	"larder.dev/larder/internal/platform/ids"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/internal/webhooks"
	"larder.dev/larder/policy"
)

// receiverAnswering is a webhook receiver answering every post with status.
func receiverAnswering(t *testing.T, status int) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(status) }))
	t.Cleanup(srv.Close)
	return srv.URL
}

// tagged creates a tag as an app action of org's env account, which records a
// tag.created event in the same transaction.
func tagged(t *testing.T, st *store.Store, org *dbtest.Org, env policy.Environment, name string) *ent.Tag {
	t.Helper()
	ctx := org.Ctx(env)
	var tg *ent.Tag
	err := ent.RunInTx(ctx, st.Client, func(tx *ent.Tx) (err error) {
		tg, err = tx.Tag.Create().SetName(name).SetRefType(tag.RefTypePRODUCT).Save(ctx)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

// retag renames a tag as an app action (a tag.updated event).
func retag(t *testing.T, st *store.Store, org *dbtest.Org, env policy.Environment, tg *ent.Tag, name string) {
	t.Helper()
	ctx := org.Ctx(env)
	if err := ent.RunInTx(ctx, st.Client, func(tx *ent.Tx) error {
		return tx.Tag.UpdateOneID(tg.ID).SetName(name).Exec(ctx)
	}); err != nil {
		t.Fatal(err)
	}
}

// dispatch fans the outbox out and posts every due delivery.
func dispatch(t *testing.T, st *store.Store) {
	t.Helper()
	ctx := context.Background()
	d := webhooks.New(st, webhooks.Options{AllowPrivate: true, RetryInterval: time.Hour})
	if _, err := d.FanOut(ctx); err != nil {
		t.Fatal(err)
	}
	for {
		n, err := d.DeliverDue(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
	}
}

// eventIDs are the ids of org's env events, newest first, as the package
// lists them.
func eventIDs(t *testing.T, st *store.Store, org *dbtest.Org, env policy.Environment, f webhooks.EventFilter) []string {
	t.Helper()
	rows, err := webhooks.Events(context.Background(), st.Client, org.Org.ID, env, f)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r.EventID
	}
	return out
}

// shownEvents are the event ids a page lists, in its order.
func shownEvents(body string) []string {
	var out []string
	for _, part := range strings.Split(body, `<tr class="event">`)[1:] {
		i := strings.Index(part, "evt_")
		if i < 0 {
			continue
		}
		j := strings.IndexAny(part[i:], "<\" ")
		out = append(out, part[i:i+j])
	}
	return out
}

// The events page lists the environment's events newest first with their
// type, record, source, the endpoints that received each with the outcome,
// and the body as sent; the filters narrow it by type and record; the test
// tab shows the test events alone; a bad filter is refused next to its field.
func TestEventsPage(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		d := newDesk(t, st)
		org := dbtest.NewOrg(t, st, "")
		reg := &webhooks.Registry{Client: st.Client, AllowPrivate: true}
		okURL, badURL := receiverAnswering(t, 200), receiverAnswering(t, 500)
		epOK, err := reg.Create(ctx, org.Org.ID, policy.Live, okURL, "", "", nil)
		if err != nil {
			t.Fatal(err)
		}
		epBad, err := reg.Create(ctx, org.Org.ID, policy.Live, badURL, "", "", []string{"tag.updated"})
		if err != nil {
			t.Fatal(err)
		}
		one := tagged(t, st, org, policy.Live, "one")
		two := tagged(t, st, org, policy.Live, "two")
		retag(t, st, org, policy.Live, one, "one b")
		tagged(t, st, org, policy.Test, "test one")
		dispatch(t, st)
		tagged(t, st, org, policy.Live, "not sent yet")

		live := eventIDs(t, st, org, policy.Live, webhooks.EventFilter{})
		test := eventIDs(t, st, org, policy.Test, webhooks.EventFilter{})
		if len(live) != 4 || len(test) != 1 {
			t.Fatalf("setup: %d live and %d test events, want 4 and 1", len(live), len(test))
		}
		// live: [not sent yet, one b (updated), two, one]
		b, _ := d.signedIn(org.Org.ID, people.Viewer)
		// A link naming live chooses it for the session; the page without
		// one then shows live too.
		for _, path := range []string{"/console/events?env=live", "/console/events"} {
			res := b.get(path)
			if res.status != http.StatusOK {
				t.Fatalf("%s: %d %s", path, res.status, res.body)
			}
			if got := shownEvents(res.body); strings.Join(got, " ") != strings.Join(live, " ") {
				t.Errorf("%s lists %v, want the live events newest first %v", path, got, live)
			}
		}
		res := b.get("/console/events")
		rows := strings.Split(res.body, `<tr class="event">`)[1:]
		// The update reached both endpoints: one took it, one answered 500.
		upd := rows[1]
		for _, want := range []string{
			"<code>tag.updated</code>", fmt.Sprintf(">tag %d</a>", one.ID), "<td>app",
			fmt.Sprintf(`<a href="/console/webhooks/%d" title="%s">%s</a>`, epOK.ID, okURL, okURL), `<span class="badge ok">Delivered</span>`,
			fmt.Sprintf(`<a href="/console/webhooks/%d" title="%s">%s</a>`, epBad.ID, badURL, badURL), `<span class="badge bad">Failed</span>`,
			"1 attempt, last ",
		} {
			if !strings.Contains(upd, want) {
				t.Errorf("the update's row lacks %q:\n%s", want, upd)
			}
		}
		// A creation went to the endpoint of every type alone.
		if strings.Contains(rows[2], fmt.Sprintf("/console/webhooks/%d", epBad.ID)) || !strings.Contains(rows[2], fmt.Sprintf(">tag %d</a>", two.ID)) {
			t.Errorf("the creation of tag two:\n%s", rows[2])
		}
		if !strings.Contains(rows[0], "Waiting to be sent") || strings.Contains(rows[0], "/console/webhooks/") {
			t.Errorf("the event not fanned out yet:\n%s", rows[0])
		}
		// The body as sent, in a disclosure that needs no script.
		evs, err := webhooks.Events(ctx, st.Client, org.Org.ID, policy.Live, webhooks.EventFilter{Type: "tag.updated"})
		if err != nil || len(evs) != 1 {
			t.Fatalf("the update event: %v", err)
		}
		if !strings.Contains(upd, "<details>\n          <summary>Body of "+live[1]+"</summary>") ||
			!strings.Contains(upd, template.HTMLEscapeString(`"id": "`+live[1]+`"`)) ||
			!strings.Contains(upd, template.HTMLEscapeString(`"type": "tag.updated"`)) ||
			!strings.Contains(upd, template.HTMLEscapeString(`"name": "one b"`)) {
			t.Errorf("the update's body is not shown as sent (%s):\n%s", evs[0].Envelope, upd)
		}

		for _, tc := range []struct {
			query string
			want  []string
		}{
			{"type=tag.updated", live[1:2]},
			{"type=tag.created", []string{live[0], live[2], live[3]}},
			{"resource_type=tag", live},
			{"resource_type=tag&resource_id=" + strconv.Itoa(one.ID), []string{live[1], live[3]}},
			{"type=tag.created&resource_type=tag&resource_id=" + strconv.Itoa(one.ID), live[3:]},
			{"resource_type=product", nil},
			{"env=test", test},
			{"env=test&type=tag.updated", nil},
		} {
			res := b.get("/console/events?" + tc.query)
			if res.status != http.StatusOK {
				t.Errorf("%s: %d", tc.query, res.status)
				continue
			}
			if got := shownEvents(res.body); strings.Join(got, " ") != strings.Join(tc.want, " ") {
				t.Errorf("%s lists %v, want %v", tc.query, got, tc.want)
			}
			if tc.want == nil && !strings.Contains(res.body, "matches these filters") {
				t.Errorf("%s: no empty state", tc.query)
			}
		}
		if res := b.get("/console/events?env=test"); !strings.Contains(res.body, `name="env" value="test" aria-pressed="true"`) {
			t.Error("the switch does not show test as chosen")
		}

		// Bad filters: 400, the message beside the field, nothing listed.
		for _, tc := range []struct{ query, field, msg string }{
			{"resource_type=tag&resource_id=abc", "resource_id", "Enter a record id: a whole number such as 42."},
			{"resource_type=tag&resource_id=-3", "resource_id", "Enter a record id: a whole number such as 42."},
			{"resource_id=" + strconv.Itoa(one.ID), "resource_id", "Choose the record type of this id as well."},
			{"type=tag.exploded", "type", "There is no event type of that name; choose one from the list."},
			{"resource_type=spaceship", "resource_type", "There is no record type of that name; choose one from the list."},
		} {
			res := b.get("/console/events?" + tc.query)
			want := fmt.Sprintf(`<p class="error" id="e-%s">%s</p>`, tc.field, template.HTMLEscapeString(tc.msg))
			if res.status != http.StatusBadRequest || !strings.Contains(res.body, want) || len(shownEvents(res.body)) != 0 {
				t.Errorf("%s: %d, want 400 with %q:\n%s", tc.query, res.status, want, res.body)
			}
		}
		if res := b.get("/console/events?env=staging"); res.status != http.StatusBadRequest || !strings.Contains(res.body, "Choose the live or the test environment.") {
			t.Errorf("an unknown environment: %d", res.status)
		}
	})
}

// The events page shows 50 events and links to the older ones through the
// list's cursor; the last page has no further link; an empty account says
// what to do next.
func TestEventsPaging(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		d := newDesk(t, st)
		org := dbtest.NewOrg(t, st, "")
		b, _ := d.signedIn(org.Org.ID, people.Developer)
		if res := b.get("/console/events"); res.status != http.StatusOK || !strings.Contains(res.body, "No test events yet.") ||
			!strings.Contains(res.body, `<a href="/console/webhooks">Webhooks</a>`) {
			t.Fatalf("empty account: %d\n%s", res.status, res.body)
		}
		const total = 52
		now := time.Now()
		bulk := make([]*ent.EventCreate, total)
		for i := range bulk {
			bulk[i] = st.Client.Event.Create().SetEventID(ids.New("evt_")).SetAccountID(org.Live.ID).
				SetEnvironment(event.EnvironmentLive).SetType("tag.created").SetResourceType("tag").SetResourceID(i + 1).
				SetSnapshot([]byte(`{"id":` + strconv.Itoa(i+1) + `}`)).SetSource(event.SourceAPI).SetCreatedAt(now)
		}
		if err := st.Client.Event.CreateBulk(bulk...).Exec(policy.System(context.Background())); err != nil {
			t.Fatal(err)
		}
		all := eventIDs(t, st, org, policy.Live, webhooks.EventFilter{Limit: webhooks.MaxPage})
		if len(all) != total {
			t.Fatalf("%d events, want %d", len(all), total)
		}
		first := b.get("/console/events?env=live")
		if got := shownEvents(first.body); strings.Join(got, " ") != strings.Join(all[:50], " ") {
			t.Fatalf("first page: %d events, want the newest 50", len(got))
		}
		older := "/console/events?" + url.Values{"env": {"live"}, "before": {all[49]}}.Encode()
		if !strings.Contains(first.body, `href="`+template.HTMLEscapeString(older)+`">Older events</a>`) {
			t.Fatalf("first page does not link to %s", older)
		}
		second := b.get(older)
		if got := shownEvents(second.body); second.status != http.StatusOK || strings.Join(got, " ") != strings.Join(all[50:], " ") {
			t.Fatalf("second page: %d %v, want %v", second.status, got, all[50:])
		}
		if strings.Contains(second.body, "Older events") || !strings.Contains(second.body, ">Newest events</a>") {
			t.Error("the last page links further, or not back to the newest")
		}
		// A filter is kept from page to page.
		filtered := b.get("/console/events?type=tag.created")
		want := "/console/events?" + url.Values{"env": {"live"}, "type": {"tag.created"}, "before": {all[49]}}.Encode()
		if !strings.Contains(filtered.body, `href="`+template.HTMLEscapeString(want)+`"`) {
			t.Errorf("the filtered page does not link to %s", want)
		}
		if res := b.get("/console/events?before=" + all[total-1]); !strings.Contains(res.body, "There are no older events.") {
			t.Errorf("past the oldest: %d", res.status)
		}
	})
}

// Another organization's events never appear on the page, both ways, and a
// cursor naming one of theirs is "not found".
func TestEventsOtherOrganization(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		d := newDesk(t, st)
		a, o := dbtest.NewOrg(t, st, ""), dbtest.NewOrg(t, st, "")
		tagged(t, st, a, policy.Live, "ours")
		tagged(t, st, o, policy.Live, "theirs")
		tagged(t, st, o, policy.Test, "theirs in test")
		for _, c := range []struct{ me, them *dbtest.Org }{{a, o}, {o, a}} {
			b, _ := d.signedIn(c.me.Org.ID, people.Admin)
			mine := eventIDs(t, st, c.me, policy.Live, webhooks.EventFilter{})
			theirs := append(eventIDs(t, st, c.them, policy.Live, webhooks.EventFilter{}), eventIDs(t, st, c.them, policy.Test, webhooks.EventFilter{})...)
			for _, env := range []string{"live", "test"} {
				res := b.get("/console/events?env=" + env)
				for _, id := range theirs {
					if strings.Contains(res.body, id) {
						t.Errorf("organization %d sees %s of organization %d", c.me.Org.ID, id, c.them.Org.ID)
					}
				}
				if env == "live" && strings.Join(shownEvents(res.body), " ") != strings.Join(mine, " ") {
					t.Errorf("organization %d lists %v, want %v", c.me.Org.ID, shownEvents(res.body), mine)
				}
			}
			for _, id := range theirs {
				if res := b.get("/console/events?before=" + id); res.status != http.StatusNotFound {
					t.Errorf("organization %d paging from %s of organization %d: %d", c.me.Org.ID, id, c.them.Org.ID, res.status)
				}
			}
		}
	})
}
