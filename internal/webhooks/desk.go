package webhooks

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"entgo.io/ent/dialect/sql"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/event"
	"larder.dev/larder/ent/predicate"
	"larder.dev/larder/ent/webhookattempt"
	"larder.dev/larder/ent/webhookdelivery"
	"larder.dev/larder/ent/webhookendpoint"
	"larder.dev/larder/internal/identity/audit"
	"larder.dev/larder/internal/identity/tenancy"
	"larder.dev/larder/policy"
)

// Paging of the delivery log and of the event list.
const (
	// DefaultPage is the rows a page holds when the caller names no limit.
	DefaultPage = 50
	// MaxPage is the most rows a page holds, whatever the caller asks.
	MaxPage = 500
	// MaxResend is the most deliveries one ResendFailed queues; a larger
	// backlog is queued by calling it again.
	MaxResend = 1000
)

// page is limit bounded to 1…MaxPage, DefaultPage when not positive.
func page(limit int) int {
	switch {
	case limit <= 0:
		return DefaultPage
	case limit > MaxPage:
		return MaxPage
	}
	return limit
}

// Outcome is where a delivery stands, as the delivery log shows it.
type Outcome string

// The outcomes of a delivery. Any 2xx answer marks a delivery succeeded for
// good (a later failed resend does not undo that the receiver had it), so
// failed is a delivery not succeeded that was attempted: its latest attempt
// failed, whether it waits for its next scheduled attempt or was abandoned.
const (
	// OutcomeSucceeded: an attempt got a 2xx answer.
	OutcomeSucceeded Outcome = "succeeded"
	// OutcomeFailed: attempted, never answered with a 2xx.
	OutcomeFailed Outcome = "failed"
	// OutcomePending: not attempted yet.
	OutcomePending Outcome = "pending"
)

// ParseOutcome reads an outcome by name.
func ParseOutcome(s string) (Outcome, error) {
	switch o := Outcome(s); o {
	case OutcomeSucceeded, OutcomeFailed, OutcomePending:
		return o, nil
	}
	return "", fmt.Errorf("unknown delivery outcome %q (succeeded, failed or pending)", s)
}

// outcomeOf is the outcome of delivery d, attempted or not.
func outcomeOf(d *ent.WebhookDelivery, attempted bool) Outcome {
	switch {
	case d.Status == webhookdelivery.StatusSucceeded:
		return OutcomeSucceeded
	case d.Status == webhookdelivery.StatusAbandoned || attempted:
		return OutcomeFailed
	}
	return OutcomePending
}

// hasOutcome selects the deliveries of outcome o, as outcomeOf tells it.
func hasOutcome(o Outcome) predicate.WebhookDelivery {
	switch o {
	case OutcomeSucceeded:
		return webhookdelivery.StatusEQ(webhookdelivery.StatusSucceeded)
	case OutcomeFailed:
		return webhookdelivery.Or(
			webhookdelivery.StatusEQ(webhookdelivery.StatusAbandoned),
			webhookdelivery.And(webhookdelivery.StatusEQ(webhookdelivery.StatusPending), webhookdelivery.HasAttempts()),
		)
	}
	return webhookdelivery.And(webhookdelivery.StatusEQ(webhookdelivery.StatusPending), webhookdelivery.Not(webhookdelivery.HasAttempts()))
}

// Delivery is one entry of the delivery log: the event, where the delivery
// stands, and every attempt with the signed body and headers it sent, the
// answer's status, time and body (its first ExcerptBytes).
type Delivery struct {
	*ent.WebhookDelivery
	Event    *ent.Event
	Outcome  Outcome
	Attempts []*ent.WebhookAttempt
}

// DeliveryFilter narrows the delivery log; zero fields do not narrow it.
type DeliveryFilter struct {
	// EventID is one event's public id (evt_…).
	EventID string
	// Type is an event type.
	Type string
	// Outcome is where the deliveries stand.
	Outcome Outcome
	// Before is a cursor: only deliveries older than the delivery of this id
	// (the last of the previous page).
	Before int
	// Limit bounds the page (DefaultPage when zero, at most MaxPage).
	Limit int
}

