package config

import "larder.dev/larder/internal/platform/secrets"

// secretOptions are the keys that encrypt webhook signing secrets at rest.
// They have no flag: a command line is visible to every user of the machine.
func (c *Config) secretOptions() map[string]option {
	return map[string]option{
		"secret-key":     {"", secrets.EnvKey, "base64 of 32 random bytes encrypting webhook signing secrets at rest", nil, setStr(&c.SecretKey)},
		"secret-key-old": {"", secrets.EnvOldKey, "the key before the last rotation, only decrypting", nil, setStr(&c.SecretKeyOld)},
	}
}

// Keyring returns the keys of encryption at rest; without LARDER_SECRET_KEY
// it holds none and secrets are stored in plain text.
func (c *Config) Keyring() (*secrets.Keyring, error) {
	return secrets.NewKeyring(c.SecretKey, c.SecretKeyOld)
}
