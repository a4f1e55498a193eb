package secrets_test

import (
	"crypto/rand"
	"encoding/base64"
	"strings"
	"testing"

	"larder.dev/larder/internal/platform/secrets"
)

// newKey returns a random key in base64, as an operator makes one.
func newKey(t *testing.T) string {
	t.Helper()
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(b)
}

func keyring(t *testing.T, current, old string) *secrets.Keyring {
	t.Helper()
	k, err := secrets.NewKeyring(current, old)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// A sealed value is not the plain text, differs at every sealing, and opens
// only with its own associated data.
func TestSealedValueOpensOnlyForItsRecord(t *testing.T) {
	k := keyring(t, newKey(t), "")
	const plain = "whsec_c2VjcmV0"
	a, err := k.Seal(plain, "webhook_endpoint:1")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := k.Seal(plain, "webhook_endpoint:1")
	if !strings.HasPrefix(a, "enc:v1:") || strings.Contains(a, plain) || strings.Contains(a, "c2VjcmV0") || a == b {
		t.Fatalf("sealed %q and %q", a, b)
	}
	if got, err := k.Open(a, "webhook_endpoint:1"); err != nil || got != plain {
		t.Fatalf("open: %q, %v", got, err)
	}
	if got, err := k.Open(a, "webhook_endpoint:2"); err == nil {
		t.Fatalf("a value opened for another record: %q", got)
	}
	flipped := []byte(a)
	flipped[len(flipped)-3] ^= 1
	if _, err := k.Open(string(flipped), "webhook_endpoint:1"); err == nil {
		t.Fatal("an altered value opened")
	}
}

// Plain text is stored as it is without a key, and read as it is with one.
func TestPlainTextPassesThrough(t *testing.T) {
	for name, k := range map[string]*secrets.Keyring{"no key": keyring(t, "", ""), "nil": nil, "key": keyring(t, newKey(t), "")} {
		got, err := k.Open("whsec_abc", "x")
		if err != nil || got != "whsec_abc" {
			t.Errorf("%s: open plain: %q, %v", name, got, err)
		}
	}
	sealed, err := keyring(t, "", "").Seal("whsec_abc", "x")
	if err != nil || sealed != "whsec_abc" {
		t.Fatalf("without a key Seal gave %q, %v", sealed, err)
	}
}

// The older key opens what it sealed; once removed, nothing opens it; the
// current key's values are known as current.
func TestOlderKeyOpensDuringRotation(t *testing.T) {
	oldKey, newKeyB64 := newKey(t), newKey(t)
	before := keyring(t, oldKey, "")
	sealed, _ := before.Seal("whsec_abc", "r")
	during := keyring(t, newKeyB64, oldKey)
	if got, err := during.Open(sealed, "r"); err != nil || got != "whsec_abc" {
		t.Fatalf("old key during rotation: %q, %v", got, err)
	}
	if during.Current(sealed) || !before.Current(sealed) || during.Current("whsec_abc") {
		t.Fatal("Current misreports which key sealed a value")
	}
	resealed, _ := during.Seal("whsec_abc", "r")
	after := keyring(t, newKeyB64, "")
	if got, err := after.Open(resealed, "r"); err != nil || got != "whsec_abc" {
		t.Fatalf("after rotation: %q, %v", got, err)
	}
	if _, err := after.Open(sealed, "r"); err == nil || !strings.Contains(err.Error(), "LARDER_SECRET_KEY") {
		t.Fatalf("a value of a removed key: %v", err)
	}
	if _, err := keyring(t, "", "").Open(sealed, "r"); err == nil {
		t.Fatal("a sealed value opened without a key")
	}
}

// A key that is not base64 or not 32 bytes is refused, naming its variable
// and never echoing it.
func TestBadKeysRefused(t *testing.T) {
	short := base64.StdEncoding.EncodeToString(make([]byte, 16))
	for _, c := range []struct {
		current, old, want string
	}{
		{"not base64 at all!", "", "LARDER_SECRET_KEY: the key is not base64"},
		{short, "", "LARDER_SECRET_KEY: the key is 16 bytes, not 32"},
		{newKey(t), short, "LARDER_SECRET_KEY_OLD: the key is 16 bytes, not 32"},
		{"", newKey(t), "LARDER_SECRET_KEY_OLD is set without LARDER_SECRET_KEY"},
	} {
		_, err := secrets.NewKeyring(c.current, c.old)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q, %q: %v, want %q", c.current, c.old, err, c.want)
			continue
		}
		if c.current != "" && strings.Contains(err.Error(), c.current) || c.old != "" && strings.Contains(err.Error(), c.old) {
			t.Errorf("the error shows the key: %v", err)
		}
	}
	// Unpadded and URL-alphabet forms of a good key are the same key.
	raw := make([]byte, 32)
	raw[0] = 0xfb
	k := keyring(t, base64.StdEncoding.EncodeToString(raw), "")
	sealed, _ := k.Seal("x", "r")
	if _, err := keyring(t, base64.RawURLEncoding.EncodeToString(raw), "").Open(sealed, "r"); err != nil {
		t.Fatal(err)
	}
}
