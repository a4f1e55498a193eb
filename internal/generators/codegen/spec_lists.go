package codegen

// Query parameters of lists: paging, sort, search and filters.

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ogen-go/ogen"

	"larder.dev/larder/client/bounds"
	"larder.dev/larder/internal/generators/annotate"
)

// listParams are the query parameters of a list: paging, sort, search, the
// filters and updated_since.
func (b *specBuilder) listParams(r *Resource) ([]*ogen.Parameter, error) {
	ps := []*ogen.Parameter{
		{Ref: refParameters + "limit"},
		{Ref: refParameters + "offset"},
		{Ref: refParameters + "cursor"},
		ogen.NewParameter().InQuery().SetName("sort").
			SetDescription("Comma-separated field:direction pairs (direction asc or desc, default asc); id is always appended. " +
				"Fields: " + strings.Join(r.Sorts(), ", ") + ".").
			SetSchema(example(ogen.String(), `"id:desc"`)),
	}
	if r.Ann.Unpaginated != "" {
		ps = nil
	}
	if searched := r.Searched(); len(searched) > 0 {
		var names, exact []string
		if r.Ann.SearchID {
			exact = append(exact, "id")
		}
		for _, f := range searched {
			if f.Ann.SearchEq || f.F.Type.Numeric() {
				exact = append(exact, f.Name)
			} else {
				names = append(names, f.Name)
			}
		}
		desc := "Case-insensitive text matched within " + strings.Join(names, ", ") + "."
		if len(exact) > 0 {
			desc += " Also an exact match on " + strings.Join(exact, ", ") + "."
		}
		if r.Ann.SearchAlone {
			desc += " Cannot be combined with the named filters (400)."
		}
		desc += fmt.Sprintf(" At most %d characters.", bounds.FilterLen)
		ps = append(ps, ogen.NewParameter().InQuery().SetName("search").SetDescription(desc).SetSchema(textParam()))
	}
	for _, f := range r.Filters() {
		if f.Ann.Filter == annotate.Between {
			names := filterParams(f)
			ps = append(ps,
				ogen.NewParameter().InQuery().SetName(names[0]).SetSchema(ogen.Date()).
					SetDescription(fmt.Sprintf("Only rows whose %s is on or after this date (YYYY-MM-DD, inclusive); rows without one are left out.", f.Name)),
				ogen.NewParameter().InQuery().SetName(names[1]).SetSchema(ogen.Date()).
					SetDescription(fmt.Sprintf("Only rows whose %s is on or before this date (YYYY-MM-DD, inclusive); rows without one are left out.", f.Name)))
			continue
		}
		p := ogen.NewParameter().InQuery().SetName(filterParam(f))
		switch f.Ann.Filter {
		case annotate.Partial:
			p.SetSchema(textParam()).SetDescription(fmt.Sprintf("Case-insensitive partial match on %s, at most %d characters.", f.Name, bounds.FilterLen))
		case annotate.AnyOf:
			s, err := b.fieldSchema(f, false, false)
			if err != nil {
				return nil, err
			}
			if f.IsID() {
				s.SetMinimum(&minID)
			}
			explode := true
			p.SetSchema(s.AsArray()).SetDescription("Repeatable: matches any of the values of " + f.Name + ".")
			p.Explode = &explode
			p.Style = "form"
		default:
			s, err := b.fieldSchema(f, false, false)
			if err != nil {
				return nil, err
			}
			p.SetSchema(s).SetDescription("Exact match on " + f.Name + ".")
			if f.IsID() {
				// Every id is an integer greater than 0; a filter on 0 is a
				// mistake, refused like a path id of 0 rather than listing nothing.
				s.SetMinimum(&minID)
				p.Description = "Exact match on " + f.Name + ", an id: an integer of at least 1."
			}
			if s.Type == "string" && s.Format == "" {
				s.SetMaxLength(ptrUint(&filterLen))
				p.Description = fmt.Sprintf("Exact match on %s, at most %d characters.", f.Name, bounds.FilterLen)
			}
		}
		if f.Ann.FilterRequired {
			p.SetRequired(true)
			p.Description = "Required. " + p.Description
		}
		ps = append(ps, p)
	}
	for _, f := range r.Includes() {
		what := pluralProse(r)
		desc := fmt.Sprintf("Whether to list %s whose %s is true (default %t); false lists only %s whose %s is false.",
			what, f.Name, f.Ann.IncludeDefault, what, f.Name)
		ps = append(ps, ogen.NewParameter().InQuery().SetName(f.Ann.Include).SetDescription(desc).
			SetSchema(ogen.Bool().SetDefault(json.RawMessage(fmt.Sprint(f.Ann.IncludeDefault)))))
	}
	if r.Ann.UpdatedSince {
		b.spec.Components.Parameters["updated_since"] = ogen.NewParameter().InQuery().SetName("updated_since").
			SetDescription("ISO 8601 timestamp, read as UTC without an offset: only rows changed after it. " +
				"Tracks the record itself, not its child rows; deletions are not reported.").
			SetSchema(example(ogen.String(), `"2026-01-31T12:00:00Z"`))
		ps = append(ps, &ogen.Parameter{Ref: refParameters + "updated_since"})
	}
	return ps, nil
}

var (
	filterLen = int64(bounds.FilterLen)
	minID     = int64(1)
)

// textParam is the schema of a free-text query parameter: search and partial
// filters, bounded so that no pattern reaches a database limit.
func textParam() *ogen.Schema { return ogen.String().SetMaxLength(ptrUint(&filterLen)) }

// filterParams are the query parameters of f's filter: one, or the pair
// <name>_from and <name>_to of a date range.
func filterParams(f *Field) []string {
	if f.Ann.Filter == annotate.Between {
		return []string{filterParam(f) + "_from", filterParam(f) + "_to"}
	}
	return []string{filterParam(f)}
}

func filterParam(f *Field) string {
	if f.Ann.FilterParam != "" {
		return f.Ann.FilterParam
	}
	return f.Name
}
