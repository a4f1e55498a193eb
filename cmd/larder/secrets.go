package main

import (
	"context"
	"errors"
	"fmt"

	"larder.dev/larder/internal/identity/people"
	"larder.dev/larder/internal/platform/config"
	"larder.dev/larder/internal/platform/secrets"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/webhooks"
)

func init() {
	commands = append(commands,
		command{"secrets rotate", "secrets rotate  re-encrypt every webhook signing secret and second-factor secret under $" + secrets.EnvKey + " (from plain text or $" + secrets.EnvOldKey + ")", secretsRotate},
	)
}

// secretsRotate writes every stored webhook signing secret and console
// second-factor secret again under the current key, so that the older key can
// be removed; plain-text secrets are encrypted. Running it again changes
// nothing.
func secretsRotate(ctx context.Context, e *env, args []string) error {
	c := e.command("secrets rotate", needs{opts: []config.Options{config.Secrets}, store: true})
	return c.run(ctx, args, func() error {
		if !e.keys.Enabled() {
			return fmt.Errorf("secrets rotate needs %s (base64 of 32 random bytes), and %s for the key it replaces", secrets.EnvKey, secrets.EnvOldKey)
		}
		return nil
	}, func(ctx context.Context, st *store.Store) error {
		res, rerr := webhooks.ReencryptSecrets(ctx, st, e.keys)
		if rerr != nil && res.Endpoints == 0 {
			return rerr
		}
		// The people's secrets are done even when some endpoint's were not:
		// the two are independent, and each reports what it could not read.
		pres, perr := people.ReencryptSecrets(ctx, st.Client, e.keys)
		if perr != nil && pres.People == 0 {
			return errors.Join(rerr, perr)
		}
		human := fmt.Sprintf("%d webhook endpoints: %d re-encrypted (%d of them from plain text), %d already under the current key",
			res.Endpoints, res.Reencrypted, res.FromPlainText, res.Unchanged)
		if len(res.Unreadable) > 0 {
			human += fmt.Sprintf(", %d unreadable", len(res.Unreadable))
		}
		human += fmt.Sprintf("\n%d people with a second factor: %d re-encrypted (%d of them from plain text), %d already under the current key",
			pres.People, pres.Reencrypted, pres.FromPlainText, pres.Unchanged)
		if len(pres.Unreadable) > 0 {
			human += fmt.Sprintf(", %d unreadable", len(pres.Unreadable))
		}
		out := struct {
			webhooks.Reencryption
			People people.Reencryption `json:"second_factors"`
		}{res, pres}
		if err := e.print(out, human); err != nil {
			return err
		}
		return errors.Join(rerr, perr)
	})
}
