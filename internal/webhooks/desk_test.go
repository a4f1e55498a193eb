package webhooks_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/event"
	"larder.dev/larder/ent/webhookdelivery"
	"larder.dev/larder/internal/identity/audit"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/internal/webhooks"
	"larder.dev/larder/policy"
)

// judge is an endpoint answering 500 with a body of 3000 bytes to an event
// whose snapshot holds "fail" while failing is on, and 200 otherwise; it
// counts the requests by event type and tag name.
type judge struct {
	*httptest.Server
	mu      sync.Mutex
	failing bool
	got     []string
}

func newJudge(t *testing.T) *judge {
	j := &judge{failing: true}
	j.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var env webhooks.Envelope
		_ = json.Unmarshal(b, &env)
		var snap struct{ Name string }
		_ = json.Unmarshal(env.Snapshot, &snap)
		j.mu.Lock()
		j.got = append(j.got, snap.Name)
		fail := j.failing && strings.Contains(snap.Name, "fail")
		j.mu.Unlock()
		if fail {
			w.WriteHeader(500)
			_, _ = w.Write([]byte(strings.Repeat("e", 3000)))
			return
		}
		_, _ = w.Write([]byte(`{"ok":true}`))
	}))
	t.Cleanup(j.Close)
	return j
}

func (j *judge) requests() []string {
	j.mu.Lock()
	defer j.mu.Unlock()
	return append([]string(nil), j.got...)
}

func (j *judge) setFailing(on bool) { j.mu.Lock(); j.failing = on; j.mu.Unlock() }

