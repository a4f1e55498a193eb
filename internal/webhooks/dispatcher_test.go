package webhooks_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/event"
	"larder.dev/larder/ent/tag"
	"larder.dev/larder/ent/webhookattempt"
	"larder.dev/larder/ent/webhookdelivery"
	"larder.dev/larder/ent/webhookendpoint"
	"larder.dev/larder/internal/identity/idempotency"
	"larder.dev/larder/internal/platform/metrics"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/platform/tracing"
	"larder.dev/larder/internal/retention"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/internal/webhooks"
	"larder.dev/larder/policy"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

// clock is a settable time.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Now().UTC()} }

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

func (c *clock) Add(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

// receiver is an httptest endpoint answering with the statuses of answer in
// turn (200 once they run out), recording every request.
type receiver struct {
	*httptest.Server
	mu     sync.Mutex
	answer []int
	got    []request
}

type request struct {
	header http.Header
	body   []byte
}

func newReceiver(t *testing.T, answer ...int) *receiver {
	r := &receiver{answer: answer}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.got = append(r.got, request{req.Header.Clone(), b})
		status := 200
		if len(r.answer) > 0 {
			status, r.answer = r.answer[0], r.answer[1:]
		}
		r.mu.Unlock()
		w.WriteHeader(status)
		_, _ = w.Write([]byte(`{"ok":true}`))
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *receiver) requests() []request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]request(nil), r.got...)
}

func (r *receiver) setAnswers(a ...int) { r.mu.Lock(); r.answer = a; r.mu.Unlock() }

// fixture is a store, a clock, an organization and a registry allowing the
// loopback receivers.
type fixture struct {
	st    *store.Store
	clock *clock
	org   *dbtest.Org
	reg   *webhooks.Registry
}

func setup(t *testing.T, st *store.Store) *fixture {
	c := newClock()
	return &fixture{st: st, clock: c, org: dbtest.NewOrg(t, st, ""),
		reg: &webhooks.Registry{Client: st.Client, AllowPrivate: true, Now: c.Now}}
}

func (f *fixture) dispatcher(o webhooks.Options) *webhooks.Dispatcher {
	o.Now = f.clock.Now
	o.AllowPrivate = !o.AllowPrivate // tests ask for the refusal explicitly
	return webhooks.New(f.st, o)
}

