package bounds

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/go-faster/jx"
	"github.com/shopspring/decimal"
)

// Decimal is the API's exact decimal number: a JSON number within the bounds
// of docs/api-behaviour.md ("Input bounds"), decoded from its text without passing through a float, and
// written back digit for digit (trailing zeros after the point dropped). The
// generated server uses it for every non-integer number.
type Decimal struct{ decimal.Decimal }

// NewDecimal wraps d.
func NewDecimal(d decimal.Decimal) Decimal { return Decimal{d} }

// FromFloat is the shortest decimal that reads back as f: exact for any value
// the API accepts, which a float column stores.
func FromFloat(f float64) Decimal { return Decimal{decimal.NewFromFloat(f)} }

// maxText bounds the text of a number before it is parsed, so that no body
// makes the server convert a megabyte of digits.
const maxText = 64

// ErrNotNumber refuses a JSON value of another type, a quoted number included.
var ErrNotNumber = errors.New("must be a number")

// Decode implements ogen's json.Unmarshaler.
func (d *Decimal) Decode(dec *jx.Decoder) error {
	if dec.Next() != jx.Number {
		return ErrNotNumber
	}
	n, err := dec.Num()
	if err != nil {
		return err
	}
	if len(n) > maxText {
		return &Error{Message: fmt.Sprintf("must have at most %d significant digits", Digits)}
	}
	v, ok, err := parsePlain(n)
	if !ok {
		if v, err = decimal.NewFromString(n.String()); err != nil {
			return ErrNotNumber
		}
		err = CheckDecimal(v)
	}
	if err != nil {
		return err
	}
	if v.IsZero() {
		// 0e40000000 is zero, but its exponent would make every later
		// operation (printing it included) build forty million digits.
		v = decimal.Zero
	}
	d.Decimal = v
	return nil
}

// Encode implements ogen's json.Marshaler.
func (d Decimal) Encode(e *jx.Encoder) {
	var buf [40]byte
	e.Num(jx.Num(d.appendText(buf[:0])))
}

// appendText appends d as String writes it (no exponent, trailing zeros of
// the fraction trimmed) without String's big.Int arithmetic and strings when
// the coefficient has at most 15 digits, as every quantity, price and rate
// the API stores has: lists encode several numbers per row.
func (d Decimal) appendText(b []byte) []byte {
	// NumDigits answers from the int64 without allocating up to 2^53.
	if d.NumDigits() > 15 {
		return append(b, d.String()...)
	}
	coef, exp := d.CoefficientInt64(), int(d.Exponent())
	if coef == 0 {
		return append(b, '0')
	}
	if coef < 0 {
		b = append(b, '-')
		coef = -coef
	}
	var tmp [20]byte
	digits := strconv.AppendInt(tmp[:0], coef, 10)
	if exp >= 0 {
		b = append(b, digits...)
		for range exp {
			b = append(b, '0')
		}
		return b
	}
	point := len(digits) + exp // digits before the decimal point
	var whole, frac []byte
	if point > 0 {
		whole, frac = digits[:point], digits[point:]
	} else {
		whole = []byte{'0'}
		frac = digits
	}
	frac = bytes.TrimRight(frac, "0")
	b = append(b, whole...)
	if len(frac) == 0 {
		return b
	}
	b = append(b, '.')
	for range max(-point, 0) { // zeros between the point and the digits
		b = append(b, '0')
	}
	return append(b, frac...)
}

// Error is a refused input value; its message completes "<field> …".
type Error struct{ Message string }

func (e *Error) Error() string { return e.Message }

// parsePlain decodes a JSON number written without an exponent and with at
// most 18 digits, as every quantity, price and rate is, straight into an
// int64 coefficient: decimal.NewFromString and CheckDecimal's digit string
// cost six allocations per number, and a 200-line document has hundreds.
// The result, coefficient and exponent alike, and the bounds' verdict are
// NewFromString's and CheckDecimal's; ok is false for any other number, which
// they decode.
func parsePlain(n jx.Num) (d decimal.Decimal, ok bool, err error) {
	var coef int64
	digits, frac, point := 0, 0, false
	for i, c := range n {
		switch {
		case c >= '0' && c <= '9':
			if digits == 18 {
				return d, false, nil
			}
			coef = coef*10 + int64(c-'0')
			digits++
			if point {
				frac++
			}
		case c == '.' && !point:
			point = true
		case c == '-' && i == 0:
		default: // an exponent
			return d, false, nil
		}
	}
	if digits == 0 {
		return d, false, nil
	}
	if n[0] == '-' {
		coef = -coef
	}
	d = decimal.New(coef, int32(-frac))
	// The bounds, on the coefficient without its trailing zeros.
	exp, sig := int64(-frac), coef
	if sig < 0 {
		sig = -sig
	}
	for sig != 0 && sig%10 == 0 {
		sig /= 10
		exp++
	}
	if sig == 0 {
		return d, true, nil
	}
	nd := 0
	for ; sig != 0; sig /= 10 {
		nd++
	}
	return d, true, checkParts(nd, exp)
}

