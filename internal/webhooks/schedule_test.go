package webhooks_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"entgo.io/ent/dialect"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/event"
	"larder.dev/larder/ent/webhookattempt"
	"larder.dev/larder/ent/webhookdelivery"
	"larder.dev/larder/ent/webhookendpoint"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/retention"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/internal/webhooks"
	"larder.dev/larder/policy"
)

// The numbers below are the delivery rules' own, written out as literals so
// that a change to the package's constants or defaults fails here.

const day = 24 * time.Hour

// Pruning keeps a succeeded delivery and every attempt 30 days, an abandoned
// delivery and its attempts 90 days, and a dispatched event no delivery
// refers to 90 days: a day short of each is kept, a day past it is gone.
func TestRetentionDays(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		f := setup(t, st)
		ctx := context.Background()
		sys := policy.System(ctx)
		ep := f.endpoint(t, f.org, policy.Live, newReceiver(t).URL)
		now := f.clock.Now().UTC().Truncate(time.Microsecond)
		n := 0
		newEvent := func(dispatched time.Time) *ent.Event {
			t.Helper()
			n++
			ev, err := st.Client.Event.Create().SetEventID(fmt.Sprintf("evt_keep%d_%d", ep.ID, n)).SetAccountID(ep.AccountID).
				SetEnvironment(event.EnvironmentLive).SetType("tag.created").SetResourceType("tag").SetResourceID(n).
				SetSnapshot([]byte(`{}`)).SetSource(event.SourceApp).SetCreatedAt(dispatched).SetDispatchedAt(dispatched).Save(sys)
			if err != nil {
				t.Fatal(err)
			}
			return ev
		}
		// newDelivery is a delivery finished (succeeded or abandoned) at
		// finished, with one attempt made then.
		newDelivery := func(status webhookdelivery.Status, finished time.Time) (*ent.WebhookDelivery, *ent.WebhookAttempt) {
			t.Helper()
			d, err := st.Client.WebhookDelivery.Create().SetAccountID(ep.AccountID).SetEventID(newEvent(now).ID).SetEndpointID(ep.ID).
				SetStatus(status).SetAttemptCount(1).SetNextAttemptAt(finished).SetCreatedAt(finished).SetFinishedAt(finished).Save(sys)
			if err != nil {
				t.Fatal(err)
			}
			a, err := st.Client.WebhookAttempt.Create().SetAccountID(d.AccountID).SetDeliveryID(d.ID).SetTrigger(webhookattempt.TriggerSchedule).SetAttemptedAt(finished).
				SetRequestHeaders(map[string]string{}).SetRequestBody("{}").SetDurationMs(1).SetSuccess(status == webhookdelivery.StatusSucceeded).Save(sys)
			if err != nil {
				t.Fatal(err)
			}
			return d, a
		}
		// An attempt of a delivery still pending: only its own age counts.
		pendingAttempt := func(at time.Time) *ent.WebhookAttempt {
			t.Helper()
			d, err := st.Client.WebhookDelivery.Create().SetAccountID(ep.AccountID).SetEventID(newEvent(now).ID).SetEndpointID(ep.ID).
				SetNextAttemptAt(now.Add(1000 * time.Hour)).SetAttemptCount(1).SetCreatedAt(at).Save(sys)
			if err != nil {
				t.Fatal(err)
			}
			a, err := st.Client.WebhookAttempt.Create().SetAccountID(d.AccountID).SetDeliveryID(d.ID).SetTrigger(webhookattempt.TriggerSchedule).SetAttemptedAt(at).
				SetRequestHeaders(map[string]string{}).SetRequestBody("{}").SetDurationMs(1).SetSuccess(false).Save(sys)
			if err != nil {
				t.Fatal(err)
			}
			return a
		}

		type row struct {
			rule   string
			exists func(context.Context) (bool, error)
			kept   bool
		}
		delivery := func(d *ent.WebhookDelivery) func(context.Context) (bool, error) {
			return st.Client.WebhookDelivery.Query().Where(webhookdelivery.ID(d.ID)).Exist
		}
		attempt := func(a *ent.WebhookAttempt) func(context.Context) (bool, error) {
			return st.Client.WebhookAttempt.Query().Where(webhookattempt.ID(a.ID)).Exist
		}
		eventRow := func(ev *ent.Event) func(context.Context) (bool, error) {
			return st.Client.Event.Query().Where(event.ID(ev.ID)).Exist
		}
		var rows []row
		add := func(rule string, exists func(context.Context) (bool, error), kept bool) {
			rows = append(rows, row{rule, exists, kept})
		}
		d29, a29 := newDelivery(webhookdelivery.StatusSucceeded, now.Add(-29*day))
		d31, a31 := newDelivery(webhookdelivery.StatusSucceeded, now.Add(-31*day))
		add("a succeeded delivery 29 days old is kept", delivery(d29), true)
		add("its attempt of 29 days is kept", attempt(a29), true)
		add("a succeeded delivery 31 days old is gone", delivery(d31), false)
		add("its attempt of 31 days is gone", attempt(a31), false)
		add("an attempt 29 days old of a pending delivery is kept", attempt(pendingAttempt(now.Add(-29*day))), true)
		add("an attempt 31 days old of a pending delivery is gone", attempt(pendingAttempt(now.Add(-31*day))), false)
		d89, a89 := newDelivery(webhookdelivery.StatusAbandoned, now.Add(-89*day))
		d91, a91 := newDelivery(webhookdelivery.StatusAbandoned, now.Add(-91*day))
		add("an abandoned delivery 89 days old is kept", delivery(d89), true)
		add("its attempt of 89 days is kept", attempt(a89), true)
		add("an abandoned delivery 91 days old is gone", delivery(d91), false)
		add("its attempt of 91 days is gone", attempt(a91), false)
		add("a dispatched event 89 days old without deliveries is kept", eventRow(newEvent(now.Add(-89*day))), true)
		add("a dispatched event 91 days old without deliveries is gone", eventRow(newEvent(now.Add(-91*day))), false)

		if _, err := retention.Webhooks(st.Client).Prune(ctx, f.clock.Now()); err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			t.Run(r.rule, func(t *testing.T) {
				got, err := r.exists(sys)
				if err != nil {
					t.Fatal(err)
				}
				if got != r.kept {
					t.Errorf("kept %v, want %v", got, r.kept)
				}
			})
		}
		if err := f.reg.Delete(ctx, f.org.Org.ID, ep.ID); err != nil {
			t.Fatal(err)
		}
	})
}

