package people_test

import (
	"testing"

	"larder.dev/larder/internal/identity/people"
)

// An address is stored trimmed and lower case, and only when net/mail reads
// it as a bare address: a display name or angle brackets are refused, not
// guessed at.
func TestAddressesAreBare(t *testing.T) {
	for in, want := range map[string]string{
		"  Ana@Example.COM ":      "ana@example.com",
		"first.last+tag@mail.fr":  "first.last+tag@mail.fr",
		"Ana <ana@example.com>":   "",
		"<ana@example.com>":       "",
		`"Ana" <ana@example.com>`: "",
		"ana@example.com (Ana)":   "",
		"ana@@example.com":        "",
		"ana,bob@example.com":     "",
		"nobody":                  "",
	} {
		got, err := people.NormalizeEmail(in)
		if want == "" && err == nil {
			t.Errorf("%q accepted as %q", in, got)
		}
		if want != "" && (err != nil || got != want) {
			t.Errorf("%q: %q (%v), want %q", in, got, err, want)
		}
	}
}
