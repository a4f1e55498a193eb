package problem

import (
	"net/http"
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

// TestStatuses pins each code's status, which the table writes as a number,
// to net/http's name for it.
func TestStatuses(t *testing.T) {
	want := map[Code]int{
		Validation:           http.StatusBadRequest,
		InvalidAPIKey:        http.StatusUnauthorized,
		InsufficientScope:    http.StatusForbidden,
		NotEntitled:          http.StatusForbidden,
		ReadOnlyRecord:       http.StatusForbidden,
		NotFound:             http.StatusNotFound,
		MethodNotAllowed:     http.StatusMethodNotAllowed,
		PayloadTooLarge:      http.StatusRequestEntityTooLarge,
		UnsupportedMediaType: http.StatusUnsupportedMediaType,
		Duplicate:            http.StatusConflict,
		InUse:                http.StatusConflict,
		InvalidState:         http.StatusConflict,
		IdempotencyKeyReused: http.StatusConflict,
		IdempotencyKeyInUse:  http.StatusConflict,
		LotExpiryMismatch:    http.StatusConflict,
		DefaultAddressExists: http.StatusConflict,
		SupplierBlocked:      http.StatusConflict,
		InsufficientStock:    http.StatusConflict,
		LotNotSellable:       http.StatusConflict,
		RateLimited:          http.StatusTooManyRequests,
		Internal:             http.StatusInternalServerError,
		ServiceUnavailable:   http.StatusServiceUnavailable,
	}
	if len(want) != len(kinds) {
		t.Fatalf("%d codes pinned, the table has %d", len(want), len(kinds))
	}
	for c, s := range want {
		if got := New(c, "x").Status(); got != s {
			t.Errorf("%s: status %d, want %d (%s)", c, got, s, http.StatusText(s))
		}
	}
	if got := New("NO_SUCH_CODE", "x").Status(); got != http.StatusInternalServerError {
		t.Errorf("an unknown code's status is %d, want 500", got)
	}
}
