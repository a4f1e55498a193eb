// Package ids makes the public identifiers that are not database ids: event
// ids (evt_…) and request ids (req_…). Each is a prefix and a ULID: 48 bits of
// milliseconds then 80 random bits in Crockford base32, so ids sort by time and
// never collide in practice.
package ids

import (
	"crypto/rand"
	"encoding/binary"
	"strings"
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

// Time returns the time, to the millisecond, at which the id with prefix
// was made (the ULID's first 48 bits); false for a string that is not such
// an id.
func Time(prefix, id string) (time.Time, bool) {
	if len(id) != len(prefix)+26 || id[:len(prefix)] != prefix {
		return time.Time{}, false
	}
	var ms uint64
	for _, c := range []byte(id[len(prefix) : len(prefix)+10]) {
		d := strings.IndexByte(crockford, c)
		if d < 0 {
			return time.Time{}, false
		}
		ms = ms<<5 | uint64(d)
	}
	// Ten digits are 50 bits: the first holds the top 3 bits of the
	// 128 (always 0 for a time before the year 10889) and 2 bits of the
	// milliseconds' top.
	if ms>>48 != 0 {
		return time.Time{}, false
	}
	return time.UnixMilli(int64(ms)).UTC(), true
}