func (f *fixture) endpoint(t *testing.T, org *dbtest.Org, env policy.Environment, url string) *ent.WebhookEndpoint {
	t.Helper()
	ep, err := f.reg.Create(context.Background(), org.Org.ID, env, url, "owner@example.com", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	return ep
}

// change creates a tag as an app action of org's env account, in a transaction.
func change(t *testing.T, st *store.Store, org *dbtest.Org, env policy.Environment, name string) *ent.Tag {
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

// drain fans out and delivers until nothing is due.
func drain(t *testing.T, d *webhooks.Dispatcher) {
	t.Helper()
	ctx := context.Background()
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

func delivery(t *testing.T, st *store.Store, ep *ent.WebhookEndpoint) *ent.WebhookDelivery {
	t.Helper()
	d, err := st.Client.WebhookDelivery.Query().Where(webhookdelivery.EndpointID(ep.ID)).Only(policy.System(context.Background()))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// Every committed change writes exactly one event, and every event reaches
// every enabled endpoint of its account once, and no other endpoint.
func TestEveryEventReachesEveryEndpointOfItsAccount(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		f := setup(t, st)
		other := dbtest.NewOrg(t, st, "")
		live1, live2, test, foreign, off := newReceiver(t), newReceiver(t), newReceiver(t), newReceiver(t), newReceiver(t)
		f.endpoint(t, f.org, policy.Live, live1.URL)
		f.endpoint(t, f.org, policy.Live, live2.URL+"/hook")
		f.endpoint(t, f.org, policy.Test, test.URL)
		f.endpoint(t, other, policy.Live, foreign.URL)
		disabled := f.endpoint(t, f.org, policy.Live, off.URL)
		if _, err := f.reg.Disable(context.Background(), f.org.Org.ID, disabled.ID); err != nil {
			t.Fatal(err)
		}
		sys := policy.System(context.Background())
		before := st.Client.Event.Query().CountX(sys)
		for _, n := range []string{"a", "b", "c"} {
			change(t, st, f.org, policy.Live, n)
		}
		// A failed transaction writes no event.
		ctx := f.org.Ctx(policy.Live)
		_ = ent.RunInTx(ctx, st.Client, func(tx *ent.Tx) error {
			tx.Tag.Create().SetName("rolled back").SetRefType(tag.RefTypePRODUCT).SaveX(ctx)
			return context.Canceled
		})
		if n := st.Client.Event.Query().CountX(sys) - before; n != 3 {
			t.Fatalf("%d events for 3 committed changes", n)
		}
		drain(t, f.dispatcher(webhooks.Options{}))
		for name, r := range map[string]*receiver{"live1": live1, "live2": live2} {
			ids := map[string]int{}
			for _, q := range r.requests() {
				ids[q.header.Get("webhook-id")]++
				var env webhooks.Envelope
				if err := json.Unmarshal(q.body, &env); err != nil {
					t.Fatal(err)
				}
				if env.Type != "tag.created" || env.Source != "app" || env.Environment != "live" || env.Resource.Type != "tag" ||
					env.ID != q.header.Get("webhook-id") || env.APIKeyID != nil {
					t.Fatalf("%s: envelope %s", name, q.body)
				}
			}
			if len(ids) != 3 {
				t.Fatalf("%s received %v, want 3 events once each", name, ids)
			}
			for id, n := range ids {
				if n != 1 {
					t.Fatalf("%s received %s %d times", name, id, n)
				}
			}
		}
		for name, r := range map[string]*receiver{"test env": test, "other organization": foreign, "disabled": off} {
			if n := len(r.requests()); n != 0 {
				t.Fatalf("%s endpoint received %d deliveries", name, n)
			}
		}
	})
}

// Signatures verify with the Standard Webhooks library, with either secret
// during a rotation; the id is the event id.
func TestSignaturesVerifyWithStandardWebhooks(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		f := setup(t, st)
		r := newReceiver(t)
		ep := f.endpoint(t, f.org, policy.Live, r.URL)
		if !strings.HasPrefix(ep.Secret, "whsec_") {
			t.Fatalf("secret %q", ep.Secret)
		}
		change(t, st, f.org, policy.Live, "a")
		d := f.dispatcher(webhooks.Options{})
		drain(t, d)
		rotated, err := f.reg.RotateSecret(context.Background(), f.org.Org.ID, ep.ID, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		change(t, st, f.org, policy.Live, "b")
		drain(t, d)
		got := r.requests()
		if len(got) != 2 {
			t.Fatalf("%d requests", len(got))
		}
		verify := func(secret string, q request) error {
			wh, err := standardwebhooks.NewWebhook(secret)
			if err != nil {
				t.Fatal(err)
			}
			return wh.VerifyIgnoringTimestamp(q.body, q.header)
		}
		if err := verify(ep.Secret, got[0]); err != nil {
			t.Fatalf("first delivery: %v", err)
		}
		if sigs := strings.Fields(got[1].header.Get("webhook-signature")); len(sigs) != 2 {
			t.Fatalf("during a rotation want two signatures, got %q", sigs)
		}
		for _, s := range []string{ep.Secret, rotated.Secret} {
			if err := verify(s, got[1]); err != nil {
				t.Fatalf("rotated delivery with %s…: %v", s[:10], err)
			}
		}
		if err := verify(webhooks.NewSecret(), got[1]); err == nil {
			t.Fatal("a foreign secret verified")
		}
		// After the grace, only the new secret signs.
		f.clock.Add(2 * time.Hour)
		change(t, st, f.org, policy.Live, "c")
		drain(t, d)
		last := r.requests()[2]
		if verify(ep.Secret, last) == nil || verify(rotated.Secret, last) != nil {
			t.Fatal("after the grace the old secret still signs, or the new one does not")
		}
		var env webhooks.Envelope
		_ = json.Unmarshal(last.body, &env)
		ts := last.header.Get("webhook-timestamp")
		if env.ID != last.header.Get("webhook-id") || ts == "" {
			t.Fatalf("headers %v", last.header)
		}
	})
}

// A receiver failing twice then answering gets the same webhook-id three
// times, RetryInterval apart; a receiver down for the whole schedule (four
// attempts) gets the event on resend.
func TestRetriesAndResend(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		f := setup(t, st)
		flaky, down := newReceiver(t, 500, 503), newReceiver(t, 500, 500, 500, 500)
		epFlaky := f.endpoint(t, f.org, policy.Live, flaky.URL)
		epDown := f.endpoint(t, f.org, policy.Live, down.URL)
		change(t, st, f.org, policy.Live, "a")
		d := f.dispatcher(webhooks.Options{RetryInterval: time.Hour})
		drain(t, d)
		f.clock.Add(59 * time.Minute)
		drain(t, d)
		if n := len(flaky.requests()); n != 1 {
			t.Fatalf("retried before the interval: %d requests", n)
		}
		for range 3 {
			f.clock.Add(time.Hour)
			drain(t, d)
		}
		got := flaky.requests()
		if len(got) != 3 {
			t.Fatalf("flaky receiver got %d requests, want 3", len(got))
		}
		for _, q := range got {
			if q.header.Get("webhook-id") != got[0].header.Get("webhook-id") || string(q.body) != string(got[0].body) {
				t.Fatal("a retry changed the webhook-id or the body")
			}
		}
		if s := delivery(t, st, epFlaky).Status; s != webhookdelivery.StatusSucceeded {
			t.Fatalf("flaky delivery %s", s)
		}
		dd := delivery(t, st, epDown)
		if len(down.requests()) != 4 || dd.Status != webhookdelivery.StatusAbandoned || dd.AttemptCount != 4 {
			t.Fatalf("down receiver: %d requests, delivery %s after %d attempts; want 4, abandoned", len(down.requests()), dd.Status, dd.AttemptCount)
		}
		f.clock.Add(10 * time.Hour)
		drain(t, d)
		if len(down.requests()) != 4 {
			t.Fatal("an abandoned delivery was retried")
		}
		a, err := d.Resend(context.Background(), f.org.Org.ID, dd.ID)
		if err != nil {
			t.Fatal(err)
		}
		got = down.requests()
		if !a.Success || len(got) != 5 || got[4].header.Get("webhook-id") != got[0].header.Get("webhook-id") {
			t.Fatalf("resend: success %v, %d requests", a.Success, len(got))
		}
		if s := delivery(t, st, epDown).Status; s != webhookdelivery.StatusSucceeded {
			t.Fatalf("resent delivery %s", s)
		}
		// Resend is allowed on a succeeded delivery too.
		if a, err := d.Resend(context.Background(), f.org.Org.ID, dd.ID); err != nil || !a.Success || len(down.requests()) != 6 {
			t.Fatalf("second resend: %v", err)
		}
		if _, err := d.Resend(context.Background(), f.org.Org.ID, 1<<30); err == nil {
			t.Fatal("resend of a missing delivery succeeded")
		}
		ds, err := f.reg.Deliveries(context.Background(), f.org.Org.ID, epDown.ID, webhooks.DeliveryFilter{Limit: 10})
		if err != nil || len(ds) != 1 || len(ds[0].Attempts) != 6 {
			t.Fatalf("log: %v", err)
		}
		at := ds[0].Attempts[0]
		if at.ResponseStatus == nil || *at.ResponseStatus != 500 || at.Success || at.RequestBody == "" ||
			at.RequestHeaders["webhook-id"] == "" || at.ResponseBody != `{"ok":true}` {
			t.Fatalf("attempt log %+v", at)
		}
	})
}

