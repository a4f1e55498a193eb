package hooks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"

	"entgo.io/ent"

	gen "larder.dev/larder/ent"
	"larder.dev/larder/ent/event"
	"larder.dev/larder/internal/platform/ids"
	"larder.dev/larder/policy"
)

// Snapshots renders the webhook snapshots of events (restapi.Snapshots).
type Snapshots interface {
	// Subject names the webhook resource of v and its id, and returns what
	// Render is to render at the commit (a copy of v); ok is false for
	// entities that are not reported.
	Subject(v ent.Value) (resource string, id int, keep ent.Value, ok bool)
	// Render renders the snapshots of values Subject kept, in order, reading
	// through c, the transaction's client as it commits, what they show of
	// other rows (the fields they borrow, the edges lists show), as a read
	// after the commit would.
	Render(ctx context.Context, c *gen.Client, vs []ent.Value) ([][]byte, error)
}

// ErrNoTx is returned when a change that emits events runs outside a
// transaction: its event could otherwise commit without it, or it without its event.
var ErrNoTx = errors.New("outbox: changes that emit webhook events must run in a transaction")

type noEventsKey struct{}

// WithoutEvents returns ctx under which changes emit no events. Only the seeding
// of a new account uses it: nobody can have subscribed to an account that did
// not exist a moment ago.
func WithoutEvents(ctx context.Context) context.Context {
	return context.WithValue(ctx, noEventsKey{}, true)
}

type actionKey struct{}

// EmitAs returns ctx under which an update of one record reports action
// instead of "updated": a soft delete is a deletion to its subscribers.
func EmitAs(ctx context.Context, action string) context.Context {
	return context.WithValue(ctx, actionKey{}, action)
}

// Outbox writes one event row per created, updated or deleted record of a
// webhook resource, in the transaction of the change, with its snapshot,
// source, key and request id. Register it on the client (store.Open does).
// On PostgreSQL, a trigger on events notifies EventsChannel, which PostgreSQL
// delivers to every listening process at the commit (the migration
// …_events_notify.sql); within this process, EventsCommitted learns of it
// either way.
func Outbox(snaps Snapshots) ent.Hook {
	return func(next ent.Mutator) ent.Mutator {
		return ent.MutateFunc(func(ctx context.Context, m ent.Mutation) (ent.Value, error) {
			res, ok := gen.EventResources[m.Type()]
			if !ok || ctx.Value(noEventsKey{}) != nil {
				return next.Mutate(ctx, m)
			}
			if res.Parent != "" && writingLines(ctx, m) {
				return next.Mutate(ctx, m) // lines their document writes: its own event
			}
			tx, ok := gen.TxOf(m)
			if !ok {
				return nil, ErrNoTx
			}
			o := outbox{client: tx.Client(), tx: tx, snaps: snaps, res: res}
			if res.Parent != "" {
				return o.line(ctx, m, next)
			}
			switch {
			case m.Op().Is(ent.OpCreate):
				v, err := next.Mutate(ctx, m)
				if err != nil {
					return v, err
				}
				return v, o.emit(ctx, "created", v)
			case m.Op().Is(ent.OpUpdateOne):
				v, err := next.Mutate(ctx, m)
				if err != nil {
					return v, err
				}
				action, _ := ctx.Value(actionKey{}).(string)
				if action == "" {
					action = o.updateAction(m)
				}
				return v, o.emit(ctx, action, v)
			case m.Op().Is(ent.OpUpdate):
				before, err := gen.Targets(ctx, m)
				if err != nil {
					return nil, err
				}
				v, err := next.Mutate(ctx, m)
				if err != nil {
					return v, err
				}
				after, err := gen.Reload(ctx, o.client, before)
				if err != nil {
					return nil, err
				}
				for _, a := range after {
					if err := o.emit(ctx, o.updateAction(m), a); err != nil {
						return nil, err
					}
				}
				return v, nil
			default: // delete
				before, err := gen.Targets(ctx, m)
				if err != nil {
					return nil, err
				}
				// Rendered before the rows go: at the commit neither the
				// records nor their links are there to read.
				gone, err := o.renderNow(ctx, "deleted", before)
				if err != nil {
					return nil, err
				}
				v, err := next.Mutate(ctx, m)
				if err != nil {
					return v, err
				}
				for _, g := range gone {
					if err := o.emit(ctx, "deleted", g); err != nil {
						return nil, err
					}
				}
				return v, nil
			}
		})
	}
}

