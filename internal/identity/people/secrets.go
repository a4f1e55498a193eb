package people

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/user"
	"larder.dev/larder/internal/platform/secrets"
)

// Encrypted are the columns holding second-factor secrets: with
// LARDER_SECRET_KEY set they are sealed, bound to the person's id
// (user_totp:<id>); without it, plain text.
var Encrypted = []secrets.Column{
	{Entity: "User", Table: user.Table, Column: user.FieldTotpSecret, Holds: "a person's second-factor (TOTP) secret"},
	{Entity: "User", Table: user.Table, Column: user.FieldTotpPendingSecret, Holds: "a second factor being set up, until its first code confirms it"},
}

// Reencryption counts what ReencryptSecrets did.
type Reencryption struct {
	// People is how many people with a second factor (confirmed or being
	// set up) it looked at.
	People int `json:"people"`
	// Reencrypted were written again under the current key; FromPlainText of
	// them were stored in plain text before.
	Reencrypted   int `json:"reencrypted"`
	FromPlainText int `json:"from_plain_text"`
	// Unchanged were under the current key already.
	Unchanged int `json:"unchanged"`
	// Unreadable are the ids of people whose second factor no key decrypts;
	// they are left as they are (removing the second factor, for the person
	// to set it up again, repairs one).
	Unreadable []int `json:"unreadable"`
}

// reencryptBatch is how many people one transaction re-encrypts.
const reencryptBatch = 100

// ReencryptSecrets writes every second-factor secret (users.totp_secret and
// users.totp_pending_secret) again under the current key of keys, decrypting
// with either key or reading plain text: after it, the older key can be
// removed. A row is written only if its secrets are still those read, so a
// second factor set up meanwhile is not overwritten; running it again
// changes nothing.
func ReencryptSecrets(ctx context.Context, c *ent.Client, keys *secrets.Keyring) (Reencryption, error) {
	res := Reencryption{Unreadable: []int{}}
	if !keys.Enabled() {
		return res, fmt.Errorf("re-encrypting needs a key: set %s", secrets.EnvKey)
	}
	ctx = systemCtx(ctx)
	s := &Service{keys: keys}
	last := 0
	for {
		us, err := c.User.Query().
			Where(user.IDGT(last), user.Or(user.TotpSecretNotNil(), user.TotpPendingSecretNotNil())).
			Order(user.ByID()).Limit(reencryptBatch).All(ctx)
		if err != nil {
			return res, err
		}
		err = ent.RunInTx(ctx, c, func(tx *ent.Tx) error {
			for _, u := range us {
				last = u.ID
				res.People++
				if err := s.reencrypt(ctx, tx, u, &res); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return res, err
		}
		if len(us) < reencryptBatch {
			break
		}
	}
	if len(res.Unreadable) > 0 {
		ids := make([]string, len(res.Unreadable))
		for i, id := range res.Unreadable {
			ids[i] = strconv.Itoa(id)
		}
		return res, fmt.Errorf("the second factors of people %s decrypt with neither %s nor %s; remove them for the people to set up again",
			strings.Join(ids, ", "), secrets.EnvKey, secrets.EnvOldKey)
	}
	return res, nil
}

// reencrypt writes one person's secrets again under the current key, unless
// they are already, and counts it in res.
func (s *Service) reencrypt(ctx context.Context, tx *ent.Tx, u *ent.User, res *Reencryption) error {
	cols := []*string{u.TotpSecret, u.TotpPendingSecret}
	sealed := make([]*string, len(cols))
	current, plain := true, false
	for i, c := range cols {
		if c == nil {
			continue
		}
		if s.keys.Current(*c) {
			sealed[i] = c
			continue
		}
		current = false
		plain = plain || !secrets.IsSealed(*c)
		p, err := s.openTOTP(u.ID, *c)
		if err != nil {
			res.Unreadable = append(res.Unreadable, u.ID)
			return nil
		}
		v, err := s.sealTOTP(u.ID, p)
		if err != nil {
			return err
		}
		sealed[i] = &v
	}
	if current {
		res.Unchanged++
		return nil
	}
	q := tx.User.Update().Where(user.ID(u.ID))
	if cols[0] == nil {
		q.Where(user.TotpSecretIsNil())
	} else {
		q.Where(user.TotpSecret(*cols[0])).SetTotpSecret(*sealed[0])
	}
	if cols[1] == nil {
		q.Where(user.TotpPendingSecretIsNil())
	} else {
		q.Where(user.TotpPendingSecret(*cols[1])).SetTotpPendingSecret(*sealed[1])
	}
	n, err := q.Save(ctx)
	if err != nil {
		return err
	}
	if n == 0 {
		// Set up, confirmed or removed meanwhile: the change wrote what
		// it wrote with the keys of its own, and is left alone.
		res.Unchanged++
		return nil
	}
	res.Reencrypted++
	if plain {
		res.FromPlainText++
	}
	return nil
}