// A dispatcher that dies mid-post loses nothing: a claimed delivery whose
// lease runs out, and one whose post is cut by shutdown, reach the receiver
// through another dispatcher.
func TestInterruptedDeliveryIsDeliveredAfterRestart(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		f := setup(t, st)
		hang := make(chan struct{})
		var hung atomic.Int32
		slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if hung.Add(1) == 1 {
				<-hang // the first post never gets its answer
				return
			}
			w.WriteHeader(204)
		}))
		defer slow.Close()
		defer close(hang)
		ep := f.endpoint(t, f.org, policy.Live, slow.URL)
		change(t, st, f.org, policy.Live, "a")
		first := f.dispatcher(webhooks.Options{})
		if _, err := first.FanOut(context.Background()); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error)
		go func() { _, err := first.DeliverDue(ctx); done <- err }()
		for hung.Load() == 0 {
			time.Sleep(5 * time.Millisecond)
		}
		cancel() // the server stops mid-post
		<-done
		if n := st.Client.WebhookAttempt.Query().Where(webhookattempt.HasDeliveryWith(webhookdelivery.EndpointID(ep.ID))).
			CountX(policy.System(context.Background())); n != 0 {
			t.Fatalf("an interrupted post was logged as %d attempts", n)
		}
		second := f.dispatcher(webhooks.Options{})
		drain(t, second)
		if d := delivery(t, st, ep); d.Status != webhookdelivery.StatusSucceeded || hung.Load() != 2 {
			t.Fatalf("after restart: %s, %d posts", d.Status, hung.Load())
		}

		// A delivery claimed by a process that died holding its lease waits
		// for the lease, then goes out.
		r := newReceiver(t)
		ep2 := f.endpoint(t, f.org, policy.Live, r.URL)
		change(t, st, f.org, policy.Live, "b")
		if _, err := second.FanOut(context.Background()); err != nil {
			t.Fatal(err)
		}
		sys := policy.System(context.Background())
		st.Client.WebhookDelivery.Update().Where(webhookdelivery.EndpointID(ep2.ID)).
			SetLockedUntil(f.clock.Now().Add(time.Minute)).ExecX(sys)
		drain(t, second)
		if len(r.requests()) != 0 {
			t.Fatal("a leased delivery was taken before its lease ended")
		}
		f.clock.Add(time.Minute + time.Second)
		drain(t, second)
		if len(r.requests()) != 1 || delivery(t, st, ep2).Status != webhookdelivery.StatusSucceeded {
			t.Fatalf("after the lease: %d requests", len(r.requests()))
		}
	})
}

