package forms

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"larder.dev/larder/internal/modules/manufacturing"
)

// The plan form's step rows: how many it shows at first, and how many it
// can grow to ("More step rows").
const (
	PlanRows, PlanRowsMax = 5, 50
	// CodeMax bounds a product code as typed; LotNumberMax is the API's.
	CodeMax, LotNumberMax = 100, 100
)

// DayLayout is a date field's layout (input type=date).
const DayLayout = time.DateOnly

// StepRows is how many step rows the plan form has (its "rows" field,
// within PlanRows and PlanRowsMax).
func StepRows(v url.Values) int {
	n, err := strconv.Atoi(get(v, "rows"))
	if err != nil || n < PlanRows {
		return PlanRows
	}
	return min(n, PlanRowsMax)
}

// positive reads field name as a number greater than zero: nil for an
// empty field, and an error beside the field for anything else.
func positive(v url.Values, errs *Errors, name, label string) *decimal.Decimal {
	x := get(v, name)
	if x == "" {
		return nil
	}
	q, ok := Quantity(x)
	if !ok {
		errs.Add(name, label+" must be a number greater than 0, such as 120 or 2.5.")
		return nil
	}
	return &q
}

// grouped is a number written with a comma between its thousands, as the
// pages show quantities (1,250.5).
var grouped = regexp.MustCompile(`^\d{1,3}(,\d{3})+(\.\d+)?$`)

// Quantity reads x as a number greater than zero, plain (1250.5) or with
// its thousands separated by commas (1,250.5); a comma anywhere else is
// refused, never read as a decimal point.
func Quantity(x string) (decimal.Decimal, bool) {
	if len(x) > 40 {
		return decimal.Zero, false
	}
	if grouped.MatchString(x) {
		x = strings.ReplaceAll(x, ",", "")
	}
	q, err := decimal.NewFromString(x)
	if err != nil || !q.IsPositive() {
		return decimal.Zero, false
	}
	return q, true
}

// ParseDraft reads the plan form into a draft: a product code, a line from
// the list, a positive quantity, a lot number and an expiry date, and the
// step rows filled in (step_product_<i>, step_qty_<i>). rows maps the
// draft's steps to the form's rows.
func ParseDraft(v url.Values) (d manufacturing.Draft, rows []int, errs Errors) {
	if d.Product = get(v, "product"); d.Product == "" {
		errs.Add("product", "Enter the code of the product the run makes.")
	} else if len(d.Product) > CodeMax {
		errs.Add("product", fmt.Sprintf("A product code has at most %d characters.", CodeMax))
	}
	if line := get(v, "line"); line != "" {
		if _, err := strconv.Atoi(line); err != nil {
			errs.Add("line", "Choose a production line from the list.")
		}
		d.Line = line
	}
	d.Quantity = positive(v, &errs, "quantity", "The planned quantity")
	if x := get(v, "lot_number"); len(x) > LotNumberMax {
		errs.Add("lot_number", fmt.Sprintf("A lot number has at most %d characters.", LotNumberMax))
	} else if x != "" {
		d.LotNumber = &x
	}
	if x := get(v, "expires"); x != "" {
		t, err := time.ParseInLocation(DayLayout, x, time.UTC)
		if err != nil {
			errs.Add("expires", "Enter a date such as 2027-01-31.")
		} else {
			d.ExpirationDate = &t
		}
	}
	for i := range StepRows(v) {
		code, qname := fmt.Sprintf("step_product_%d", i), fmt.Sprintf("step_qty_%d", i)
		if get(v, code) == "" && get(v, qname) == "" {
			continue
		}
		step := manufacturing.DraftStep{Product: get(v, code)}
		switch {
		case step.Product == "":
			errs.Add(code, "Enter the component's product code, or clear its quantity.")
		case len(step.Product) > CodeMax:
			errs.Add(code, fmt.Sprintf("A product code has at most %d characters.", CodeMax))
		}
		if q := positive(v, &errs, qname, "The component's quantity"); q != nil {
			step.Quantity = *q
		} else if _, bad := errs[qname]; !bad {
			errs.Add(qname, "Enter the component's quantity in its base unit.")
		}
		d.Steps = append(d.Steps, step)
		rows = append(rows, i)
	}
	return d, rows, errs
}

// ParseCompletion reads the completion form: the produced quantity,
// positive release, and the quantities taken from lots by name
// (take_<lot id>), in the order of the lots' ids.
func ParseCompletion(v url.Values) (manufacturing.Completion, Errors) {
	var errs Errors
	c := manufacturing.Completion{Produced: positive(v, &errs, "produced", "The produced quantity"), PositiveRelease: get(v, "release") != ""}
	var ids []int
	for name := range v {
		if id, ok := strings.CutPrefix(name, "take_"); ok {
			n, err := strconv.Atoi(id)
			if err != nil || n <= 0 {
				errs.Add("", "The form names a lot that does not exist; reload the page.")
				continue
			}
			ids = append(ids, n)
		}
	}
	slices.Sort(ids)
	for _, id := range ids {
		name := "take_" + strconv.Itoa(id)
		if q := positive(v, &errs, name, "The quantity taken"); q != nil {
			c.Consume = append(c.Consume, manufacturing.Consumption{LotID: id, QuantityBase: *q})
		}
	}
	return c, errs
}