// line runs a change to lines of a document and reports it as one .updated
// event of each parent touched, carrying the parent's id and snapshot (spec
// "Events": an .updated event also fires when a document's own line changes).
func (o outbox) line(ctx context.Context, m ent.Mutation, next ent.Mutator) (ent.Value, error) {
	var lines []ent.Value
	if !m.Op().Is(ent.OpCreate) {
		before, err := gen.Targets(ctx, m)
		if err != nil {
			return nil, err
		}
		lines = before
	}
	v, err := next.Mutate(ctx, m)
	if err != nil {
		return v, err
	}
	if m.Op().Is(ent.OpCreate) || m.Op().Is(ent.OpUpdateOne) {
		lines = []ent.Value{v}
	}
	seen := map[int]bool{}
	for _, l := range lines {
		p, err := gen.Parent(ctx, o.client, l)
		if gen.IsNotFound(err) {
			continue // the parent went in the same change; its own event reports it
		}
		if err != nil {
			return nil, fmt.Errorf("outbox: parent of %s: %w", o.res.Name, err)
		}
		_, id, _, ok := o.snaps.Subject(p)
		if !ok || seen[id] {
			continue
		}
		seen[id] = true
		if err := o.emit(ctx, "updated", p); err != nil {
			return nil, err
		}
	}
	return v, nil
}

// updateAction is the action an update reports: "deleted" when it sets the
// resource's soft-delete field (annotate.SoftDelete), whoever makes it,
// "updated" otherwise.
func (o outbox) updateAction(m ent.Mutation) string {
	if o.res.SoftDelete != "" {
		if _, set := m.Field(o.res.SoftDelete); set {
			return "deleted"
		}
	}
	return "updated"
}

type outbox struct {
	client *gen.Client
	tx     *gen.Tx
	snaps  Snapshots
	res    gen.EventResource
}

// rendered is a record whose snapshot was rendered as the change was made.
type rendered struct {
	v    ent.Value
	body []byte
}

// renderNow renders now the snapshots of the records vs, for events of
// action, and returns them for emit.
func (o outbox) renderNow(ctx context.Context, action string, vs []ent.Value) ([]ent.Value, error) {
	// System viewer: a snapshot shows the record's links as the API does, read for the outbox, which is system-only.
	if !slices.Contains(o.res.Actions, action) {
		return vs, nil
	}
	var keeps []ent.Value
	for _, v := range vs {
		if _, _, keep, ok := o.snaps.Subject(v); ok {
			keeps = append(keeps, keep)
		}
	}
	if len(keeps) == 0 {
		return vs, nil
	}
	bodies, err := renderByAccount(policy.System(ctx), o.snaps, o.client, keeps)
	if err != nil {
		return nil, fmt.Errorf("outbox: render snapshots: %w", err)
	}
	out := make([]ent.Value, 0, len(vs))
	i := 0
	for _, v := range vs {
		if _, _, _, ok := o.snaps.Subject(v); ok {
			out = append(out, rendered{v: v, body: bodies[i]})
			i++
		}
	}
	return out, nil
}

// renderByAccount renders the snapshots of vs with snaps, those of each
// account's records under the system viewer of sys narrowed to that account
// (policy.SystemWithin), so that every statement reading a tenant table
// names the account; a record of no account (a shared row) is rendered under
// sys itself. A change of one account, as every request's is, renders in one
// call: one statement per kind of row, as for any number of accounts.
func renderByAccount(sys context.Context, snaps Snapshots, c *gen.Client, vs []ent.Value) ([][]byte, error) {
	var accounts []int
	groups := map[int][]int{} // account (0 for none) → indexes in vs
	for i, v := range vs {
		acct, _ := gen.AccountOf(v)
		if _, ok := groups[acct]; !ok {
			accounts = append(accounts, acct)
		}
		groups[acct] = append(groups[acct], i)
	}
	if len(accounts) == 1 {
		return snaps.Render(policy.SystemWithin(sys, accounts[0]), c, vs)
	}
	out := make([][]byte, len(vs))
	for _, acct := range accounts {
		at := groups[acct]
		group := make([]ent.Value, len(at))
		for j, i := range at {
			group[j] = vs[i]
		}
		bodies, err := snaps.Render(policy.SystemWithin(sys, acct), c, group)
		if err != nil {
			return nil, err
		}
		for j, i := range at {
			out[i] = bodies[j]
		}
	}
	return out, nil
}

// emit queues the event of action on v, if the resource emits it, for the
// transaction's commit.
func (o outbox) emit(ctx context.Context, action string, v ent.Value) error {
	// System viewer: events go to the outbox, which is system-only (the dispatcher reads every account's).
	if !slices.Contains(o.res.Actions, action) {
		return nil
	}
	var body []byte
	if r, ok := v.(rendered); ok {
		v, body = r.v, r.body
	}
	resource, id, keep, ok := o.snaps.Subject(v)
	if !ok {
		return nil
	}
	if body != nil {
		keep = nil // rendered already
	}
	acct, ok := gen.AccountOf(v)
	if !ok {
		return nil // a shared row belongs to no account: nobody to notify
	}
	viewer := policy.FromContext(ctx)
	sys := policy.System(ctx)
	var env policy.Environment
	if viewer != nil && viewer.AccountID == acct {
		env = viewer.Environment
	}
	if env == "" {
		a, err := o.client.Account.Get(sys, acct)
		if err != nil {
			return fmt.Errorf("outbox: account %d: %w", acct, err)
		}
		env = policy.Environment(a.Environment)
	}
	source := policy.SourceSystem
	if viewer != nil && viewer.Source != "" {
		source = viewer.Source
	}
	c := o.client.Event.Create().
		SetEventID(ids.New("evt_")).
		SetAccountID(acct).
		SetEnvironment(event.Environment(env)).
		SetType(resource + "." + action).
		SetResourceType(resource).
		SetResourceID(id).
		SetSource(event.Source(source))
	if source == policy.SourceAPI {
		c.SetAPIKeyID(viewer.KeyID).SetRequestID(viewer.RequestID)
	}
	if source == policy.SourceApp && viewer.UserID != 0 {
		c.SetUserID(viewer.UserID)
	}
	if body != nil {
		c.SetSnapshot(json.RawMessage(body))
	}
	queue(sys, o.tx, o.snaps, c, keep)
	return nil
}