// Two dispatchers sharing a database never send one attempt twice.
func TestTwoDispatchersNeverSendTwice(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		f := setup(t, st)
		r := newReceiver(t)
		f.endpoint(t, f.org, policy.Live, r.URL)
		const n = 40
		for i := range n {
			change(t, st, f.org, policy.Live, "t"+string(rune('A'+i)))
		}
		other := st
		if st.Dialect == "postgres" {
			other = dbtest.OpenURL(t, dbtest.URL(t, dbtest.Backends(t)[len(dbtest.Backends(t))-1]))
		}
		a := f.dispatcher(webhooks.Options{Concurrency: 3})
		b := webhooks.New(other, webhooks.Options{Concurrency: 3, AllowPrivate: true, Now: f.clock.Now})
		var wg sync.WaitGroup
		for _, d := range []*webhooks.Dispatcher{a, b} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 50 {
					if _, err := d.FanOut(context.Background()); err != nil {
						t.Error(err)
						return
					}
					if _, err := d.DeliverDue(context.Background()); err != nil {
						t.Error(err)
						return
					}
				}
			}()
		}
		wg.Wait()
		seen := map[string]int{}
		for _, q := range r.requests() {
			seen[q.header.Get("webhook-id")]++
		}
		if len(seen) != n {
			t.Fatalf("%d distinct events delivered, want %d", len(seen), n)
		}
		for id, c := range seen {
			if c != 1 {
				t.Fatalf("%s sent %d times", id, c)
			}
		}
	})
}

