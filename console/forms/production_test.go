package forms

import (
	"net/url"
	"slices"
	"strings"
	"testing"
)

func TestStepRows(t *testing.T) {
	for x, want := range map[string]int{"": PlanRows, "2": PlanRows, "x": PlanRows, "8": 8, "500": PlanRowsMax} {
		if got := StepRows(url.Values{"rows": {x}}); got != want {
			t.Errorf("rows %q: %d, want %d", x, got, want)
		}
	}
}

func TestParseDraft(t *testing.T) {
	ok := url.Values{"product": {"BREAD"}, "line": {"3"}, "quantity": {"120"}, "lot_number": {"L-1"}, "expires": {"2027-01-31"},
		"step_product_0": {"FLOUR"}, "step_qty_0": {"2.5"}, "step_product_2": {"SALT"}, "step_qty_2": {"0.1"}}
	d, rows, errs := ParseDraft(ok)
	if !errs.OK() {
		t.Fatalf("errors %v", errs)
	}
	if d.Product != "BREAD" || d.Line != "3" || d.Quantity == nil || d.Quantity.String() != "120" || d.LotNumber == nil || *d.LotNumber != "L-1" ||
		d.ExpirationDate == nil || d.ExpirationDate.Format(DayLayout) != "2027-01-31" {
		t.Errorf("%+v", d)
	}
	if !slices.Equal(rows, []int{0, 2}) || len(d.Steps) != 2 || d.Steps[1].Product != "SALT" || d.Steps[1].Quantity.String() != "0.1" {
		t.Errorf("steps %+v rows %v", d.Steps, rows)
	}
	if _, rows, _ := ParseDraft(with(ok, "step_product_6", "X", "step_qty_6", "1")); len(rows) != 2 {
		t.Errorf("a row beyond the form's rows was read: %v", rows)
	}
	if _, rows, _ := ParseDraft(with(ok, "rows", "10", "step_product_6", "X", "step_qty_6", "1")); !slices.Equal(rows, []int{0, 2, 6}) {
		t.Errorf("rows 10: %v", rows)
	}
	parse := func(v url.Values) Errors { _, _, e := ParseDraft(v); return e }
	long := strings.Repeat("P", CodeMax+1)
	checkRules(t, parse, []rule{
		{"no product", with(ok, "product", ""), "product", "Enter the code of the product the run makes."},
		{"product too long", with(ok, "product", long), "product", "A product code has at most 100 characters."},
		{"product at the limit", with(ok, "product", long[1:]), "product", ""},
		{"line not a number", with(ok, "line", "north"), "line", "Choose a production line from the list."},
		{"no line", with(ok, "line", ""), "line", ""},
		{"quantity zero", with(ok, "quantity", "0"), "quantity", "The planned quantity must be a number greater than 0, such as 120 or 2.5."},
		{"quantity not a number", with(ok, "quantity", "lots"), "quantity", "The planned quantity must be a number greater than 0, such as 120 or 2.5."},
		{"quantity too long", with(ok, "quantity", "1."+strings.Repeat("1", 40)), "quantity", "The planned quantity must be a number greater than 0, such as 120 or 2.5."},
		{"no quantity", with(ok, "quantity", ""), "quantity", ""},
		{"quantity with its thousands grouped", with(ok, "quantity", "1,200.5"), "quantity", ""},
		{"quantity with a decimal comma", with(ok, "quantity", "1,5"), "quantity", "The planned quantity must be a number greater than 0, such as 120 or 2.5."},
		{"quantity grouped wrongly", with(ok, "quantity", "12,00"), "quantity", "The planned quantity must be a number greater than 0, such as 120 or 2.5."},
		{"lot number too long", with(ok, "lot_number", strings.Repeat("L", LotNumberMax+1)), "lot_number", "A lot number has at most 100 characters."},
		{"lot number at the limit", with(ok, "lot_number", strings.Repeat("L", LotNumberMax)), "lot_number", ""},
		{"expiry malformed", with(ok, "expires", "01/31/2027"), "expires", "Enter a date such as 2027-01-31."},
		{"step without product", with(ok, "step_product_0", ""), "step_product_0", "Enter the component's product code, or clear its quantity."},
		{"step product too long", with(ok, "step_product_0", long), "step_product_0", "A product code has at most 100 characters."},
		{"step without quantity", with(ok, "step_qty_0", ""), "step_qty_0", "Enter the component's quantity in its base unit."},
		{"step quantity negative", with(ok, "step_qty_0", "-1"), "step_qty_0", "The component's quantity must be a number greater than 0, such as 120 or 2.5."},
		{"empty step row", with(ok, "step_product_0", "", "step_qty_0", ""), "step_qty_0", ""},
	})
}

func TestParseCompletion(t *testing.T) {
	ok := url.Values{"produced": {"100"}, "release": {"on"}, "take_12": {"3"}, "take_4": {"2"}, "take_7": {""}}
	c, errs := ParseCompletion(ok)
	if !errs.OK() || c.Produced == nil || c.Produced.String() != "100" || !c.PositiveRelease {
		t.Fatalf("%+v %v", c, errs)
	}
	if len(c.Consume) != 2 || c.Consume[0].LotID != 4 || c.Consume[1].LotID != 12 || c.Consume[1].QuantityBase.String() != "3" {
		t.Errorf("consume %+v", c.Consume)
	}
	if c, _ := ParseCompletion(url.Values{}); c.Produced != nil || c.PositiveRelease {
		t.Errorf("empty: %+v", c)
	}
	checkRules(t, func(v url.Values) Errors { _, e := ParseCompletion(v); return e }, []rule{
		{"produced zero", with(ok, "produced", "0"), "produced", "The produced quantity must be a number greater than 0, such as 120 or 2.5."},
		{"take from no lot", with(ok, "take_x", "1"), "", "The form names a lot that does not exist; reload the page."},
		{"take from lot 0", with(ok, "take_0", "1"), "", "The form names a lot that does not exist; reload the page."},
		{"take a bad quantity", with(ok, "take_4", "some"), "take_4", "The quantity taken must be a number greater than 0, such as 120 or 2.5."},
		{"take nothing", with(ok, "take_4", ""), "take_4", ""},
	})
}

func TestQuantityReadsGroupedThousands(t *testing.T) {
	for _, c := range []struct {
		in   string
		want string
		ok   bool
	}{
		{"1,200", "1200", true}, {"12,345,678.25", "12345678.25", true}, {"999", "999", true},
		{"1,5", "", false}, {"1,2000", "", false}, {",100", "", false}, {"0", "", false}, {"-1,000", "", false},
	} {
		q, ok := Quantity(c.in)
		if ok != c.ok || (ok && q.String() != c.want) {
			t.Errorf("Quantity(%q) = %s, %v; want %s, %v", c.in, q, ok, c.want, c.ok)
		}
	}
}
