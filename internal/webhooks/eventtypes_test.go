package webhooks_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/event"
	"larder.dev/larder/internal/platform/ids"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/internal/webhooks"
	"larder.dev/larder/policy"
)

// emit writes an event of typ for the live account of f's organization, as
// the outbox does, not yet fanned out.
func (f *fixture) emit(t *testing.T, typ string) {
	t.Helper()
	res, _, _ := strings.Cut(typ, ".")
	_, err := f.st.Client.Event.Create().
		SetEventID(ids.New("evt_")).
		SetAccountID(f.org.Live.ID).
		SetEnvironment(event.EnvironmentLive).
		SetType(typ).
		SetResourceType(res).
		SetResourceID(1).
		SetSnapshot([]byte(`{"id":1}`)).
		SetSource(event.SourceApp).
		SetCreatedAt(f.clock.Now()).
		Save(policy.System(context.Background()))
	if err != nil {
		t.Fatal(err)
	}
}

// types returns the event types r received, in order.
func (r *receiver) types(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, q := range r.requests() {
		var env webhooks.Envelope
		if err := json.Unmarshal(q.body, &env); err != nil {
			t.Fatal(err)
		}
		out = append(out, env.Type)
	}
	return out
}

// An endpoint that chose event types receives those only, and a ping; one
// that chose none receives every type; choosing every type again restores
// everything.
func TestEndpointReceivesTheEventTypesItChose(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		f := setup(t, st)
		ctx := context.Background()
		po, all := newReceiver(t), newReceiver(t)
		sub, err := f.reg.Create(ctx, f.org.Org.ID, policy.Live, po.URL, "", "", []string{"purchase_order.created"})
		if err != nil {
			t.Fatal(err)
		}
		f.endpoint(t, f.org, policy.Live, all.URL)
		f.emit(t, "purchase_order.created")
		f.emit(t, "supplier.created")
		change(t, st, f.org, policy.Live, "a") // tag.created, through the outbox
		d := f.dispatcher(webhooks.Options{})
		drain(t, d)
		if got := po.types(t); !slices.Equal(got, []string{"purchase_order.created"}) {
			t.Fatalf("subscribed endpoint received %v, want the purchase order event only", got)
		}
		if got := all.types(t); !slices.Equal(slices.Sorted(slices.Values(got)), []string{"purchase_order.created", "supplier.created", "tag.created"}) {
			t.Fatalf("endpoint of every type received %v", got)
		}

		if _, _, err := f.reg.Ping(ctx, f.org.Org.ID, sub.ID); err != nil {
			t.Fatal(err)
		}
		f.clock.Add(time.Second)
		drain(t, d)
		if got := po.types(t); !slices.Equal(got, []string{"purchase_order.created", "ping"}) {
			t.Fatalf("after a ping the subscribed endpoint received %v", got)
		}

		none := []string{}
		ep, err := f.reg.Update(ctx, f.org.Org.ID, sub.ID, webhooks.Change{EventTypes: &none})
		if err != nil {
			t.Fatal(err)
		}
		if ep.EventTypes != nil {
			t.Fatalf("event types %v after choosing every type", ep.EventTypes)
		}
		f.emit(t, "supplier.created")
		drain(t, d)
		if got := po.types(t); !slices.Equal(got, []string{"purchase_order.created", "ping", "supplier.created"}) {
			t.Fatalf("after choosing every type the endpoint received %v", got)
		}
	})
}

// Chosen event types are catalogue types, stored sorted and once each; an
// unknown type and ping are refused, naming the type, and change nothing.
func TestEndpointEventTypesAreChecked(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		f := setup(t, st)
		ctx := context.Background()
		r := newReceiver(t)
		for _, bad := range []struct{ typ, want string }{
			{"purchase_order.shredded", `"purchase_order.shredded"`},
			{"ping", `"ping"`},
		} {
			_, err := f.reg.Create(ctx, f.org.Org.ID, policy.Live, r.URL, "", "", []string{"supplier.created", bad.typ})
			if err == nil || !strings.Contains(err.Error(), bad.want) {
				t.Fatalf("create with %s: %v", bad.typ, err)
			}
		}
		if eps, err := f.reg.List(ctx, f.org.Org.ID); err != nil || len(eps) != 0 {
			t.Fatalf("%d endpoints after refused creates (%v)", len(eps), err)
		}
		ep, err := f.reg.Create(ctx, f.org.Org.ID, policy.Live, r.URL, "", "",
			[]string{"supplier.created", "bill.created", "supplier.created"})
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"bill.created", "supplier.created"}
		if got, _ := f.reg.Get(ctx, f.org.Org.ID, ep.ID); !slices.Equal(got.EventTypes, want) {
			t.Fatalf("stored %v, want %v", got.EventTypes, want)
		}
		bad := []string{"tag.created", "nothing.happened"}
		if _, err := f.reg.Update(ctx, f.org.Org.ID, ep.ID, webhooks.Change{EventTypes: &bad}); err == nil || !strings.Contains(err.Error(), `"nothing.happened"`) {
			t.Fatalf("update with an unknown type: %v", err)
		}
		desc := "ERP"
		if _, err := f.reg.Update(ctx, f.org.Org.ID, ep.ID, webhooks.Change{Description: &desc}); err != nil {
			t.Fatal(err)
		}
		if got, _ := f.reg.Get(ctx, f.org.Org.ID, ep.ID); !slices.Equal(got.EventTypes, want) {
			t.Fatalf("event types %v after refused and unrelated updates, want %v", got.EventTypes, want)
		}
		// Every type of the catalogue may be chosen.
		every := ent.EventTypes()
		if _, err := f.reg.Update(ctx, f.org.Org.ID, ep.ID, webhooks.Change{EventTypes: &every}); err != nil {
			t.Fatal(err)
		}
	})
}