// pending are the events of one transaction, written together just before it
// commits, in the order the changes were made: a write of a thousand rows
// (a bill's lots) costs one statement of events per thousand, not one per
// row. They are in the transaction: a rollback drops them with the changes.
// Their snapshots are rendered then too, from the records as each change
// left them, with what they show of other rows read once for them all as the
// transaction ends (a product's code on its lots, its links written after
// the product itself): what a read just after the commit shows.
type pending struct {
	ctx    context.Context // the system viewer, to write them
	snaps  Snapshots
	mu     sync.Mutex
	events []*gen.EventCreate
	values []ent.Value // what each event's snapshot renders; nil when rendered already
}

// pendingEvents maps a transaction (gen.TxKey) to its pending events.
var pendingEvents sync.Map

// eventBatch is the most events one INSERT writes (12 parameters each, under
// SQLite's 32,766 and PostgreSQL's 65,535).
const eventBatch = 1000

// EventsChannel is the PostgreSQL notification channel of new events: the
// trigger events_notify notifies it whenever a statement inserts events.
const EventsChannel = "larder_events"

// queue adds an event to tx's pending events; the first one of a transaction
// registers the write before commit, the signal after it, and the drop on
// rollback.
func queue(sys context.Context, tx *gen.Tx, snaps Snapshots, c *gen.EventCreate, keep ent.Value) {
	key := gen.TxKey(tx)
	v, loaded := pendingEvents.LoadOrStore(key, &pending{ctx: sys, snaps: snaps})
	p := v.(*pending)
	if !loaded {
		tx.OnCommit(func(next gen.Committer) gen.Committer {
			return gen.CommitFunc(func(ctx context.Context, tx *gen.Tx) error {
				pendingEvents.Delete(key)
				if err := p.write(tx); err != nil {
					_ = tx.Rollback()
					return err
				}
				if err := next.Commit(ctx, tx); err != nil {
					return err
				}
				committed.signal()
				return nil
			})
		})
		tx.OnRollback(func(next gen.Rollbacker) gen.Rollbacker {
			return gen.RollbackFunc(func(ctx context.Context, tx *gen.Tx) error {
				pendingEvents.Delete(key)
				return next.Rollback(ctx, tx)
			})
		})
	}
	p.mu.Lock()
	p.events = append(p.events, c)
	p.values = append(p.values, keep)
	p.mu.Unlock()
}

// write renders the pending events' snapshots and inserts the events, in order.
func (p *pending) write(tx *gen.Tx) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	evs, vs := p.events, p.values
	for len(evs) > 0 {
		n := min(len(evs), eventBatch)
		var at []int
		var unrendered []ent.Value
		for i, v := range vs[:n] {
			if v != nil {
				at, unrendered = append(at, i), append(unrendered, v)
			}
		}
		bodies, err := renderByAccount(p.ctx, p.snaps, tx.Client(), unrendered)
		if err != nil {
			return fmt.Errorf("outbox: render snapshots: %w", err)
		}
		for j, i := range at {
			evs[i].SetSnapshot(json.RawMessage(bodies[j]))
		}
		if err := tx.Event.CreateBulk(evs[:n]...).Exec(p.ctx); err != nil {
			return fmt.Errorf("outbox: write events: %w", err)
		}
		evs, vs = evs[n:], vs[n:]
	}
	p.events, p.values = nil, nil
	return nil
}

// subscribers signals, without blocking, every channel subscribed to
// EventsCommitted.
type subscribers struct {
	mu   sync.Mutex
	subs map[chan struct{}]struct{}
}

var committed subscribers

func (s *subscribers) signal() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.subs {
		select {
		case c <- struct{}{}:
		default: // a signal is already waiting: one stands for many
		}
	}
}

// EventsCommitted returns a channel that receives a signal after a transaction
// of this process that wrote events has committed (signals coalesce while
// unread), and the function that unsubscribes it.
func EventsCommitted() (<-chan struct{}, func()) {
	c := make(chan struct{}, 1)
	committed.mu.Lock()
	if committed.subs == nil {
		committed.subs = map[chan struct{}]struct{}{}
	}
	committed.subs[c] = struct{}{}
	committed.mu.Unlock()
	return c, func() {
		committed.mu.Lock()
		delete(committed.subs, c)
		committed.mu.Unlock()
	}
}