// Deliveries returns the delivery log of an endpoint, newest first, with every
// attempt, narrowed by f.
func (r *Registry) Deliveries(ctx context.Context, orgID, endpointID int, f DeliveryFilter) ([]Delivery, error) {
	// System viewer: webhook endpoints, deliveries and attempts are system-only (the CLI manages them for an organization).
	if f.Outcome != "" {
		if _, err := ParseOutcome(string(f.Outcome)); err != nil {
			return nil, err
		}
	}
	ep, err := r.Get(ctx, orgID, endpointID)
	if err != nil {
		return nil, err
	}
	q := r.Client.WebhookDelivery.Query().Where(webhookdelivery.EndpointID(endpointID), deliveryOf(orgID))
	if f.EventID != "" {
		// An event id is unique within its account (the endpoint's).
		q.Where(webhookdelivery.HasEventWith(event.EventID(f.EventID), event.AccountID(ep.AccountID)))
	}
	if f.Type != "" {
		q.Where(webhookdelivery.HasEventWith(event.Type(f.Type)))
	}
	if f.Outcome != "" {
		q.Where(hasOutcome(f.Outcome))
	}
	if f.Before > 0 {
		q.Where(webhookdelivery.IDLT(f.Before))
	}
	ds, err := q.WithEvent().
		WithAttempts(func(q *ent.WebhookAttemptQuery) { q.Order(ent.Asc("id")) }).
		Order(webhookdelivery.ByID(sql.OrderDesc())).
		Limit(page(f.Limit)).
		All(policy.System(ctx))
	if err != nil {
		return nil, err
	}
	out := make([]Delivery, len(ds))
	for i, d := range ds {
		out[i] = Delivery{WebhookDelivery: d, Event: d.Edges.Event, Outcome: outcomeOf(d, len(d.Edges.Attempts) > 0), Attempts: d.Edges.Attempts}
	}
	return out, nil
}

// Health is how an endpoint fares.
type Health struct {
	// State is healthy, failing (its latest scheduled attempts failed) or
	// disabled.
	State string
	// LastSuccessAt is the latest attempt a 2xx answered (pings aside, which
	// say nothing of the endpoint's health); nil when none is in the log,
	// which keeps attempts LogRetention.
	LastSuccessAt *time.Time
	// FailingSince is the first failed attempt after the last success; nil
	// while healthy.
	FailingSince *time.Time
	// DisabledReason is manual or failing when disabled, empty otherwise.
	DisabledReason string
	// DisabledAt is when the endpoint was disabled.
	DisabledAt *time.Time
}

// The states of Health.
const (
	StateHealthy  = "healthy"
	StateFailing  = "failing"
	StateDisabled = "disabled"
)

// Health returns the health of endpoints of organization orgID by id: those
// of ids, or every endpoint of the organization when none is named. An id of
// another organization does not exist.
func (r *Registry) Health(ctx context.Context, orgID int, ids ...int) (map[int]Health, error) {
	// System viewer: webhook endpoints, deliveries and attempts are system-only (the CLI manages them for an organization).
	sys := policy.System(ctx)
	q := r.Client.WebhookEndpoint.Query().Where(endpointOf(orgID))
	if len(ids) > 0 {
		q.Where(webhookendpoint.IDIn(ids...))
	}
	eps, err := q.All(sys)
	if err != nil {
		return nil, err
	}
	out := make(map[int]Health, len(eps))
	for _, ep := range eps {
		h := Health{State: StateHealthy, FailingSince: ep.FailingSince, DisabledAt: ep.DisabledAt}
		switch {
		case !ep.Enabled:
			h.State = StateDisabled
		case ep.FailingSince != nil:
			h.State = StateFailing
		}
		if ep.DisabledReason != nil {
			h.DisabledReason = string(*ep.DisabledReason)
		}
		last, err := r.Client.WebhookAttempt.Query().Where(
			webhookattempt.Success(true),
			webhookattempt.TriggerNEQ(webhookattempt.TriggerPing),
			webhookattempt.HasDeliveryWith(webhookdelivery.EndpointID(ep.ID)),
		).Order(webhookattempt.ByAttemptedAt(sql.OrderDesc())).First(sys)
		switch {
		case err == nil:
			h.LastSuccessAt = &last.AttemptedAt
		case !ent.IsNotFound(err):
			return nil, err
		}
		out[ep.ID] = h
	}
	for _, id := range ids {
		if _, ok := out[id]; !ok {
			return nil, endpointNotFound(id)
		}
	}
	return out, nil
}

