package auth

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"
	"unicode/utf8"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/account"
	"larder.dev/larder/ent/apikey"
	"larder.dev/larder/ent/auditrecord"
	"larder.dev/larder/ent/organization"
	"larder.dev/larder/ent/predicate"
	"larder.dev/larder/internal/identity/audit"
	"larder.dev/larder/internal/identity/tenancy"
	"larder.dev/larder/policy"
)

// MaxActiveKeys is how many active keys an organization may hold per
// environment (spec Authentication 4).
const MaxActiveKeys = 50

// MaxNameLength is the longest key name, in characters: a name is a label
// people read in a list, and an unbounded one would let a single key fill
// the screens that show it.
const MaxNameLength = 100

// ErrKeyLimit is wrapped by CreateKey's error when the environment already
// holds MaxActiveKeys keys, so a caller can tell the refusal from a failure.
var ErrKeyLimit = errors.New("key limit reached")

// ErrKeyState is wrapped by RotateKey's and RevokeKey's errors when the key
// exists but its state refuses the change (revoked, already rotated,
// expired), so a caller can show the reason rather than a failure.
var ErrKeyState = errors.New("key state refuses the change")

// refusal is an error with its own message that errors.Is matches to kind
// (ErrKeyLimit, ErrKeyState): the message explains, the kind classifies.
type refusal struct {
	msg  string
	kind error
}

func (e refusal) Error() string { return e.msg }

// Is makes the refusal match its kind.
func (e refusal) Is(target error) bool { return target == e.kind }

// refused is a refusal of kind with a formatted message.
func refused(kind error, format string, args ...any) error {
	return refusal{msg: fmt.Sprintf(format, args...), kind: kind}
}

// ErrNameTooLong is wrapped by CreateKey's error when the name is longer
// than MaxNameLength.
var ErrNameTooLong = errors.New("key name too long")

// ErrCostScope is wrapped by CreateKey's and RotateKey's errors when the
// key would hold cost:read and its issuer may not read costs and prices.
var ErrCostScope = errors.New("cost:read needs an issuer who reads costs")

// Issuer is who creates or rotates a key, as far as its rights go: a key
// reads costs and prices only when its issuer may read them, so nobody hands
// out, or is shown, a key that reads what they may not see.
type Issuer struct {
	// SeesCosts is whether the issuer reads costs and prices, and so may
	// create or rotate a key holding cost:read.
	SeesCosts bool
}

// Holder is whoever holds the database (the CLI, the demo, fixtures): every
// right.
var Holder = Issuer{SeesCosts: true}

// mayIssue refuses scopes that by may not hand out.
func (by Issuer) mayIssue(scopes []string) error {
	if !by.SeesCosts && slices.Contains(scopes, string(policy.CostRead)) {
		return refused(ErrCostScope, "only someone who reads costs and prices creates, rotates or is shown a key holding %s", policy.CostRead)
	}
	return nil
}

// Created is a new key: the record and the key itself, shown once.
type Created struct {
	Record *ent.APIKey
	Key    string
}

// CreateKey issues a key for the env account of an organization by by,
// recording it for the actor of ctx (audit.WithActor); a key holding
// cost:read needs an issuer who sees costs (ErrCostScope). It runs as the
// system: keys are managed in the web application, never through the API.
func CreateKey(ctx context.Context, c *ent.Client, orgID int, by Issuer, env policy.Environment, scopes []policy.Scope, name string) (*Created, error) {
	if n := utf8.RuneCountInString(name); n > MaxNameLength {
		return nil, fmt.Errorf("the key name has %d characters, more than %d: %w", n, MaxNameLength, ErrNameTooLong)
	}
	names := make([]string, len(scopes))
	for i, s := range scopes {
		names[i] = string(s)
	}
	if err := by.mayIssue(names); err != nil {
		return nil, err
	}
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
			return refused(ErrKeyLimit, "organization %d already has %d active %s keys, the most it may hold; revoke one first", orgID, active, env)
		}
		key, prefix, last4, hash := NewKey(env)
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

// HasActive reports whether organization orgID has a key of env that works
// at now (the console shows test data by default until a live key does).
func HasActive(ctx context.Context, c *ent.Client, orgID int, env policy.Environment, now time.Time) (bool, error) {
	// System viewer: API keys are system-only.
	return c.APIKey.Query().
		Where(ofOrganization(orgID), apikey.HasAccountWith(account.EnvironmentEQ(account.Environment(env))), Active(now)).
		Exist(policy.System(ctx))
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
	// CreatedBy is the actor the audit history names for the key's creation
	// (for a replacement, the rotation that made it); empty when the
	// history has none (keys written by fixtures).
	CreatedBy string `json:"created_by"`
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
		return nil, policy.Missingf("organization %d does not exist", orgID)
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
	creators, err := keyCreators(ctx, c, orgID)
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
		if k.ReplacesID != nil {
			out[i].CreatedBy = creators.rotated[*k.ReplacesID]
		} else {
			out[i].CreatedBy = creators.created[k.ID]
		}
	}
	return out, nil
}

// creators are the actors of an organization's key creations and
// rotations, by the key id the audit record names: a rotation's record names
// the old key, so the actor who made a replacement is found under the key it
// replaces.
type creators struct{ created, rotated map[int]string }

// keyCreators reads the actors of the key_created and key_rotated records of
// organization orgID; ctx must be the system viewer's.
func keyCreators(ctx context.Context, c *ent.Client, orgID int) (creators, error) {
	recs, err := c.AuditRecord.Query().
		Where(auditrecord.OrganizationID(orgID), auditrecord.ActionIn(audit.KeyCreated, audit.KeyRotated), auditrecord.APIKeyIDNotNil()).
		Select(auditrecord.FieldAction, auditrecord.FieldAPIKeyID, auditrecord.FieldActor).
		All(ctx)
	if err != nil {
		return creators{}, err
	}
	out := creators{created: map[int]string{}, rotated: map[int]string{}}
	for _, r := range recs {
		if r.Action == audit.KeyCreated {
			out.created[*r.APIKeyID] = r.Actor
		} else {
			out.rotated[*r.APIKeyID] = r.Actor
		}
	}
	return out, nil
}

// Occupied counts the keys of env among keys (as ListKeys returns them) that
// take a place against MaxActiveKeys at now, by the rule of Occupying: a key
// neither revoked nor expired, unless it is an old key in its grace period
// whose replacement is itself active.
func Occupied(keys []Listed, env policy.Environment, now time.Time) int {
	byID := make(map[int]Listed, len(keys))
	for _, k := range keys {
		byID[k.ID] = k
	}
	n := 0
	for _, k := range keys {
		if k.Env != string(env) || !k.Active(now) {
			continue
		}
		if k.ReplacedBy != nil {
			if r, ok := byID[*k.ReplacedBy]; ok && r.Active(now) {
				continue
			}
		}
		n++
	}
	return n
}

// Active reports whether the key works at now: not revoked, and not past its
// expiry (the end of a rotation's grace period).
func (k Listed) Active(now time.Time) bool {
	return k.RevokedAt == nil && (k.ExpiresAt == nil || k.ExpiresAt.After(now))
}
