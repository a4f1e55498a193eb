// Package listing holds the runtime rules every list shares: page bounds, the
// sort parameter (with id appended), cursors, and updated_since. The
// generated list builders in package restapi call it; nothing here knows a
// resource.
package listing

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"entgo.io/ent/dialect/sql"

	"larder.dev/larder/client/bounds"
	"larder.dev/larder/internal/platform/problem"
)

// Page bounds (spec Limits); the OpenAPI description states them too, so the
// server refuses out-of-range values before a handler runs.
const (
	DefaultLimit = 50
	MaxLimit     = 200
	MaxOffset    = 10000
)

// Page is a validated page request.
type Page struct {
	Limit, Offset int
	// Order are the ORDER BY terms, id last.
	Order []func(*sql.Selector)
	// Applied is the order as reported in a list's `order`, e.g. "name:asc,id:asc".
	Applied string

	terms   []term
	origin  origin
	filters func() string
	// after is the position of the cursor's row (nil without a cursor):
	// the page holds the rows after it in the order.
	after []any
}

// term is one term of a page's order.
type term struct {
	sort Sort
	desc bool
	// id is whether the term is the row's id (the sort named "id"), which
	// the row's node carries: the page's statement need not select it again.
	id bool
}

// Request is what a list was asked: the paging parameters, and what a
// cursor is bound to.
type Request struct {
	Limit int
	// Offset is the offset sent, if one was.
	Offset    int
	OffsetSet bool
	Sort      string
	Cursor    string
	// List names the list (its operation), Account the caller's account,
	// and Filters renders the filters and search sent (see Filters); it is
	// called only when a cursor is read or made.
	List    string
	Account int
	Filters func() string
}

// Kind is the type of a sortable field's values, as a cursor carries them.
type Kind uint8

const (
	Int Kind = iota + 1
	Text
	Time
	Bool
	Decimal
	Float
)

// Sort is one sortable field: how to order by it (with the direction and
// nulls placement given), and the SQL expression of its value in a row of
// the listed table, which cursors compare.
type Sort struct {
	Kind Kind
	// nullable is whether the value may be null; a cursor's predicate
	// leaves out the null cases of a value that cannot be.
	nullable bool
	order    func(opts ...sql.OrderTermOption) func(*sql.Selector)
	value    func(*sql.Selector) sql.Querier
}

// Column sorts by a column of the listed table.
func Column(col string, k Kind) Sort {
	return Sort{
		Kind: k,
		order: func(opts ...sql.OrderTermOption) func(*sql.Selector) {
			return sql.OrderByField(col, opts...).ToFunc()
		},
		value: func(s *sql.Selector) sql.Querier { return sql.Expr(s.C(col)) },
	}
}

// OrNull returns s for a column that may hold nulls.
func (s Sort) OrNull() Sort {
	s.nullable = true
	return s
}

// Borrowed sorts by the column col of the row that the listed table's
// foreign key fk references in table (id its key): order is ent's
// By<Edge>Field, which joins that row; cursors compare its value through a
// subquery on the same row.
func Borrowed(order func(opts ...sql.OrderTermOption) func(*sql.Selector), k Kind, table, id, col, fk string) Sort {
	return Sort{
		Kind:     k,
		nullable: true, // a missing row too
		order:    order,
		value: func(s *sql.Selector) sql.Querier {
			t := sql.Dialect(s.Dialect()).Table(table).As("larder_borrowed")
			sub := sql.Dialect(s.Dialect()).Select(t.C(col)).From(t).Where(sql.ColumnsEQ(t.C(id), s.C(fk)))
			return sql.ExprFunc(func(b *sql.Builder) { b.Wrap(func(b *sql.Builder) { b.Join(sub) }) })
		},
	}
}

