package reqlog

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
)

// redactAlways is Redact without the words checked first: the expressions
// run on every body.
func redactAlways(b []byte) []byte {
	b = keyMaterial.ReplaceAll(b, redactedKey)
	return secretMember.ReplaceAll(b, redactedMember)
}

// TestRedactSkipsOnlyWhatCannotMatch: Redact answers what the expressions
// alone answer, for JSON objects whose member names are spelled from the
// words the expressions look for, in every case and with the two
// characters Unicode folds onto ASCII letters, and whose values may hold
// key material or text that resembles it.
func TestRedactSkipsOnlyWhatCannotMatch(t *testing.T) {
	names := []string{
		"secret", "SECRET", "client_Secret", "ſecret", "password", "PassPhrase", "paſſword", "token", "TOKEN",
		"api_key", "API_KEY", "api_\u212aey", "apiKey", "apikey", "authorization", "Authorization",
		"private_key", "private_\u212aey", "token_count", "name", "notes", "ſ", "\u212a", "pas", "tok",
	}
	values := []string{`"x"`, `"a \"q\" b"`, `3`, `"crème"`, `"key_live_abcDEF123"`, `"key_test_+/="`,
		`"whsec_c2Vj"`, `"key_"`, `"whsec"`, `"live_"`, `null`}
	seps := []string{`:`, ` : `, `:  `}
	rng := rand.New(rand.NewPCG(20261206, 1))
	matched := 0
	for range 20_000 {
		var b strings.Builder
		b.WriteString("{")
		for i := range 1 + rng.IntN(3) {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString(`"` + names[rng.IntN(len(names))] + `"` + seps[rng.IntN(len(seps))] + values[rng.IntN(len(values))])
		}
		b.WriteString("}")
		in := b.String()
		want := redactAlways([]byte(in))
		if got := Redact([]byte(in)); !bytes.Equal(got, want) {
			t.Fatalf("Redact(%q) = %q, the expressions alone give %q", in, got, want)
		}
		if !bytes.Equal(want, []byte(in)) {
			matched++
		}
	}
	// The bodies must exercise both ways: some redacted, many not.
	if matched < 2_000 || matched > 18_000 {
		t.Fatalf("%d of 20,000 bodies had something to redact; the test's bodies no longer test both ways", matched)
	}
}

// BenchmarkRedact is the redaction of a 200-line purchase order's request
// and answer as the log keeps them (cut at MaxBody), which hold no secret.
func BenchmarkRedact(b *testing.B) {
	var body strings.Builder
	body.WriteString(`{"supplier_id":12,"lines":[`)
	for i := range 200 {
		if i > 0 {
			body.WriteString(",")
		}
		body.WriteString(`{"product_id":1234,"quantity":"12.5","cost":"3.25","notes":"Crème fraîche, tub 500 g"}`)
	}
	body.WriteString(`]}`)
	in, _ := Cut([]byte(body.String()))
	for _, c := range []struct {
		name   string
		redact func([]byte) []byte
	}{{"Redact", Redact}, {"expressions", redactAlways}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			for b.Loop() {
				c.redact(in)
			}
		})
	}
}
