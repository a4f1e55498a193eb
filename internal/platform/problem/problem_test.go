package problem

import (
	"slices"
	"testing"
)

// Codes lists every code of the table once, in order, each with a status of
// its own.
func TestCodes(t *testing.T) {
	got := Codes()
	if !slices.IsSorted(got) || len(slices.Compact(slices.Clone(got))) != len(got) {
		t.Errorf("codes not sorted or repeated: %v", got)
	}
	if len(got) != len(kinds) {
		t.Errorf("%d codes, the table has %d", len(got), len(kinds))
	}
	for _, c := range []Code{Validation, NotFound, Internal, ServiceUnavailable} {
		if !slices.Contains(got, c) {
			t.Errorf("%s is missing", c)
		}
	}
	for _, c := range got {
		if s := New(c, "x").Status(); s < 400 {
			t.Errorf("%s: status %d", c, s)
		}
	}
}
