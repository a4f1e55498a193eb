// Package auth makes and checks API keys. A key is key_live_ or key_test_
// followed by 32 random bytes in base62; only its SHA-256 is stored, and a
// request's key is looked up by that hash. Every failure looks the same.
package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"math/big"
	"strings"

	"larder.dev/larder/policy"
)

// Prefix is the key prefix of an environment.
func Prefix(env policy.Environment) string { return "key_" + string(env) + "_" }

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// isBase62 tells the bytes of base62 apart, for wellFormed.
var isBase62 = func() (t [256]bool) {
	for i := range len(base62) {
		t[base62[i]] = true
	}
	return t
}()

// secretLen is the length of 32 random bytes in base62 (256 bits need 43 digits).
const secretLen = 43

// NewKey returns a new key of env with its display parts and stored hash.
func NewKey(env policy.Environment) (key, prefix, last4, hash string) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("auth: no randomness: " + err.Error()) // crypto/rand never fails on supported platforms
	}
	n := new(big.Int).SetBytes(b[:])
	digits := make([]byte, secretLen)
	base := big.NewInt(62)
	mod := new(big.Int)
	for i := secretLen - 1; i >= 0; i-- {
		n.DivMod(n, base, mod)
		digits[i] = base62[mod.Int64()]
	}
	prefix = Prefix(env)
	key = prefix + string(digits)
	return key, prefix, key[len(key)-4:], Hash(key)
}

// Hash is the stored form of a key: hex SHA-256.
func Hash(key string) string {
	sum := digest(key)
	return hex.EncodeToString(sum[:])
}

// digest is the SHA-256 of key, which Hash writes in hex. A key's bytes are
// copied to the stack, where a conversion would allocate them (longer than
// the 32 bytes the compiler keeps there).
func digest(key string) [sha256.Size]byte {
	var b [64]byte
	if len(key) <= len(b) {
		n := copy(b[:], key)
		return sha256.Sum256(b[:n])
	}
	return sha256.Sum256([]byte(key))
}

// wellFormed reports whether s could be a key; anything else is refused
// without a database lookup.
func wellFormed(s string) (policy.Environment, bool) {
	for _, env := range []policy.Environment{policy.Live, policy.Test} {
		rest, ok := strings.CutPrefix(s, Prefix(env))
		if !ok || len(rest) != secretLen {
			continue
		}
		for i := 0; i < len(rest); i++ {
			if !isBase62[rest[i]] {
				return "", false
			}
		}
		return env, true
	}
	return "", false
}