// rename updates a tag as an app action of org's env account (a tag.updated event).
func rename(t *testing.T, st *store.Store, org *dbtest.Org, env policy.Environment, tg *ent.Tag, name string) {
	t.Helper()
	ctx := org.Ctx(env)
	err := ent.RunInTx(ctx, st.Client, func(tx *ent.Tx) error {
		return tx.Tag.UpdateOneID(tg.ID).SetName(name).Exec(ctx)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// deliveryOfTag is the delivery to ep of the event that created the tag named name.
func deliveryOfTag(t *testing.T, st *store.Store, ep *ent.WebhookEndpoint, name string) *ent.WebhookDelivery {
	t.Helper()
	sys := policy.System(context.Background())
	ds, err := st.Client.WebhookDelivery.Query().Where(webhookdelivery.EndpointID(ep.ID)).WithEvent().All(sys)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range ds {
		var snap struct{ Name string }
		_ = json.Unmarshal(d.Edges.Event.Snapshot, &snap)
		if snap.Name == name && d.Edges.Event.Type == "tag.created" {
			return d
		}
	}
	t.Fatalf("no delivery of tag %q to endpoint %d", name, ep.ID)
	return nil
}

// logIDs are the delivery ids of a page of the log.
func logIDs(ds []webhooks.Delivery) []int {
	out := make([]int, len(ds))
	for i, d := range ds {
		out[i] = d.ID
	}
	return out
}

// The delivery log narrows by outcome, event type and event, pages newest
// first through a cursor, and shows of each attempt what was sent (the
// envelope and its signature) and what came back (status, time, the first
// 2048 bytes of the body).
func TestDeliveryLogFilters(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		f := setup(t, st)
		ctx := context.Background()
		j := newJudge(t)
		ep := f.endpoint(t, f.org, policy.Live, j.URL)
		d := f.dispatcher(webhooks.Options{})
		ok1 := change(t, st, f.org, policy.Live, "ok-1")
		change(t, st, f.org, policy.Live, "fail-1")
		rename(t, st, f.org, policy.Live, ok1, "ok-1b")
		drain(t, d)
		change(t, st, f.org, policy.Live, "ok-pending")
		if _, err := d.FanOut(ctx); err != nil {
			t.Fatal(err)
		}
		okID := deliveryOfTag(t, st, ep, "ok-1").ID
		failID := deliveryOfTag(t, st, ep, "fail-1").ID
		pendingID := deliveryOfTag(t, st, ep, "ok-pending").ID
		all, err := f.reg.Deliveries(ctx, f.org.Org.ID, ep.ID, webhooks.DeliveryFilter{})
		if err != nil {
			t.Fatal(err)
		}
		if len(all) != 4 || !slices.IsSortedFunc(all, func(a, b webhooks.Delivery) int { return b.ID - a.ID }) {
			t.Fatalf("log %v, want 4 deliveries newest first", logIDs(all))
		}
		updatedID := all[1].ID // the rename came third, before the pending one
		if all[1].Event.Type != "tag.updated" {
			t.Fatalf("second newest is %s, want tag.updated", all[1].Event.Type)
		}
		for _, tc := range []struct {
			name string
			f    webhooks.DeliveryFilter
			want []int
		}{
			{"succeeded", webhooks.DeliveryFilter{Outcome: webhooks.OutcomeSucceeded}, []int{updatedID, okID}},
			{"failed", webhooks.DeliveryFilter{Outcome: webhooks.OutcomeFailed}, []int{failID}},
			{"pending", webhooks.DeliveryFilter{Outcome: webhooks.OutcomePending}, []int{pendingID}},
			{"type", webhooks.DeliveryFilter{Type: "tag.updated"}, []int{updatedID}},
			{"type and outcome", webhooks.DeliveryFilter{Type: "tag.created", Outcome: webhooks.OutcomeSucceeded}, []int{okID}},
			{"no such type", webhooks.DeliveryFilter{Type: "product.created"}, []int{}},
			{"event", webhooks.DeliveryFilter{EventID: all[0].Event.EventID}, []int{pendingID}},
			{"first page", webhooks.DeliveryFilter{Limit: 3}, logIDs(all[:3])},
			{"next page", webhooks.DeliveryFilter{Limit: 3, Before: all[2].ID}, logIDs(all[3:])},
			{"failed before the failed one", webhooks.DeliveryFilter{Outcome: webhooks.OutcomeFailed, Before: failID}, []int{}},
		} {
			got, err := f.reg.Deliveries(ctx, f.org.Org.ID, ep.ID, tc.f)
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			if !slices.Equal(logIDs(got), tc.want) {
				t.Errorf("%s: deliveries %v, want %v", tc.name, logIDs(got), tc.want)
			}
			for _, g := range got {
				if tc.f.Outcome != "" && g.Outcome != tc.f.Outcome {
					t.Errorf("%s: delivery %d shows outcome %s", tc.name, g.ID, g.Outcome)
				}
			}
		}
		if _, err := f.reg.Deliveries(ctx, f.org.Org.ID, ep.ID, webhooks.DeliveryFilter{Outcome: "lost"}); err == nil {
			t.Fatal("an unknown outcome was accepted")
		}

		failed, err := f.reg.Deliveries(ctx, f.org.Org.ID, ep.ID, webhooks.DeliveryFilter{Outcome: webhooks.OutcomeFailed})
		if err != nil || len(failed) != 1 || len(failed[0].Attempts) != 1 {
			t.Fatalf("failed log: %v", err)
		}
		a := failed[0].Attempts[0]
		env, err := webhooks.EnvelopeOf(failed[0].Event)
		if err != nil {
			t.Fatal(err)
		}
		if a.ResponseStatus == nil || *a.ResponseStatus != 500 || a.Success || a.DurationMs < 0 ||
			len(a.ResponseBody) != 2048 || webhooks.ExcerptBytes != 2048 || a.ResponseBody != strings.Repeat("e", 2048) {
			t.Fatalf("attempt: status %v, success %v, %d ms, %d body bytes", a.ResponseStatus, a.Success, a.DurationMs, len(a.ResponseBody))
		}
		if a.RequestBody != string(env) || !strings.HasPrefix(a.RequestHeaders["webhook-signature"], "v1,") ||
			a.RequestHeaders["webhook-id"] != failed[0].Event.EventID || a.RequestHeaders["webhook-timestamp"] != strconv.FormatInt(a.AttemptedAt.Unix(), 10) {
			t.Fatalf("attempt sent %q with headers %v, want the envelope %q signed", a.RequestBody, a.RequestHeaders, env)
		}

		// Another organization's endpoint is not there, both ways.
		other := dbtest.NewOrg(t, st, "")
		theirs := f.endpoint(t, other, policy.Live, j.URL)
		for _, c := range []struct{ org, ep int }{{f.org.Org.ID, theirs.ID}, {other.Org.ID, ep.ID}} {
			if _, err := f.reg.Deliveries(ctx, c.org, c.ep, webhooks.DeliveryFilter{Outcome: webhooks.OutcomeFailed}); err == nil ||
				err.Error() != fmt.Sprintf("webhook endpoint %d does not exist", c.ep) {
				t.Errorf("organization %d reading endpoint %d: %v", c.org, c.ep, err)
			}
		}
	})
}

// ResendFailed queues, without sending, exactly the deliveries of the
// endpoint that failed (abandoned, or waiting for a retry) and were created
// at or after the time; not the older ones, not the succeeded, not those
// never attempted, not another organization's. The dispatcher then sends
// them. The resend is audited.
func TestResendFailedQueuesOnlyFailedSince(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		f := setup(t, st)
		ctx := audit.WithActor(context.Background(), "ops@example.com")
		sys := policy.System(ctx)
		j, jb := newJudge(t), newJudge(t)
		ep := f.endpoint(t, f.org, policy.Live, j.URL)
		other := dbtest.NewOrg(t, st, "")
		epB := f.endpoint(t, other, policy.Live, jb.URL)
		d := f.dispatcher(webhooks.Options{Retries: 1, RetryInterval: time.Hour})

		change(t, st, f.org, policy.Live, "fail-old")
		drain(t, d)
		f.clock.Add(30 * time.Minute)
		since := f.clock.Now()
		change(t, st, f.org, policy.Live, "fail-abandoned")
		drain(t, d)
		f.clock.Add(time.Hour) // the retries of fail-old and fail-abandoned: both abandoned
		drain(t, d)
		change(t, st, f.org, policy.Live, "fail-retrying")
		change(t, st, f.org, policy.Live, "ok-new")
		change(t, st, other, policy.Live, "fail-b")
		drain(t, d)
		change(t, st, f.org, policy.Live, "fail-unsent")
		if _, err := d.FanOut(ctx); err != nil {
			t.Fatal(err)
		}
		old := deliveryOfTag(t, st, ep, "fail-old")
		abandoned := deliveryOfTag(t, st, ep, "fail-abandoned")
		retrying := deliveryOfTag(t, st, ep, "fail-retrying")
		if old.Status != webhookdelivery.StatusAbandoned || abandoned.Status != webhookdelivery.StatusAbandoned ||
			retrying.Status != webhookdelivery.StatusPending || !retrying.NextAttemptAt.After(f.clock.Now()) {
			t.Fatalf("setup: %s, %s, %s due %v", old.Status, abandoned.Status, retrying.Status, retrying.NextAttemptAt)
		}
		bBefore := deliveryOfTag(t, st, epB, "fail-b")
		sent, sentB := len(j.requests()), len(jb.requests())

		// Another organization's endpoint does not exist, both ways.
		for _, c := range []struct{ org, ep int }{{f.org.Org.ID, epB.ID}, {other.Org.ID, ep.ID}} {
			if n, err := f.reg.ResendFailed(ctx, c.org, c.ep, since); err == nil || n != 0 ||
				err.Error() != fmt.Sprintf("webhook endpoint %d does not exist", c.ep) {
				t.Errorf("organization %d resending endpoint %d: %d, %v", c.org, c.ep, n, err)
			}
		}

		f.clock.Add(time.Minute)
		n, err := f.reg.ResendFailed(ctx, f.org.Org.ID, ep.ID, since)
		if err != nil || n != 2 {
			t.Fatalf("ResendFailed: %d, %v; want 2", n, err)
		}
		if len(j.requests()) != sent || len(jb.requests()) != sentB {
			t.Fatal("ResendFailed sent something itself")
		}
		now := f.clock.Now()
		for _, name := range []string{"fail-abandoned", "fail-retrying"} {
			q := deliveryOfTag(t, st, ep, name)
			if q.Status != webhookdelivery.StatusPending || !q.NextAttemptAt.Equal(now.Truncate(time.Microsecond)) || q.FinishedAt != nil {
				t.Errorf("%s: %s due %v finished %v; want pending, due now", name, q.Status, q.NextAttemptAt, q.FinishedAt)
			}
		}
		if q := deliveryOfTag(t, st, ep, "fail-old"); q.Status != webhookdelivery.StatusAbandoned {
			t.Errorf("a delivery from before since was queued: %s", q.Status)
		}
		if q := deliveryOfTag(t, st, ep, "ok-new"); q.Status != webhookdelivery.StatusSucceeded {
			t.Errorf("a succeeded delivery was touched: %s", q.Status)
		}
		if q := deliveryOfTag(t, st, epB, "fail-b"); q.Status != bBefore.Status || !q.NextAttemptAt.Equal(bBefore.NextAttemptAt) {
			t.Errorf("the other organization's delivery changed: %s due %v", q.Status, q.NextAttemptAt)
		}
		// Queued ones are not queued twice.
		if n, err := f.reg.ResendFailed(ctx, f.org.Org.ID, ep.ID, since); err != nil || n != 0 {
			t.Fatalf("second ResendFailed: %d, %v; want 0", n, err)
		}

		// The dispatcher sends them: the abandoned one gets one attempt.
		j.setFailing(false)
		if _, err := d.DeliverDue(ctx); err != nil {
			t.Fatal(err)
		}
		got := j.requests()[sent:]
		slices.Sort(got)
		if !slices.Equal(got, []string{"fail-abandoned", "fail-retrying", "fail-unsent"}) {
			t.Fatalf("the dispatcher sent %v", got)
		}
		for _, name := range []string{"fail-abandoned", "fail-retrying", "fail-unsent"} {
			if q := deliveryOfTag(t, st, ep, name); q.Status != webhookdelivery.StatusSucceeded {
				t.Errorf("%s: %s after the dispatcher sent it", name, q.Status)
			}
		}

		// A disabled endpoint is refused: no dispatcher would send.
		if _, err := f.reg.Disable(ctx, f.org.Org.ID, ep.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := f.reg.ResendFailed(ctx, f.org.Org.ID, ep.ID, since); err == nil || !strings.Contains(err.Error(), "disabled") {
			t.Fatalf("ResendFailed of a disabled endpoint: %v", err)
		}

		hist, err := audit.History(sys, st.Client, f.org.Org.ID)
		if err != nil {
			t.Fatal(err)
		}
		var resends []audit.Listed
		for _, h := range hist {
			if h.Action == string(audit.DeliveriesResent) {
				resends = append(resends, h)
			}
		}
		if len(resends) != 2 || resends[0].Actor != "ops@example.com" ||
			resends[0].Detail["count"] != float64(2) || resends[0].Detail["endpoint_id"] != float64(ep.ID) ||
			resends[0].Detail["url"] != ep.URL || resends[0].Detail["env"] != "live" ||
			resends[0].Detail["failed_since"] != since.UTC().Truncate(time.Microsecond).Format(time.RFC3339Nano) || resends[1].Detail["count"] != float64(0) {
			t.Fatalf("resend records %+v", resends)
		}
		if hb, err := audit.History(sys, st.Client, other.Org.ID); err != nil || slices.ContainsFunc(hb, func(h audit.Listed) bool {
			return h.Action == string(audit.DeliveriesResent)
		}) {
			t.Fatalf("the other organization has a resend record: %v %v", hb, err)
		}
	})
}

