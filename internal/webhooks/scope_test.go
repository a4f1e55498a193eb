package webhooks_test

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/webhookendpoint"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/internal/webhooks"
	"larder.dev/larder/policy"
)

// side is one organization with its endpoint, the endpoint's receiver and
// one delivery queued for it.
type side struct {
	org   *dbtest.Org
	rcv   *receiver
	ep    int
	del   int
	label string
}

// scopedOp is a management function taking the organization it acts for and
// the id of an endpoint or a delivery of that organization.
type scopedOp struct {
	name string
	call func(ctx context.Context, orgID int, s side) error
	// done checks the effect of a call with the right organization.
	done func(t *testing.T, s side)
}

// missing is an id no record has.
const missing = 1 << 30

// world is everything a management function could change, as text.
func world(t *testing.T, st *store.Store, sides ...side) string {
	t.Helper()
	sys := policy.System(context.Background())
	var b strings.Builder
	eps, err := st.Client.WebhookEndpoint.Query().Order(webhookendpoint.ByID()).All(sys)
	if err != nil {
		t.Fatal(err)
	}
	for _, ep := range eps {
		prev := "-"
		if ep.PreviousSecret != nil {
			prev = *ep.PreviousSecret
		}
		fmt.Fprintf(&b, "endpoint %d %s %q %q %v %v %v %q %q %v\n", ep.ID, ep.URL, ep.Description, ep.Email, ep.Enabled,
			ep.DisabledAt, ep.FailingSince, ep.Secret, prev, ep.UpdatedAt.UnixMicro())
	}
	ds, err := st.Client.WebhookDelivery.Query().Order(ent.Asc("id")).All(sys)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range ds {
		fmt.Fprintf(&b, "delivery %d %d %s %d %v %v\n", d.ID, d.EndpointID, d.Status, d.AttemptCount, d.NextAttemptAt.UnixMicro(), d.LockedUntil)
	}
	na, err := st.Client.WebhookAttempt.Query().Count(sys)
	if err != nil {
		t.Fatal(err)
	}
	ne, err := st.Client.Event.Query().Count(sys)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&b, "%d attempts, %d events\n", na, ne)
	for _, s := range sides {
		fmt.Fprintf(&b, "%s received %d\n", s.label, len(s.rcv.requests()))
	}
	return b.String()
}

