// Package units is the arithmetic of documents' numbers: it converts
// quantities between a product's units (spec "Product": one inventory unit is
// uom_qty × uom_base_conversion base units; sales orders add the packaging
// size, uom_base_conversion base units), and rounds amounts of money to their
// currency (money.go).
package units

import (
	"fmt"

	"github.com/shopspring/decimal"

	"larder.dev/larder/client/bounds"
	"larder.dev/larder/ent"
	"larder.dev/larder/internal/platform/problem"
)

// Places is the scale of stored quantities (numeric(20,6)): a converted
// quantity is rounded half-up to it once, so that what a write answers is
// what both databases keep.
const Places = 6

// The units a sales quantity may be in.
const (
	Base      = "BASE_UOM"
	Inventory = "INVENTORY_UNIT"
	Packaging = "PACKAGING_SIZE"
)

// Per is the number of base units in one unit of the given kind of p (a
// missing factor is 1).
func Per(p *ent.Product, unit string) decimal.Decimal {
	f := decimal.NewFromInt(1)
	if unit == Base {
		return f
	}
	if unit == Inventory && p.UomQty != nil {
		f = f.Mul(decimal.NewFromFloat(*p.UomQty))
	}
	if p.UomBaseConversion != nil {
		f = f.Mul(decimal.NewFromFloat(*p.UomBaseConversion))
	}
	return f
}

// PerInventoryUnit is the number of base units in one inventory unit of p.
func PerInventoryUnit(p *ent.Product) decimal.Decimal { return Per(p, Inventory) }

// ToBase converts q units of p of the given kind to base units, rounded
// half-up to Places; a result no column keeps (10^14 or more) is an error
// naming field.
func ToBase(p *ent.Product, unit string, q decimal.Decimal, field string) (decimal.Decimal, error) {
	return toBase(q, Per(p, unit), field)
}

func toBase(q, per decimal.Decimal, field string) (decimal.Decimal, error) {
	b, ok := scaled(q, per)
	if !ok {
		return decimal.Zero, TooLarge(field, b)
	}
	return b, nil
}

// scaled is q × per rounded half-up to Places, and whether a column keeps it.
func scaled(q, per decimal.Decimal) (decimal.Decimal, bool) {
	b := q.Mul(per)
	if b.Exponent() < -Places { // otherwise already exact to Places: rounding is the costly part
		b = b.Round(Places)
	}
	return b, bounds.Storable(b)
}

// Converter converts the quantities of a document's lines to base units,
// working out each product's factor once however many lines name it.
type Converter struct {
	per map[perKey]decimal.Decimal
}

type perKey struct {
	product int
	unit    string
}

// ToBase is ToBase with p's factor for unit remembered, for the quantity of
// line i of a document, in its field name: an error names lines[i].name.
func (c *Converter) ToBase(p *ent.Product, unit string, q decimal.Decimal, i int, name string) (decimal.Decimal, error) {
	k := perKey{p.ID, unit}
	per, ok := c.per[k]
	if !ok {
		if c.per == nil {
			c.per = map[perKey]decimal.Decimal{}
		}
		per = Per(p, unit)
		c.per[k] = per
	}
	b, ok := scaled(q, per)
	if !ok { // the field's name is only written for a refusal
		return decimal.Zero, TooLarge(fmt.Sprintf("lines[%d].%s", i, name), b)
	}
	return b, nil
}

// TooLarge refuses field, whose quantity makes base (of a line, or of the
// lot it adds to) beyond what a column keeps: 400 naming the field.
func TooLarge(field string, base decimal.Decimal) error {
	return problem.Invalidf(field, "makes %s base units, beyond the largest quantity kept (below 10^%d)", base, bounds.MagnitudeExp)
}