// Endpoints on private, loopback or link-local addresses are refused at
// registration and at delivery (the address dialed is checked).
func TestPrivateAddressesRefused(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		f := setup(t, st)
		strict := &webhooks.Registry{Client: st.Client}
		for _, u := range []string{
			"https://127.0.0.1/hook", "https://localhost/hook", "https://10.1.2.3/", "https://192.168.0.10/",
			"https://172.16.5.4/", "https://169.254.169.254/latest/meta-data", "https://[::1]/", "https://[fe80::1]/",
			"https://0.0.0.0/", "https://100.64.0.1/", "https://[::ffff:127.0.0.1]/", "https://[fd00::1]/",
			"http://example.com/", "ftp://example.com/", "https:///nohost", "https://user:pw@example.com/",
		} {
			if _, err := strict.Create(context.Background(), f.org.Org.ID, policy.Live, u, "", "", nil); err == nil {
				t.Errorf("%s was registered", u)
			}
		}
		r := newReceiver(t)
		// https, so that what refuses it is the address dialed (admitted
		// in development mode).
		ep := f.endpoint(t, f.org, policy.Live, "https://"+r.Listener.Addr().String()+"/")
		change(t, st, f.org, policy.Live, "a")
		d := f.dispatcher(webhooks.Options{AllowPrivate: true}) // flipped: a strict dispatcher
		drain(t, d)
		if len(r.requests()) != 0 {
			t.Fatal("a strict dispatcher posted to a loopback address")
		}
		log, err := f.reg.Deliveries(context.Background(), f.org.Org.ID, ep.ID, webhooks.DeliveryFilter{Limit: 1})
		if err != nil || len(log) != 1 || len(log[0].Attempts) != 1 {
			t.Fatalf("log: %v", err)
		}
		if a := log[0].Attempts[0]; a.Success || a.Error == nil || !strings.Contains(*a.Error, "private, loopback or link-local") {
			t.Fatalf("attempt %+v", a)
		}
	})
}

// recorder is a notifier that remembers what it was told.
type recorder struct {
	mu  sync.Mutex
	eps []int
}

func (r *recorder) EndpointDisabled(_ context.Context, ep *ent.WebhookEndpoint) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.eps = append(r.eps, ep.ID)
	return nil
}

// An endpoint failing every delivery for DisableAfter is disabled and its
// owner told; nothing is deleted, and enabling it delivers what is pending.
func TestFailingEndpointIsDisabledThenResumes(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		f := setup(t, st)
		r := newReceiver(t, 500, 500, 500, 500, 500, 500, 500, 500)
		ep := f.endpoint(t, f.org, policy.Live, r.URL)
		note := &recorder{}
		d := f.dispatcher(webhooks.Options{RetryInterval: time.Hour, DisableAfter: 3 * time.Hour, Notifier: note})
		ctx := context.Background()
		sys := policy.System(ctx)
		change(t, st, f.org, policy.Live, "a")
		drain(t, d)
		for range 2 {
			f.clock.Add(time.Hour)
			drain(t, d)
		}
		if got := st.Client.WebhookEndpoint.GetX(sys, ep.ID); !got.Enabled || len(note.eps) != 0 {
			t.Fatal("disabled before failing for DisableAfter")
		}
		change(t, st, f.org, policy.Live, "b")
		f.clock.Add(time.Hour)
		drain(t, d) // 3 h of failures
		got := st.Client.WebhookEndpoint.GetX(sys, ep.ID)
		if got.Enabled || got.DisabledReason == nil || *got.DisabledReason != webhookendpoint.DisabledReasonFailing || len(note.eps) != 1 || note.eps[0] != ep.ID {
			t.Fatalf("endpoint after 3 h of failures: enabled %v, notified %v", got.Enabled, note.eps)
		}
		posts := len(r.requests())
		change(t, st, f.org, policy.Live, "c") // held for the disabled endpoint
		f.clock.Add(5 * time.Hour)
		drain(t, d)
		if len(r.requests()) != posts {
			t.Fatal("a disabled endpoint received a delivery")
		}
		if n := st.Client.WebhookDelivery.Query().Where(webhookdelivery.EndpointID(ep.ID)).CountX(sys); n != 3 {
			t.Fatalf("%d deliveries kept, want 3", n)
		}
		r.setAnswers()
		if _, err := f.reg.Enable(ctx, f.org.Org.ID, ep.ID); err != nil {
			t.Fatal(err)
		}
		drain(t, d)
		pending := st.Client.WebhookDelivery.Query().Where(webhookdelivery.EndpointID(ep.ID), webhookdelivery.StatusEQ(webhookdelivery.StatusPending)).CountX(sys)
		if pending != 0 || len(r.requests()) != posts+2 {
			t.Fatalf("after enabling: %d pending, %d new posts (want the 2 still pending)", pending, len(r.requests())-posts)
		}
	})
}