// ResendFailed queues at most 1000 deliveries a call; the next call queues the rest.
func TestResendFailedIsCapped(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		f := setup(t, st)
		ctx := context.Background()
		sys := policy.System(ctx)
		ep := f.endpoint(t, f.org, policy.Live, newReceiver(t).URL)
		now := f.clock.Now().UTC().Truncate(time.Microsecond)
		if webhooks.MaxResend != 1000 {
			t.Fatalf("MaxResend %d, want 1000", webhooks.MaxResend)
		}
		const total = 1003
		evs := make([]*ent.EventCreate, total)
		for i := range evs {
			evs[i] = st.Client.Event.Create().SetEventID(fmt.Sprintf("evt_cap%d_%d", ep.ID, i)).SetAccountID(ep.AccountID).
				SetEnvironment(event.EnvironmentLive).SetType("tag.created").SetResourceType("tag").SetResourceID(i + 1).
				SetSnapshot([]byte(`{}`)).SetSource(event.SourceApp).SetCreatedAt(now).SetDispatchedAt(now)
		}
		var created []*ent.Event
		for k := 0; k < total; k += 500 {
			part, err := st.Client.Event.CreateBulk(evs[k:min(k+500, total)]...).Save(sys)
			if err != nil {
				t.Fatal(err)
			}
			created = append(created, part...)
		}
		dels := make([]*ent.WebhookDeliveryCreate, total)
		for i, ev := range created {
			dels[i] = st.Client.WebhookDelivery.Create().SetAccountID(ev.AccountID).SetEventID(ev.ID).SetEndpointID(ep.ID).
				SetStatus(webhookdelivery.StatusAbandoned).SetAttemptCount(4).SetNextAttemptAt(now).
				SetCreatedAt(now).SetFinishedAt(now)
		}
		for k := 0; k < total; k += 500 {
			if err := st.Client.WebhookDelivery.CreateBulk(dels[k:min(k+500, total)]...).Exec(sys); err != nil {
				t.Fatal(err)
			}
		}
		f.clock.Add(time.Minute)
		for _, want := range []int{webhooks.MaxResend, 3, 0} {
			n, err := f.reg.ResendFailed(ctx, f.org.Org.ID, ep.ID, now)
			if err != nil || n != want {
				t.Fatalf("ResendFailed: %d, %v; want %d", n, err, want)
			}
		}
		n := st.Client.WebhookDelivery.Query().Where(webhookdelivery.EndpointID(ep.ID), webhookdelivery.StatusEQ(webhookdelivery.StatusPending)).CountX(sys)
		// Deleted at once: a dispatcher of another test on the same database
		// would otherwise post the deliveries queued here.
		if err := f.reg.Delete(ctx, f.org.Org.ID, ep.ID); err != nil {
			t.Fatal(err)
		}
		if n != total {
			t.Fatalf("%d deliveries queued, want %d", n, total)
		}
	})
}

