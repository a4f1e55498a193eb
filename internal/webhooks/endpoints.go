package webhooks

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/mail"
	"slices"
	"strings"
	"time"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/account"
	"larder.dev/larder/ent/auditrecord"
	"larder.dev/larder/ent/predicate"
	"larder.dev/larder/ent/webhookattempt"
	"larder.dev/larder/ent/webhookdelivery"
	"larder.dev/larder/ent/webhookendpoint"
	"larder.dev/larder/internal/identity/audit"
	"larder.dev/larder/internal/identity/tenancy"
	"larder.dev/larder/internal/platform/secrets"
	"larder.dev/larder/policy"
)

// Registry manages endpoints: the web application's side of webhooks.
type Registry struct {
	Client *ent.Client
	// AllowPrivate admits plain HTTP and private addresses (development, tests).
	AllowPrivate bool
	// Resolver resolves endpoint hosts (net.DefaultResolver when nil).
	Resolver Resolver
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// Keys encrypt the signing secrets it stores (plain text without a key).
	Keys *secrets.Keyring
}

// now is the registry's clock to the microsecond, as the databases keep
// times and as the dispatcher compares them: a delivery made due now is due
// to a dispatcher at the same instant.
func (r *Registry) now() time.Time {
	if r.Now != nil {
		return r.Now().UTC().Truncate(time.Microsecond)
	}
	return time.Now().UTC().Truncate(time.Microsecond)
}

func (r *Registry) check(ctx context.Context, rawURL string) error {
	res := r.Resolver
	if res == nil {
		res = net.DefaultResolver
	}
	return CheckURL(ctx, rawURL, r.AllowPrivate, res)
}

func checkEmail(email string) error {
	if email == "" {
		return nil
	}
	if _, err := mail.ParseAddress(email); err != nil {
		return fmt.Errorf("email %q: %w", email, err)
	}
	return nil
}

