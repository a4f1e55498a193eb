package main

import (
	"context"
	"fmt"

	"larder.dev/larder/config"
	"larder.dev/larder/secrets"
	"larder.dev/larder/webhooks"
)

func init() {
	commands = append(commands,
		command{"secrets rotate", "secrets rotate  re-encrypt every webhook signing secret under $" + secrets.EnvKey + " (from plain text or $" + secrets.EnvOldKey + ")", secretsRotate},
	)
}

// secretsRotate writes every stored webhook signing secret again under the
// current key, so that the older key can be removed; plain-text secrets are
// encrypted. Running it again changes nothing.
func secretsRotate(ctx context.Context, e *env, args []string) error {
	fs, err := e.flags("secrets rotate", config.Secrets)
	if err != nil {
		return err
	}
	if _, err := e.parse(fs, args); err != nil {
		return err
	}
	if !e.keys.Enabled() {
		return fmt.Errorf("secrets rotate needs %s (base64 of 32 random bytes), and %s for the key it replaces", secrets.EnvKey, secrets.EnvOldKey)
	}
	st, _, err := e.open(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	res, rerr := webhooks.ReencryptSecrets(ctx, st, e.keys)
	if rerr != nil && res.Endpoints == 0 {
		return rerr
	}
	human := fmt.Sprintf("%d webhook endpoints: %d re-encrypted (%d of them from plain text), %d already under the current key",
		res.Endpoints, res.Reencrypted, res.FromPlainText, res.Unchanged)
	if len(res.Unreadable) > 0 {
		human += fmt.Sprintf(", %d unreadable", len(res.Unreadable))
	}
	if err := e.print(res, human); err != nil {
		return err
	}
	return rerr
}
