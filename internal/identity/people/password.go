package people

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"time"

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

// HashesAtOnce is how many argon2id derivations a process runs at once. Each
// holds its hash's memory (64 MiB at DefaultParams) while it runs, so a
// burst of sign-ins holds HashesAtOnce × 64 MiB = 128 MiB however many
// arrive (and one more hash's while a finished one's is collected, see
// derive); the others wait their turn.
const HashesAtOnce = 2

// HashQueueWait is how long a password check waits for its turn before the
// sign-in is refused as throttled (*ThrottledError).
const HashQueueWait = 2 * time.Second

// collectAfterKiB is the smallest hash memory collected as soon as its check
// ends (see derive).
const collectAfterKiB = 16 * 1024

// hashSlots are the turns: the memory is the process's, so every service of
// the process shares them.
var hashSlots = make(chan struct{}, HashesAtOnce)

// hashWait is HashQueueWait; tests shorten it.
var hashWait = HashQueueWait

// derive runs argon2id in a turn of hashSlots, waiting at most hashWait for
// one: *ThrottledError when none came, ctx's error when it ended first.
func derive(ctx context.Context, pw, salt []byte, p HashParams, n uint32) ([]byte, error) {
	t := time.NewTimer(hashWait)
	defer t.Stop()
	select {
	case hashSlots <- struct{}{}:
	case <-t.C:
		return nil, &ThrottledError{RetryAfter: HashQueueWait}
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	key := argon2Key(pw, salt, p.Time, p.Memory, p.Threads, n)
	<-hashSlots
	// The hash's memory is garbage now. Collected at once, the next check
	// reuses it; left to the collector's pace (serve's --gc-percent 400),
	// checks in a row would pile up to five times the bound's memory
	// before a collection. Its 64 MiB hold no pointers, so a collection
	// costs what the rest of the heap does: little beside the hash. A small
	// hash (tests' costs) is left to the collector.
	if p.Memory >= collectAfterKiB {
		runtime.GC()
	}
	return key, nil
}

// hashPassword returns the PHC string of pw made with the costs p:
// $argon2id$v=19$m=65536,t=3,p=2$<salt>$<hash>, base64 without padding.
func hashPassword(ctx context.Context, p HashParams, pw string) (string, error) {
	salt := make([]byte, saltLen)
	if _, err := rand.Read(salt); err != nil {
		panic(err) // crypto/rand does not fail on supported systems
	}
	key, err := derive(ctx, []byte(pw), salt, p, keyLen)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, p.Memory, p.Time, p.Threads,
		base64.RawStdEncoding.EncodeToString(salt), base64.RawStdEncoding.EncodeToString(key)), nil
}

// errMalformedHash is a stored hash that is not one hashPassword writes.
var errMalformedHash = errors.New("malformed password hash")

// verifyPassword reports whether pw matches the PHC string phc, comparing in
// constant time.
func verifyPassword(ctx context.Context, pw, phc string) (bool, error) {
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
	got, err := derive(ctx, []byte(pw), salt, p, uint32(len(want)))
	if err != nil {
		return false, err
	}
	return subtle.ConstantTimeCompare(got, want) == 1, nil
}

// dummySalt is the salt of the work done for a sign-in that has no hash to
// check (an unknown address, or a person without a password yet).
var dummySalt = make([]byte, saltLen)

// dummyVerify spends what verifyPassword spends on a hash made with the
// costs p, so that a failed sign-in takes as long whatever made it fail.
func dummyVerify(ctx context.Context, p HashParams, pw string) error {
	_, err := derive(ctx, []byte(pw), dummySalt, p, keyLen)
	return err
}