// NewPage validates the page bounds and parses sort, a comma-separated list of
// field:direction pairs over the sortable fields (sorts maps API names to
// their orders). id is appended unless the caller sorted by it. A cursor,
// which excludes an offset, must come from the same list, sort, account and
// filters.
func NewPage(r Request, sorts map[string]Sort) (Page, error) {
	if r.Limit < 1 || r.Limit > MaxLimit {
		return Page{}, problem.Invalidf("limit", "must be between 1 and %d", MaxLimit)
	}
	if r.Offset < 0 || r.Offset > MaxOffset {
		return Page{}, problem.Invalidf("offset", "must be between 0 and %d", MaxOffset)
	}
	if r.Cursor != "" && r.OffsetSet {
		return Page{}, problem.Invalid("cursor", "cannot be combined with offset; a cursor page starts where the cursor's page ended")
	}
	p := Page{Limit: r.Limit, Offset: r.Offset}
	var applied, seen []string
	for _, t := range strings.Split(r.Sort, ",") {
		t = strings.TrimSpace(t)
		if t == "" {
			if strings.TrimSpace(r.Sort) != "" {
				return Page{}, problem.Invalid("sort", "has an empty term; use comma-separated field:direction pairs")
			}
			continue
		}
		name, dir, hasDir := strings.Cut(t, ":")
		name, dir = strings.TrimSpace(name), strings.ToLower(strings.TrimSpace(dir))
		s, ok := sorts[name]
		if !ok {
			return Page{}, problem.Invalidf("sort", "cannot sort by %q; sortable fields: %s", name, strings.Join(keys(sorts), ", "))
		}
		if !hasDir {
			dir = "asc"
		}
		if dir != "asc" && dir != "desc" {
			return Page{}, problem.Invalidf("sort", "direction of %q must be asc or desc", name)
		}
		if slices.Contains(seen, name) {
			return Page{}, problem.Invalidf("sort", "names %q twice", name)
		}
		applied = append(applied, name+":"+dir)
		p.Order = append(p.Order, orderBy(s, dir == "desc"))
		if !slices.Contains(seen, "id") {
			// Terms after id cannot change the order, ids being unique;
			// a cursor's position leaves them out.
			p.terms = append(p.terms, term{sort: s, desc: dir == "desc", id: name == "id"})
		}
		seen = append(seen, name)
	}
	if !slices.Contains(seen, "id") {
		applied = append(applied, "id:asc")
		p.Order = append(p.Order, orderBy(sorts["id"], false))
		p.terms = append(p.terms, term{sort: sorts["id"], id: true})
	}
	p.Applied = strings.Join(applied, ",")
	p.origin = origin{List: r.List, Sort: p.Applied, Account: r.Account}
	p.filters = r.Filters
	if r.Cursor != "" {
		after, err := decodeCursor(r.Cursor, p.bound(), p.terms)
		if err != nil {
			return Page{}, err
		}
		p.after = after
	}
	return p, nil
}

// orderBy orders by s; nulls come last ascending and first descending on
// both databases (PostgreSQL's default; SQLite's is the reverse).
func orderBy(s Sort, desc bool) func(*sql.Selector) {
	if desc {
		return s.order(sql.OrderDesc(), sql.OrderNullsFirst())
	}
	return s.order(sql.OrderNullsLast())
}

func keys(m map[string]Sort) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// Fetch is how many rows the page's statement reads: one more than the page
// after a cursor, so that the page knows whether rows follow it.
func (p Page) Fetch() int {
	if p.after != nil {
		return p.Limit + 1
	}
	return p.Limit
}

// Shape names the statement of a list's page for ent's Shaped: its list
// and its order, which make its modifiers and order the same on every first
// page of both. A page after a cursor, whose predicate takes the cursor's
// values, and a page at an offset, which ent writes into the statement's
// text, have none ("").
func (p Page) Shape() string {
	if p.after != nil || p.Offset > 0 {
		return ""
	}
	return p.origin.List + " " + p.Applied
}

// Cursor reports whether the page continues a cursor's walk.
func (p Page) Cursor() bool { return p.after != nil }

// Values are the expressions of the sort terms' values in a row of s, but
// for the id, which the row's node carries: a page's statement selects them
// beside its columns, and the last row's, with its id, make the next cursor
// (Last).
func (p Page) Values(s *sql.Selector) []sql.Querier {
	out := make([]sql.Querier, 0, len(p.terms))
	for _, t := range p.terms {
		if !t.id {
			out = append(out, t.sort.value(s))
		}
	}
	return out
}

