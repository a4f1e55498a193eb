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

// digit is the value of each byte that is a digit of crockford, and
// notDigit for every other byte: a read of an id looks each of its digits
// up, where a search of the alphabet cost the request log's writer a
// fifth of its time.
var digit = func() (t [256]byte) {
	for i := range t {
		t[i] = notDigit
	}
	for i := range len(crockford) {
		t[crockford[i]] = byte(i)
	}
	return t
}()

const notDigit = 0xFF

// New returns prefix followed by a new ULID.
func New(prefix string) string { return NewAt(prefix, time.Now()) }

// NewAt returns prefix followed by a ULID for time t.
func NewAt(prefix string, t time.Time) string {
	var b [16]byte
	ms := uint64(t.UnixMilli())
	binary.BigEndian.PutUint64(b[:8], ms<<16)
	_, _ = rand.Read(b[6:])
	return Spell(prefix, b)
}

// Spell returns prefix followed by the 128 bits of v as 26 base32 digits;
// the first digit carries the top 3 bits.
func Spell(prefix string, v [16]byte) string {
	hi, lo := binary.BigEndian.Uint64(v[:8]), binary.BigEndian.Uint64(v[8:])
	out := make([]byte, len(prefix)+26)
	copy(out, prefix)
	for i := 25; i >= 0; i-- {
		out[len(prefix)+i] = crockford[lo&31]
		lo = lo>>5 | hi<<59
		hi >>= 5
	}
	return string(out)
}

// Bits returns the 128 bits id spells after prefix, and whether id is
// exactly as Spell spells them (prefix, 26 upper-case digits, the first at
// most 7): Spell(prefix, v) gives id back.
func Bits(prefix, id string) (v [16]byte, ok bool) {
	if len(id) != len(prefix)+26 || id[:len(prefix)] != prefix {
		return v, false
	}
	var hi, lo uint64
	for i := len(prefix); i < len(id); i++ {
		d := digit[id[i]]
		if d == notDigit || i == len(prefix) && d > 7 {
			return v, false
		}
		hi = hi<<5 | lo>>59
		lo = lo<<5 | uint64(d)
	}
	binary.BigEndian.PutUint64(v[:8], hi)
	binary.BigEndian.PutUint64(v[8:], lo)
	return v, true
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
		d := digit[c]
		if d == notDigit {
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
