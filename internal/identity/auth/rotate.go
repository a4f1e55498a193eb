package auth

import (
	"context"
	"fmt"
	"strings"
	"time"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/account"
	"larder.dev/larder/ent/apikey"
	"larder.dev/larder/ent/predicate"
	"larder.dev/larder/internal/identity/audit"
	"larder.dev/larder/policy"
)

// Graces are the grace periods a rotation may choose, by name (spec
// Authentication 6: none, 1 hour, 24 hours or 7 days).
var Graces = []struct {
	Name string
	D    time.Duration
}{{"none", 0}, {"1h", time.Hour}, {"24h", 24 * time.Hour}, {"7d", 7 * 24 * time.Hour}}

// ParseGrace returns the grace period named s.
func ParseGrace(s string) (time.Duration, error) {
	names := make([]string, len(Graces))
	for i, g := range Graces {
		if g.Name == s {
			return g.D, nil
		}
		names[i] = g.Name
	}
	return 0, fmt.Errorf("grace %q: use one of %s", s, strings.Join(names, ", "))
}

// graceName is the name of a grace period of Graces.
func graceName(d time.Duration) string {
	for _, g := range Graces {
		if g.D == d {
			return g.Name
		}
	}
	return d.String()
}

// Rotated is the outcome of a rotation.
type Rotated struct {
	// Old is the rotated key; its ExpiresAt is the end of the grace period.
	Old *ent.APIKey
	// New is the replacement, with the same account, name and scopes.
	New *ent.APIKey
	// Key is the new key itself, shown once.
	Key string
}

