package units

import (
	"testing"

	"github.com/shopspring/decimal"
)

func d(s string) decimal.Decimal { return decimal.RequireFromString(s) }

func p(s string) *decimal.Decimal { v := d(s); return &v }

// docs/api-behaviour.md, "Money": values that break binary floats come out exact.
func TestSubtotal(t *testing.T) {
	thousandCents := make([]PricedLine, 1000)
	for i := range thousandCents {
		thousandCents[i] = PricedLine{Quantity: d("1"), Price: p("0.01")}
	}
	cases := []struct {
		name, currency string
		lines          []PricedLine
		want           string
	}{
		{"0.1 three times is 0.3", "CAD", []PricedLine{{d("1"), p("0.1"), nil}, {d("1"), p("0.1"), nil}, {d("1"), p("0.1"), nil}}, "0.3"},
		{"a thousand lines of 0.01 are 10.00", "CAD", thousandCents, "10"},
		{"12.5% off 9.99 × 3 is 26.22375, rounded once to 26.22", "CAD", []PricedLine{{d("3"), p("9.99"), p("12.5")}}, "26.22"},
		{"line amounts are exact, only the sum is rounded", "CAD", []PricedLine{{d("1"), p("0.005"), nil}, {d("1"), p("0.005"), nil}}, "0.01"},
		{"a half rounds up", "USD", []PricedLine{{d("1"), p("2.345"), nil}}, "2.35"},
		{"below the half rounds down", "EUR", []PricedLine{{d("1"), p("2.344999"), nil}}, "2.34"},
		{"no price is no amount", "CAD", []PricedLine{{d("5"), nil, nil}, {d("2"), p("1.5"), nil}}, "3"},
		{"100% discount", "CAD", []PricedLine{{d("7"), p("3"), p("100")}}, "0"},
		{"a currency without minor unit", "JPY", []PricedLine{{d("1"), p("1234.5"), nil}}, "1235"},
		{"three decimals", "KWD", []PricedLine{{d("1"), p("1.2345"), nil}}, "1.235"},
		{"quantities in base units times a small cost", "CAD", []PricedLine{{d("25000"), p("0.000123"), p("10")}}, "2.77"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Subtotal(tc.currency, tc.lines)
			if err != nil {
				t.Fatal(err)
			}
			if !got.Equal(d(tc.want)) {
				t.Fatalf("subtotal %s, want %s", got, tc.want)
			}
		})
	}
}

func TestLineAmountIsExact(t *testing.T) {
	got := LineAmount(d("3"), p("9.99"), p("12.5"))
	if !got.Equal(d("26.22375")) {
		t.Fatalf("line amount %s, want 26.22375 exactly", got)
	}
}

func TestMinorUnit(t *testing.T) {
	for code, want := range map[string]int32{"CAD": 2, "usd": 2, "EUR": 2, "JPY": 0, "BHD": 3} {
		if got, err := MinorUnit(code); err != nil || got != want {
			t.Errorf("%s: %d %v, want %d", code, got, err, want)
		}
	}
	for _, bad := range []string{"", "CA", "C4D", "CADX"} {
		if _, err := MinorUnit(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestRoundHalfUpAwayFromZero(t *testing.T) {
	for in, want := range map[string]string{"2.345": "2.35", "-2.345": "-2.35", "2.3449": "2.34", "0.005": "0.01"} {
		if got := RoundHalfUp(d(in), 2); !got.Equal(d(want)) {
			t.Errorf("%s → %s, want %s", in, got, want)
		}
	}
}
