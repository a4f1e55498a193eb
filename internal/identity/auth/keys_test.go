package auth

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"larder.dev/larder/policy"
)

// Spec Authentication 2–3: key_live_/key_test_ keys, shown once, stored as SHA-256.
func TestNewKey(t *testing.T) {
	seen := map[string]bool{}
	for _, env := range []policy.Environment{policy.Live, policy.Test} {
		for range 100 {
			key, prefix, last4, hash := NewKey(env)
			sum := sha256.Sum256([]byte(key))
			if prefix != "key_"+string(env)+"_" || !strings.HasPrefix(key, prefix) || len(key) != len(prefix)+secretLen ||
				!strings.HasSuffix(key, last4) || len(last4) != 4 || hash != hex.EncodeToString(sum[:]) {
				t.Fatalf("NewKey(%s) = %q %q %q %q", env, key, prefix, last4, hash)
			}
			if got, ok := wellFormed(key); !ok || got != env {
				t.Fatalf("wellFormed(%q) = %v %v", key, got, ok)
			}
			if seen[key] {
				t.Fatal("a key repeated")
			}
			seen[key] = true
		}
	}
	for _, bad := range []string{"", "key_live_", "key_prod_" + strings.Repeat("a", secretLen), "key_live_" + strings.Repeat("a", secretLen-1),
		"key_live_" + strings.Repeat("a", secretLen+1), "key_live_" + strings.Repeat("-", secretLen), "KEY_LIVE_" + strings.Repeat("a", secretLen)} {
		if _, ok := wellFormed(bad); ok {
			t.Fatalf("wellFormed(%q) accepted", bad)
		}
	}
}
