package manufacturing

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"entgo.io/ent/dialect/sql"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/predicate"
	"larder.dev/larder/ent/product"
	"larder.dev/larder/ent/production"
	"larder.dev/larder/ent/productlot"
)

// RunFilter narrows a list of production runs.
type RunFilter struct {
	// Statuses are the runs' statuses; empty means every status.
	Statuses []production.Status
	// Lot is part of the run's lot number, in any case.
	Lot string
	// Product is part of the product's code or name, in any case.
	Product string
	// Line is the run's production line id; 0 means any line.
	Line int
	// Sort is one of RunSorts ("" is the first: newest first).
	Sort string
	// Cursor is where the page starts: a RunPage's Next or Prev of the same
	// sort; empty for the first page.
	Cursor string
	// Limit is the number of runs a page holds, 0 for all.
	Limit int
}

// RunSorts are the orders a list of runs can take: the API's sort fields
// (production_no, start_date, end_date, status, id), each way; ties go by
// id, newest first. Runs without the date sorted on come last.
var RunSorts = []string{"-id", "id", "-production_no", "production_no", "-start_date", "start_date", "-end_date", "end_date", "status"}

// RunPage is a page of runs with the cursors of the pages either side.
type RunPage struct {
	Runs []*ent.Production
	// Next is the cursor of the runs after these, Prev of those before
	// ("" when there are none: Next is known exactly, Prev only on a page
	// reached backwards, and always set on one reached forwards).
	Next, Prev string
}

// ErrBadCursor is a cursor that is none, or one of another order.
var ErrBadCursor = errors.New("production runs: the cursor is not one of this order")

// runCursor is a place in a list of runs: just after (or before) the run
// whose sort key and id it holds. Key is nil for a run without the date
// sorted on, and for the sorts by id.
type runCursor struct {
	Before bool    `json:"b,omitempty"`
	Sort   string  `json:"s"`
	Key    *string `json:"k,omitempty"`
	ID     int     `json:"i"`
}

// encode is the cursor as the opaque text a link carries.
func (c runCursor) encode() string {
	b, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(b)
}

// cursorAt is the cursor just after r (before it, with before) in sort.
func cursorAt(sort string, r *ent.Production, before bool) runCursor {
	c := runCursor{Before: before, Sort: sort, ID: r.ID}
	var key string
	switch field, _ := strings.CutPrefix(sort, "-"); field {
	case production.FieldProductionNo:
		key = strconv.Itoa(r.ProductionNo)
	case production.FieldStartDate, production.FieldEndDate:
		t := r.StartDate
		if field == production.FieldEndDate {
			t = r.EndDate
		}
		if t == nil {
			return c
		}
		key = t.UTC().Format(time.RFC3339Nano)
	case production.FieldStatus:
		key = string(r.Status)
	default:
		return c
	}
	c.Key = &key
	return c
}

// decodeCursor reads s as a cursor of sort.
func decodeCursor(s, sort string) (runCursor, any, error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return runCursor{}, nil, ErrBadCursor
	}
	var c runCursor
	if err := json.Unmarshal(b, &c); err != nil || c.Sort != sort || c.ID <= 0 {
		return runCursor{}, nil, ErrBadCursor
	}
	field, _ := strings.CutPrefix(sort, "-")
	if field == production.FieldID {
		if c.Key != nil {
			return runCursor{}, nil, ErrBadCursor
		}
		return c, nil, nil
	}
	nullable := field == production.FieldStartDate || field == production.FieldEndDate
	if c.Key == nil {
		if !nullable {
			return runCursor{}, nil, ErrBadCursor
		}
		return c, nil, nil
	}
	var key any
	switch field {
	case production.FieldProductionNo:
		key, err = strconv.Atoi(*c.Key)
	case production.FieldStatus:
		key, err = *c.Key, production.StatusValidator(production.Status(*c.Key))
	default:
		key, err = time.Parse(time.RFC3339Nano, *c.Key)
	}
	if err != nil {
		return runCursor{}, nil, ErrBadCursor
	}
	return c, key, nil
}

// beyond is the runs past cursor c (with its key) in the order field, desc:
// after it, or before it for a cursor backwards. Ties on the key go by id,
// highest first; runs without a date come after every dated one.
func beyond(c runCursor, key any, field string, desc bool) predicate.Production {
	// forward is whether the rows wanted have a greater key: after in an
	// ascending order, before in a descending one.
	forward := desc == c.Before
	past := func(f string, v any) predicate.Production {
		if forward {
			return sql.FieldGT(f, v)
		}
		return sql.FieldLT(f, v)
	}
	// Ties go by id, highest first: after a run come the lower ids.
	tie := production.IDLT(c.ID)
	if c.Before {
		tie = production.IDGT(c.ID)
	}
	if field == production.FieldID {
		return past(production.FieldID, c.ID)
	}
	if key == nil {
		// A run without the date: after it only those also without, of lower
		// id; before it every dated run and those of higher id.
		if c.Before {
			return production.Or(sql.FieldNotNull(field), production.And(sql.FieldIsNull(field), tie))
		}
		return production.And(sql.FieldIsNull(field), tie)
	}
	p := production.Or(past(field, key), production.And(sql.FieldEQ(field, key), tie))
	if !c.Before && (field == production.FieldStartDate || field == production.FieldEndDate) {
		p = production.Or(p, sql.FieldIsNull(field))
	}
	return p
}

// ListRuns lists a page of the runs of the viewer's account in ctx that
// match f, each with its product and production line. A page follows its
// cursor by the sort key and then id, so a run that changes status or goes
// between two pages does not move the others: every run that stays in the
// list is on exactly one page.
func ListRuns(ctx context.Context, c *ent.Client, f RunFilter) (RunPage, error) {
	if f.Limit < 0 {
		return RunPage{}, fmt.Errorf("production runs: limit must not be negative")
	}
	sort := f.Sort
	if sort == "" {
		sort = RunSorts[0]
	}
	if !slices.Contains(RunSorts, sort) {
		return RunPage{}, fmt.Errorf("production runs: no sort %q", f.Sort)
	}
	field, desc := strings.CutPrefix(sort, "-")
	q := c.Production.Query().WithProduct(withUnits).WithProductionLine()
	if len(f.Statuses) > 0 {
		q.Where(production.StatusIn(f.Statuses...))
	}
	if f.Lot != "" {
		q.Where(production.LotNumberContainsFold(f.Lot))
	}
	if f.Product != "" {
		q.Where(production.HasProductWith(product.Or(product.ProductCodeContainsFold(f.Product), product.NameContainsFold(f.Product))))
	}
	if f.Line > 0 {
		q.Where(production.ProductionLineID(f.Line))
	}
	var cur runCursor
	if f.Cursor != "" {
		var key any
		var err error
		if cur, key, err = decodeCursor(f.Cursor, sort); err != nil {
			return RunPage{}, err
		}
		q.Where(beyond(cur, key, field, desc))
	}
	if f.Limit > 0 {
		q.Limit(f.Limit + 1)
	}
	// A page backwards reads the order reversed from its cursor, then turns
	// the runs round.
	down, nulls, tie := desc, sql.OrderNullsLast(), sql.OrderDesc()
	if cur.Before {
		down, nulls, tie = !desc, sql.OrderNullsFirst(), sql.OrderAsc()
	}
	opts := []sql.OrderTermOption{nulls}
	if down {
		opts = append(opts, sql.OrderDesc())
	}
	if field == production.FieldID {
		q.Order(production.ByID(opts[1:]...))
	} else {
		q.Order(sql.OrderByField(field, opts...).ToFunc(), production.ByID(tie))
	}
	runs, err := q.All(ctx)
	if err != nil {
		return RunPage{}, err
	}
	more := f.Limit > 0 && len(runs) > f.Limit
	if more {
		runs = runs[:f.Limit]
	}
	if cur.Before {
		slices.Reverse(runs)
	}
	page := RunPage{Runs: runs}
	// The page's ends; an empty page turns its own cursor round.
	next, prev := cur, cur
	next.Before, prev.Before = false, true
	if len(runs) > 0 {
		next, prev = cursorAt(sort, runs[len(runs)-1], false), cursorAt(sort, runs[0], true)
	}
	switch {
	case f.Cursor == "":
		if more {
			page.Next = next.encode()
		}
	case cur.Before:
		page.Next = next.encode()
		if more {
			page.Prev = prev.encode()
		}
	default:
		page.Prev = prev.encode()
		if more {
			page.Next = next.encode()
		}
	}
	return page, nil
}

// RunOf reads run id of the viewer's account in ctx with its product, line,
// planned and consumed steps (with their products and lots), the products
// with their units; a run of another account is not found (ent's not-found
// error).
func RunOf(ctx context.Context, c *ent.Client, id int) (*ent.Production, error) {
	return c.Production.Query().Where(production.ID(id)).
		WithProduct(withUnits).WithProductionLine().
		WithPlannedSteps(func(q *ent.ProductionPlannedStepQuery) { q.WithProduct(withUnits) }).
		WithConsumedSteps(func(q *ent.ProductionConsumedStepQuery) { q.WithProduct(withUnits).WithLot() }).
		Only(ctx)
}

// withUnits loads a product's display and base units.
func withUnits(q *ent.ProductQuery) { q.WithUnitOfMeasure().WithUomBase() }

// OutputLots are the ids of the lots of the viewer's account in ctx numbered
// number, of product productID: a run's output lot.
func OutputLots(ctx context.Context, c *ent.Client, number string, productID int) ([]int, error) {
	return c.ProductLot.Query().Where(productlot.LotNumber(number), productlot.ProductID(productID)).IDs(ctx)
}
