package handlers

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// A caller's X-Request-Id is kept as the logs take it: at most 200 bytes,
// cut on a character's boundary, valid UTF-8, without control or format
// characters; an ordinary id is kept as sent.
func TestClientRequestIDIsBoundedAndPrintable(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"an ordinary id", "sync-42", "sync-42"},
		{"exactly the bound", strings.Repeat("r", 200), strings.Repeat("r", 200)},
		{"a megabyte", strings.Repeat("r", 1<<20), strings.Repeat("r", 200)},
		{"control characters", "a\tb\nc\rd\x00e\x7ff\u0085g", "abcdefg"},
		{"format characters", "a\u202eb\u200bc", "abc"},
		{"invalid UTF-8", "a\xffb", "a\uFFFDb"},
		{"cut on a boundary", strings.Repeat("a", 199) + "é", strings.Repeat("a", 199)},
		{"non-ASCII kept", "commande-é", "commande-é"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := clientRequestID(c.in)
			if got != c.want {
				t.Errorf("clientRequestID(%.40q) = %.60q, want %.60q", c.in, got, c.want)
			}
			if len(got) > maxClientRequestID || !utf8.ValidString(got) {
				t.Errorf("%d bytes, valid UTF-8 %v", len(got), utf8.ValidString(got))
			}
		})
	}
	if maxClientRequestID != 200 {
		t.Errorf("bound %d, documented as 200", maxClientRequestID)
	}
}
