// Package ids makes the public identifiers that are not database ids: event
// ids (evt_…) and request ids (req_…). Each is a prefix and a ULID: 48 bits of
// milliseconds then 80 random bits in Crockford base32, so ids sort by time and
// never collide in practice.
package ids

import (
	"crypto/rand"
	"encoding/binary"
	"time"
)

const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// New returns prefix followed by a new ULID.
func New(prefix string) string { return NewAt(prefix, time.Now()) }

// NewAt returns prefix followed by a ULID for time t.
func NewAt(prefix string, t time.Time) string {
	var b [16]byte
	ms := uint64(t.UnixMilli())
	binary.BigEndian.PutUint64(b[:8], ms<<16)
	_, _ = rand.Read(b[6:])
	// 128 bits as 26 base32 digits; the first digit carries the top 3 bits.
	hi, lo := binary.BigEndian.Uint64(b[:8]), binary.BigEndian.Uint64(b[8:])
	out := make([]byte, len(prefix)+26)
	copy(out, prefix)
	for i := 25; i >= 0; i-- {
		out[len(prefix)+i] = crockford[lo&31]
		lo = lo>>5 | hi<<59
		hi >>= 5
	}
	return string(out)
}
