package bounds

import (
	"strings"
	"time"

	"github.com/go-faster/jx"
)

// Instant is a point in time written in a body: an ISO 8601 date
// (YYYY-MM-DD), meaning midnight UTC, or an ISO 8601 date-time, with an
// offset or, without one, in UTC. The generated server decodes every writable
// timestamp into it (an expiry, for instance), so a date and the date-time of
// its midnight UTC are the same value, stored alike.
type Instant struct{ time.Time }

// InstantRule words what an Instant accepts, for the API description.
const InstantRule = "ISO 8601: a date (YYYY-MM-DD), meaning midnight UTC, or a date-time " +
	"(RFC 3339 such as 2026-01-15T09:30:00Z or 2026-01-15T11:30:00+02:00; without an offset it is UTC). " +
	"Answers show it as a date-time in UTC."

// ErrInstant is the refusal of a value that is not an Instant.
var ErrInstant = &Error{Message: "must be an ISO 8601 date (YYYY-MM-DD, meaning midnight UTC) " +
	"or date-time (such as 2026-01-15T09:30:00Z)"}

// instantLayouts are the ISO 8601 forms an Instant (and a list's
// updated_since) accepts; the ones without an offset are read as UTC.
var instantLayouts = []struct {
	layout string
	zoned  bool
}{
	{time.RFC3339Nano, true},
	{"2006-01-02T15:04:05.999999999", false},
	{"2006-01-02T15:04Z07:00", true},
	{"2006-01-02T15:04", false},
	{"2006-01-02 15:04:05.999999999Z07:00", true},
	{"2006-01-02 15:04:05.999999999", false},
	{time.DateOnly, false},
}

// ParseInstant reads an ISO 8601 date or date-time as Instant does, in UTC
// at the microsecond both databases keep; ok is false when v is neither.
func ParseInstant(v string) (t time.Time, ok bool) {
	v = strings.TrimSpace(v)
	for _, l := range instantLayouts {
		var err error
		if l.zoned {
			t, err = time.Parse(l.layout, v)
		} else {
			t, err = time.ParseInLocation(l.layout, v, time.UTC)
		}
		if err == nil {
			return t.UTC().Truncate(time.Microsecond), true
		}
	}
	return time.Time{}, false
}

// Decode implements ogen's json.Unmarshaler.
func (i *Instant) Decode(d *jx.Decoder) error {
	if d.Next() != jx.String {
		return ErrInstant
	}
	s, err := d.Str()
	if err != nil {
		return ErrInstant
	}
	t, ok := ParseInstant(s)
	if !ok {
		return ErrInstant
	}
	i.Time = t
	return nil
}

// Encode implements ogen's json.Marshaler: RFC 3339 in UTC.
func (i Instant) Encode(e *jx.Encoder) {
	e.Str(i.UTC().Format(time.RFC3339Nano))
}