// Ping sends a signed ping to the endpoint alone; it is logged.
func TestPing(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		f := setup(t, st)
		r, other := newReceiver(t), newReceiver(t)
		ep := f.endpoint(t, f.org, policy.Live, r.URL)
		f.endpoint(t, f.org, policy.Live, other.URL)
		d := f.dispatcher(webhooks.Options{})
		ev, a, err := d.Ping(context.Background(), f.org.Org.ID, ep.ID)
		if err != nil || !a.Success {
			t.Fatalf("ping: %v", err)
		}
		drain(t, d)
		got := r.requests()
		if len(got) != 1 || len(other.requests()) != 0 || got[0].header.Get("webhook-id") != ev.EventID {
			t.Fatalf("ping reached %d/%d endpoints", len(got), len(other.requests()))
		}
		var env webhooks.Envelope
		_ = json.Unmarshal(got[0].body, &env)
		if env.Type != "ping" || env.Source != "app" || string(env.Snapshot) == "" {
			t.Fatalf("ping envelope %s", got[0].body)
		}
		wh, _ := standardwebhooks.NewWebhook(ep.Secret)
		if err := wh.Verify(got[0].body, got[0].header); err != nil {
			t.Fatal(err)
		}
		if _, _, err := d.Ping(context.Background(), f.org.Org.ID, 1<<30); err == nil {
			t.Fatal("ping of a missing endpoint")
		}
	})
}

// prune runs the retention jobs of the processes that dispatch (serve, the
// webhook worker) as of now: the delivery log and outbox, and the
// Idempotency-Key records.
func prune(st *store.Store, now time.Time) error {
	for _, j := range []retention.Job{retention.Webhooks(st.Client), retention.IdempotencyKeys(st.Client)} {
		if _, err := j.Prune(context.Background(), now); err != nil {
			return err
		}
	}
	return nil
}

// Pruning keeps the log 30 days, abandoned deliveries 90, dispatched events
// no delivery refers to 90 (TestRetentionDays has each a day either side),
// and Idempotency-Key records 24 hours.
func TestPrune(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		f := setup(t, st)
		ok, bad := newReceiver(t), newReceiver(t, 500, 500, 500, 500)
		epOK := f.endpoint(t, f.org, policy.Live, ok.URL)
		epBad := f.endpoint(t, f.org, policy.Live, bad.URL)
		change(t, st, f.org, policy.Live, "a")
		d := f.dispatcher(webhooks.Options{RetryInterval: time.Minute, DisableAfter: 1000 * time.Hour})
		drain(t, d)
		for range 3 {
			f.clock.Add(time.Minute)
			drain(t, d)
		}
		ctx := context.Background()
		sys := policy.System(ctx)
		if _, err := idempotency.Take(f.org.Ctx(policy.Live), st.Client, "old-key", "createBill", "fp", f.clock.Now()); err != nil {
			t.Fatal(err)
		}
		keys := func() int { return st.Client.IdempotencyKey.Query().CountX(f.org.Ctx(policy.Live)) }
		if err := prune(st, f.clock.Now()); err != nil || keys() != 1 {
			t.Fatalf("a fresh Idempotency-Key was pruned (%d left, %v)", keys(), err)
		}
		count := func(ep *ent.WebhookEndpoint) int {
			return st.Client.WebhookDelivery.Query().Where(webhookdelivery.EndpointID(ep.ID)).CountX(sys)
		}
		f.clock.Add(30*24*time.Hour + time.Hour)
		if err := prune(st, f.clock.Now()); err != nil {
			t.Fatal(err)
		}
		if count(epOK) != 0 || count(epBad) != 1 {
			t.Fatalf("after 30 days: %d succeeded, %d abandoned deliveries kept; want 0 and 1", count(epOK), count(epBad))
		}
		if keys() != 0 {
			t.Fatal("an Idempotency-Key outlived its 24 hours")
		}
		f.clock.Add((90 - 30) * 24 * time.Hour)
		if err := prune(st, f.clock.Now()); err != nil {
			t.Fatal(err)
		}
		if count(epBad) != 0 {
			t.Fatal("an abandoned delivery outlived 90 days")
		}
		if n := st.Client.Event.Query().Where(event.AccountID(f.org.Live.ID)).CountX(sys); n != 0 {
			t.Fatalf("%d events kept after their retention", n)
		}
	})
}

