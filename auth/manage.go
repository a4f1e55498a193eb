package auth

import (
	"context"
	"fmt"
	"larder.dev/larder/missing"
	"time"

	"larder.dev/larder/audit"
	"larder.dev/larder/ent"
	"larder.dev/larder/ent/apikey"
	"larder.dev/larder/ent/organization"
	"larder.dev/larder/ent/predicate"
	"larder.dev/larder/policy"
	"larder.dev/larder/tenancy"
)

// MaxActiveKeys is how many active keys an organization may hold per
// environment (spec Authentication 4).
const MaxActiveKeys = 50

// Created is a new key: the record and the key itself, shown once.
type Created struct {
	Record *ent.APIKey
	Key    string
}

// CreateKey issues a key for the env account of an organization, recording
// it for the actor of ctx (audit.WithActor). It runs as the system: keys are
// managed in the web application, never through the API.
func CreateKey(ctx context.Context, c *ent.Client, orgID int, env policy.Environment, scopes []policy.Scope, name string) (*Created, error) {
	// System viewer: API keys and the audit history are system-only.
	ctx = policy.System(ctx)
	acct, err := tenancy.Account(ctx, c, orgID, env)
	if err != nil {
		return nil, err
	}
	var out *Created
	err = ent.RunInTx(ctx, c, func(tx *ent.Tx) error {
		// Writing the account row first serialises key creation per account,
		// so concurrent creates cannot both pass the limit.
		if err := tx.Account.UpdateOneID(acct.ID).Exec(ctx); err != nil {
			return err
		}
		now := time.Now()
		active, err := tx.APIKey.Query().
			Where(apikey.AccountID(acct.ID), Occupying(now)).
			Count(ctx)
		if err != nil {
			return err
		}
		if active >= MaxActiveKeys {
			return fmt.Errorf("organization %d already has %d active %s keys, the most it may hold; revoke one first", orgID, active, env)
		}
		key, prefix, last4, hash := NewKey(env)
		names := make([]string, len(scopes))
		for i, s := range scopes {
			names[i] = string(s)
		}
		rec, err := tx.APIKey.Create().
			SetAccountID(acct.ID).
			SetName(name).
			SetPrefix(prefix).
			SetLast4(last4).
			SetSecretHash(hash).
			SetScopes(names).
			Save(ctx)
		if err != nil {
			return err
		}
		out = &Created{Record: rec, Key: key}
		return audit.Record(ctx, tx, audit.Entry{
			OrganizationID: orgID, Action: audit.KeyCreated, KeyID: rec.ID, Env: env, At: now,
			Detail: map[string]any{"name": name, "scopes": names},
		})
	})
	return out, err
}

// Active selects keys that are neither revoked nor past their expiry at now.
func Active(now time.Time) predicate.APIKey {
	return apikey.And(
		apikey.RevokedAtIsNil(),
		apikey.Or(apikey.ExpiresAtIsNil(), apikey.ExpiresAtGT(now)),
	)
}

// Occupying selects the keys that take a place against MaxActiveKeys at now:
// active keys, except an old key in its grace period while its replacement is
// active, since a rotated key keeps its place (spec Authentication 4).
func Occupying(now time.Time) predicate.APIKey {
	return apikey.And(
		Active(now),
		apikey.Not(apikey.HasReplacedByWith(Active(now))),
	)
}

// Listed is a key as management screens show it: never the secret.
type Listed struct {
	ID         int        `json:"id"`
	Name       string     `json:"name"`
	Env        string     `json:"env"`
	Scopes     []string   `json:"scopes"`
	Prefix     string     `json:"prefix"`
	Last4      string     `json:"last4"`
	CreatedAt  time.Time  `json:"created_at"`
	LastUsedAt *time.Time `json:"last_used_at"`
	ExpiresAt  *time.Time `json:"expires_at"`
	RevokedAt  *time.Time `json:"revoked_at"`
	// Replaces is the key this one replaced by rotation; ReplacedBy the key
	// that replaced it.
	Replaces   *int `json:"replaces"`
	ReplacedBy *int `json:"replaced_by"`
}

// ListKeys returns the keys of both accounts of an organization, oldest first.
func ListKeys(ctx context.Context, c *ent.Client, orgID int) ([]Listed, error) {
	// System viewer: API keys and the audit history are system-only.
	ctx = policy.System(ctx)
	found, err := c.Organization.Query().Where(organization.ID(orgID)).Exist(ctx)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, missing.Errorf("organization %d does not exist", orgID)
	}
	keys, err := c.APIKey.Query().
		Where(ofOrganization(orgID)).
		WithAccount().
		WithReplacedBy(func(q *ent.APIKeyQuery) { q.Select(apikey.FieldID, apikey.FieldReplacesID) }).
		Order(apikey.ByID()).
		All(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Listed, len(keys))
	for i, k := range keys {
		out[i] = Listed{
			ID: k.ID, Name: k.Name, Env: string(k.Edges.Account.Environment), Scopes: k.Scopes,
			Prefix: k.Prefix, Last4: k.Last4, CreatedAt: k.CreatedAt,
			LastUsedAt: k.LastUsedAt, ExpiresAt: k.ExpiresAt, RevokedAt: k.RevokedAt,
			Replaces: k.ReplacesID,
		}
		if r := k.Edges.ReplacedBy; r != nil {
			out[i].ReplacedBy = &r.ID
		}
	}
	return out, nil
}
