package bounds

import (
	"errors"
	"fmt"
	"strings"

	"github.com/go-faster/jx"
	"github.com/shopspring/decimal"
)

// Decimal is the API's exact decimal number: a JSON number within the bounds
// of DECISIONS.md, decoded from its text without passing through a float, and
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
	v, err := decimal.NewFromString(n.String())
	if err != nil {
		return ErrNotNumber
	}
	if err := CheckDecimal(v); err != nil {
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
func (d Decimal) Encode(e *jx.Encoder) { e.Num(jx.Num(d.String())) }

// Error is a refused input value; its message completes "<field> …".
type Error struct{ Message string }

func (e *Error) Error() string { return e.Message }

// CheckDecimal applies the decimal bounds (also to input read outside the API:
// files the CLI imports), looking only at digits and the
// exponent before any arithmetic, so that 1e999999999 costs nothing.
func CheckDecimal(d decimal.Decimal) error {
	coef, exp := strings.TrimLeft(d.Coefficient().String(), "-"), int64(d.Exponent())
	for len(coef) > 1 && coef[len(coef)-1] == '0' {
		coef = coef[:len(coef)-1]
		exp++
	}
	switch {
	case coef == "0":
		return nil
	case int64(len(coef))+exp > MagnitudeExp:
		return &Error{Message: fmt.Sprintf("must be below 10^%d in absolute value", MagnitudeExp)}
	case exp < -Decimals:
		return &Error{Message: fmt.Sprintf("must have at most %d digits after the decimal point", Decimals)}
	case len(coef) > Digits:
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
		if c := d.Cmp(*r.Min); c < 0 || (r.MinExcl && c == 0) {
			if r.MinExcl {
				return &Error{Message: "must be greater than " + r.Min.String()}
			}
			return &Error{Message: "must be at least " + r.Min.String()}
		}
	}
	if r.Max != nil {
		if c := d.Cmp(*r.Max); c > 0 || (r.MaxExcl && c == 0) {
			if r.MaxExcl {
				return &Error{Message: "must be less than " + r.Max.String()}
			}
			return &Error{Message: "must be at most " + r.Max.String()}
		}
	}
	return nil
}

// limit is 10^MagnitudeExp, the first magnitude no decimal column holds
// (numeric(20,6) keeps 14 digits before the point).
var limit = decimal.New(1, MagnitudeExp)

// Storable reports whether a computed decimal (a quantity converted to base
// units, a subtotal, a lot's total) fits the columns that keep decimals: its
// absolute value is below 10^14. Inputs are bounded while decoding; values
// computed from them are checked with this before they are written.
func Storable(d decimal.Decimal) bool { return d.Abs().LessThan(limit) }