// Every recorded attempt reaches the metrics by result, and a delivery given
// up after its retries is counted once; the outbox gauges follow the backlog.
func TestAttemptsReachMetrics(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		f := setup(t, st)
		up, down := newReceiver(t), newReceiver(t, 500, 500, 500)
		f.endpoint(t, f.org, policy.Live, up.URL)
		f.endpoint(t, f.org, policy.Live, down.URL)
		m := metrics.New(st, nil)
		series := func() map[string]float64 {
			fams, err := m.Registry.Gather()
			if err != nil {
				t.Fatal(err)
			}
			out := map[string]float64{}
			for _, fam := range fams {
				for _, s := range fam.GetMetric() {
					name := fam.GetName()
					for _, l := range s.GetLabel() {
						name += "/" + l.GetValue()
					}
					switch {
					case s.Counter != nil:
						out[name] = s.GetCounter().GetValue()
					case s.Gauge != nil:
						out[name] = s.GetGauge().GetValue()
					}
				}
			}
			return out
		}
		before := series()
		change(t, st, f.org, policy.Live, "measured")
		if d := series()["larder_outbox_events_pending"] - before["larder_outbox_events_pending"]; d != 1 && st.Dialect == "sqlite3" {
			t.Errorf("one change left %v more events pending", d)
		}
		d := f.dispatcher(webhooks.Options{OnAttempt: m.Attempt, Retries: 1, RetryInterval: time.Minute})
		drain(t, d)
		f.clock.Add(time.Minute + time.Second)
		drain(t, d)
		got := series()
		for name, want := range map[string]float64{
			"larder_webhook_attempts_total/succeeded":   1,
			"larder_webhook_attempts_total/failed":      2,
			"larder_webhook_deliveries_abandoned_total": 1,
		} {
			if got[name] != want {
				t.Errorf("%s = %v, want %v", name, got[name], want)
			}
		}
		if st.Dialect == "sqlite3" && (got["larder_outbox_events_pending"] != 0 || got["larder_webhook_deliveries_pending"] != 0 || got["larder_outbox_oldest_undelivered_age_seconds"] != 0) {
			t.Errorf("backlog after delivery: %v", got)
		}
	})
}

// With tracing on, each delivery attempt is a client span naming its event,
// endpoint and answer, in error when the receiver refused it.
func TestDeliverySpans(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		exp := tracetest.NewInMemoryExporter()
		tracing.Use(sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp)))
		defer tracing.Use(nil)
		f := setup(t, st)
		up, down := newReceiver(t), newReceiver(t, 503)
		epUp := f.endpoint(t, f.org, policy.Live, up.URL)
		epDown := f.endpoint(t, f.org, policy.Live, down.URL)
		change(t, st, f.org, policy.Live, "traced")
		drain(t, f.dispatcher(webhooks.Options{}))
		byEndpoint := map[string]tracetest.SpanStub{}
		for _, s := range exp.GetSpans() {
			if s.Name != "webhook delivery" {
				continue
			}
			for _, a := range s.Attributes {
				if a.Key == "larder.endpoint_id" {
					byEndpoint[a.Value.Emit()] = s
				}
			}
		}
		ok, failed := byEndpoint[strconv.Itoa(epUp.ID)], byEndpoint[strconv.Itoa(epDown.ID)]
		if ok.Name == "" || failed.Name == "" {
			t.Fatalf("delivery spans by endpoint: %v", byEndpoint)
		}
		want := func(s tracetest.SpanStub, key, value string) {
			t.Helper()
			for _, a := range s.Attributes {
				if string(a.Key) == key && a.Value.Emit() == value {
					return
				}
			}
			t.Errorf("span lacks %s=%s: %v", key, value, s.Attributes)
		}
		want(ok, "larder.event_type", "tag.created")
		want(ok, "http.response.status_code", "200")
		want(failed, "http.response.status_code", "503")
		if ok.Status.Code != codes.Unset || failed.Status.Code != codes.Error {
			t.Errorf("statuses %v and %v", ok.Status, failed.Status)
		}
		if !strings.HasPrefix(attrOf(ok, "larder.event_id"), "evt_") {
			t.Errorf("event id %q", attrOf(ok, "larder.event_id"))
		}
	})
}

func attrOf(s tracetest.SpanStub, key string) string {
	for _, a := range s.Attributes {
		if string(a.Key) == key {
			return a.Value.Emit()
		}
	}
	return ""
}
