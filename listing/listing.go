// Package listing holds the runtime rules every list shares: page bounds, the
// sort parameter (with id appended), and updated_since. The generated list
// builders in package restapi call it; nothing here knows a resource.
package listing

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"entgo.io/ent/dialect/sql"

	"larder.dev/larder/bounds"
	"larder.dev/larder/problem"
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
}

// Sort orders a list by one sortable field, with the direction and nulls
// placement given: a column of the listed table, or a field of the row a
// foreign key references (ent's By<Edge>Field, which joins it).
type Sort func(opts ...sql.OrderTermOption) func(*sql.Selector)

// Column sorts by a column of the listed table.
func Column(col string) Sort {
	return func(opts ...sql.OrderTermOption) func(*sql.Selector) {
		return sql.OrderByField(col, opts...).ToFunc()
	}
}

// NewPage validates the page bounds and parses sort, a comma-separated list of
// field:direction pairs over the sortable fields (sorts maps API names to
// their orders). id is appended unless the caller sorted by it.
func NewPage(limit, offset int, sort string, sorts map[string]Sort) (Page, error) {
	if limit < 1 || limit > MaxLimit {
		return Page{}, problem.Invalidf("limit", "must be between 1 and %d", MaxLimit)
	}
	if offset < 0 || offset > MaxOffset {
		return Page{}, problem.Invalidf("offset", "must be between 0 and %d", MaxOffset)
	}
	p := Page{Limit: limit, Offset: offset}
	var applied, seen []string
	for _, term := range strings.Split(sort, ",") {
		term = strings.TrimSpace(term)
		if term == "" {
			if strings.TrimSpace(sort) != "" {
				return Page{}, problem.Invalid("sort", "has an empty term; use comma-separated field:direction pairs")
			}
			continue
		}
		name, dir, hasDir := strings.Cut(term, ":")
		name, dir = strings.TrimSpace(name), strings.ToLower(strings.TrimSpace(dir))
		col, ok := sorts[name]
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
		seen = append(seen, name)
		applied = append(applied, name+":"+dir)
		p.Order = append(p.Order, orderBy(col, dir))
	}
	if !slices.Contains(seen, "id") {
		applied = append(applied, "id:asc")
		p.Order = append(p.Order, orderBy(sorts["id"], "asc"))
	}
	p.Applied = strings.Join(applied, ",")
	return p, nil
}

// orderBy orders by s; nulls come last ascending and first descending on
// both databases (PostgreSQL's default; SQLite's is the reverse).
func orderBy(s Sort, dir string) func(*sql.Selector) {
	if dir == "desc" {
		return s(sql.OrderDesc(), sql.OrderNullsFirst())
	}
	return s(sql.OrderNullsLast())
}

func keys(m map[string]Sort) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
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
		Order:   []func(*sql.Selector){orderBy(Column(col), "asc"), orderBy(Column("id"), "asc")},
		Applied: col + ":asc,id:asc",
	}
}

// SearchID reads a free-text search as an id, for lists whose search also
// matches the id.
func SearchID(v string) (int, bool) {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	return n, err == nil && n > 0
}