// CheckDecimal applies the decimal bounds (also to input read outside the API:
// files the CLI imports), looking only at digits and the
// exponent before any arithmetic, so that 1e999999999 costs nothing.
func CheckDecimal(d decimal.Decimal) error {
	coef, exp := strings.TrimLeft(d.Coefficient().String(), "-"), int64(d.Exponent())
	for len(coef) > 1 && coef[len(coef)-1] == '0' {
		coef = coef[:len(coef)-1]
		exp++
	}
	if coef == "0" {
		return nil
	}
	return checkParts(len(coef), exp)
}

// checkParts applies the bounds to a non-zero decimal of digits significant
// digits (no trailing zeros) times 10^exp.
func checkParts(digits int, exp int64) error {
	switch {
	case int64(digits)+exp > MagnitudeExp:
		return &Error{Message: fmt.Sprintf("must be below 10^%d in absolute value", MagnitudeExp)}
	case exp < -Decimals:
		return &Error{Message: fmt.Sprintf("must have at most %d digits after the decimal point", Decimals)}
	case digits > Digits:
		return &Error{Message: fmt.Sprintf("must have at most %d significant digits", Digits)}
	}
	return nil
}

// Range is the range of a decimal field beyond the shared bounds (cost >= 0,
// a percentage 0..100). ogen cannot check the range of a type of ours, so the
// generated appliers do, with the field's name.
type Range struct {
	Min, Max         *decimal.Decimal
	MinExcl, MaxExcl bool
}

// Bound is a range limit written as decimal text; it panics on bad text, which
// only the generator writes.
func Bound(s string) *decimal.Decimal {
	d := decimal.RequireFromString(s)
	return &d
}

// Check refuses d outside r. d has passed the shared bounds, so comparing it
// costs nothing.
func (r Range) Check(d Decimal) error {
	if r.Min != nil {
		if c := compare(d.Decimal, *r.Min); c < 0 || (r.MinExcl && c == 0) {
			if r.MinExcl {
				return &Error{Message: "must be greater than " + r.Min.String()}
			}
			return &Error{Message: "must be at least " + r.Min.String()}
		}
	}
	if r.Max != nil {
		if c := compare(d.Decimal, *r.Max); c > 0 || (r.MaxExcl && c == 0) {
			if r.MaxExcl {
				return &Error{Message: "must be less than " + r.Max.String()}
			}
			return &Error{Message: "must be at most " + r.Max.String()}
		}
	}
	return nil
}

// compare is d.Cmp(b), without Cmp's rescaling (two big.Int allocations)
// when b is zero, as most bounds are.
func compare(d, b decimal.Decimal) int {
	if b.IsZero() {
		return d.Sign()
	}
	return d.Cmp(b)
}

// limit is 10^MagnitudeExp, the first magnitude no decimal column holds
// (numeric(20,6) keeps 14 digits before the point).
var limit = decimal.New(1, MagnitudeExp)

// pow10 are the powers of ten an int64 holds.
var pow10 = func() (p [19]int64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return p
}()

// Storable reports whether a computed decimal (a quantity converted to base
// units, a subtotal, a lot's total) fits the columns that keep decimals: its
// absolute value is below 10^14. Inputs are bounded while decoding; values
// computed from them are checked with this before they are written, one per
// line of a document, so the common case is answered from the int64
// coefficient.
func Storable(d decimal.Decimal) bool {
	// NumDigits answers up to 15 only from a coefficient within ±2^53.
	if d.NumDigits() > 15 {
		return d.Abs().LessThan(limit)
	}
	c, k := d.CoefficientInt64(), MagnitudeExp-int(d.Exponent())
	if c < 0 {
		c = -c
	}
	switch {
	case k < 0: // a magnitude of 10^15 or more, unless zero
		return c == 0
	case k >= len(pow10): // 10^k > 2^53 >= |c|
		return true
	default: // |c| × 10^exp < 10^MagnitudeExp
		return c < pow10[k]
	}
}
