package webhooks

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"entgo.io/ent/dialect"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/webhookendpoint"
	"larder.dev/larder/internal/platform/secrets"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/policy"
)

// Encrypted are the columns holding signing secrets: with LARDER_SECRET_KEY
// set, what the Registry writes there is sealed (secrets.Keyring), bound to
// the endpoint's id; without it, plain text.
var Encrypted = []secrets.Column{
	{Entity: "WebhookEndpoint", Table: webhookendpoint.Table, Column: webhookendpoint.FieldSecret, Holds: "an endpoint's webhook signing secret (whsec_…)"},
	{Entity: "WebhookEndpoint", Table: webhookendpoint.Table, Column: webhookendpoint.FieldPreviousSecret, Holds: "the signing secret before the last rotation, while it still signs"},
}

// secretAAD is the associated data binding a sealed secret to its endpoint:
// a value copied to another endpoint's row does not decrypt.
func secretAAD(endpointID int) string { return "webhook_endpoint:" + strconv.Itoa(endpointID) }

// sealSecret is what to store for an endpoint's plain secret.
func sealSecret(keys *secrets.Keyring, endpointID int, plain string) (string, error) {
	s, err := keys.Seal(plain, secretAAD(endpointID))
	if err != nil {
		return "", fmt.Errorf("encrypt the secret of webhook endpoint %d: %w", endpointID, err)
	}
	return s, nil
}

// openSecret is the plain secret an endpoint's column stores.
func openSecret(keys *secrets.Keyring, endpointID int, stored string) (string, error) {
	s, err := keys.Open(stored, secretAAD(endpointID))
	if err != nil {
		return "", fmt.Errorf("cannot decrypt the signing secret of webhook endpoint %d: %w", endpointID, err)
	}
	return s, nil
}

// signingSecrets are the plain secrets that sign a message to ep at time at:
// its secret, and its previous one until that expires.
func signingSecrets(keys *secrets.Keyring, ep *ent.WebhookEndpoint, at time.Time) ([]string, error) {
	s, err := openSecret(keys, ep.ID, ep.Secret)
	if err != nil {
		return nil, err
	}
	out := []string{s}
	if ep.PreviousSecret != nil && ep.PreviousSecretExpiresAt != nil && at.Before(*ep.PreviousSecretExpiresAt) {
		p, err := openSecret(keys, ep.ID, *ep.PreviousSecret)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// Reencryption counts what ReencryptSecrets did.
type Reencryption struct {
	// Endpoints is how many endpoints it looked at.
	Endpoints int `json:"endpoints"`
	// Reencrypted were written again under the current key; FromPlainText of
	// them were stored in plain text before.
	Reencrypted   int `json:"reencrypted"`
	FromPlainText int `json:"from_plain_text"`
	// Unchanged were under the current key already.
	Unchanged int `json:"unchanged"`
	// Unreadable are the ids of endpoints whose secrets no key decrypts; they
	// are left as they are (a new secret, `webhook rotate-secret --grace 0`,
	// repairs one).
	Unreadable []int `json:"unreadable"`
}

// reencryptBatch is how many endpoints one transaction re-encrypts.
const reencryptBatch = 100

// ReencryptSecrets writes every endpoint's secrets again under the current key
// of keys, decrypting with either key or reading plain text: after it, the
// older key can be removed. Each batch of endpoints is one transaction (rows
// locked on PostgreSQL, so a concurrent rotation of an endpoint's secret is
// not lost). Running it again changes nothing. Endpoints whose secrets no key
// decrypts are reported, in Unreadable and as an error, after the others are done.
func ReencryptSecrets(ctx context.Context, st *store.Store, keys *secrets.Keyring) (Reencryption, error) {
	res := Reencryption{Unreadable: []int{}}
	if !keys.Enabled() {
		return res, fmt.Errorf("re-encrypting needs a key: set %s", secrets.EnvKey)
	}
	// System viewer: re-encryption covers the endpoints of every account; endpoints are system-only.
	sys := policy.System(ctx)
	last := 0
	for {
		n := 0
		var batch Reencryption
		err := ent.RunInTx(sys, st.Client, func(tx *ent.Tx) error {
			batch = Reencryption{}
			eps, err := tx.WebhookEndpoint.Query().Where(webhookendpoint.IDGT(last)).
				Order(webhookendpoint.ByID()).Limit(reencryptBatch).All(sys)
			if err != nil {
				return err
			}
			n = len(eps)
			for _, ep := range eps {
				last = ep.ID
				if st.Dialect == dialect.Postgres {
					// Locked one by one, by account: on a Citus cluster a
					// statement that locks rows must name one account.
					if ep, err = tx.WebhookEndpoint.Query().Where(webhookendpoint.ID(ep.ID), webhookendpoint.AccountID(ep.AccountID)).
						ForUpdate().Only(sys); ent.IsNotFound(err) {
						continue // deleted meanwhile
					} else if err != nil {
						return err
					}
				}
				batch.Endpoints++
				if err := reencrypt(sys, tx, keys, ep, &batch); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return res, err
		}
		res.Endpoints += batch.Endpoints
		res.Reencrypted += batch.Reencrypted
		res.FromPlainText += batch.FromPlainText
		res.Unchanged += batch.Unchanged
		res.Unreadable = append(res.Unreadable, batch.Unreadable...)
		if n < reencryptBatch {
			break
		}
	}
	if len(res.Unreadable) > 0 {
		ids := make([]string, len(res.Unreadable))
		for i, id := range res.Unreadable {
			ids[i] = strconv.Itoa(id)
		}
		return res, fmt.Errorf("the secrets of webhook endpoints %s decrypt with neither %s nor %s; give them new secrets (larder webhook rotate-secret --grace 0)",
			strings.Join(ids, ", "), secrets.EnvKey, secrets.EnvOldKey)
	}
	return res, nil
}

// reencrypt writes one endpoint's secrets again under the current key, unless
// they are already, and counts it in res.
func reencrypt(sys context.Context, tx *ent.Tx, keys *secrets.Keyring, ep *ent.WebhookEndpoint, res *Reencryption) error {
	cols := []*string{&ep.Secret}
	if ep.PreviousSecret != nil {
		cols = append(cols, ep.PreviousSecret)
	}
	current, plain := true, false
	sealed := make([]string, len(cols))
	for i, c := range cols {
		if keys.Current(*c) {
			sealed[i] = *c
			continue
		}
		current = false
		plain = plain || !secrets.IsSealed(*c)
		p, err := openSecret(keys, ep.ID, *c)
		if err != nil {
			res.Unreadable = append(res.Unreadable, ep.ID)
			return nil
		}
		if sealed[i], err = sealSecret(keys, ep.ID, p); err != nil {
			return err
		}
	}
	if current {
		res.Unchanged++
		return nil
	}
	// Storage, not a change of the endpoint: updated_at stays.
	u := tx.WebhookEndpoint.UpdateOneID(ep.ID).SetSecret(sealed[0]).SetUpdatedAt(ep.UpdatedAt)
	if len(sealed) > 1 {
		u.SetPreviousSecret(sealed[1])
	}
	if err := u.Exec(sys); err != nil {
		return err
	}
	res.Reencrypted++
	if plain {
		res.FromPlainText++
	}
	return nil
}