// ResendFailed queues again every failed delivery of an endpoint created at
// or after since, at most MaxResend of them (the oldest first), and returns
// how many it queued. It sends nothing itself: each is made due now, for the
// server's dispatcher to post as it posts every delivery, with the same event
// id and body and a fresh signature. A delivery whose next scheduled attempt
// is already due, or that a dispatcher is posting, is left as it is; pings
// are not resent. An abandoned delivery queued again is given one attempt
// (its schedule has run out), one still scheduled has its next attempt
// brought forward. The endpoint must be enabled, as no dispatcher posts to a
// disabled one. The resend is recorded in the audit history in the same
// transaction.
func (r *Registry) ResendFailed(ctx context.Context, orgID, endpointID int, since time.Time) (int, error) {
	// System viewer: webhook endpoints, deliveries and attempts are system-only (the CLI manages them for an organization).
	sys := policy.System(ctx)
	now := r.now()
	// Times are stored to the microsecond: a delivery created in the
	// microsecond of since is at or after it.
	since = since.UTC().Truncate(time.Microsecond)
	n := 0
	err := ent.RunInTx(sys, r.Client, func(tx *ent.Tx) error {
		ep, err := tx.WebhookEndpoint.Query().Where(webhookendpoint.ID(endpointID), endpointOf(orgID)).Only(sys)
		if err != nil {
			return endpointErr(endpointID, err)
		}
		if !ep.Enabled {
			return fmt.Errorf("webhook endpoint %d is disabled: enable it to resend its deliveries", endpointID)
		}
		// By the endpoint's account too: on a Citus cluster, one shard.
		queueable := webhookdelivery.And(
			webhookdelivery.AccountID(ep.AccountID),
			webhookdelivery.EndpointID(endpointID),
			deliveryOf(orgID),
			webhookdelivery.CreatedAtGTE(since),
			webhookdelivery.HasEventWith(event.TypeNEQ(PingType)),
			webhookdelivery.Or(
				webhookdelivery.StatusEQ(webhookdelivery.StatusAbandoned),
				webhookdelivery.And(
					webhookdelivery.StatusEQ(webhookdelivery.StatusPending),
					webhookdelivery.HasAttempts(),
					webhookdelivery.NextAttemptAtGT(now),
				),
			),
			webhookdelivery.Or(webhookdelivery.LockedUntilIsNil(), webhookdelivery.LockedUntilLTE(now)),
		)
		ids, err := tx.WebhookDelivery.Query().Where(queueable).
			Order(webhookdelivery.ByID()).Limit(MaxResend).IDs(sys)
		if err != nil || len(ids) == 0 {
			if err == nil {
				err = recordEndpoint(sys, tx, orgID, endpointID, audit.DeliveriesResent, now, resendDetail(since, 0))
			}
			return err
		}
		// The condition again, so that a delivery a dispatcher claimed
		// meanwhile is not counted.
		if n, err = tx.WebhookDelivery.Update().Where(webhookdelivery.IDIn(ids...), queueable).
			SetStatus(webhookdelivery.StatusPending).
			SetNextAttemptAt(now).
			ClearFinishedAt().
			ClearLockedUntil().
			Save(sys); err != nil {
			return err
		}
		return recordEndpoint(sys, tx, orgID, endpointID, audit.DeliveriesResent, now, resendDetail(since, n))
	})
	if err != nil {
		return 0, err
	}
	return n, nil
}

// resendDetail is the audit detail of a bulk resend.
func resendDetail(since time.Time, n int) map[string]any {
	return map[string]any{"failed_since": since.Format(time.RFC3339Nano), "count": n}
}

