package ids

import (
	"strings"
	"testing"
	"time"
)

func TestNewHasPrefixAndLength(t *testing.T) {
	id := New("evt_")
	if !strings.HasPrefix(id, "evt_") || len(id) != len("evt_")+26 {
		t.Fatalf("New(evt_) = %q", id)
	}
	for _, c := range id[4:] {
		if !strings.ContainsRune(crockford, c) {
			t.Fatalf("%q has %q outside Crockford base32", id, c)
		}
	}
}

func TestNewSortsByTime(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	a, b := NewAt("req_", t0), NewAt("req_", t0.Add(time.Millisecond))
	if a[:14] >= b[:14] {
		t.Fatalf("time prefix does not sort: %q then %q", a, b)
	}
}

func TestNewIsUnique(t *testing.T) {
	seen := map[string]bool{}
	for range 10000 {
		id := New("x")
		if seen[id] {
			t.Fatalf("duplicate id %q", id)
		}
		seen[id] = true
	}
}

func TestTimeIsTheTimeMadeAt(t *testing.T) {
	for _, at := range []time.Time{
		time.Date(2026, 12, 5, 23, 59, 59, 999_000_000, time.UTC),
		time.Date(1970, 1, 1, 0, 0, 0, 1_000_000, time.UTC),
		time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC),
	} {
		got, ok := Time("req_", NewAt("req_", at))
		if !ok || !got.Equal(at) {
			t.Errorf("Time(NewAt(%s)) = %s, %v", at, got, ok)
		}
	}
	id := NewAt("req_", time.Now())
	for _, bad := range []string{"", "req_", id[:len(id)-1], "evt_" + id[4:], "req_" + strings.Repeat("U", 26), "req_Z" + id[5:]} {
		if got, ok := Time("req_", bad); ok {
			t.Errorf("Time(%q) = %s, true; want false", bad, got)
		}
	}
}

// Bits reads back what Spell spells, and only that: lower case, a first
// digit past 7, a letter outside the alphabet, another prefix or length
// are refused.
func TestBitsAndSpell(t *testing.T) {
	for range 100 {
		id := New("req_")
		v, ok := Bits("req_", id)
		if !ok || Spell("req_", v) != id {
			t.Fatalf("%s: bits %x, %v, spelled back %s", id, v, ok, Spell("req_", v))
		}
	}
	max := Spell("req_", [16]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})
	if max != "req_7"+strings.Repeat("Z", 25) {
		t.Errorf("all ones spelled %s", max)
	}
	id := New("req_")
	for _, bad := range []string{strings.ToLower(id), "req_8" + id[5:], id[:29] + "I", "evt_" + id[4:], id[:29], "req_"} {
		if _, ok := Bits("req_", bad); ok {
			t.Errorf("Bits(%q) read an id", bad)
		}
	}
}