// The event list shows an account's events newest first, with their
// envelope and the outcome at each endpoint that received them; it narrows
// by type and resource and pages through a cursor; another organization's
// events, and the other environment's, are not there.
func TestEventList(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		f := setup(t, st)
		ctx := context.Background()
		all, onlyUpdates, testRcv := newReceiver(t), newReceiver(t, 500, 500, 500, 500), newReceiver(t)
		epAll := f.endpoint(t, f.org, policy.Live, all.URL)
		epUpd, err := f.reg.Create(ctx, f.org.Org.ID, policy.Live, onlyUpdates.URL, "", "", []string{"tag.updated"})
		if err != nil {
			t.Fatal(err)
		}
		epTest := f.endpoint(t, f.org, policy.Test, testRcv.URL)
		other := dbtest.NewOrg(t, st, "")
		f.endpoint(t, other, policy.Live, newReceiver(t).URL)
		t1 := change(t, st, f.org, policy.Live, "one")
		t2 := change(t, st, f.org, policy.Live, "two")
		rename(t, st, f.org, policy.Live, t1, "one b")
		change(t, st, f.org, policy.Test, "test one")
		theirs := change(t, st, other, policy.Live, "theirs")
		drain(t, f.dispatcher(webhooks.Options{}))
		change(t, st, f.org, policy.Live, "not yet fanned out")

		rows, err := webhooks.Events(ctx, st.Client, f.org.Org.ID, policy.Live, webhooks.EventFilter{})
		if err != nil {
			t.Fatal(err)
		}
		type summary struct {
			typ  string
			res  int
			recv string
		}
		sum := func(rows []webhooks.EventRow) []summary {
			out := make([]summary, len(rows))
			for i, r := range rows {
				var recv []string
				for _, rc := range r.Receivers {
					recv = append(recv, fmt.Sprintf("%d:%s:%d", rc.EndpointID, rc.Outcome, rc.Attempts))
				}
				out[i] = summary{r.Type, r.ResourceID, strings.Join(recv, " ")}
			}
			return out
		}
		newest := sum(rows)[0].res
		want := []summary{
			{"tag.created", newest, ""},
			{"tag.updated", t1.ID, fmt.Sprintf("%d:succeeded:1 %d:failed:1", epAll.ID, epUpd.ID)},
			{"tag.created", t2.ID, fmt.Sprintf("%d:succeeded:1", epAll.ID)},
			{"tag.created", t1.ID, fmt.Sprintf("%d:succeeded:1", epAll.ID)},
		}
		if got := sum(rows); !slices.Equal(got, want) {
			t.Fatalf("events %v, want %v", got, want)
		}
		for _, r := range rows {
			var env webhooks.Envelope
			if err := json.Unmarshal(r.Envelope, &env); err != nil || env.ID != r.EventID || env.Type != r.Type || env.Environment != "live" {
				t.Fatalf("envelope %s of %s: %v", r.Envelope, r.EventID, err)
			}
			if r.Receivers == nil {
				t.Fatal("receivers nil, want a list")
			}
		}
		if rows[1].Receivers[0].URL != all.URL || rows[1].Receivers[0].LastAttemptAt == nil {
			t.Fatalf("receiver %+v", rows[1].Receivers[0])
		}

		for _, tc := range []struct {
			name string
			f    webhooks.EventFilter
			want []summary
		}{
			{"type", webhooks.EventFilter{Type: "tag.updated"}, want[1:2]},
			{"resource type", webhooks.EventFilter{ResourceType: "tag"}, want},
			{"resource", webhooks.EventFilter{ResourceType: "tag", ResourceID: strconv.Itoa(t1.ID)}, []summary{want[1], want[3]}},
			{"type and resource", webhooks.EventFilter{Type: "tag.created", ResourceType: "tag", ResourceID: strconv.Itoa(t1.ID)}, want[3:]},
			{"other resource type", webhooks.EventFilter{ResourceType: "product"}, []summary{}},
			{"first page", webhooks.EventFilter{Limit: 2}, want[:2]},
			{"next page", webhooks.EventFilter{Limit: 2, Before: rows[1].EventID}, want[2:]},
		} {
			got, err := webhooks.Events(ctx, st.Client, f.org.Org.ID, policy.Live, tc.f)
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			if s := sum(got); !slices.Equal(s, tc.want) {
				t.Errorf("%s: %v, want %v", tc.name, s, tc.want)
			}
		}
		for _, bad := range []webhooks.EventFilter{{ResourceID: "1"}, {ResourceType: "tag", ResourceID: "x"}} {
			if _, err := webhooks.Events(ctx, st.Client, f.org.Org.ID, policy.Live, bad); err == nil {
				t.Errorf("filter %+v accepted", bad)
			}
		}

		testRows, err := webhooks.Events(ctx, st.Client, f.org.Org.ID, policy.Test, webhooks.EventFilter{})
		if err != nil || len(testRows) != 1 || testRows[0].Environment != event.EnvironmentTest ||
			len(testRows[0].Receivers) != 1 || testRows[0].Receivers[0].EndpointID != epTest.ID {
			t.Fatalf("test events %v: %v", sum(testRows), err)
		}

		// Isolation both ways: each organization sees its own events alone,
		// and a cursor of the other's is not there.
		theirRows, err := webhooks.Events(ctx, st.Client, other.Org.ID, policy.Live, webhooks.EventFilter{})
		if err != nil || len(theirRows) != 1 || theirRows[0].ResourceID != theirs.ID {
			t.Fatalf("other organization's events %v: %v", sum(theirRows), err)
		}
		if _, err := webhooks.Events(ctx, st.Client, f.org.Org.ID, policy.Live, webhooks.EventFilter{Before: theirRows[0].EventID}); !policy.IsMissing(err) ||
			err.Error() != fmt.Sprintf("event %s does not exist", theirRows[0].EventID) {
			t.Errorf("a cursor of another organization: %v", err)
		}
		if _, err := webhooks.Events(ctx, st.Client, other.Org.ID, policy.Live, webhooks.EventFilter{Before: rows[0].EventID}); err == nil {
			t.Error("the other organization paged from this one's event")
		}
		if _, err := webhooks.Events(ctx, st.Client, missing, policy.Live, webhooks.EventFilter{}); err == nil {
			t.Error("events of a missing organization")
		}
	})
}