// Last is the position of a page's last row, for Next: the values of the
// sort terms, values being those Values selected of the row (as the driver
// returned them) and id the row's id. It is nil when values are not the
// row's (no row was read).
func (p Page) Last(values []any, id int) []any {
	out := make([]any, 0, len(p.terms))
	for _, t := range p.terms {
		if t.id {
			out = append(out, int64(id))
			continue
		}
		if len(values) == 0 {
			return nil
		}
		out = append(out, values[0])
		values = values[1:]
	}
	if len(values) != 0 {
		return nil
	}
	return out
}

// After restricts s, the page's selector, to the rows after the cursor's
// row in the page's order (none without a cursor): for the terms (t1 … tn)
// with values (v1 … vn), the rows where t1 is after v1, or t1 equals v1 and
// t2 is after v2, and so on. Nulls sort last ascending and first
// descending, so a null is after every value ascending and before every
// value descending.
func (p Page) After(s *sql.Selector) {
	if p.after == nil {
		return
	}
	var or []*sql.Predicate
	var eq []*sql.Predicate
	for i, t := range p.terms {
		x, v := t.sort.value(s), p.after[i]
		var after *sql.Predicate
		switch {
		case v == nil && t.desc:
			after = notNull(x)
		case v == nil: // nothing is after a null ascending
		case t.desc:
			after = compare(x, "<", v)
		case t.sort.nullable:
			after = sql.Or(compare(x, ">", v), isNull(x))
		default:
			after = compare(x, ">", v)
		}
		if after != nil {
			or = append(or, sql.And(append(slices.Clip(eq), after)...))
		}
		if v == nil {
			eq = append(eq, isNull(x))
		} else {
			eq = append(eq, compare(x, "=", v))
		}
	}
	if len(or) == 0 {
		s.Where(sql.False())
		return
	}
	s.Where(sql.Or(or...))
}

func compare(x sql.Querier, op string, v any) *sql.Predicate {
	return sql.P(func(b *sql.Builder) { b.Join(x).WriteString(" " + op + " ").Arg(v) })
}

func isNull(x sql.Querier) *sql.Predicate {
	return sql.P(func(b *sql.Builder) { b.Join(x).WriteString(" IS NULL") })
}

func notNull(x sql.Querier) *sql.Predicate {
	return sql.P(func(b *sql.Builder) { b.Join(x).WriteString(" IS NOT NULL") })
}

// bound is the page's origin with the hash of its filters.
func (p Page) bound() origin {
	o := p.origin
	if p.filters != nil {
		o.Filters = filterHash(p.filters())
	} else {
		o.Filters = filterHash("")
	}
	return o
}

// Next is the cursor of the rows after a page whose last row's sort values
// are last (as the database returned them), or nil on the last page.
func (p Page) Next(more bool, last []any) (*string, error) {
	if !more || p.Limit == 0 || last == nil {
		return nil, nil
	}
	c, err := encodeCursor(p.bound(), p.terms, last)
	if err != nil {
		return nil, err
	}
	return &c, nil
}

// HasMore reports whether rows follow a page of n rows, fetched of them
// read, out of total.
func (p Page) HasMore(fetched, n, total int) bool {
	if p.after != nil {
		return fetched > n
	}
	return p.Offset+n < total
}

// ParseSince reads an ISO 8601 timestamp or date as bodies read their
// timestamps (bounds.ParseInstant): without an offset it is UTC.
func ParseSince(param, v string) (time.Time, error) {
	if t, ok := bounds.ParseInstant(v); ok {
		return t, nil
	}
	return time.Time{}, problem.Invalidf(param, "must be an ISO 8601 timestamp such as 2026-01-31T12:00:00Z (%s)", fmt.Sprintf("%q", v))
}

// All is the page of an unpaginated list: every row, ordered by the column
// col (nulls last), then id.
func All(col string) Page {
	return Page{
		Order:   []func(*sql.Selector){orderBy(Column(col, Text), false), orderBy(Column("id", Int), false)},
		Applied: col + ":asc,id:asc",
	}
}

// SearchID reads a free-text search as an id, for lists whose search also
// matches the id.
func SearchID(v string) (int, bool) {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	return n, err == nil && n > 0
}
