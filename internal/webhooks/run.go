package webhooks

import (
	"context"
	"sync"
	"time"

	"entgo.io/ent/dialect"

	"larder.dev/larder/ent"
	"larder.dev/larder/hooks"
	"larder.dev/larder/internal/platform/store"
)

// Run dispatches until ctx ends. It fans out new events and posts the due
// deliveries as soon as a transaction that wrote events commits: one of this
// process (hooks.EventsCommitted) or, on PostgreSQL, of any process (LISTEN
// on hooks.EventsChannel; not on a Citus cluster, see wakeups); and every PollInterval whatever happens, for
// retries falling due and a lost notification. Up to Concurrency posts are in
// flight, at most PerEndpoint of them to one endpoint, so a slow endpoint
// holds only its own share and the others' deliveries go on beside it. Posted
// attempts are recorded in batches by one writer. The log is pruned by
// package retention, not here.
// Run returns once ctx has ended and what it posted is recorded.
func (d *Dispatcher) Run(ctx context.Context) {
	wake, stop := d.wakeups(ctx)
	defer stop()
	fl := newFlight(d.o.Concurrency, d.o.PerEndpoint)
	outs := make(chan outcome, d.o.Concurrency)
	freed := make(chan struct{}, 1)
	recorded := make(chan struct{})
	go func() {
		defer close(recorded)
		d.recorder(ctx, outs)
	}()
	var posts sync.WaitGroup
	defer func() {
		posts.Wait()
		close(outs)
		<-recorded
	}()
	tick := time.NewTicker(d.o.PollInterval)
	defer tick.Stop()
	// refill is how many posts must end before slots freed by a backlog are
	// claimed again: claims come in batches, not one per delivery.
	refill := max(1, d.o.PerEndpoint/2)
	more, ended := false, 0
	look := true
	for {
		if look {
			if _, err := d.FanOut(ctx); err != nil && ctx.Err() == nil {
				d.o.Log.Warn("webhooks: fan out", "error", err)
			}
		}
		if look || more && (ended >= refill || fl.idle()) {
			var dels []*ent.WebhookDelivery
			var err error
			dels, more, err = d.claim(ctx, fl)
			if err != nil && ctx.Err() == nil {
				d.o.Log.Warn("webhooks: claim", "error", err)
			}
			ended = 0
			for _, del := range dels {
				posts.Add(1)
				go func() {
					defer posts.Done()
					if o, ok := d.send(ctx, del, triggerOf(del)); ok {
						outs <- o
					}
					fl.done(del.EndpointID)
					select {
					case freed <- struct{}{}:
					default:
					}
				}()
			}
		}
		look = false
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			look = true
		case <-wake:
			look = true
		case <-freed:
			ended += fl.ended()
		}
	}
}

// recorder records the outcomes sent on outs, as many at a time as are
// waiting (up to recordBatch), until outs is closed. Outcomes posted before a
// shutdown are still recorded; should recording fail, the leases of their
// deliveries end and they are sent again (at least once).
func (d *Dispatcher) recorder(ctx context.Context, outs <-chan outcome) {
	rctx := context.WithoutCancel(ctx)
	batch := make([]outcome, 0, recordBatch)
	for o := range outs {
		batch = append(batch[:0], o)
	more:
		for len(batch) < recordBatch {
			select {
			case o, ok := <-outs:
				if !ok {
					break more
				}
				batch = append(batch, o)
			default:
				break more
			}
		}
		wctx, cancel := context.WithTimeout(rctx, 30*time.Second)
		if _, err := d.record(wctx, nil, batch...); err != nil {
			d.o.Log.Warn("webhooks: record attempts", "error", err, "attempts", len(batch))
		}
		cancel()
	}
}

// recordBatch is the most attempts recorded in one transaction (11
// parameters each in one INSERT).
const recordBatch = 200

// wakeups returns a channel signalled when events may have been committed,
// and the function that stops it: hooks.EventsCommitted, after a
// transaction of this process; on PostgreSQL also a notification on
// hooks.EventsChannel, which reaches every process. A Citus cluster sends
// none (migrate.Distribute drops the trigger that would notify from the
// workers), so there this process's own commits wake it at once and other
// processes' are found at the next poll.
func (d *Dispatcher) wakeups(ctx context.Context) (<-chan struct{}, func()) {
	local, stopLocal := hooks.EventsCommitted()
	if d.st.Dialect != dialect.Postgres || d.st.DSN == "" {
		return local, stopLocal
	}
	notified, stopListening := store.Listen(ctx, d.st.DSN, hooks.EventsChannel, d.o.Log, "webhooks: listen for events")
	out := make(chan struct{}, 1)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-local:
			case <-notified:
			case <-done:
				return
			}
			select {
			case out <- struct{}{}:
			default: // a signal is already waiting: one stands for many
			}
		}
	}()
	return out, func() {
		close(done)
		stopLocal()
		stopListening()
	}
}

// flight counts the posts in flight, in all and per endpoint.
type flight struct {
	mu            sync.Mutex
	max, perEP    int
	total, endedN int
	byEndpoint    map[int]int
}

func newFlight(max, perEndpoint int) *flight {
	return &flight{max: max, perEP: perEndpoint, byEndpoint: map[int]int{}}
}

// room returns how many more posts may start, and the endpoints that may take
// no more.
func (f *flight) room() (int, []int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var full []int
	for ep, n := range f.byEndpoint {
		if n >= f.perEP {
			full = append(full, ep)
		}
	}
	return f.max - f.total, full
}

// plan picks, in order, the candidates there is room for; capped reports
// that it left one for its endpoint's limit.
func (f *flight) plan(cands []*ent.WebhookDelivery) (ids []int, capped bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	taken := map[int]int{}
	for _, c := range cands {
		if f.total+len(ids) >= f.max {
			return ids, true
		}
		if f.byEndpoint[c.EndpointID]+taken[c.EndpointID] >= f.perEP {
			capped = true
			continue
		}
		taken[c.EndpointID]++
		ids = append(ids, c.ID)
	}
	return ids, capped
}

// take counts a post to an endpoint in flight.
func (f *flight) take(endpoint int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.total++
	f.byEndpoint[endpoint]++
}

// done counts a post to an endpoint ended.
func (f *flight) done(endpoint int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.total--
	f.endedN++
	if f.byEndpoint[endpoint]--; f.byEndpoint[endpoint] <= 0 {
		delete(f.byEndpoint, endpoint)
	}
}

// idle reports that no post is in flight.
func (f *flight) idle() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.total == 0
}

// ended returns how many posts ended since it was last called.
func (f *flight) ended() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := f.endedN
	f.endedN = 0
	return n
}
