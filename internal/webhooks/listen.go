package webhooks

import (
	"context"
	"time"

	"entgo.io/ent/dialect/sql"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/webhookattempt"
	"larder.dev/larder/ent/webhookdelivery"
	"larder.dev/larder/ent/webhookendpoint"
	"larder.dev/larder/policy"
)

// Attempt is one attempt of the log with its delivery and event.
type Attempt struct {
	*ent.WebhookAttempt
	DeliveryID int
	EventID    string
	Type       string
}

// Listen calls f with each new attempt of the deliveries of an endpoint of
// organization orgID, polling the log every interval from the moment it
// starts, until ctx ends or f fails. An endpoint of another organization is
// not found.
func Listen(ctx context.Context, c *ent.Client, orgID, endpointID int, interval time.Duration, f func(Attempt) error) error {
	// System viewer: webhook endpoints, deliveries and attempts are system-only.
	sys := policy.System(ctx)
	ep, err := c.WebhookEndpoint.Query().Where(webhookendpoint.ID(endpointID), endpointOf(orgID)).
		Select(webhookendpoint.FieldAccountID).Only(sys)
	if ent.IsNotFound(err) {
		return endpointNotFound(endpointID)
	}
	if err != nil {
		return err
	}
	// By the endpoint's account too: each poll reads one account's rows (on
	// a Citus cluster, one shard).
	mine := webhookattempt.And(webhookattempt.AccountID(ep.AccountID),
		webhookattempt.HasDeliveryWith(webhookdelivery.EndpointID(endpointID), deliveryOf(orgID)))
	last, err := c.WebhookAttempt.Query().Where(mine).Order(webhookattempt.ByID(sql.OrderDesc())).FirstID(sys)
	if err != nil && !ent.IsNotFound(err) {
		return err
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		as, err := c.WebhookAttempt.Query().
			Where(mine, webhookattempt.IDGT(last)).
			WithDelivery(func(q *ent.WebhookDeliveryQuery) { q.WithEvent() }).
			Order(webhookattempt.ByID()).
			Limit(100).
			All(sys)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		for _, a := range as {
			last = a.ID
			d := a.Edges.Delivery
			if err := f(Attempt{WebhookAttempt: a, DeliveryID: d.ID, EventID: d.Edges.Event.EventID, Type: d.Edges.Event.Type}); err != nil {
				return err
			}
		}
		if len(as) == 100 {
			continue
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}
