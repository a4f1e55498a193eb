// Package bounds holds the input rules every operation shares (docs/api-behaviour.md,
// "Input bounds"): text is valid UTF-8 without U+0000, a decimal has at most
// 6 digits after the point, 15 significant digits and an absolute value below
// 10^14, and a search or text filter is at most 200 characters. The generator
// writes them into the API description, and the ogen server checks them while
// decoding (text through the validator registered here, decimals by decoding
// them into Decimal), so every operation, present and future, gets them
// without a line in a handler.
package bounds

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/ogen-go/ogen/validate"
)

// MaxBodyBytes bounds a request body: larger is refused with 413.
const MaxBodyBytes = 4 << 20

// The bounds of docs/api-behaviour.md, "Input bounds".
const (
	// Decimals is the most digits a decimal may have after the point.
	Decimals = 6
	// Digits is the most significant digits a decimal may have.
	Digits = 15
	// MagnitudeExp: a decimal's absolute value is below 10^MagnitudeExp.
	MagnitudeExp = 14
	// FilterLen is the most characters a search or text filter may have.
	FilterLen = 200
)

// TextValidator is the name of the text validator in ogen's registry, as the
// API description's x-ogen-validate extension names it.
const TextValidator = "text"

// DecimalRule words the decimal bounds for the API description.
var DecimalRule = fmt.Sprintf("Exact decimal: at most %d digits after the decimal point and %d significant digits, "+
	"absolute value below 10^%d; returned digit for digit as written.", Decimals, Digits, MagnitudeExp)

// ErrText is the refusal of a string that is not valid UTF-8 or holds U+0000.
var ErrText = &Error{Message: "must be valid UTF-8 text without NUL (U+0000) characters"}

// Text checks a string.
func Text(s string) error {
	if !utf8.ValidString(s) || strings.IndexByte(s, 0) >= 0 {
		return ErrText
	}
	return nil
}

func init() {
	// The API description names this validator on every string (x-ogen-validate).
	err := validate.RegisterValidator(TextValidator, func(v, _ any) error {
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("text validator applied to %T", v)
		}
		return Text(s)
	})
	if err != nil {
		panic(err)
	}
}