// Every management function given one organization finds nothing of
// another: an endpoint or delivery of organization B, named with A's id, is
// not found with the very message of a missing id, and nothing changes; with
// B's own id the same call works. Both directions.
func TestManagementFindsNothingOfAnotherOrganization(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		f := setup(t, st)
		d := f.dispatcher(webhooks.Options{})
		ctx := context.Background()
		sides := []side{{org: f.org, label: "A"}, {org: dbtest.NewOrg(t, st, ""), label: "B"}}
		for i := range sides {
			s := &sides[i]
			s.rcv = newReceiver(t)
			ep := f.endpoint(t, s.org, policy.Live, s.rcv.URL)
			s.ep = ep.ID
			change(t, st, s.org, policy.Live, "tag "+s.label)
		}
		if _, err := d.FanOut(ctx); err != nil {
			t.Fatal(err)
		}
		for i := range sides {
			ep, err := st.Client.WebhookEndpoint.Get(policy.System(ctx), sides[i].ep)
			if err != nil {
				t.Fatal(err)
			}
			sides[i].del = delivery(t, st, ep).ID
		}
		endpoint := func(t *testing.T, s side) *ent.WebhookEndpoint {
			t.Helper()
			ep, err := f.reg.Get(ctx, s.org.Org.ID, s.ep)
			if err != nil {
				t.Fatal(err)
			}
			return ep
		}
		received := map[string]int{}
		gotRequest := func(t *testing.T, s side) {
			t.Helper()
			if n := len(s.rcv.requests()); n != received[s.label]+1 {
				t.Fatalf("%s's receiver got %d requests, want %d", s.label, n, received[s.label]+1)
			}
		}
		desc := "changed"
		// In the order the right organization's calls run: Delete last.
		ops := []scopedOp{
			{name: "Registry.Get", call: func(ctx context.Context, org int, s side) error {
				_, err := f.reg.Get(ctx, org, s.ep)
				return err
			}},
			{name: "Registry.Update", call: func(ctx context.Context, org int, s side) error {
				_, err := f.reg.Update(ctx, org, s.ep, webhooks.Change{Description: &desc})
				return err
			}, done: func(t *testing.T, s side) {
				if got := endpoint(t, s).Description; got != desc {
					t.Fatalf("description %q", got)
				}
			}},
			{name: "Registry.Disable", call: func(ctx context.Context, org int, s side) error {
				_, err := f.reg.Disable(ctx, org, s.ep)
				return err
			}, done: func(t *testing.T, s side) {
				if endpoint(t, s).Enabled {
					t.Fatal("still enabled")
				}
			}},
			{name: "Registry.Enable", call: func(ctx context.Context, org int, s side) error {
				_, err := f.reg.Enable(ctx, org, s.ep)
				return err
			}, done: func(t *testing.T, s side) {
				if !endpoint(t, s).Enabled {
					t.Fatal("still disabled")
				}
			}},
			{name: "Registry.RotateSecret", call: func(ctx context.Context, org int, s side) error {
				_, err := f.reg.RotateSecret(ctx, org, s.ep, time.Hour)
				return err
			}, done: func(t *testing.T, s side) {
				if endpoint(t, s).PreviousSecret == nil {
					t.Fatal("no previous secret kept")
				}
			}},
			{name: "Registry.Deliveries", call: func(ctx context.Context, org int, s side) error {
				ds, err := f.reg.Deliveries(ctx, org, s.ep, webhooks.DeliveryFilter{Limit: 10})
				if err == nil && (len(ds) != 1 || ds[0].ID != s.del) {
					return fmt.Errorf("log %v, want delivery %d alone", ds, s.del)
				}
				return err
			}},
			{name: "Registry.Ping", call: func(ctx context.Context, org int, s side) error {
				_, _, err := f.reg.Ping(ctx, org, s.ep)
				return err
			}},
			{name: "Dispatcher.Ping", call: func(ctx context.Context, org int, s side) error {
				_, _, err := d.Ping(ctx, org, s.ep)
				return err
			}, done: gotRequest},
			{name: "Dispatcher.Resend", call: func(ctx context.Context, org int, s side) error {
				_, err := d.Resend(ctx, org, s.del)
				return err
			}, done: gotRequest},
			{name: "Registry.WaitPing", call: func(ctx context.Context, org int, s side) error {
				// The delivery was resent: its attempt is there to be found.
				_, err := f.reg.WaitPing(ctx, org, s.del, 10*time.Millisecond)
				return err
			}},
			{name: "Listen", call: func(ctx context.Context, org int, s side) error {
				// Long enough for its first reads on a loaded cluster.
				lctx, cancel := context.WithTimeout(ctx, time.Second)
				defer cancel()
				return webhooks.Listen(lctx, st.Client, org, s.ep, 10*time.Millisecond, func(webhooks.Attempt) error { return nil })
			}},
			{name: "Registry.Health", call: func(ctx context.Context, org int, s side) error {
				hs, err := f.reg.Health(ctx, org, s.ep)
				if err == nil && (len(hs) != 1 || hs[s.ep].State == "") {
					return fmt.Errorf("health %v, want endpoint %d alone", hs, s.ep)
				}
				return err
			}},
			{name: "Registry.ResendFailed", call: func(ctx context.Context, org int, s side) error {
				_, err := f.reg.ResendFailed(ctx, org, s.ep, time.Time{})
				return err
			}},
			{name: "Registry.Delete", call: func(ctx context.Context, org int, s side) error {
				return f.reg.Delete(ctx, org, s.ep)
			}, done: func(t *testing.T, s side) {
				if _, err := f.reg.Get(ctx, s.org.Org.ID, s.ep); err == nil {
					t.Fatal("still there")
				}
			}},
		}

		// The table holds every method of the registry and the dispatcher
		// that takes an organization and an id.
		var names []string
		for _, op := range ops {
			names = append(names, op.name)
		}
		for _, v := range []any{f.reg, d} {
			typ := reflect.TypeOf(v)
			intT := reflect.TypeOf(0)
			for i := range typ.NumMethod() {
				m := typ.Method(i)
				if m.Type.NumIn() >= 4 && m.Type.In(2) == intT && m.Type.In(3) == intT {
					if name := typ.Elem().Name() + "." + m.Name; !slices.Contains(names, name) {
						t.Errorf("%s takes an organization and an id but is not in the table", name)
					}
				}
			}
		}

		// The message of a missing id, with the record's id in its place.
		notFound := func(t *testing.T, op scopedOp, s side) string {
			t.Helper()
			probe := side{org: s.org, rcv: s.rcv, label: s.label, ep: missing, del: missing}
			err := op.call(ctx, s.org.Org.ID, probe)
			if err == nil || !strings.Contains(err.Error(), "does not exist") {
				t.Fatalf("%s of a missing id: %v, want it not found", op.name, err)
			}
			id := s.ep
			if strings.Contains(err.Error(), "delivery") {
				id = s.del
			}
			return strings.ReplaceAll(err.Error(), strconv.Itoa(missing), strconv.Itoa(id))
		}

		for _, op := range ops {
			t.Run(op.name, func(t *testing.T) {
				for i, mine := range sides {
					other := sides[1-i]
					want := notFound(t, op, mine)
					before := world(t, st, sides...)
					octx, cancel := context.WithTimeout(ctx, 5*time.Second)
					err := op.call(octx, other.org.Org.ID, mine)
					cancel()
					if err == nil || err.Error() != want {
						t.Errorf("%s's record for %s: %v, want %q", mine.label, other.label, err, want)
					}
					if after := world(t, st, sides...); after != before {
						t.Errorf("%s's record for %s changed:\n%s\nto:\n%s", mine.label, other.label, before, after)
					}
					received[mine.label] = len(mine.rcv.requests())
					if err := op.call(ctx, mine.org.Org.ID, mine); err != nil {
						t.Fatalf("%s's own record: %v", mine.label, err)
					}
					if op.done != nil {
						op.done(t, mine)
					}
				}
			})
		}
	})
}