// EventFilter narrows the event list; zero fields do not narrow it.
type EventFilter struct {
	// Type is an event type.
	Type string
	// ResourceType is the type of the record the events are about, and
	// ResourceID its id (a number; only with ResourceType).
	ResourceType, ResourceID string
	// Before is a cursor: only events older than this one (its evt_ id, the
	// last of the previous page).
	Before string
	// Limit bounds the page (DefaultPage when zero, at most MaxPage).
	Limit int
}

// EventRow is one event of the list: the event, its envelope as every
// endpoint receives it, and what became of it at each endpoint it was
// delivered to.
type EventRow struct {
	*ent.Event
	Envelope  json.RawMessage
	Receivers []Receiver
}

// Receiver is an endpoint an event was delivered to, and how that went.
type Receiver struct {
	EndpointID int
	URL        string
	DeliveryID int
	Outcome    Outcome
	// Attempts is how many posts were made, resends included.
	Attempts int
	// LastAttemptAt is the latest post; nil before the first.
	LastAttemptAt *time.Time
}

// Events returns the events of the env account of organization orgID,
// newest first, narrowed by f, each with the endpoints that received it. A
// cursor that is not one of the account's events (another organization's or
// environment's) does not exist, as a record of theirs does not.
func Events(ctx context.Context, c *ent.Client, orgID int, env policy.Environment, f EventFilter) ([]EventRow, error) {
	// System viewer: events, endpoints and deliveries are system-only (the console and the CLI list them for an organization).
	sys := policy.System(ctx)
	if env != policy.Live && env != policy.Test {
		return nil, fmt.Errorf("environment must be live or test, not %q", env)
	}
	acct, err := tenancy.Account(ctx, c, orgID, env)
	if err != nil {
		return nil, err
	}
	q := c.Event.Query().Where(event.AccountID(acct.ID))
	if f.Type != "" {
		q.Where(event.Type(f.Type))
	}
	if f.ResourceID != "" && f.ResourceType == "" {
		return nil, fmt.Errorf("a resource id needs its resource type")
	}
	if f.ResourceType != "" {
		q.Where(event.ResourceType(f.ResourceType))
	}
	if f.ResourceID != "" {
		id, err := strconv.Atoi(f.ResourceID)
		if err != nil || id <= 0 {
			return nil, fmt.Errorf("resource id %q is not a record id", f.ResourceID)
		}
		q.Where(event.ResourceID(id))
	}
	if f.Before != "" {
		before, err := c.Event.Query().Where(event.EventID(f.Before), event.AccountID(acct.ID)).OnlyID(sys)
		if ent.IsNotFound(err) {
			return nil, policy.Missingf("event %s does not exist", f.Before)
		}
		if err != nil {
			return nil, err
		}
		q.Where(event.IDLT(before))
	}
	evs, err := q.
		WithDeliveries(func(q *ent.WebhookDeliveryQuery) {
			q.WithEndpoint(func(q *ent.WebhookEndpointQuery) {
				q.Select(webhookendpoint.FieldID, webhookendpoint.FieldURL)
			}).
				WithAttempts(func(q *ent.WebhookAttemptQuery) {
					q.Select(webhookattempt.FieldID, webhookattempt.FieldDeliveryID, webhookattempt.FieldAttemptedAt).
						Order(webhookattempt.ByID())
				}).
				Order(webhookdelivery.ByEndpointID())
		}).
		Order(event.ByID(sql.OrderDesc())).
		Limit(page(f.Limit)).
		All(sys)
	if err != nil {
		return nil, err
	}
	out := make([]EventRow, len(evs))
	for i, ev := range evs {
		env, err := EnvelopeOf(ev)
		if err != nil {
			return nil, err
		}
		row := EventRow{Event: ev, Envelope: env, Receivers: []Receiver{}}
		for _, d := range ev.Edges.Deliveries {
			rc := Receiver{EndpointID: d.EndpointID, URL: d.Edges.Endpoint.URL, DeliveryID: d.ID,
				Outcome: outcomeOf(d, len(d.Edges.Attempts) > 0), Attempts: len(d.Edges.Attempts)}
			if n := len(d.Edges.Attempts); n > 0 {
				rc.LastAttemptAt = &d.Edges.Attempts[n-1].AttemptedAt
			}
			row.Receivers = append(row.Receivers, rc)
		}
		out[i] = row
	}
	return out, nil
}
