package listing

import (
	"testing"
	"time"

	"larder.dev/larder/internal/platform/problem"
)

var sorts = map[string]Sort{"id": Column("id", Int), "name": Column("name", Text), "code": Column("code", Text)}

func TestNewPage(t *testing.T) {
	cases := []struct {
		name          string
		limit, offset int
		sort          string
		applied       string
		field         string // the field named by the 400, "" when valid
	}{
		{"default", 50, 0, "", "id:asc", ""},
		{"bounds inclusive", 200, 10000, "", "id:asc", ""},
		{"limit below", 0, 0, "", "", "limit"},
		{"limit above", 201, 0, "", "", "limit"},
		{"offset below", 1, -1, "", "", "offset"},
		{"offset above", 1, 10001, "", "", "offset"},
		{"id appended", 1, 0, "name", "name:asc,id:asc", ""},
		{"direction", 1, 0, "name:desc,code:asc", "name:desc,code:asc,id:asc", ""},
		{"upper-case direction", 1, 0, "name:DESC", "name:desc,id:asc", ""},
		{"id given", 1, 0, "id:desc", "id:desc", ""},
		{"id in the middle", 1, 0, "code,id:desc,name", "code:asc,id:desc,name:asc", ""},
		{"spaces", 1, 0, " name : desc ", "name:desc,id:asc", ""},
		{"unknown field", 1, 0, "color", "", "sort"},
		{"bad direction", 1, 0, "name:sideways", "", "sort"},
		{"twice", 1, 0, "name,name:desc", "", "sort"},
		{"empty term", 1, 0, "name,", "", "sort"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := NewPage(Request{Limit: tc.limit, Offset: tc.offset, Sort: tc.sort}, sorts)
			if tc.field != "" {
				e, ok := problem.As(err)
				if !ok || e.Code != problem.Validation || e.Fields[0].Field != tc.field {
					t.Fatalf("error %v, want a 400 on %s", err, tc.field)
				}
				return
			}
			if err != nil || p.Applied != tc.applied || len(p.Order) != len(splitComma(tc.applied)) {
				t.Fatalf("page %+v, err %v, want order %q", p, err, tc.applied)
			}
		})
	}
}

func splitComma(s string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ',' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return out
}

func TestParseSince(t *testing.T) {
	utc := func(s string) time.Time {
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			panic(err)
		}
		return t.UTC()
	}
	cases := []struct {
		in   string
		want time.Time
	}{
		{"2026-01-31T12:00:00Z", utc("2026-01-31T12:00:00Z")},
		{"2026-01-31T12:00:00.25Z", utc("2026-01-31T12:00:00.25Z")},
		{"2026-01-31T12:00:00+02:00", utc("2026-01-31T10:00:00Z")},
		{"2026-01-31T12:00:00-05:00", utc("2026-01-31T17:00:00Z")},
		{"2026-01-31T12:00:00", utc("2026-01-31T12:00:00Z")},
		{"2026-01-31T12:00:00.5", utc("2026-01-31T12:00:00.5Z")},
		{"2026-01-31T12:00", utc("2026-01-31T12:00:00Z")},
		{"2026-01-31 12:00:00", utc("2026-01-31T12:00:00Z")},
		{"2026-01-31", utc("2026-01-31T00:00:00Z")},
	}
	for _, tc := range cases {
		got, err := ParseSince("updated_since", tc.in)
		if err != nil || !got.Equal(tc.want) || got.Location() != time.UTC {
			t.Fatalf("%q: %v %v, want %v", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "yesterday", "31/01/2026", "2026-13-01", "1706702400"} {
		_, err := ParseSince("updated_since", bad)
		if e, ok := problem.As(err); !ok || e.Fields[0].Field != "updated_since" {
			t.Fatalf("%q: error %v, want a 400 on updated_since", bad, err)
		}
	}
}

// A first page's shape names its list and order, the same for every first
// page of both; a page after a cursor or at an offset has none.
func TestShape(t *testing.T) {
	sorts := map[string]Sort{"id": Column("id", Int), "name": Column("name", Text)}
	page := func(r Request) Page {
		t.Helper()
		r.Limit, r.List = 10, "listTags"
		r.Filters = func() string { return "PRODUCT" }
		p, err := NewPage(r, sorts)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	first := page(Request{})
	if got := first.Shape(); got != "listTags id:asc" {
		t.Errorf("first page's shape %q, want %q", got, "listTags id:asc")
	}
	if a, b := page(Request{Sort: "name:desc"}).Shape(), page(Request{Sort: "name"}).Shape(); a == b || a == first.Shape() {
		t.Errorf("two orders share shapes: %q, %q, %q", a, b, first.Shape())
	}
	if got := page(Request{Offset: 10, OffsetSet: true}).Shape(); got != "" {
		t.Errorf("a page at an offset has shape %q, want none", got)
	}
	if got := page(Request{Offset: 0, OffsetSet: true}).Shape(); got != first.Shape() {
		t.Errorf("a page at offset 0 has shape %q, want the first page's", got)
	}
	next, err := first.Next(true, []any{int64(7)})
	if err != nil || next == nil {
		t.Fatalf("next cursor: %v, %v", next, err)
	}
	if got := page(Request{Cursor: *next}).Shape(); got != "" {
		t.Errorf("a page after a cursor has shape %q, want none", got)
	}
}