// RotateKey replaces a key at now: the new key has the old one's account,
// name and scopes; the old key works until now+grace (truncated to the second,
// so the Sunset header names the exact moment it stops), and with grace 0 no
// longer. A revoked key, or one already rotated, cannot be rotated. The new key
// takes the old one's place against MaxActiveKeys (see Occupying), so no limit
// is checked. A key of another organization than orgID is not found. A key
// holding cost:read is rotated only by an issuer who sees costs
// (ErrCostScope), since the new key is shown to them. Recorded for the actor
// of ctx.
func RotateKey(ctx context.Context, c *ent.Client, orgID int, by Issuer, keyID int, grace time.Duration, now time.Time) (*Rotated, error) {
	// System viewer: API keys and the audit history are system-only.
	if _, err := ParseGrace(graceName(grace)); err != nil {
		return nil, err
	}
	ctx = policy.System(ctx)
	now = now.UTC()
	expires := now.Truncate(time.Second).Add(grace)
	var out *Rotated
	err := ent.RunInTx(ctx, c, func(tx *ent.Tx) error {
		// The conditional update locks the key row: a concurrent revocation or
		// rotation either commits first (and this matches nothing) or waits.
		n, err := tx.APIKey.Update().
			Where(apikey.ID(keyID), ofOrganization(orgID), apikey.RevokedAtIsNil(), apikey.ExpiresAtIsNil()).
			SetExpiresAt(expires).
			Save(ctx)
		if err != nil {
			return err
		}
		if n == 0 {
			return notRotatable(ctx, tx.Client(), orgID, keyID, now)
		}
		old, err := tx.APIKey.Query().Where(apikey.ID(keyID), ofOrganization(orgID)).WithAccount().Only(ctx)
		if err != nil {
			return err
		}
		// Refusing here rolls the expiry above back with the transaction.
		if err := by.mayIssue(old.Scopes); err != nil {
			return err
		}
		env := policy.Environment(old.Edges.Account.Environment)
		key, prefix, last4, hash := NewKey(env)
		rec, err := tx.APIKey.Create().
			SetAccountID(old.AccountID).
			SetName(old.Name).
			SetPrefix(prefix).
			SetLast4(last4).
			SetSecretHash(hash).
			SetScopes(old.Scopes).
			SetReplacesID(old.ID).
			Save(ctx)
		if err != nil {
			return err
		}
		out = &Rotated{Old: old, New: rec, Key: key}
		return audit.Record(ctx, tx, audit.Entry{
			OrganizationID: old.Edges.Account.OrganizationID, Action: audit.KeyRotated, KeyID: old.ID, Env: env, At: now,
			Detail: map[string]any{"new_key_id": rec.ID, "grace": graceName(grace), "old_key_expires_at": expires},
		})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// notRotatable explains why key id of organization orgID cannot be rotated.
func notRotatable(ctx context.Context, c *ent.Client, orgID, id int, now time.Time) error {
	k, err := c.APIKey.Query().Where(apikey.ID(id), ofOrganization(orgID)).WithReplacedBy().Only(ctx)
	switch {
	case ent.IsNotFound(err):
		return policy.Missingf("key %d does not exist", id)
	case err != nil:
		return err
	case k.RevokedAt != nil:
		return refused(ErrKeyState, "key %d was revoked at %s; a revoked key cannot be rotated (create a new key instead)", id, stamp(*k.RevokedAt))
	case k.Edges.ReplacedBy != nil && k.ExpiresAt.After(now):
		return refused(ErrKeyState, "key %d is already in a grace period until %s (replaced by key %d); rotate key %d instead",
			id, stamp(*k.ExpiresAt), k.Edges.ReplacedBy.ID, k.Edges.ReplacedBy.ID)
	case k.Edges.ReplacedBy != nil:
		return refused(ErrKeyState, "key %d was rotated and stopped working at %s (replaced by key %d); rotate key %d instead",
			id, stamp(*k.ExpiresAt), k.Edges.ReplacedBy.ID, k.Edges.ReplacedBy.ID)
	default:
		return refused(ErrKeyState, "key %d expired at %s and cannot be rotated", id, stamp(*k.ExpiresAt))
	}
}

// RevokeKey revokes a key at now: it stops working on the very next request
// of every server process, since each request reads the key from the
// database. A key in a grace period can be revoked, which ends it. A key of
// another organization than orgID is not found. Recorded for the actor of ctx.
func RevokeKey(ctx context.Context, c *ent.Client, orgID, keyID int, now time.Time) (*ent.APIKey, error) {
	// System viewer: API keys and the audit history are system-only.
	ctx = policy.System(ctx)
	now = now.UTC().Truncate(time.Microsecond)
	var out *ent.APIKey
	err := ent.RunInTx(ctx, c, func(tx *ent.Tx) error {
		n, err := tx.APIKey.Update().
			Where(apikey.ID(keyID), ofOrganization(orgID), apikey.RevokedAtIsNil()).
			SetRevokedAt(now).
			Save(ctx)
		if err != nil {
			return err
		}
		k, err := tx.APIKey.Query().Where(apikey.ID(keyID), ofOrganization(orgID)).WithAccount().Only(ctx)
		switch {
		case ent.IsNotFound(err):
			return policy.Missingf("key %d does not exist", keyID)
		case err != nil:
			return err
		case n == 0:
			return refused(ErrKeyState, "key %d was already revoked at %s", keyID, stamp(*k.RevokedAt))
		}
		out = k
		return audit.Record(ctx, tx, audit.Entry{
			OrganizationID: k.Edges.Account.OrganizationID, Action: audit.KeyRevoked, KeyID: k.ID,
			Env: policy.Environment(k.Edges.Account.Environment), At: now,
		})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ofOrganization selects the keys of the accounts of organization orgID.
func ofOrganization(orgID int) predicate.APIKey {
	return apikey.HasAccountWith(account.OrganizationID(orgID))
}

// KeyOrganization returns the organization a key belongs to, for a caller
// that may act on any organization (the CLI) and names a key by id alone.
func KeyOrganization(ctx context.Context, c *ent.Client, keyID int) (int, error) {
	// System viewer: API keys are system-only.
	k, err := c.APIKey.Query().Where(apikey.ID(keyID)).WithAccount().Only(policy.System(ctx))
	switch {
	case ent.IsNotFound(err):
		return 0, policy.Missingf("key %d does not exist", keyID)
	case err != nil:
		return 0, err
	}
	return k.Edges.Account.OrganizationID, nil
}

// stamp formats a time for a message.
func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }
