// Package reqlog is the request log: every authenticated API request, and
// every failed authentication, recorded after its answer by a background
// writer (Writer), kept for a retention period (Prune), and found again by
// the console and the CLI (List, Find, Events) for one organization's
// environment.
//
// Recording is off the request's path: the request hands the writer an
// Entry through a bounded queue and goes on; the writer inserts the entries
// in batches, outside any request's transaction. When the database is slow
// or down the queue fills, and what does not fit is dropped and counted
// (Writer.Dropped), never waited for.
//
// Nothing secret is stored: the Authorization header is never part of an
// Entry, and Redact replaces key and secret material in a path or a body
// before a row is written.
package reqlog

import (
	"bytes"
	"encoding/json"
	"net/netip"
	"regexp"
	"strings"
	"time"
)

// MaxBody is the most of a request or answer body that is kept; the rest is
// cut and the row marked truncated.
const MaxBody = 16 << 10

// maxPath bounds the path and query string kept, and maxText each header
// value (the caller's request id, the user agent).
const (
	maxPath = 2 << 10
	maxText = 512
)

// Entry is one request as the API layer saw it, handed to Writer.Record.
type Entry struct {
	// At is when the request arrived.
	At time.Time
	// AccountID and KeyID are the authenticated key's; zero for a failed
	// authentication.
	AccountID, KeyID int
	Method           string
	// Operation is the route's operation id; empty when no route matched.
	Operation string
	// Path is the path and the raw query string.
	Path     string
	Status   int
	Duration time.Duration
	// RequestID is Larder's; ClientRequestID the caller's X-Request-Id.
	RequestID, ClientRequestID string
	// RemoteAddr is the peer's address, ForwardedFor the request's
	// X-Forwarded-For values, and Trusted the proxies whose
	// X-Forwarded-For names the client: the writer reads the client
	// address from them (clientaddr.From), off the request's path.
	RemoteAddr   string
	ForwardedFor []string
	Trusted      []netip.Prefix
	UserAgent    string
	// RequestBody and ResponseBody are kept for writes and for answers of
	// 400 and above, each at most MaxBody bytes; Truncated says a body was
	// longer.
	RequestBody, ResponseBody []byte
	Truncated                 bool
	// Deprecated is what the request used that is deprecated, space
	// separated ("listTags", "listTags?name", "createTag:description"); "" for
	// nothing.
	Deprecated string
}

// Keeps reports whether the bodies of a request with method and an answer
// of status are kept: writes, and answers of 400 and above.
func Keeps(method string, status int) bool {
	return status >= 400 || !(method == "GET" || method == "HEAD" || method == "OPTIONS")
}

// Cut returns b cut at MaxBody, and whether it was cut.
func Cut(b []byte) ([]byte, bool) {
	if len(b) > MaxBody {
		return b[:MaxBody], true
	}
	return b, false
}

func cutText(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// Secret material Redact replaces: API keys (key_live_…, key_test_…),
// webhook signing secrets (whsec_…), and the value of any JSON member whose
// name says it holds one.
var (
	keyMaterial    = regexp.MustCompile(`(key_(?:live|test)_|whsec_)[0-9A-Za-z+/=_-]+`)
	secretMember   = regexp.MustCompile(`(?i)("(?:[a-z_]*secret|password|passphrase|token|api_key|apikey|authorization|private_key)"\s*:\s*)"(?:[^"\\]|\\.)*"`)
	redactedKey    = []byte("${1}[redacted]")
	redactedMember = []byte(`${1}"[redacted]"`)
)

// Redact returns b with key and secret material replaced by [redacted]. It
// returns b itself when there is none.
//
// The expressions run only on a body that holds what every match of theirs
// must hold (mayHoldKey, mayHoldSecretMember): an NFA over a 16 KB body
// costs about a millisecond of CPU, and most bodies hold neither.
func Redact(b []byte) []byte {
	if len(b) == 0 {
		return b
	}
	if mayHoldKey(b) && keyMaterial.Match(b) {
		b = keyMaterial.ReplaceAll(b, redactedKey)
	}
	if bytes.IndexByte(b, '"') >= 0 && mayHoldSecretMember(b) && secretMember.Match(b) {
		b = secretMember.ReplaceAll(b, redactedMember)
	}
	return b
}

// mayHoldKey reports whether b holds a prefix of key material, which every
// match of keyMaterial starts with.
func mayHoldKey(b []byte) bool {
	return bytes.Contains(b, []byte("key_live_")) || bytes.Contains(b, []byte("key_test_")) ||
		bytes.Contains(b, []byte("whsec_"))
}

// secretWords are words one of which every member name secretMember matches
// holds, in lower case ("pass" for password and passphrase).
var secretWords = [][]byte{[]byte("secret"), []byte("pass"), []byte("token"), []byte("api_key"),
	[]byte("apikey"), []byte("authorization"), []byte("private_key")}

// mayHoldSecretMember reports whether b, folded as secretMember's
// case-insensitive match folds it, holds one of secretWords. Besides ASCII
// letters, Unicode folds two characters onto the words' letters: the Kelvin
// sign onto k and the long s onto s; the fold maps them too, so that a
// member name spelled with them is still found.
func mayHoldSecretMember(b []byte) bool {
	folded := make([]byte, len(b))
	n := 0
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case c < 0x80:
			c = lower[c]
		case c == 0xE2 && i+2 < len(b) && b[i+1] == 0x84 && b[i+2] == 0xAA: // U+212A KELVIN SIGN
			c, i = 'k', i+2
		case c == 0xC5 && i+1 < len(b) && b[i+1] == 0xBF: // U+017F LATIN SMALL LETTER LONG S
			c, i = 's', i+1
		}
		folded[n] = c
		n++
	}
	for _, w := range secretWords {
		if bytes.Contains(folded[:n], w) {
			return true
		}
	}
	return false
}

// lower maps an ASCII byte to its lower case.
var lower = func() (t [0x80]byte) {
	for c := range t {
		t[c] = byte(c)
		if 'A' <= c && c <= 'Z' {
			t[c] += 'a' - 'A'
		}
	}
	return t
}()

// redactText is Redact of a header value or a path, which holds no JSON: it
// returns s itself, without a copy, when it holds no key material.
func redactText(s string) string {
	if !strings.Contains(s, "key_") && !strings.Contains(s, "whsec_") {
		return s
	}
	return string(keyMaterial.ReplaceAll([]byte(s), redactedKey))
}

// errorCode is the code member of a problem body, or "".
func errorCode(body []byte) string {
	if len(body) == 0 || body[0] != '{' {
		return ""
	}
	var p struct {
		Code string `json:"code"`
	}
	if json.Unmarshal(body, &p) != nil {
		// A body cut at MaxBody is not whole JSON; a problem's code comes
		// before its errors[], so look for it in the text.
		m := codeMember.FindSubmatch(body)
		if m == nil {
			return ""
		}
		return string(m[1])
	}
	return cutText(p.Code, 64)
}

var codeMember = regexp.MustCompile(`"code"\s*:\s*"([A-Z_]{1,64})"`)
