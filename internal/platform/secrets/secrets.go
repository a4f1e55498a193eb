// Package secrets encrypts the secrets Larder must read back in clear to do
// its work — webhook signing secrets — under the operator's key
// (LARDER_SECRET_KEY), so that a copy of the database alone does not reveal
// them.
//
// A sealed value is "enc:v1:<key id>:<base64 of nonce|ciphertext>": AES-256-GCM
// with a random 96-bit nonce, the key id being the first four bytes of the
// key's SHA-256 in hex, so that a keyring holding a current and an older key
// opens what either sealed. The caller binds each value to its row with the
// associated data (a value copied to another row does not open). Anything
// not starting with "enc:" is plain text: what was stored before a key was
// configured, or while none is.
package secrets

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
)

// Column is a column stored encrypted at rest when a key is configured: the
// packages that seal values list theirs, and the access report shows them.
type Column struct {
	Entity string `json:"entity"`
	Table  string `json:"table"`
	Column string `json:"column"`
	Holds  string `json:"holds"`
}

// KeySize is the length of a key: 32 bytes, for AES-256.
const KeySize = 32

// Environment variables holding the keys, in base64.
const (
	// EnvKey is the current key: it seals and opens.
	EnvKey = "LARDER_SECRET_KEY"
	// EnvOldKey is the key before the last rotation: it only opens.
	EnvOldKey = "LARDER_SECRET_KEY_OLD"
)

// prefix starts every sealed value; version 1 is AES-256-GCM.
const prefix = "enc:v1:"

// ParseKey decodes a key given in base64 (standard or URL alphabet, padded
// or not) and checks it is KeySize bytes. Its errors never contain the key.
func ParseKey(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		b, err := enc.DecodeString(s)
		if err != nil {
			continue
		}
		if len(b) != KeySize {
			return nil, fmt.Errorf("the key is %d bytes, not %d (make one with `openssl rand -base64 32`)", len(b), KeySize)
		}
		return b, nil
	}
	return nil, errors.New("the key is not base64 (make one with `openssl rand -base64 32`)")
}

// key is one AES-256-GCM key and its id.
type key struct {
	id   string
	aead cipher.AEAD
}

func newKey(raw []byte) (*key, error) {
	block, err := aes.NewCipher(raw)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(raw)
	return &key{id: hex.EncodeToString(sum[:4]), aead: aead}, nil
}

// Keyring is the current key, which seals and opens, and optionally the key
// before it, which only opens. The zero Keyring (and a nil one) holds no key:
// it seals nothing and opens only plain text.
type Keyring struct {
	current, old *key
}

// NewKeyring returns the keyring of a current and an older key, each in
// base64; either may be empty, but an older key needs a current one.
func NewKeyring(current, old string) (*Keyring, error) {
	k := &Keyring{}
	if current == "" {
		if old != "" {
			return nil, fmt.Errorf("%s is set without %s: the older key only decrypts, so the current key is needed too", EnvOldKey, EnvKey)
		}
		return k, nil
	}
	raw, err := ParseKey(current)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", EnvKey, err)
	}
	if k.current, err = newKey(raw); err != nil {
		return nil, fmt.Errorf("%s: %w", EnvKey, err)
	}
	if old == "" {
		return k, nil
	}
	raw, err = ParseKey(old)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", EnvOldKey, err)
	}
	if k.old, err = newKey(raw); err != nil {
		return nil, fmt.Errorf("%s: %w", EnvOldKey, err)
	}
	return k, nil
}

// Enabled reports whether the keyring has a current key, that is whether
// Seal encrypts.
func (k *Keyring) Enabled() bool { return k != nil && k.current != nil }

// IsSealed reports whether a stored value is encrypted (rather than plain text).
func IsSealed(stored string) bool { return strings.HasPrefix(stored, "enc:") }

// Seal returns what to store for plain, bound to aad: sealed under the
// current key, or plain itself when the keyring has none.
func (k *Keyring) Seal(plain, aad string) (string, error) {
	if !k.Enabled() {
		return plain, nil
	}
	nonce := make([]byte, k.current.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return "", err
	}
	out := k.current.aead.Seal(nonce, nonce, []byte(plain), []byte(aad))
	return prefix + k.current.id + ":" + base64.StdEncoding.EncodeToString(out), nil
}

// Open returns the plain value of what Seal stored with the same aad. Plain
// text is returned as it is. A value sealed under a key the keyring does not
// hold, or bound to other associated data, or altered, is an error.
func (k *Keyring) Open(stored, aad string) (string, error) {
	if !IsSealed(stored) {
		return stored, nil
	}
	rest, ok := strings.CutPrefix(stored, prefix)
	if !ok {
		return "", errors.New("sealed value of an unknown version")
	}
	id, data, ok := strings.Cut(rest, ":")
	if !ok {
		return "", errors.New("sealed value without a key id")
	}
	key := k.byID(id)
	if key == nil {
		return "", fmt.Errorf("sealed with key %s, which is neither %s nor %s (%s)", id, EnvKey, EnvOldKey, k.describe())
	}
	raw, err := base64.StdEncoding.DecodeString(data)
	if err != nil || len(raw) < key.aead.NonceSize() {
		return "", fmt.Errorf("sealed value with key %s is malformed", id)
	}
	n := key.aead.NonceSize()
	plain, err := key.aead.Open(nil, raw[:n], raw[n:], []byte(aad))
	if err != nil {
		return "", fmt.Errorf("sealed value with key %s does not decrypt for this record (altered, or copied from another)", id)
	}
	return string(plain), nil
}

// Current reports whether stored is sealed under the current key, so that
// re-encrypting it would change nothing.
func (k *Keyring) Current(stored string) bool {
	return k.Enabled() && strings.HasPrefix(stored, prefix+k.current.id+":")
}

// byID is the key with an id, or nil.
func (k *Keyring) byID(id string) *key {
	if k == nil {
		return nil
	}
	for _, c := range []*key{k.current, k.old} {
		if c != nil && c.id == id {
			return c
		}
	}
	return nil
}

// describe names the ids of the keys held, for errors.
func (k *Keyring) describe() string {
	if !k.Enabled() {
		return "no key is set"
	}
	s := "key " + k.current.id + " is set"
	if k.old != nil {
		s += ", older key " + k.old.id
	}
	return s
}
