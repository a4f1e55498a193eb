package people

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/crypto/argon2"
)

// HashParams are argon2id's cost parameters.
type HashParams struct {
	Memory  uint32 // KiB
	Time    uint32 // passes
	Threads uint8
}

// DefaultParams are the costs new hashes are made with: argon2id with 64 MiB
// of memory, 3 passes and 2 lanes, above OWASP's minimum (19 MiB, 2 passes,
// 1 lane), for a 16-byte random salt and a 32-byte key. A hash keeps the
// parameters it was made with, so raising them leaves older passwords valid.
var DefaultParams = HashParams{Memory: 64 * 1024, Time: 3, Threads: 2}

const (
	saltLen = 16
	keyLen  = 32
)

// argon2Key derives a key. It is a variable so that tests can count the
// derivations a sign-in performs.
var argon2Key = argon2.IDKey

// hashPassword returns the PHC string of pw made with the costs p:
// $argon2id$v=19$m=65536,t=3,p=2$<salt>$<hash>, base64 without padding.
func hashPassword(p HashParams, pw string) string {
	salt := make([]byte, saltLen)
	if _, err := rand.Read(salt); err != nil {
		panic(err) // crypto/rand does not fail on supported systems
	}
	key := argon2Key([]byte(pw), salt, p.Time, p.Memory, p.Threads, keyLen)
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, p.Memory, p.Time, p.Threads,
		base64.RawStdEncoding.EncodeToString(salt), base64.RawStdEncoding.EncodeToString(key))
}

// errMalformedHash is a stored hash that is not one hashPassword writes.
var errMalformedHash = errors.New("malformed password hash")

// verifyPassword reports whether pw matches the PHC string phc, comparing in
// constant time.
func verifyPassword(pw, phc string) (bool, error) {
	parts := strings.Split(phc, "$")
	if len(parts) != 6 || parts[0] != "" || parts[1] != "argon2id" {
		return false, errMalformedHash
	}
	var v int
	if _, err := fmt.Sscanf(parts[2], "v=%d", &v); err != nil || v != argon2.Version {
		return false, errMalformedHash
	}
	var p HashParams
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &p.Memory, &p.Time, &p.Threads); err != nil ||
		p.Time == 0 || p.Threads == 0 {
		return false, errMalformedHash
	}
	salt, err := base64.RawStdEncoding.DecodeString(parts[4])
	if err != nil {
		return false, errMalformedHash
	}
	want, err := base64.RawStdEncoding.DecodeString(parts[5])
	if err != nil || len(want) == 0 {
		return false, errMalformedHash
	}
	got := argon2Key([]byte(pw), salt, p.Time, p.Memory, p.Threads, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1, nil
}

// dummySalt is the salt of the work done for a sign-in that has no hash to
// check (an unknown address, or a person without a password yet).
var dummySalt = make([]byte, saltLen)

// dummyVerify spends what verifyPassword spends on a hash made with the
// costs p, so that a failed sign-in takes as long whatever made it fail.
func dummyVerify(p HashParams, pw string) {
	_ = argon2Key([]byte(pw), dummySalt, p.Time, p.Memory, p.Threads, keyLen)
}