// Health tells of an endpoint its last success (pings aside), since when it
// fails, and whether and why it is disabled.
func TestEndpointHealth(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		f := setup(t, st)
		ctx := context.Background()
		rcv := newReceiver(t)
		ep := f.endpoint(t, f.org, policy.Live, rcv.URL)
		quiet := f.endpoint(t, f.org, policy.Test, newReceiver(t).URL)
		d := f.dispatcher(webhooks.Options{RetryInterval: time.Hour})
		health := func(org int, ids ...int) map[int]webhooks.Health {
			t.Helper()
			h, err := f.reg.Health(ctx, org, ids...)
			if err != nil {
				t.Fatal(err)
			}
			return h
		}
		if h := health(f.org.Org.ID); len(h) != 2 || h[ep.ID].State != webhooks.StateHealthy || h[ep.ID].LastSuccessAt != nil || h[quiet.ID].State != webhooks.StateHealthy {
			t.Fatalf("new endpoints: %+v", h)
		}
		change(t, st, f.org, policy.Live, "a")
		drain(t, d)
		okAt := f.clock.Now().UTC().Truncate(time.Microsecond)
		f.clock.Add(10 * time.Minute)
		rcv.setAnswers(500)
		change(t, st, f.org, policy.Live, "b")
		drain(t, d)
		failAt := f.clock.Now().UTC().Truncate(time.Microsecond)
		f.clock.Add(10 * time.Minute)
		if _, _, err := d.Ping(ctx, f.org.Org.ID, ep.ID); err != nil { // a ping answered 200
			t.Fatal(err)
		}
		h := health(f.org.Org.ID, ep.ID)[ep.ID]
		if h.State != webhooks.StateFailing || h.LastSuccessAt == nil || !h.LastSuccessAt.Equal(okAt) ||
			h.FailingSince == nil || !h.FailingSince.Equal(failAt) || h.DisabledReason != "" {
			t.Fatalf("failing endpoint: %+v, want last success %v, failing since %v", h, okAt, failAt)
		}
		if _, err := f.reg.Disable(ctx, f.org.Org.ID, ep.ID); err != nil {
			t.Fatal(err)
		}
		if h := health(f.org.Org.ID, ep.ID)[ep.ID]; h.State != webhooks.StateDisabled || h.DisabledReason != "manual" || h.DisabledAt == nil {
			t.Fatalf("disabled endpoint: %+v", h)
		}

		other := dbtest.NewOrg(t, st, "")
		theirs := f.endpoint(t, other, policy.Live, rcv.URL)
		if h := health(other.Org.ID); len(h) != 1 || h[theirs.ID].State != webhooks.StateHealthy {
			t.Fatalf("other organization's health: %+v", h)
		}
		for _, c := range []struct{ org, ep int }{{f.org.Org.ID, theirs.ID}, {other.Org.ID, ep.ID}} {
			if _, err := f.reg.Health(ctx, c.org, c.ep); err == nil || err.Error() != fmt.Sprintf("webhook endpoint %d does not exist", c.ep) {
				t.Errorf("organization %d reading the health of endpoint %d: %v", c.org, c.ep, err)
			}
		}
	})
}