// With the default options, a delivery without a 2xx answer is retried three
// times, five hours apart (not before), four posts in all, then abandoned;
// and an endpoint failing everything for 24 hours is disabled, not a minute
// sooner.
func TestDefaultRetriesAndDisabling(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		f := setup(t, st)
		answers := make([]int, 20)
		for i := range answers {
			answers[i] = http.StatusInternalServerError
		}
		r := newReceiver(t, answers...)
		ep := f.endpoint(t, f.org, policy.Live, r.URL)
		d := f.dispatcher(webhooks.Options{})
		sys := policy.System(context.Background())
		posts := func() int { return len(r.requests()) }

		change(t, st, f.org, policy.Live, "a")
		drain(t, d) // the first post fails: failing since now
		steps := []struct {
			after time.Duration
			posts int
		}{
			{5*time.Hour - time.Minute, 1}, // not retried before 5 hours
			{time.Minute, 2},               // the first retry, at 5 h
			{5*time.Hour - time.Minute, 2},
			{time.Minute, 3},   // the second, at 10 h
			{5 * time.Hour, 4}, // the third, at 15 h, and the last
			{5 * time.Hour, 4}, // 20 h: given up
		}
		for i, s := range steps {
			f.clock.Add(s.after)
			drain(t, d)
			if got := posts(); got != s.posts {
				t.Fatalf("step %d: %d posts, want %d", i, got, s.posts)
			}
		}
		if dl := delivery(t, st, ep); dl.Status != webhookdelivery.StatusAbandoned || dl.AttemptCount != 4 {
			t.Fatalf("after three retries the delivery is %s after %d attempts, want abandoned after 4", dl.Status, dl.AttemptCount)
		}

		f.clock.Add(4*time.Hour - time.Minute) // 23 h 59 min after the first failure
		change(t, st, f.org, policy.Live, "b")
		drain(t, d)
		if got := st.Client.WebhookEndpoint.GetX(sys, ep.ID); !got.Enabled || posts() != 5 {
			t.Fatalf("failing for 23 h 59 min: enabled %v after %d posts; want enabled after 5", got.Enabled, posts())
		}
		f.clock.Add(time.Minute) // 24 h
		change(t, st, f.org, policy.Live, "c")
		drain(t, d)
		got := st.Client.WebhookEndpoint.GetX(sys, ep.ID)
		if got.Enabled || got.DisabledReason == nil || *got.DisabledReason != webhookendpoint.DisabledReasonFailing {
			t.Fatalf("failing for 24 h: enabled %v, reason %v; want disabled as failing", got.Enabled, got.DisabledReason)
		}
	})
}

// The receiver has 15 seconds to answer: a post left unanswered fails after
// 15 s, not sooner and not much later, and is not posted again at once.
func TestAnswerTimeIsFifteenSeconds(t *testing.T) {
	if testing.Short() {
		t.Skip("waits 15 s for a receiver that never answers")
	}
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		if st.Dialect == dialect.Postgres {
			t.Skip("the answer time is the HTTP client's, the same on either database: checked on SQLite")
		}
		f := setup(t, st)
		release := make(chan struct{})
		posts := make(chan struct{}, 10)
		silent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			posts <- struct{}{}
			select {
			case <-req.Context().Done():
			case <-release:
			}
		}))
		t.Cleanup(silent.Close)
		t.Cleanup(func() { close(release) })
		ep := f.endpoint(t, f.org, policy.Live, silent.URL)
		d := f.dispatcher(webhooks.Options{})
		change(t, st, f.org, policy.Live, "a")
		start := time.Now()
		drain(t, d)
		took := time.Since(start)
		if len(posts) != 1 {
			t.Fatalf("%d posts, want 1", len(posts))
		}
		ds, err := f.reg.Deliveries(context.Background(), f.org.Org.ID, ep.ID, webhooks.DeliveryFilter{Limit: 10})
		if err != nil || len(ds) != 1 || len(ds[0].Attempts) != 1 {
			t.Fatalf("log: %v, %v", ds, err)
		}
		a := ds[0].Attempts[0]
		if a.Success || a.ResponseStatus != nil || a.DurationMs < 15000 || a.DurationMs >= 17500 || took >= 20*time.Second {
			t.Fatalf("an unanswered post: success %v, status %v, %d ms recorded, %s waited; want a failure after 15 s", a.Success, a.ResponseStatus, a.DurationMs, took)
		}
	})
}