// EventTypes checks the event types an endpoint chooses to receive and
// returns them sorted, each once: every one must be a type of the event
// catalogue. ping is not among them, as it reaches every endpoint. No types
// (nil or empty) means every type, returned as nil.
func EventTypes(types []string) ([]string, error) {
	known := ent.EventTypes()
	var out []string
	for _, t := range types {
		t = strings.TrimSpace(t)
		switch {
		case t == PingType:
			return nil, fmt.Errorf("event type %q cannot be chosen: a ping always reaches the endpoint", t)
		case !slices.Contains(known, t):
			return nil, fmt.Errorf("unknown event type %q", t)
		}
		out = append(out, t)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// Create registers an endpoint for the env account of an organization,
// receiving the events of eventTypes (see EventTypes; none for every type).
// The returned endpoint holds the plain secret, which is shown once; what is
// stored is encrypted under Keys, when it has a key.
func (r *Registry) Create(ctx context.Context, orgID int, env policy.Environment, rawURL, email, description string, eventTypes []string) (*ent.WebhookEndpoint, error) {
	// System viewer: webhook endpoints, deliveries and attempts are system-only (the CLI manages them for an organization).
	if err := r.check(ctx, rawURL); err != nil {
		return nil, err
	}
	if err := checkEmail(email); err != nil {
		return nil, err
	}
	types, err := EventTypes(eventTypes)
	if err != nil {
		return nil, err
	}
	acct, err := tenancy.Account(ctx, r.Client, orgID, env)
	if err != nil {
		return nil, err
	}
	now := r.now()
	secret := NewSecret()
	var ep *ent.WebhookEndpoint
	err = ent.RunInTx(policy.System(ctx), r.Client, func(tx *ent.Tx) error {
		sys := policy.System(ctx)
		// The sealed secret is bound to the endpoint's id, known once the row
		// is inserted: with a key, the row is inserted without a secret and
		// given the sealed one in the same transaction, so the plain secret
		// never reaches the database.
		stored := secret
		if r.Keys.Enabled() {
			stored = ""
		}
		c := tx.WebhookEndpoint.Create().
			SetAccountID(acct.ID).
			SetURL(rawURL).
			SetEmail(email).
			SetDescription(description).
			SetSecret(stored).
			SetCreatedAt(now).
			SetUpdatedAt(now)
		if types != nil {
			c.SetEventTypes(types)
		}
		ep, err = c.Save(sys)
		if err != nil {
			return err
		}
		if r.Keys.Enabled() {
			if stored, err = sealSecret(r.Keys, ep.ID, secret); err != nil {
				return err
			}
			if err := tx.WebhookEndpoint.UpdateOneID(ep.ID).SetSecret(stored).SetUpdatedAt(now).Exec(sys); err != nil {
				return err
			}
		}
		return recordEndpoint(sys, tx, orgID, ep.ID, audit.EndpointCreated, now, map[string]any{"event_types": eventTypesDetail(types)})
	})
	if err != nil {
		return nil, err
	}
	ep.Secret = secret
	return ep, nil
}

// Get returns an endpoint of organization orgID; one of another
// organization is not found, as every method taking an organization and an
// id finds only what belongs to that organization.
func (r *Registry) Get(ctx context.Context, orgID, id int) (*ent.WebhookEndpoint, error) {
	// System viewer: webhook endpoints, deliveries and attempts are system-only (the CLI manages them for an organization).
	ep, err := r.Client.WebhookEndpoint.Query().Where(webhookendpoint.ID(id), endpointOf(orgID)).Only(policy.System(ctx))
	if ent.IsNotFound(err) {
		return nil, endpointNotFound(id)
	}
	return ep, err
}

// endpointOf selects the endpoints of the accounts of organization orgID.
func endpointOf(orgID int) predicate.WebhookEndpoint {
	return webhookendpoint.HasAccountWith(account.OrganizationID(orgID))
}

// deliveryOf selects the deliveries to endpoints of organization orgID.
func deliveryOf(orgID int) predicate.WebhookDelivery {
	return webhookdelivery.HasEndpointWith(endpointOf(orgID))
}

func endpointNotFound(id int) error { return policy.Missingf("webhook endpoint %d does not exist", id) }

func deliveryNotFound(id int) error { return policy.Missingf("webhook delivery %d does not exist", id) }

// EndpointOrganization returns the organization an endpoint belongs to, for a
// caller that may act on any organization (the CLI) and names an endpoint by
// id alone.
func EndpointOrganization(ctx context.Context, c *ent.Client, id int) (int, error) {
	// System viewer: webhook endpoints are system-only (the CLI manages them for any organization).
	ep, err := c.WebhookEndpoint.Query().Where(webhookendpoint.ID(id)).WithAccount().Only(policy.System(ctx))
	switch {
	case ent.IsNotFound(err):
		return 0, endpointNotFound(id)
	case err != nil:
		return 0, err
	}
	return ep.Edges.Account.OrganizationID, nil
}

// DeliveryOrganization returns the organization a delivery belongs to (that
// of its endpoint), for a caller that may act on any organization (the CLI)
// and names a delivery by id alone.
func DeliveryOrganization(ctx context.Context, c *ent.Client, id int) (int, error) {
	// System viewer: webhook endpoints and deliveries are system-only (the CLI manages them for any organization).
	d, err := c.WebhookDelivery.Query().Where(webhookdelivery.ID(id)).
		WithEndpoint(func(q *ent.WebhookEndpointQuery) { q.WithAccount() }).
		Only(policy.System(ctx))
	switch {
	case ent.IsNotFound(err):
		return 0, deliveryNotFound(id)
	case err != nil:
		return 0, err
	}
	return d.Edges.Endpoint.Edges.Account.OrganizationID, nil
}

// List returns the endpoints of an organization (both environments), oldest first.
func (r *Registry) List(ctx context.Context, orgID int) ([]*ent.WebhookEndpoint, error) {
	// System viewer: webhook endpoints, deliveries and attempts are system-only (the CLI manages them for an organization).
	sys := policy.System(ctx)
	var ids []int
	for _, env := range []policy.Environment{policy.Live, policy.Test} {
		a, err := tenancy.Account(ctx, r.Client, orgID, env)
		if err != nil {
			return nil, err
		}
		ids = append(ids, a.ID)
	}
	return r.Client.WebhookEndpoint.Query().
		Where(webhookendpoint.AccountIDIn(ids...)).
		WithAccount().
		Order(webhookendpoint.ByID()).
		All(sys)
}

// Change is an update of an endpoint: nil fields are unchanged.
type Change struct {
	URL, Email, Description *string
	// EventTypes, when not nil, replaces the event types the endpoint
	// receives: empty for every type (see EventTypes).
	EventTypes *[]string
}

// Update changes an endpoint's URL, owner e-mail, description or event
// types, and records which of them changed in the audit history.
func (r *Registry) Update(ctx context.Context, orgID, id int, c Change) (*ent.WebhookEndpoint, error) {
	// System viewer: webhook endpoints, deliveries and attempts are system-only (the CLI manages them for an organization).
	if _, err := r.Get(ctx, orgID, id); err != nil {
		return nil, err
	}
	var sets []func(*ent.WebhookEndpointUpdateOne)
	var changed []string
	if c.URL != nil {
		if err := r.check(ctx, *c.URL); err != nil {
			return nil, err
		}
		sets = append(sets, func(u *ent.WebhookEndpointUpdateOne) { u.SetURL(*c.URL) })
		changed = append(changed, "url")
	}
	if c.Email != nil {
		if err := checkEmail(*c.Email); err != nil {
			return nil, err
		}
		sets = append(sets, func(u *ent.WebhookEndpointUpdateOne) { u.SetEmail(*c.Email) })
		changed = append(changed, "email")
	}
	if c.Description != nil {
		sets = append(sets, func(u *ent.WebhookEndpointUpdateOne) { u.SetDescription(*c.Description) })
		changed = append(changed, "description")
	}
	if c.EventTypes != nil {
		types, err := EventTypes(*c.EventTypes)
		if err != nil {
			return nil, err
		}
		sets = append(sets, func(u *ent.WebhookEndpointUpdateOne) {
			if types == nil {
				u.ClearEventTypes()
			} else {
				u.SetEventTypes(types)
			}
		})
		changed = append(changed, "event_types")
	}
	sys := policy.System(ctx)
	now := r.now()
	var ep *ent.WebhookEndpoint
	err := ent.RunInTx(sys, r.Client, func(tx *ent.Tx) error {
		u := tx.WebhookEndpoint.UpdateOneID(id).Where(endpointOf(orgID)).SetUpdatedAt(now)
		for _, set := range sets {
			set(u)
		}
		var err error
		if ep, err = u.Save(sys); err != nil {
			return endpointErr(id, err)
		}
		return recordEndpoint(sys, tx, orgID, id, audit.EndpointUpdated, now, map[string]any{"changed": changed})
	})
	if err != nil {
		return nil, err
	}
	return ep, nil
}

// endpointErr gives the not-found error of a query of one endpoint the usual
// message.
func endpointErr(id int, err error) error {
	if ent.IsNotFound(err) {
		return endpointNotFound(id)
	}
	return err
}

// Disable stops deliveries to an endpoint; nothing is deleted, and what is
// pending waits for Enable.
func (r *Registry) Disable(ctx context.Context, orgID, id int) (*ent.WebhookEndpoint, error) {
	now := r.now()
	return r.change(ctx, orgID, id, audit.EndpointDisabled, now, func(u *ent.WebhookEndpointUpdateOne) {
		u.SetEnabled(false).
			SetDisabledReason(webhookendpoint.DisabledReasonManual).
			SetDisabledAt(now).
			SetUpdatedAt(now)
	})
}

// Enable resumes deliveries to an endpoint, starting with what is pending; its
// failure record starts afresh.
func (r *Registry) Enable(ctx context.Context, orgID, id int) (*ent.WebhookEndpoint, error) {
	now := r.now()
	return r.change(ctx, orgID, id, audit.EndpointEnabled, now, func(u *ent.WebhookEndpointUpdateOne) {
		u.SetEnabled(true).
			ClearDisabledReason().
			ClearDisabledAt().
			ClearFailingSince().
			SetUpdatedAt(now)
	})
}

// change updates endpoint id of organization orgID with set and records
// action, in one transaction.
func (r *Registry) change(ctx context.Context, orgID, id int, action auditrecord.Action, now time.Time, set func(*ent.WebhookEndpointUpdateOne)) (*ent.WebhookEndpoint, error) {
	// System viewer: webhook endpoints, deliveries and attempts are system-only (the CLI manages them for an organization).
	sys := policy.System(ctx)
	var ep *ent.WebhookEndpoint
	err := ent.RunInTx(sys, r.Client, func(tx *ent.Tx) error {
		u := tx.WebhookEndpoint.UpdateOneID(id).Where(endpointOf(orgID))
		set(u)
		var err error
		if ep, err = u.Save(sys); err != nil {
			return endpointErr(id, err)
		}
		return recordEndpoint(sys, tx, orgID, id, action, now, nil)
	})
	if err != nil {
		return nil, err
	}
	return ep, nil
}

// Delete removes an endpoint with its deliveries and their log.
func (r *Registry) Delete(ctx context.Context, orgID, id int) error {
	// System viewer: webhook endpoints, deliveries and attempts are system-only (the CLI manages them for an organization).
	sys := policy.System(ctx)
	return ent.RunInTx(sys, r.Client, func(tx *ent.Tx) error {
		// Recorded first, while the endpoint's URL and environment can be read.
		if err := recordEndpoint(sys, tx, orgID, id, audit.EndpointDeleted, r.now(), nil); err != nil {
			return err
		}
		if _, err := tx.WebhookDelivery.Delete().Where(webhookdelivery.EndpointID(id), deliveryOf(orgID)).Exec(sys); err != nil {
			return err
		}
		n, err := tx.WebhookEndpoint.Delete().Where(webhookendpoint.ID(id), endpointOf(orgID)).Exec(sys)
		if err == nil && n == 0 {
			err = endpointNotFound(id)
		}
		return err
	})
}

// recordEndpoint writes, in tx, the audit record of action on endpoint id of
// organization orgID: the endpoint's id, URL and environment, with detail
// added. Never a secret.
func recordEndpoint(sys context.Context, tx *ent.Tx, orgID, id int, action auditrecord.Action, at time.Time, detail map[string]any) error {
	ep, err := tx.WebhookEndpoint.Query().Where(webhookendpoint.ID(id), endpointOf(orgID)).WithAccount().Only(sys)
	if err != nil {
		return endpointErr(id, err)
	}
	d := map[string]any{"endpoint_id": ep.ID, "url": ep.URL, "env": string(ep.Edges.Account.Environment)}
	maps.Copy(d, detail)
	return audit.Record(sys, tx, audit.Entry{OrganizationID: orgID, Action: action, At: at, Detail: d})
}

// eventTypesDetail is the event types of an endpoint as its audit record
// shows them: an array, empty for every type.
func eventTypesDetail(types []string) []string {
	if types == nil {
		return []string{}
	}
	return types
}

// RotateSecret gives an endpoint a new secret and keeps signing with the old
// one too until grace has passed, so the receiver can switch without losing a
// delivery. The returned endpoint holds the new plain secret, shown once
// (and the previous one in plain too); both are stored encrypted under Keys,
// when it has a key. With no grace the old secret is not read, so a secret no
// key decrypts any more can be replaced.
func (r *Registry) RotateSecret(ctx context.Context, orgID, id int, grace time.Duration) (*ent.WebhookEndpoint, error) {
	// System viewer: webhook endpoints, deliveries and attempts are system-only (the CLI manages them for an organization).
	if grace < 0 {
		return nil, fmt.Errorf("grace cannot be negative")
	}
	sys := policy.System(ctx)
	now := r.now()
	secret := NewSecret()
	var prev string
	var ep *ent.WebhookEndpoint
	err := ent.RunInTx(sys, r.Client, func(tx *ent.Tx) error {
		cur, err := tx.WebhookEndpoint.Query().Where(webhookendpoint.ID(id), endpointOf(orgID)).Only(sys)
		if ent.IsNotFound(err) {
			return endpointNotFound(id)
		}
		if err != nil {
			return err
		}
		stored, err := sealSecret(r.Keys, id, secret)
		if err != nil {
			return err
		}
		// On the secret read, so that the one kept is the one replaced.
		u := tx.WebhookEndpoint.Update().
			Where(webhookendpoint.ID(id), endpointOf(orgID), webhookendpoint.Secret(cur.Secret)).
			SetSecret(stored).
			SetUpdatedAt(now)
		if grace > 0 {
			if prev, err = openSecret(r.Keys, id, cur.Secret); err != nil {
				return fmt.Errorf("%w; rotate with no grace to replace it", err)
			}
			sealed, err := sealSecret(r.Keys, id, prev)
			if err != nil {
				return err
			}
			u.SetPreviousSecret(sealed).SetPreviousSecretExpiresAt(now.Add(grace))
		} else {
			u.ClearPreviousSecret().ClearPreviousSecretExpiresAt()
		}
		n, err := u.Save(sys)
		if err != nil {
			return err
		}
		if n == 0 {
			return fmt.Errorf("the secret of webhook endpoint %d changed meanwhile; try again", id)
		}
		if ep, err = tx.WebhookEndpoint.Get(sys, id); err != nil {
			return err
		}
		return recordEndpoint(sys, tx, orgID, id, audit.EndpointSecretRotated, now, map[string]any{"grace": grace.String()})
	})
	if err != nil {
		return nil, err
	}
	ep.Secret = secret
	if ep.PreviousSecret != nil {
		ep.PreviousSecret = &prev
	}
	return ep, nil
}

// Ping queues a signed ping event for an endpoint, for the server's
// dispatcher to send with the server's settings (its address rules, timeout
// and secrets), as it sends every delivery. The endpoint must be enabled: a
// dispatcher sends nothing to a disabled one. WaitPing learns the outcome.
func (r *Registry) Ping(ctx context.Context, orgID, endpointID int) (*ent.Event, *ent.WebhookDelivery, error) {
	return queuePing(ctx, r.Client, orgID, endpointID, r.now(), 0, true)
}

// ErrPingNotSent reports a ping that no dispatcher sent in time; it was
// withdrawn, so that it does not arrive later unannounced.
var ErrPingNotSent = errors.New("no webhook dispatcher sent the ping in time (is `larder serve` with webhooks on, or `larder webhook worker`, running on this database?)")

// WaitPing waits until the ping delivery deliveryID has been attempted and
// returns its attempt, looking every poll. When ctx ends first, a ping no
// dispatcher has claimed is withdrawn and ErrPingNotSent returned; one being
// sent is left to finish, and ctx's error returned.
func (r *Registry) WaitPing(ctx context.Context, orgID, deliveryID int, poll time.Duration) (*ent.WebhookAttempt, error) {
	// System viewer: webhook endpoints, deliveries and attempts are system-only (the CLI manages them for an organization).
	sys := policy.System(context.WithoutCancel(ctx))
	found, err := r.Client.WebhookDelivery.Query().Where(webhookdelivery.ID(deliveryID), deliveryOf(orgID)).Exist(sys)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, deliveryNotFound(deliveryID)
	}
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		a, err := r.Client.WebhookAttempt.Query().
			Where(webhookattempt.DeliveryID(deliveryID), webhookattempt.HasDeliveryWith(deliveryOf(orgID))).
			Order(webhookattempt.ByID()).
			First(policy.System(ctx))
		switch {
		case err == nil:
			return a, nil
		case !ent.IsNotFound(err) && ctx.Err() == nil:
			return nil, err
		}
		select {
		case <-ctx.Done():
			wctx, cancel := context.WithTimeout(sys, 5*time.Second)
			defer cancel()
			n, err := r.Client.WebhookDelivery.Delete().Where(
				webhookdelivery.ID(deliveryID),
				deliveryOf(orgID),
				webhookdelivery.StatusEQ(webhookdelivery.StatusPending),
				webhookdelivery.LockedUntilIsNil(),
				webhookdelivery.Not(webhookdelivery.HasAttempts()),
			).Exec(wctx)
			switch {
			case err != nil:
				return nil, fmt.Errorf("withdraw the ping: %w", err)
			case n == 1:
				return nil, ErrPingNotSent
			}
			return nil, fmt.Errorf("the ping is being sent but had no answer in time: %w", ctx.Err())
		case <-t.C:
		}
	}
}
