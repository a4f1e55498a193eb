package units

import (
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"larder.dev/larder/ent"
)

func ptr(f float64) *float64 { return &f }

func TestToBase(t *testing.T) {
	// A case of 12 bags of 25,000 g; a jar of 1/3 of 1,000 g.
	bag := &ent.Product{ID: 1, UomQty: ptr(12), UomBaseConversion: ptr(25000)}
	jar := &ent.Product{ID: 2, UomQty: ptr(0.333333), UomBaseConversion: ptr(1000)}
	var conv Converter
	for _, c := range []struct {
		p    *ent.Product
		unit string
		q    string
		want string
	}{
		{bag, Inventory, "1.5", "450000"},
		{bag, Packaging, "1.5", "37500"}, // the same product in another unit: another factor
		{bag, Base, "1.5", "1.5"},
		{jar, Inventory, "0.0000015", "0.0005"},   // 0.0004999995, half-up at six places
		{jar, Inventory, "-0.0000015", "-0.0005"}, // away from zero
		{jar, Inventory, "0.0000014", "0.000467"}, // 0.000466666…
		{jar, Inventory, "3", "999.999"},          // exact within six places
		{bag, Inventory, "1.5", "450000"},         // remembered
		{jar, Base, "0.1234565", "0.123457"},      // a base quantity is rounded too
	} {
		want := decimal.RequireFromString(c.want)
		got, err := ToBase(c.p, c.unit, decimal.RequireFromString(c.q), "q")
		if err != nil || !got.Equal(want) {
			t.Errorf("ToBase(%d, %s, %s) = %s, %v; want %s", c.p.ID, c.unit, c.q, got, err, want)
		}
		got, err = conv.ToBase(c.p, c.unit, decimal.RequireFromString(c.q), 0, "q")
		if err != nil || !got.Equal(want) {
			t.Errorf("Converter.ToBase(%d, %s, %s) = %s, %v; want %s", c.p.ID, c.unit, c.q, got, err, want)
		}
	}
	if _, err := conv.ToBase(bag, Inventory, decimal.RequireFromString("1e12"), 2, "quantity"); err == nil {
		t.Error("3×10^17 base units were kept")
	} else if !strings.Contains(err.Error(), "lines[2].quantity") {
		t.Errorf("the refusal of 3×10^17 base units does not name lines[2].quantity: %v", err)
	}
}
