package webhooks

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql"
	"github.com/hashicorp/go-retryablehttp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/event"
	"larder.dev/larder/ent/webhookattempt"
	"larder.dev/larder/ent/webhookdelivery"
	"larder.dev/larder/ent/webhookendpoint"
	"larder.dev/larder/internal/identity/audit"
	"larder.dev/larder/internal/platform/ids"
	"larder.dev/larder/internal/platform/secrets"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/platform/tracing"
	"larder.dev/larder/policy"
)

// Retention of the delivery log and of the outbox (docs/api-behaviour.md, "Webhooks").
const (
	// LogRetention keeps succeeded deliveries and every attempt.
	LogRetention = 30 * 24 * time.Hour
	// AbandonedRetention keeps deliveries given up on, with their attempts.
	AbandonedRetention = 90 * 24 * time.Hour
	// EventRetention keeps dispatched events that no delivery refers to any
	// more: as long as the longest-kept delivery, so nothing in the log
	// outlives its event.
	EventRetention = 90 * 24 * time.Hour
	// ExcerptBytes bounds the response body kept per attempt.
	ExcerptBytes = 2048
)

// Options configure a dispatcher. Zero values take the defaults given on each
// field (docs/api-behaviour.md, "Webhooks").
type Options struct {
	// RetryInterval separates the scheduled attempts (5h).
	RetryInterval time.Duration
	// Retries after the first attempt before a delivery is abandoned (3).
	Retries int
	// DisableAfter disables an endpoint that failed every attempt this long (24h).
	DisableAfter time.Duration
	// PollInterval is how often Run looks for due work (2s).
	PollInterval time.Duration
	// Timeout is the receiver's time to answer (15s).
	Timeout time.Duration
	// Lease is how long a claimed delivery is reserved for the process posting
	// it; it must outlast a post (Timeout plus in-request retries). Default 2×Timeout+30s.
	Lease time.Duration
	// Concurrency bounds the posts in flight (64).
	Concurrency int
	// PerEndpoint bounds the posts in flight to one endpoint (a quarter of
	// Concurrency), so that a slow endpoint holds only its own share.
	PerEndpoint int
	// AllowPrivate lets deliveries reach private addresses (development, tests).
	AllowPrivate bool
	// Now is the clock (time.Now).
	Now func() time.Time
	// Notifier tells an endpoint's owner it was disabled (logged only when nil).
	Notifier Notifier
	// Log receives the dispatcher's warnings.
	Log *slog.Logger
	// Transport replaces the HTTP transport (tests); it must apply its own
	// address checks.
	Transport http.RoundTripper
	// Keys decrypt the endpoints' signing secrets (none: plain text only).
	Keys *secrets.Keyring
	// OnAttempt, when set, learns each recorded attempt: whether it
	// succeeded, and whether its delivery was given up (metrics).
	OnAttempt func(ok, abandoned bool)
}

