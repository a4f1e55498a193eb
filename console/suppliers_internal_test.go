package console

import (
	"testing"
	"time"

	"larder.dev/larder/ent"
)

// A certification holds through its expiry date and is expired from the
// day after, in UTC, whatever the hour; none recorded never expires.
func TestCertExpired(t *testing.T) {
	day := func(s string) *time.Time {
		d, err := time.Parse(time.DateOnly, s)
		if err != nil {
			t.Fatal(err)
		}
		return &d
	}
	now := time.Date(2026, 12, 5, 23, 59, 0, 0, time.UTC)
	for _, tc := range []struct {
		name    string
		expires *time.Time
		want    bool
	}{
		{"none", nil, false},
		{"yesterday", day("2026-12-04"), true},
		{"last year", day("2025-12-05"), true},
		{"today", day("2026-12-05"), false},
		{"tomorrow", day("2026-12-06"), false},
	} {
		if got := certExpired(&ent.Supplier{CertificationExpiresOn: tc.expires}, now); got != tc.want {
			t.Errorf("%s: expired %v, want %v", tc.name, got, tc.want)
		}
	}
	// Just after midnight UTC the day before's certificate has ended.
	if !certExpired(&ent.Supplier{CertificationExpiresOn: day("2026-12-04")}, time.Date(2026, 12, 5, 0, 0, 1, 0, time.UTC)) {
		t.Error("a certificate of the day before, just after midnight: not expired")
	}
}
