package webhooks_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/event"
	"larder.dev/larder/ent/webhookdelivery"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/internal/webhooks"
	"larder.dev/larder/policy"
)

// DeliveryDays counts each endpoint's deliveries per UTC day by how they
// fared: succeeded; failed (abandoned, or pending after a failed scheduled
// attempt); pending (not attempted yet). Every day of the range is there for
// every endpoint of the organization, and another organization's endpoints
// are neither listed nor counted.
func TestDeliveryDaysCountPerEndpointAndDay(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		f := setup(t, st)
		ctx := context.Background()
		sys := policy.System(ctx)
		other := dbtest.NewOrg(t, st, "")
		rcv := newReceiver(t).URL
		ep := f.endpoint(t, f.org, policy.Live, rcv)
		quiet := f.endpoint(t, f.org, policy.Test, rcv)
		theirs := f.endpoint(t, other, policy.Live, rcv)
		day := time.Date(2026, 11, 3, 0, 0, 0, 0, time.UTC)
		// Never due while the test runs, so no dispatcher posts them.
		later := time.Now().AddDate(1, 0, 0)
		n := 0
		deliver := func(to *ent.WebhookEndpoint, at time.Time, status webhookdelivery.Status, attempts int) {
			n++
			ev := st.Client.Event.Create().SetEventID(fmt.Sprintf("evt_days%d_%d", to.ID, n)).SetAccountID(to.AccountID).
				SetEnvironment(event.EnvironmentLive).SetType("tag.created").SetResourceType("tag").SetResourceID(n).
				SetSnapshot([]byte(`{}`)).SetSource(event.SourceApp).SetCreatedAt(at).SetDispatchedAt(at).SaveX(sys)
			st.Client.WebhookDelivery.Create().SetAccountID(ev.AccountID).SetEventID(ev.ID).SetEndpointID(to.ID).SetStatus(status).
				SetAttemptCount(attempts).SetNextAttemptAt(later).SetCreatedAt(at).ExecX(sys)
		}
		deliver(ep, day.Add(-time.Microsecond), webhookdelivery.StatusSucceeded, 1) // the day before
		deliver(ep, day, webhookdelivery.StatusSucceeded, 1)
		deliver(ep, day.Add(time.Hour), webhookdelivery.StatusSucceeded, 3)
		deliver(ep, day.Add(2*time.Hour), webhookdelivery.StatusAbandoned, 8)
		deliver(ep, day.Add(3*time.Hour), webhookdelivery.StatusPending, 2)
		deliver(ep, day.Add(24*time.Hour-time.Microsecond), webhookdelivery.StatusPending, 0)
		deliver(ep, day.Add(48*time.Hour), webhookdelivery.StatusSucceeded, 1) // after the range
		deliver(theirs, day, webhookdelivery.StatusAbandoned, 8)
		t.Cleanup(func() {
			for _, e := range []*ent.WebhookEndpoint{ep, quiet} {
				_ = f.reg.Delete(ctx, f.org.Org.ID, e.ID)
			}
			_ = f.reg.Delete(ctx, other.Org.ID, theirs.ID)
		})

		got, err := f.reg.DeliveryDays(ctx, f.org.Org.ID, day.Add(-time.Hour), day.Add(23*time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		want := map[int][]webhooks.Day{
			ep.ID: {
				{Start: day.AddDate(0, 0, -1), Succeeded: 1},
				{Start: day, Succeeded: 2, Failed: 2, Pending: 1},
			},
			quiet.ID: {{Start: day.AddDate(0, 0, -1)}, {Start: day}},
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("deliveries per day (-want +got):\n%s", d)
		}
	})
}
