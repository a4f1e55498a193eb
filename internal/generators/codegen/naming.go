package codegen

import (
	"strings"
	"unicode"
)

// initialisms are the word parts ogen writes in capitals. The converters name
// ogen's Go types and fields, so they must name them exactly as ogen does: the
// list is ogen's default ruleset (internal/naming) and must follow it.
var initialisms = func() map[string]string {
	m := map[string]string{}
	for _, w := range []string{
		"ACL", "API", "ASCII", "AWS", "CPU", "CSS", "DNS", "EOF", "GB", "GUID",
		"HTML", "HTTP", "HTTPS", "ID", "IP", "JSON", "KB", "LHS", "MAC", "MB",
		"QPS", "RAM", "RHS", "RPC", "SLA", "SMTP", "SQL", "SSH", "SSO", "TLS",
		"TTL", "UI", "UID", "URI", "URL", "UTF8", "UUID", "VM", "XML", "XMPP",
		"XSRF", "XSS", "SMS", "CDN", "TCP", "UDP", "DC", "PFS", "P2P",
		"SHA256", "SHA1", "MD5", "SRP", "2FA", "OAuth", "OAuth2",
		"PNG", "JPG", "GIF", "MP4", "WEBP",
	} {
		m[strings.ToLower(w)] = w
	}
	return m
}()

// pascal converts a snake_case or camelCase name to the Go name ogen gives it:
// words split at anything but a letter or digit, first letter upper-cased,
// initialisms in capitals ("unit_of_measure_id" -> "UnitOfMeasureID").
func pascal(s string) string {
	var b strings.Builder
	word := []rune{}
	flush := func() {
		if len(word) == 0 {
			return
		}
		w := string(word)
		if r, ok := initialisms[strings.ToLower(w)]; ok {
			w = r
		}
		b.WriteString(w)
		word = word[:0]
	}
	upper := true
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			flush()
			upper = true
			continue
		}
		if upper {
			r = unicode.ToUpper(r)
			upper = false
		}
		word = append(word, r)
	}
	flush()
	return b.String()
}

// words splits a Go type name into its words, keeping initialisms whole
// ("QCCheckpoint" -> QC, Checkpoint): a word starts at a capital after a
// lower-case letter or digit, or at the last capital of a run followed by a
// lower-case letter.
func words(s string) []string {
	rs := []rune(s)
	var out []string
	start := 0
	for i, r := range rs {
		if i == 0 || !unicode.IsUpper(r) {
			continue
		}
		prev := rs[i-1]
		nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
		if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower) {
			out = append(out, string(rs[start:i]))
			start = i
		}
	}
	return append(out, string(rs[start:]))
}

// snake converts a Go type name to snake_case, initialisms whole
// ("UnitOfMeasure" -> "unit_of_measure", "QCCheckpoint" -> "qc_checkpoint").
func snake(s string) string {
	ws := words(s)
	for i, w := range ws {
		ws[i] = strings.ToLower(w)
	}
	return strings.Join(ws, "_")
}

// prose converts a Go type name to words for sentences, initialisms in
// capitals ("UnitOfMeasure" -> "unit of measure", "QCCheckpoint" -> "QC checkpoint").
func prose(s string) string {
	ws := words(s)
	for i, w := range ws {
		if len(w) < 2 || strings.ToUpper(w) != w {
			ws[i] = strings.ToLower(w)
		}
	}
	return strings.Join(ws, " ")
}

// lowerFirst lower-cases the first letter.
func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}