func (o *Options) defaults() {
	if o.RetryInterval <= 0 {
		o.RetryInterval = 5 * time.Hour
	}
	if o.Retries <= 0 {
		o.Retries = 3
	}
	if o.DisableAfter <= 0 {
		o.DisableAfter = 24 * time.Hour
	}
	if o.PollInterval <= 0 {
		o.PollInterval = 2 * time.Second
	}
	if o.Timeout <= 0 {
		o.Timeout = 15 * time.Second
	}
	if o.Lease <= 0 {
		o.Lease = 2*o.Timeout + 30*time.Second
	}
	if o.Concurrency <= 0 {
		o.Concurrency = 64
	}
	if o.PerEndpoint <= 0 || o.PerEndpoint > o.Concurrency {
		o.PerEndpoint = max(1, o.Concurrency/4)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Log == nil {
		o.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if o.Notifier == nil {
		o.Notifier = LogNotifier{Log: o.Log}
	}
}

// Dispatcher delivers events. It uses its own store (its own pool), so API
// requests never wait for it.
type Dispatcher struct {
	st     *store.Store
	o      Options
	client *retryablehttp.Client
}

// New returns a dispatcher over st.
func New(st *store.Store, o Options) *Dispatcher {
	o.defaults()
	tr := o.Transport
	if tr == nil {
		tr = &http.Transport{
			Proxy:                 nil, // a proxy would dial for us, past the address check
			DialContext:           Dialer(o.AllowPrivate).DialContext,
			ForceAttemptHTTP2:     true,
			TLSHandshakeTimeout:   10 * time.Second,
			MaxIdleConnsPerHost:   o.PerEndpoint, // one kept per post in flight to an endpoint
			IdleConnTimeout:       90 * time.Second,
			ResponseHeaderTimeout: o.Timeout,
		}
	}
	c := retryablehttp.NewClient()
	c.HTTPClient = &http.Client{
		Transport: tr,
		// A redirect is an answer, not a 2xx: it fails the attempt rather
		// than sending the event somewhere the owner did not register.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	c.Logger = nil
	// In-request retries only for failures to connect, which cannot have
	// reached the receiver (no duplicate), twice, quickly, within the 15 s the
	// attempt has; any answer, and any refused address, is final: the
	// schedule of RetryInterval governs retries across hours.
	c.RetryMax = 2
	c.RetryWaitMin = 250 * time.Millisecond
	c.RetryWaitMax = time.Second
	c.CheckRetry = func(ctx context.Context, resp *http.Response, err error) (bool, error) {
		if ctx.Err() != nil || err == nil || isBlocked(err) {
			return false, err
		}
		var op *net.OpError
		return errors.As(err, &op) && op.Op == "dial", err
	}
	c.ErrorHandler = retryablehttp.PassthroughErrorHandler
	return &Dispatcher{st: st, o: o, client: c}
}

func (d *Dispatcher) now() time.Time { return d.o.Now().UTC().Truncate(time.Microsecond) }

// lock adds FOR UPDATE SKIP LOCKED on PostgreSQL, so concurrent dispatchers
// claim disjoint rows. SQLite serialises writers and runs one dispatcher.
func (d *Dispatcher) lock() bool { return d.st.Dialect == dialect.Postgres }

// deliveryBatch is the most deliveries one INSERT writes (5 parameters each).
const deliveryBatch = 1000

// FanOut creates one pending delivery per endpoint of each new event's account
// that receives the event's type (see receives) and marks the event
// dispatched, in one transaction per batch. Endpoints
// disabled by hand get none; endpoints disabled for failing keep receiving
// deliveries, held until they are enabled again.
//
// On PostgreSQL a batch is one account's events, locked FOR UPDATE SKIP
// LOCKED by account: a Citus cluster, where events are on the shards of
// their account, locks rows only in a statement that names one account.
// The accounts are those with events not yet fanned out, read first
// without a lock.
func (d *Dispatcher) FanOut(ctx context.Context) (int, error) {
	// System viewer: the dispatcher works for every account: events, endpoints, deliveries and attempts are system-only.
	sys := policy.System(ctx)
	accounts := []int{0} // SQLite: every account at once
	if d.lock() {
		var err error
		accounts, err = d.st.Client.Event.Query().Where(event.DispatchedAtIsNil()).
			GroupBy(event.FieldAccountID).Ints(sys)
		if err != nil {
			return 0, err
		}
		slices.Sort(accounts)
	}
	total := 0
	for _, account := range accounts {
		for {
			n, err := d.fanOutBatch(sys, account)
			total += n
			if err != nil {
				return total, err
			}
			if n < fanOutBatch {
				break
			}
		}
	}
	return total, nil
}

// fanOutBatch is the most events one transaction of FanOut fans out.
const fanOutBatch = 100

// fanOutBatch fans out, in one transaction, up to fanOutBatch events: of
// account, locked, on PostgreSQL; of every account on SQLite (account 0).
func (d *Dispatcher) fanOutBatch(sys context.Context, account int) (int, error) {
	n := 0
	err := ent.RunInTx(sys, d.st.Client, func(tx *ent.Tx) error {
		q := tx.Event.Query().Where(event.DispatchedAtIsNil()).Order(event.ByID()).Limit(fanOutBatch)
		if d.lock() {
			q.Where(event.AccountID(account)).ForUpdate(sql.WithLockAction(sql.SkipLocked))
		}
		evs, err := q.All(sys)
		if err != nil || len(evs) == 0 {
			return err
		}
		n = len(evs)
		now := d.now()
		eps := map[int][]*ent.WebhookEndpoint{}
		var creates []*ent.WebhookDeliveryCreate
		for _, ev := range evs {
			list, ok := eps[ev.AccountID]
			if !ok {
				list, err = tx.WebhookEndpoint.Query().Where(
					webhookendpoint.AccountID(ev.AccountID),
					webhookendpoint.Or(
						webhookendpoint.Enabled(true),
						webhookendpoint.DisabledReasonEQ(webhookendpoint.DisabledReasonFailing),
					),
				).Select(webhookendpoint.FieldID, webhookendpoint.FieldEventTypes).All(sys)
				if err != nil {
					return err
				}
				eps[ev.AccountID] = list
			}
			for _, ep := range list {
				if !receives(ep, ev.Type) {
					continue
				}
				creates = append(creates, tx.WebhookDelivery.Create().SetAccountID(ev.AccountID).SetEventID(ev.ID).SetEndpointID(ep.ID).
					SetNextAttemptAt(now).SetCreatedAt(now))
			}
		}
		for len(creates) > 0 {
			k := min(len(creates), deliveryBatch)
			if err := tx.WebhookDelivery.CreateBulk(creates[:k]...).Exec(sys); err != nil {
				return err
			}
			creates = creates[k:]
		}
		evIDs := make([]int, len(evs))
		for i, ev := range evs {
			evIDs[i] = ev.ID
		}
		upd := tx.Event.Update().Where(event.IDIn(evIDs...))
		if d.lock() {
			upd.Where(event.AccountID(account))
		}
		return upd.SetDispatchedAt(now).Exec(sys)
	})
	return n, err
}

// receives reports whether an endpoint receives events of type typ: those of
// the types it chose, every type when it chose none, and always a ping.
func receives(ep *ent.WebhookEndpoint, typ string) bool {
	return len(ep.EventTypes) == 0 || typ == PingType || slices.Contains(ep.EventTypes, typ)
}

// claim reserves, for this process until the lease ends, due deliveries of
// enabled endpoints, as many as fl has room for and at most each endpoint's
// room, and returns them with their endpoint and event. more reports that
// there may be due deliveries it left: it filled fl or reached an endpoint's
// limit.
func (d *Dispatcher) claim(ctx context.Context, fl *flight) (dels []*ent.WebhookDelivery, more bool, err error) {
	// System viewer: the dispatcher works for every account: events, endpoints, deliveries and attempts are system-only.
	sys := policy.System(ctx)
	for range 4 { // each round leaves out the endpoints the last one filled
		free, full := fl.room()
		if free == 0 {
			return dels, true, nil
		}
		var picked []int
		var pickedBy map[int][]int // picked by account
		err := ent.RunInTx(sys, d.st.Client, func(tx *ent.Tx) error {
			now := d.now()
			due := func() *ent.WebhookDeliveryQuery {
				q := tx.WebhookDelivery.Query().Where(
					webhookdelivery.StatusEQ(webhookdelivery.StatusPending),
					webhookdelivery.NextAttemptAtLTE(now),
					webhookdelivery.Or(webhookdelivery.LockedUntilIsNil(), webhookdelivery.LockedUntilLTE(now)),
					webhookdelivery.HasEndpointWith(webhookendpoint.Enabled(true)),
				).Order(webhookdelivery.ByNextAttemptAt(), webhookdelivery.ByID()).Limit(free)
				if len(full) > 0 {
					q.Where(webhookdelivery.EndpointIDNotIn(full...))
				}
				return q
			}
			var cands []*ent.WebhookDelivery
			var err error
			if d.lock() {
				cands, err = lockDue(sys, due, free)
			} else {
				cands, err = due().Select(webhookdelivery.FieldID, webhookdelivery.FieldEndpointID, webhookdelivery.FieldAccountID).All(sys)
			}
			if err != nil {
				return err
			}
			var capped bool
			picked, capped = fl.plan(cands)
			// Endpoints left out while full may have more due.
			more = len(cands) == free || capped || len(full) > 0
			if len(picked) == 0 {
				return nil
			}
			// By account, as they were locked.
			pickedBy = map[int][]int{}
			for _, c := range cands {
				if slices.Contains(picked, c.ID) {
					pickedBy[c.AccountID] = append(pickedBy[c.AccountID], c.ID)
				}
			}
			for _, account := range slices.Sorted(maps.Keys(pickedBy)) {
				if err := tx.WebhookDelivery.Update().Where(webhookdelivery.AccountID(account), webhookdelivery.IDIn(pickedBy[account]...)).
					SetLockedUntil(now.Add(d.o.Lease)).Exec(sys); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil || len(picked) == 0 {
			return dels, more, err
		}
		got, err := d.leased(sys, pickedBy)
		if err != nil {
			return dels, more, err // the leases end and another round sends them
		}
		for _, del := range got {
			fl.take(del.EndpointID)
		}
		dels = append(dels, got...)
		if !more {
			return dels, false, nil
		}
	}
	return dels, more, nil
}

// leased reads the deliveries of ids (by account) with their endpoint and
// event, in the order they fall due: each account's in statements that name
// it (on a Citus cluster, one shard).
func (d *Dispatcher) leased(sys context.Context, ids map[int][]int) ([]*ent.WebhookDelivery, error) {
	var out []*ent.WebhookDelivery
	for _, account := range slices.Sorted(maps.Keys(ids)) {
		got, err := d.st.Client.WebhookDelivery.Query().
			Where(webhookdelivery.AccountID(account), webhookdelivery.IDIn(ids[account]...)).
			WithEndpoint(func(q *ent.WebhookEndpointQuery) { q.Where(webhookendpoint.AccountID(account)) }).
			WithEvent(func(q *ent.EventQuery) { q.Where(event.AccountID(account)) }).
			All(sys)
		if err != nil {
			return nil, err
		}
		out = append(out, got...)
	}
	slices.SortStableFunc(out, byDue)
	return out, nil
}

// byDue orders deliveries as they fall due: by next attempt, then by id.
func byDue(a, b *ent.WebhookDelivery) int {
	if c := a.NextAttemptAt.Compare(b.NextAttemptAt); c != 0 {
		return c
	}
	return a.ID - b.ID
}

// lockDue locks, FOR UPDATE SKIP LOCKED, up to free of the deliveries due
// selects, in its order: on a Citus cluster, where deliveries are on the
// shards of their account, a statement that locks rows must name one
// account, so the due deliveries are read first without a lock, and then
// each account's are locked in a statement of its own. It returns their id,
// endpoint and account.
func lockDue(sys context.Context, due func() *ent.WebhookDeliveryQuery, free int) ([]*ent.WebhookDelivery, error) {
	seen, err := due().Select(webhookdelivery.FieldAccountID).All(sys)
	if err != nil {
		return nil, err
	}
	var accounts []int
	for _, del := range seen {
		if !slices.Contains(accounts, del.AccountID) {
			accounts = append(accounts, del.AccountID)
		}
	}
	var out []*ent.WebhookDelivery
	for _, account := range accounts {
		if len(out) == free {
			break
		}
		got, err := due().Where(webhookdelivery.AccountID(account)).Limit(free-len(out)).
			Select(webhookdelivery.FieldID, webhookdelivery.FieldEndpointID, webhookdelivery.FieldAccountID, webhookdelivery.FieldNextAttemptAt).
			ForUpdate(sql.WithLockAction(sql.SkipLocked)).All(sys)
		if err != nil {
			return nil, err
		}
		out = append(out, got...)
	}
	slices.SortStableFunc(out, byDue)
	return out, nil
}

// DeliverDue claims due deliveries, up to Concurrency (PerEndpoint to one
// endpoint), posts them in parallel and records their attempts. It returns
// how many it attempted.
func (d *Dispatcher) DeliverDue(ctx context.Context) (int, error) {
	fl := newFlight(d.o.Concurrency, d.o.PerEndpoint)
	dels, _, err := d.claim(ctx, fl)
	if err != nil || len(dels) == 0 {
		return 0, err
	}
	outs := make([]outcome, len(dels))
	sent := make([]bool, len(dels))
	var wg sync.WaitGroup
	for i, del := range dels {
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs[i], sent[i] = d.send(ctx, del, triggerOf(del))
		}()
	}
	wg.Wait()
	var done []outcome
	for i := range outs {
		if sent[i] {
			done = append(done, outs[i])
		}
	}
	if len(done) == 0 {
		return len(dels), ctx.Err()
	}
	// What was posted is recorded even when ctx ended meanwhile (shutdown),
	// so that it is not sent again.
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	if _, err = d.record(rctx, nil, done...); err == nil && len(done) < len(outs) {
		err = ctx.Err()
	}
	return len(dels), err
}

// Resend posts a delivery again now, whatever its state: the same event id
// and body, a fresh timestamp and signature. A success marks it succeeded.
// The resend is recorded in the audit history in the transaction that
// records its attempt.
func (d *Dispatcher) Resend(ctx context.Context, orgID, deliveryID int) (*ent.WebhookAttempt, error) {
	// System viewer: the dispatcher works for every account: events, endpoints, deliveries and attempts are system-only.
	sys := policy.System(ctx)
	del, err := d.st.Client.WebhookDelivery.Query().Where(webhookdelivery.ID(deliveryID), deliveryOf(orgID)).
		WithEvent().Only(sys)
	if ent.IsNotFound(err) {
		return nil, deliveryNotFound(deliveryID)
	}
	if err != nil {
		return nil, err
	}
	return d.attempt(ctx, del.AccountID, deliveryID, webhookattempt.TriggerResend, func(tx *ent.Tx) error {
		return recordEndpoint(sys, tx, orgID, del.EndpointID, audit.DeliveriesResent, d.now(),
			map[string]any{"delivery_id": deliveryID, "event_id": del.Edges.Event.EventID, "count": 1})
	})
}

// Ping sends a signed ping event to an endpoint from this process now,
// enabled or not, and records it in the endpoint's log. A failed ping is not
// retried. The CLI queues its pings for the server's dispatcher instead
// (Registry.Ping), which sends them with the server's settings.
func (d *Dispatcher) Ping(ctx context.Context, orgID, endpointID int) (*ent.Event, *ent.WebhookAttempt, error) {
	ev, del, err := queuePing(ctx, d.st.Client, orgID, endpointID, d.now(), d.o.Lease, false)
	if err != nil {
		return nil, nil, err
	}
	a, err := d.attempt(ctx, del.AccountID, del.ID, webhookattempt.TriggerPing, nil)
	return ev, a, err
}

// PingType is the event type of a ping.
const PingType = "ping"

// queuePing writes a ping event for an endpoint with its one delivery, due
// now: leased for lease when the caller sends it itself, free for any
// dispatcher to claim otherwise (then the endpoint must be enabled, as a
// dispatcher claims only those deliveries).
func queuePing(ctx context.Context, c *ent.Client, orgID, endpointID int, now time.Time, lease time.Duration, queued bool) (*ent.Event, *ent.WebhookDelivery, error) {
	// System viewer: webhook endpoints, deliveries and attempts are system-only (the CLI manages them for an organization).
	sys := policy.System(ctx)
	ep, err := c.WebhookEndpoint.Query().Where(webhookendpoint.ID(endpointID), endpointOf(orgID)).WithAccount().Only(sys)
	if ent.IsNotFound(err) {
		return nil, nil, endpointNotFound(endpointID)
	}
	if err != nil {
		return nil, nil, err
	}
	if queued && !ep.Enabled {
		return nil, nil, fmt.Errorf("webhook endpoint %d is disabled: enable it to ping it", endpointID)
	}
	var ev *ent.Event
	var del *ent.WebhookDelivery
	err = ent.RunInTx(sys, c, func(tx *ent.Tx) error {
		ev, err = tx.Event.Create().
			SetEventID(ids.New("evt_")).
			SetAccountID(ep.AccountID).
			SetEnvironment(event.Environment(ep.Edges.Account.Environment)).
			SetType(PingType).
			SetResourceType(PingType).
			SetResourceID(ep.ID).
			SetSnapshot([]byte(`{"endpoint_id":` + strconv.Itoa(ep.ID) + `}`)).
			SetSource(event.SourceApp).
			SetCreatedAt(now).
			SetDispatchedAt(now). // its one delivery is made here, not fanned out
			Save(sys)
		if err != nil {
			return err
		}
		dc := tx.WebhookDelivery.Create().SetAccountID(ep.AccountID).SetEventID(ev.ID).SetEndpointID(ep.ID).
			SetNextAttemptAt(now).SetCreatedAt(now)
		if !queued {
			dc.SetLockedUntil(now.Add(lease))
		}
		del, err = dc.Save(sys)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	return ev, del, nil
}

// triggerOf is what causes a dispatcher's post of a claimed delivery: a
// queued ping's is the ping (sent once, whatever the answer, and saying
// nothing of the endpoint's health), any other's the schedule.
func triggerOf(del *ent.WebhookDelivery) webhookattempt.Trigger {
	if del.Edges.Event != nil && del.Edges.Event.Type == PingType {
		return webhookattempt.TriggerPing
	}
	return webhookattempt.TriggerSchedule
}

// result is what one POST gave.
type result struct {
	at       time.Time
	headers  map[string]string
	body     []byte
	status   int
	excerpt  string
	duration time.Duration
	err      error
	// unsent is true when the attempt failed before anything was sent, for
	// a reason of this server's (an unreadable secret): it says nothing of
	// the endpoint's health.
	unsent bool
}

func (r result) ok() bool { return r.err == nil && r.status >= 200 && r.status < 300 }

// attempt posts a delivery (of account) now and records the attempt and its
// consequences, and what also (when not nil) writes in the same transaction.
func (d *Dispatcher) attempt(ctx context.Context, account, id int, trigger webhookattempt.Trigger, also func(*ent.Tx) error) (*ent.WebhookAttempt, error) {
	// System viewer: the dispatcher works for every account: events, endpoints, deliveries and attempts are system-only.
	dels, err := d.leased(policy.System(ctx), map[int][]int{account: {id}})
	if err != nil {
		return nil, err
	}
	if len(dels) == 0 {
		return nil, deliveryNotFound(id)
	}
	del := dels[0]
	o, ok := d.send(ctx, del, trigger)
	if !ok {
		return nil, ctx.Err()
	}
	as, err := d.record(ctx, also, o)
	if err != nil {
		return nil, err
	}
	return as[0], nil
}

// outcome is a posted attempt, to be recorded.
type outcome struct {
	del     *ent.WebhookDelivery // with its endpoint and event
	trigger webhookattempt.Trigger
	res     result
}

// send posts a delivery (loaded with its endpoint and event) in a span. It
// reports false when ctx ended mid-post: then nothing is to be recorded, and a
// scheduled delivery is handed back so that the next dispatcher sends it
// again at once (at least once).
func (d *Dispatcher) send(ctx context.Context, del *ent.WebhookDelivery, trigger webhookattempt.Trigger) (outcome, bool) {
	// System viewer: the dispatcher works for every account: events, endpoints, deliveries and attempts are system-only.
	sys := policy.System(ctx)
	ctx, span := tracing.Tracer().Start(ctx, "webhook delivery", trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(
			attribute.Int("larder.delivery_id", del.ID),
			attribute.String("larder.event_id", del.Edges.Event.EventID),
			attribute.String("larder.event_type", del.Edges.Event.Type),
			attribute.Int("larder.endpoint_id", del.EndpointID),
			attribute.String("larder.trigger", string(trigger)),
		))
	defer span.End()
	res := d.post(ctx, del.Edges.Endpoint, del.Edges.Event)
	if res.status != 0 {
		span.SetAttributes(attribute.Int("http.response.status_code", res.status))
	}
	if !res.ok() {
		if res.err != nil {
			span.RecordError(res.err)
		}
		span.SetStatus(codes.Error, "delivery failed")
	}
	if ctx.Err() != nil {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(sys), 5*time.Second)
		defer cancel()
		if trigger != webhookattempt.TriggerResend {
			_ = d.st.Client.WebhookDelivery.Update().Where(webhookdelivery.AccountID(del.AccountID), webhookdelivery.ID(del.ID)).
				ClearLockedUntil().Exec(rctx)
		}
		return outcome{}, false
	}
	return outcome{del: del, trigger: trigger, res: res}, true
}

// post signs and sends the envelope of ev to ep.
func (d *Dispatcher) post(ctx context.Context, ep *ent.WebhookEndpoint, ev *ent.Event) result {
	res := result{at: d.now()}
	body, err := EnvelopeOf(ev)
	if err != nil {
		res.err = err
		return res
	}
	res.body = body
	if _, err := parseURL(ep.URL, d.o.AllowPrivate); err != nil {
		res.err = err
		return res
	}
	plain, err := signingSecrets(d.o.Keys, ep, res.at)
	if err != nil {
		// Nothing is sent, neither unsigned nor signed with another secret;
		// the attempt records why and the schedule retries it.
		d.o.Log.Error("webhooks: the endpoint's signing secret cannot be read; nothing sent", "endpoint", ep.ID, "event", ev.EventID, "error", err)
		res.err, res.unsent = err, true
		return res
	}
	sig, err := Sign(ev.EventID, res.at, body, plain...)
	if err != nil {
		res.err = err
		return res
	}
	res.headers = map[string]string{
		"content-type":      "application/json",
		"user-agent":        "Larder-Webhooks/1",
		"webhook-id":        ev.EventID,
		"webhook-timestamp": strconv.FormatInt(res.at.Unix(), 10),
		"webhook-signature": sig,
	}
	pctx, cancel := context.WithTimeout(ctx, d.o.Timeout)
	defer cancel()
	req, err := retryablehttp.NewRequestWithContext(pctx, http.MethodPost, ep.URL, bytes.NewReader(body))
	if err != nil {
		res.err = err
		return res
	}
	for k, v := range res.headers {
		req.Header.Set(k, v)
	}
	start := time.Now()
	resp, err := d.client.Do(req)
	if err != nil {
		res.duration, res.err = time.Since(start), postError(ep.URL, err)
		return res
	}
	defer resp.Body.Close()
	excerpt, err := io.ReadAll(io.LimitReader(resp.Body, ExcerptBytes))
	res.duration = time.Since(start)
	res.status = resp.StatusCode
	res.excerpt = validUTF8(excerpt)
	if err != nil && !res.ok() {
		res.err = err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10)) // let the connection be reused
	return res
}

// validUTF8 keeps a body excerpt storable as text.
func validUTF8(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	return string(bytes.ToValidUTF8(b, []byte("\uFFFD")))
}

// record writes the attempts of outs and, in the same transaction, each
// delivery's new state and its endpoint's health, in the order of outs; it
// notifies the owners of the endpoints it disabled once that is committed. The
// scheduled successes of endpoints with no failure among outs (the common
// case) are written together, in one statement each for the deliveries and
// the endpoints. also, when not nil, writes more in the same transaction.
func (d *Dispatcher) record(ctx context.Context, also func(*ent.Tx) error, outs ...outcome) ([]*ent.WebhookAttempt, error) {
	// System viewer: the dispatcher works for every account: events, endpoints, deliveries and attempts are system-only.
	sys := policy.System(ctx)
	now := d.now()
	var as []*ent.WebhookAttempt
	var disabled []*ent.WebhookEndpoint
	abandoned := make([]bool, len(outs))
	err := ent.RunInTx(sys, d.st.Client, func(tx *ent.Tx) error {
		disabled = nil
		clear(abandoned)
		// The attempts in one INSERT per account (on a Citus cluster, one
		// shard each), returned in the order of outs.
		as = make([]*ent.WebhookAttempt, len(outs))
		byAccount := map[int][]int{} // indexes of outs
		failing := map[int]bool{}
		for i, o := range outs {
			byAccount[o.del.AccountID] = append(byAccount[o.del.AccountID], i)
			if !o.res.ok() {
				failing[o.del.EndpointID] = true
			}
		}
		for _, account := range slices.Sorted(maps.Keys(byAccount)) {
			idx := byAccount[account]
			creates := make([]*ent.WebhookAttemptCreate, len(idx))
			for k, i := range idx {
				creates[k] = attemptOf(tx, outs[i])
			}
			saved, err := tx.WebhookAttempt.CreateBulk(creates...).Save(sys)
			if err != nil {
				return err
			}
			for k, i := range idx {
				as[i] = saved[k]
			}
		}
		if also != nil {
			if err := also(tx); err != nil {
				return err
			}
		}
		// By account: the deliveries that succeeded, and their endpoints.
		succeeded, healthy := map[int][]int{}, map[int][]int{}
		for i, o := range outs {
			if o.trigger == webhookattempt.TriggerSchedule && o.res.ok() &&
				o.del.Status == webhookdelivery.StatusPending && !failing[o.del.EndpointID] {
				a := o.del.AccountID
				succeeded[a] = append(succeeded[a], o.del.ID)
				if !slices.Contains(healthy[a], o.del.EndpointID) {
					healthy[a] = append(healthy[a], o.del.EndpointID)
				}
				continue
			}
			ep, gaveUp, err := d.apply(sys, tx, now, o)
			if err != nil {
				return err
			}
			abandoned[i] = gaveUp
			if ep != nil {
				disabled = append(disabled, ep)
			}
		}
		for _, a := range slices.Sorted(maps.Keys(succeeded)) {
			if err := tx.WebhookDelivery.Update().Where(webhookdelivery.AccountID(a), webhookdelivery.IDIn(succeeded[a]...)).
				ClearLockedUntil().SetStatus(webhookdelivery.StatusSucceeded).SetFinishedAt(now).
				AddAttemptCount(1).Exec(sys); err != nil {
				return err
			}
			if err := tx.WebhookEndpoint.Update().
				Where(webhookendpoint.AccountID(a), webhookendpoint.IDIn(healthy[a]...), webhookendpoint.FailingSinceNotNil()).
				ClearFailingSince().Exec(sys); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if d.o.OnAttempt != nil {
		for i, o := range outs {
			d.o.OnAttempt(o.res.ok(), abandoned[i])
		}
	}
	for _, ep := range disabled {
		d.o.Log.Warn("webhooks: endpoint disabled after failing every delivery", "endpoint", ep.ID,
			"url", ep.URL, "failing_since", ep.FailingSince)
		if err := d.o.Notifier.EndpointDisabled(ctx, ep); err != nil {
			d.o.Log.Warn("webhooks: notify owner", "endpoint", ep.ID, "error", err)
		}
	}
	return as, nil
}

// attemptOf is the log row of an outcome.
// postError is the error an attempt records for a post that failed. The
// dialer's refusal arrives wrapped in net's error, which names the address
// dialled: what the host name resolved to, which the attempt's record (shown
// to the endpoint's owner) must not keep.
func postError(url string, err error) error {
	var blocked *BlockedError
	if errors.As(err, &blocked) && blocked.Resolved {
		return fmt.Errorf("post %s: %w", url, blocked)
	}
	return err
}

func attemptOf(tx *ent.Tx, o outcome) *ent.WebhookAttemptCreate {
	c := tx.WebhookAttempt.Create().
		SetAccountID(o.del.AccountID).
		SetDeliveryID(o.del.ID).
		SetTrigger(o.trigger).
		SetAttemptedAt(o.res.at).
		SetRequestHeaders(o.res.headers).
		SetRequestBody(string(o.res.body)).
		SetResponseBody(o.res.excerpt).
		SetDurationMs(int(o.res.duration.Milliseconds())).
		SetSuccess(o.res.ok())
	if o.res.status != 0 {
		c.SetResponseStatus(o.res.status)
	}
	if o.res.err != nil {
		c.SetError(o.res.err.Error())
	}
	return c
}

// apply writes one outcome's consequences: the delivery's new state and the
// endpoint's health. It returns the endpoint it disabled, if any, and whether
// it gave the delivery up.
func (d *Dispatcher) apply(sys context.Context, tx *ent.Tx, now time.Time, o outcome) (*ent.WebhookEndpoint, bool, error) {
	del, res, trigger := o.del, o.res, o.trigger
	abandoned := false
	u := tx.WebhookDelivery.Update().Where(webhookdelivery.AccountID(del.AccountID), webhookdelivery.ID(del.ID))
	if trigger != webhookattempt.TriggerResend {
		u.ClearLockedUntil() // a resend leaves a dispatcher's lease alone
	}
	switch {
	case res.ok():
		if del.Status != webhookdelivery.StatusSucceeded {
			u.SetStatus(webhookdelivery.StatusSucceeded).SetFinishedAt(now)
		}
	case trigger == webhookattempt.TriggerPing:
		u.SetStatus(webhookdelivery.StatusAbandoned).SetFinishedAt(now)
	case trigger == webhookattempt.TriggerSchedule && del.Status == webhookdelivery.StatusPending:
		if del.AttemptCount+1 > d.o.Retries {
			u.SetStatus(webhookdelivery.StatusAbandoned).SetFinishedAt(now)
			abandoned = true
		} else {
			u.SetNextAttemptAt(now.Add(d.o.RetryInterval))
		}
	}
	if trigger == webhookattempt.TriggerSchedule {
		u.AddAttemptCount(1)
	}
	if err := u.Exec(sys); err != nil {
		return nil, false, err
	}
	if trigger == webhookattempt.TriggerPing || res.unsent {
		return nil, abandoned, nil // a ping, or a post never made, says nothing about the endpoint's health
	}
	// The endpoint by its account too (on a Citus cluster, its shard).
	mine := webhookendpoint.And(webhookendpoint.AccountID(del.AccountID), webhookendpoint.ID(del.EndpointID))
	ep, err := tx.WebhookEndpoint.Query().Where(mine).Only(sys)
	if err != nil {
		return nil, false, err
	}
	switch {
	case res.ok() && ep.FailingSince != nil:
		return nil, abandoned, tx.WebhookEndpoint.Update().Where(mine).ClearFailingSince().Exec(sys)
	case res.ok() || trigger != webhookattempt.TriggerSchedule:
		return nil, abandoned, nil
	case ep.FailingSince == nil:
		return nil, abandoned, tx.WebhookEndpoint.Update().Where(mine).SetFailingSince(res.at).Exec(sys)
	case ep.Enabled && now.Sub(*ep.FailingSince) >= d.o.DisableAfter:
		// Conditional, so that of concurrent failures one disables and
		// notifies (PostgreSQL re-checks the condition after the row lock).
		n, err := tx.WebhookEndpoint.Update().
			Where(mine, webhookendpoint.Enabled(true)).
			SetEnabled(false).
			SetDisabledReason(webhookendpoint.DisabledReasonFailing).
			SetDisabledAt(now).
			SetUpdatedAt(now).
			Save(sys)
		if err != nil || n == 0 {
			return nil, abandoned, err
		}
		disabled, err := tx.WebhookEndpoint.Query().Where(mine).Only(sys)
		return disabled, abandoned, err
	}
	return nil, abandoned, nil
}

// Prune applies the retention periods as of now: succeeded deliveries and
// every attempt after 30 days, abandoned deliveries after 90, dispatched
// events no delivery refers to after EventRetention. Package retention runs
// it hourly.
func Prune(ctx context.Context, c *ent.Client, now time.Time) error {
	// System viewer: pruning works for every account: events, endpoints, deliveries and attempts are system-only.
	sys := policy.System(ctx)
	now = now.UTC().Truncate(time.Microsecond)
	if _, err := c.WebhookDelivery.Delete().Where(
		webhookdelivery.StatusEQ(webhookdelivery.StatusSucceeded),
		webhookdelivery.FinishedAtLT(now.Add(-LogRetention)),
	).Exec(sys); err != nil {
		return err
	}
	if _, err := c.WebhookDelivery.Delete().Where(
		webhookdelivery.StatusEQ(webhookdelivery.StatusAbandoned),
		webhookdelivery.FinishedAtLT(now.Add(-AbandonedRetention)),
	).Exec(sys); err != nil {
		return err
	}
	if _, err := c.WebhookAttempt.Delete().Where(
		webhookattempt.AttemptedAtLT(now.Add(-LogRetention)),
		webhookattempt.HasDeliveryWith(webhookdelivery.StatusNEQ(webhookdelivery.StatusAbandoned)),
	).Exec(sys); err != nil {
		return err
	}
	_, err := c.Event.Delete().Where(
		event.DispatchedAtLT(now.Add(-EventRetention)),
		event.Not(event.HasDeliveries()),
	).Exec(sys)
	return err
}
