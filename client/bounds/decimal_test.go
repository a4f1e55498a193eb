package bounds

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/go-faster/jx"
	"github.com/shopspring/decimal"
)

// TestEncodeAsString pins the fast path of Encode to shopspring's
// String, which the API wrote before: the same text for
// every coefficient and exponent, the slow path (more than 15 digits)
// included.
func TestEncodeAsString(t *testing.T) {
	cases := []decimal.Decimal{
		decimal.Zero, decimal.New(0, -6), decimal.New(0, 3),
		decimal.New(1, 0), decimal.New(-1, 0), decimal.New(5, -1), decimal.New(-5, -1),
		decimal.New(5, -7), decimal.New(-12, -9), decimal.New(1000000, -6), decimal.New(1500000, -6),
		decimal.New(120, -1), decimal.New(7, 3), decimal.New(-7, 2), decimal.New(999999999999999, -6),
		decimal.New(1000000000000000, -6), decimal.RequireFromString("123456789012345678901234.5678"),
		decimal.RequireFromString("-0.000000000000000000001"), decimal.NewFromFloat(0.1), decimal.NewFromFloat(1e-9),
	}
	cases = append(cases, randomDecimals(1, 20000, 53, -14, 5)...)
	for _, d := range cases {
		var e jx.Encoder
		Decimal{d}.Encode(&e)
		if got, want := e.String(), d.String(); got != want {
			t.Fatalf("Encode(%s) = %q, want %q", want, got, want)
		}
		if strings.ContainsAny(e.String(), "eE") {
			t.Fatalf("Encode(%s) = %q has an exponent", d, e.String())
		}
	}
}

func BenchmarkEncode(b *testing.B) {
	d := decimal.New(1234500000, -6)
	var e jx.Encoder
	for b.Loop() {
		e.Reset()
		Decimal{d}.Encode(&e)
	}
}

// randomDecimals are n decimals, the same for a seed: coefficients of any
// size below 2^bits, either sign, exponents from minExp to maxExp.
func randomDecimals(seed uint64, n, bits, minExp, maxExp int) []decimal.Decimal {
	r := rand.New(rand.NewPCG(seed, seed+1))
	out := make([]decimal.Decimal, n)
	for i := range out {
		c := r.Int64N(1<<bits) >> r.IntN(bits)
		if r.IntN(2) == 0 {
			c = -c
		}
		out[i] = decimal.New(c, int32(minExp+r.IntN(maxExp-minExp+1)))
	}
	return out
}

// TestStorableAndCompare pins Storable's and compare's fast paths to the
// big.Int comparisons they replace, at the limit and around it.
func TestStorableAndCompare(t *testing.T) {
	cases := []decimal.Decimal{
		{}, decimal.Zero, decimal.New(0, 20), decimal.New(0, -20),
		decimal.New(1, MagnitudeExp), decimal.New(-1, MagnitudeExp), decimal.New(1, MagnitudeExp-1),
		decimal.RequireFromString("99999999999999.999999"), decimal.RequireFromString("-99999999999999.9999999"),
		decimal.RequireFromString("100000000000000.000001"), decimal.New(99999999999999, 0),
		decimal.New(100000000000000, 0), decimal.New(999999999999999, -1), decimal.New(1000000000000000, -1),
		decimal.New(1<<53, -2), decimal.New(1<<53, -1), decimal.New(1<<53+1, -1), decimal.New(3, 15),
		decimal.RequireFromString("123456789012345678901234.5678"), decimal.New(5, -30),
	}
	cases = append(cases, randomDecimals(3, 50000, 62, -20, 19)...)
	bs := []decimal.Decimal{decimal.Zero, decimal.New(0, -6), decimal.New(100, 0), decimal.New(-5, -1)}
	for _, d := range cases {
		if got, want := Storable(d), d.Abs().LessThan(limit); got != want {
			t.Fatalf("Storable(%s) = %v, want %v", d, got, want)
		}
		for _, b := range bs {
			if got, want := compare(d, b), d.Cmp(b); got != want {
				t.Fatalf("compare(%s, %s) = %d, want %d", d, b, got, want)
			}
		}
	}
}

// TestParsePlain pins Decode's fast path to NewFromString and CheckDecimal,
// which decode every other number: the same coefficient, exponent and
// verdict, at each bound and on random numbers of up to 20 digits.
func TestParsePlain(t *testing.T) {
	texts := []string{"0", "-0", "0.0", "0.000000", "-0.000", "1", "-1", "0.5", "1.25", "3",
		"100", "1000.000", "99999999999999.999999", "100000000000000", "99999999999999",
		"-99999999999999.9999995", "0.000001", "0.0000001", "0.0000010", "123456789012345",
		"1234567890123456", "12345678901234.5", "1234567890.12345600", "999999999999999999",
		"9999999999999999999", "0.00000000000000000001", "1e3", "1E-2", "-2.5e+1", "12.340000"}
	r := rand.New(rand.NewPCG(5, 6))
	for range 50000 {
		var b []byte
		if r.IntN(2) == 0 {
			b = append(b, '-')
		}
		whole := r.IntN(16)
		b = append(b, byte('1'+r.IntN(9)))
		for range whole {
			b = append(b, byte('0'+r.IntN(10)))
		}
		if f := r.IntN(10); f > 0 {
			b = append(b, '.')
			for range f {
				b = append(b, byte('0'+r.IntN(10)))
			}
		}
		if r.IntN(5) == 0 {
			b = append(b, "000"...)
		}
		texts = append(texts, string(b))
	}
	for _, s := range texts {
		want, err := decimal.NewFromString(s)
		if err != nil {
			t.Fatal(err)
		}
		wantErr := CheckDecimal(want)
		got, ok, gotErr := parsePlain(jx.Num(s))
		if !ok {
			if !strings.ContainsAny(s, "eE") && len(strings.Trim(s, "-.")) <= 18 {
				t.Errorf("parsePlain(%s) passed it on", s)
			}
			continue
		}
		if got.Coefficient().Cmp(want.Coefficient()) != 0 || got.Exponent() != want.Exponent() {
			t.Fatalf("parsePlain(%s) = %s×10^%d, want %s×10^%d", s, got.Coefficient(), got.Exponent(), want.Coefficient(), want.Exponent())
		}
		if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
			t.Fatalf("parsePlain(%s): %v, want %v", s, gotErr, wantErr)
		}
	}
}

func BenchmarkDecode(b *testing.B) {
	for b.Loop() {
		var d Decimal
		if err := d.Decode(jx.DecodeStr("1234.5678")); err != nil {
			b.Fatal(err)
		}
	}
}