// The organization of an endpoint or a delivery is that of its account; a
// missing id is not found.
func TestOrganizationOfEndpointAndDelivery(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		f := setup(t, st)
		ctx := context.Background()
		other := dbtest.NewOrg(t, st, "")
		for _, org := range []*dbtest.Org{f.org, other} {
			ep := f.endpoint(t, org, policy.Test, newReceiver(t).URL)
			_, del, err := f.reg.Ping(ctx, org.Org.ID, ep.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got, err := webhooks.EndpointOrganization(ctx, st.Client, ep.ID); err != nil || got != org.Org.ID {
				t.Errorf("endpoint %d: organization %d (%v), want %d", ep.ID, got, err, org.Org.ID)
			}
			if got, err := webhooks.DeliveryOrganization(ctx, st.Client, del.ID); err != nil || got != org.Org.ID {
				t.Errorf("delivery %d: organization %d (%v), want %d", del.ID, got, err, org.Org.ID)
			}
		}
		if _, err := webhooks.EndpointOrganization(ctx, st.Client, missing); err == nil || err.Error() != fmt.Sprintf("webhook endpoint %d does not exist", missing) {
			t.Errorf("missing endpoint: %v", err)
		}
		if _, err := webhooks.DeliveryOrganization(ctx, st.Client, missing); err == nil || err.Error() != fmt.Sprintf("webhook delivery %d does not exist", missing) {
			t.Errorf("missing delivery: %v", err)
		}
	})
}