// Every endpoint change and every resend writes one audit record, with the
// actor, the endpoint's id, URL and environment and never its secret; a
// change that fails writes none, and a record that cannot be written undoes
// its change (the same transaction).
func TestEndpointChangesAreAudited(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		f := setup(t, st)
		ctx := audit.WithActor(context.Background(), "ops@example.com")
		sys := policy.System(ctx)
		rcv := newReceiver(t)
		org := f.org.Org.ID
		other := dbtest.NewOrg(t, st, "")
		theirs := f.endpoint(t, other, policy.Live, rcv.URL)
		historyOf := func(org int) []audit.Listed {
			t.Helper()
			h, err := audit.History(sys, st.Client, org)
			if err != nil {
				t.Fatal(err)
			}
			var out []audit.Listed
			for _, r := range h {
				if strings.HasPrefix(r.Action, "endpoint_") || r.Action == string(audit.DeliveriesResent) {
					out = append(out, r)
				}
			}
			return out
		}
		theirsBefore := len(historyOf(other.Org.ID))

		ep, err := f.reg.Create(ctx, org, policy.Test, rcv.URL, "", "", []string{"tag.created"})
		if err != nil {
			t.Fatal(err)
		}
		secrets := []string{ep.Secret}
		desc := "ERP"
		if _, err := f.reg.Update(ctx, org, ep.ID, webhooks.Change{Description: &desc}); err != nil {
			t.Fatal(err)
		}
		if _, err := f.reg.Disable(ctx, org, ep.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := f.reg.Enable(ctx, org, ep.ID); err != nil {
			t.Fatal(err)
		}
		rot, err := f.reg.RotateSecret(ctx, org, ep.ID, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		secrets = append(secrets, rot.Secret)
		change(t, st, f.org, policy.Test, "x")
		d := f.dispatcher(webhooks.Options{})
		drain(t, d)
		del := delivery(t, st, ep)
		if _, err := d.Resend(ctx, org, del.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := f.reg.ResendFailed(ctx, org, ep.ID, time.Time{}); err != nil {
			t.Fatal(err)
		}

		// Failing changes write nothing: another organization's endpoint,
		// a URL refused, a missing endpoint.
		bad := "ftp://example.com"
		if _, err := f.reg.Update(ctx, org, theirs.ID, webhooks.Change{Description: &desc}); err == nil {
			t.Fatal("updated another organization's endpoint")
		}
		if _, err := f.reg.Update(ctx, org, ep.ID, webhooks.Change{URL: &bad}); err == nil {
			t.Fatal("a refused URL was saved")
		}
		if _, err := f.reg.Disable(ctx, other.Org.ID, ep.ID); err == nil {
			t.Fatal("the other organization disabled the endpoint")
		}
		if err := f.reg.Delete(ctx, org, missing); err == nil {
			t.Fatal("deleted a missing endpoint")
		}
		if _, err := d.Resend(ctx, other.Org.ID, del.ID); err == nil {
			t.Fatal("the other organization resent the delivery")
		}
		if err := f.reg.Delete(ctx, org, ep.ID); err != nil {
			t.Fatal(err)
		}

		got := historyOf(org)
		var actions []string
		for _, r := range got {
			actions = append(actions, r.Action)
			if r.Actor != "ops@example.com" || r.Detail["endpoint_id"] != float64(ep.ID) || r.Detail["url"] != rcv.URL || r.Detail["env"] != "test" {
				t.Errorf("%s record %+v", r.Action, r)
			}
			b, _ := json.Marshal(r.Detail)
			for _, s := range secrets {
				if strings.Contains(string(b), s) || strings.Contains(string(b), "whsec_") {
					t.Errorf("%s record holds a secret: %s", r.Action, b)
				}
			}
		}
		wantActions := []string{"endpoint_created", "endpoint_updated", "endpoint_disabled", "endpoint_enabled",
			"endpoint_secret_rotated", "deliveries_resent", "deliveries_resent", "endpoint_deleted"}
		if !slices.Equal(actions, wantActions) {
			t.Fatalf("actions %v, want %v", actions, wantActions)
		}
		if got[1].Detail["changed"] == nil || fmt.Sprint(got[1].Detail["changed"]) != "[description]" ||
			fmt.Sprint(got[0].Detail["event_types"]) != "[tag.created]" || got[4].Detail["grace"] != "1h0m0s" ||
			got[5].Detail["delivery_id"] != float64(del.ID) || got[5].Detail["event_id"] == nil {
			t.Fatalf("details %+v", got)
		}
		if n := len(historyOf(other.Org.ID)); n != theirsBefore {
			t.Fatalf("the other organization got %d records", n-theirsBefore)
		}

		// A record that cannot be written (an actor past 200 characters)
		// undoes its change.
		long := audit.WithActor(context.Background(), strings.Repeat("a", 201))
		before := len(historyOf(other.Org.ID))
		if _, err := f.reg.Disable(long, other.Org.ID, theirs.ID); err == nil {
			t.Fatal("disabled with a record that cannot be written")
		}
		if cur, err := f.reg.Get(ctx, other.Org.ID, theirs.ID); err != nil || !cur.Enabled {
			t.Fatalf("the endpoint was disabled without its record: %v", err)
		}
		if err := f.reg.Delete(long, other.Org.ID, theirs.ID); err == nil {
			t.Fatal("deleted with a record that cannot be written")
		}
		if _, err := f.reg.Get(ctx, other.Org.ID, theirs.ID); err != nil {
			t.Fatalf("the endpoint was deleted without its record: %v", err)
		}
		nEps := st.Client.WebhookEndpoint.Query().CountX(sys)
		if _, err := f.reg.Create(long, other.Org.ID, policy.Live, rcv.URL, "", "", nil); err == nil {
			t.Fatal("created with a record that cannot be written")
		}
		if n := st.Client.WebhookEndpoint.Query().CountX(sys); n != nEps {
			t.Fatal("an endpoint was created without its record")
		}
		if n := len(historyOf(other.Org.ID)); n != before {
			t.Fatalf("%d records of failed changes", n-before)
		}
	})
}
