package units

// The arithmetic of document amounts (docs/api-behaviour.md, "Money"):
// exact decimals throughout; a line amount is quantity × cost × (1 −
// discount_rate/100), kept exact; a subtotal is the sum of line amounts,
// rounded once, half-up (away from zero at the half), to the currency's
// minor unit.

import (
	"fmt"
	"strings"

	"github.com/shopspring/decimal"
)

var hundred = decimal.NewFromInt(100)

// LineAmount is quantity × price × (1 − discount/100), exact. A nil price
// is a line without a price (amount 0); a nil discount is none.
func LineAmount(quantity decimal.Decimal, price, discountRate *decimal.Decimal) decimal.Decimal {
	if price == nil {
		return decimal.Zero
	}
	amount := quantity.Mul(*price)
	if discountRate != nil && !discountRate.IsZero() {
		amount = amount.Mul(hundred.Sub(*discountRate)).Div(hundred)
	}
	return amount
}

// PricedLine is one line of a document, for Subtotal.
type PricedLine struct {
	Quantity     decimal.Decimal
	Price        *decimal.Decimal
	DiscountRate *decimal.Decimal
}

// Subtotal sums the exact line amounts and rounds the sum once, half-up, to
// the minor unit of currency.
func Subtotal(currency string, lines []PricedLine) (decimal.Decimal, error) {
	places, err := MinorUnit(currency)
	if err != nil {
		return decimal.Zero, err
	}
	sum := decimal.Zero
	for _, l := range lines {
		sum = sum.Add(LineAmount(l.Quantity, l.Price, l.DiscountRate))
	}
	return RoundHalfUp(sum, places), nil
}

// RoundHalfUp rounds d to places decimals, a half going away from zero
// (2.345 → 2.35, −2.345 → −2.35).
func RoundHalfUp(d decimal.Decimal, places int32) decimal.Decimal {
	// decimal.Round rounds half away from zero.
	return d.Round(places)
}

// minorUnits are the decimals of currencies whose minor unit is not 2 (ISO
// 4217); every other known code has 2.
var minorUnits = map[string]int32{
	"BHD": 3, "CLP": 0, "IQD": 3, "ISK": 0, "JOD": 3, "JPY": 0, "KRW": 0, "KWD": 3,
	"LYD": 3, "OMR": 3, "PYG": 0, "TND": 3, "UGX": 0, "VND": 0, "XAF": 0, "XOF": 0,
}

// MinorUnit is the number of decimals of an ISO 4217 currency code (2 for
// CAD, USD and EUR).
func MinorUnit(currency string) (int32, error) {
	c := strings.ToUpper(strings.TrimSpace(currency))
	if len(c) != 3 || strings.Trim(c, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") != "" {
		return 0, fmt.Errorf("money: %q is not an ISO 4217 currency code", currency)
	}
	if n, ok := minorUnits[c]; ok {
		return n, nil
	}
	return 2, nil
}
