package listing

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql"
	"github.com/google/go-cmp/cmp"

	"larder.dev/larder/internal/platform/problem"
)

var cursorSorts = map[string]Sort{
	"id":         Column("id", Int),
	"name":       Column("name", Text).OrNull(),
	"updated_at": Column("updated_at", Time),
	"active":     Column("active", Bool).OrNull(),
	"quantity":   Column("quantity", Decimal).OrNull(),
	"rate":       Column("rate", Float).OrNull(),
}

func request(sort, cursor string) Request {
	return Request{Limit: 10, Sort: sort, Cursor: cursor, List: "listThings", Account: 7, Filters: func() string { return `{"status":"OPEN"}` }}
}

// A cursor carries the last row's sort values back to the database as the
// driver returned them: times with every digit of their fraction and their
// offset, decimals as their text, nulls as nulls.
func TestCursorRoundTrip(t *testing.T) {
	at := time.Date(2026, 1, 31, 12, 0, 0, 123456789, time.FixedZone("", 2*3600))
	cases := []struct {
		sort string
		last []any
		want []any
	}{
		{"name", []any{"Émile", int64(42)}, []any{"Émile", int64(42)}},
		{"name", []any{[]byte("bytes"), int64(42)}, []any{"bytes", int64(42)}},
		{"updated_at:desc", []any{at, int64(9)}, []any{at, int64(9)}},
		{"active,quantity", []any{int64(1), []byte("12.500000"), int64(3)}, []any{true, "12.500000", int64(3)}},
		{"quantity", []any{float64(0.1), int64(3)}, []any{"0.1", int64(3)}},
		{"rate", []any{float64(0.1), int64(3)}, []any{0.1, int64(3)}},
		{"name:desc", []any{nil, int64(1)}, []any{nil, int64(1)}},
		{"id:desc,name", []any{int64(1 << 60)}, []any{int64(1 << 60)}},
	}
	for _, tc := range cases {
		p, err := NewPage(request(tc.sort, ""), cursorSorts)
		if err != nil {
			t.Fatal(err)
		}
		next, err := p.Next(true, tc.last)
		if err != nil || next == nil {
			t.Fatalf("%s: next %v, %v", tc.sort, next, err)
		}
		q, err := NewPage(request(tc.sort, *next), cursorSorts)
		if err != nil {
			t.Fatalf("%s: %v", tc.sort, err)
		}
		if len(q.after) != len(tc.want) {
			t.Fatalf("%s: position %#v, want %#v", tc.sort, q.after, tc.want)
		}
		for i := range tc.want {
			w, g := tc.want[i], q.after[i]
			if wt, ok := w.(time.Time); ok {
				gt, ok := g.(time.Time)
				if !ok || !gt.Equal(wt) || gt.Format(time.RFC3339Nano) != wt.Format(time.RFC3339Nano) {
					t.Fatalf("%s: time %v, want %v", tc.sort, g, w)
				}
				continue
			}
			if g != w {
				t.Fatalf("%s: value %d is %#v, want %#v", tc.sort, i, g, w)
			}
		}
		if q.Fetch() != 11 || !q.Cursor() {
			t.Fatalf("%s: a cursor page reads %d rows", tc.sort, q.Fetch())
		}
	}
}

// A cursor is bound to its list, sort, account and filters, excludes an
// offset, and a garbled one is a 400 on cursor, never a failure later.
func TestCursorRefused(t *testing.T) {
	p, err := NewPage(request("name", ""), cursorSorts)
	if err != nil {
		t.Fatal(err)
	}
	next, err := p.Next(true, []any{"m", int64(5)})
	if err != nil {
		t.Fatal(err)
	}
	good := *next
	content := func(edit func(m map[string]any)) string {
		b, _ := base64.RawURLEncoding.DecodeString(good)
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		edit(m)
		b, _ = json.Marshal(m)
		return base64.RawURLEncoding.EncodeToString(b)
	}
	cases := []struct {
		name string
		r    Request
	}{
		{"another list", func() Request { r := request("name", good); r.List = "listOthers"; return r }()},
		{"another account", func() Request { r := request("name", good); r.Account = 8; return r }()},
		{"another sort", request("name:desc", good)},
		{"no sort", request("", good)},
		{"other filters", func() Request {
			r := request("name", good)
			r.Filters = func() string { return `{"status":"SENT"}` }
			return r
		}()},
		{"with an offset", func() Request { r := request("name", good); r.OffsetSet = true; return r }()},
		{"with offset 0", func() Request { r := request("name", good); r.OffsetSet, r.Offset = true, 0; return r }()},
		{"not base64", request("name", "not a cursor!")},
		{"padded base64", request("name", good+"==")},
		{"not JSON", request("name", base64.RawURLEncoding.EncodeToString([]byte("{nope")))},
		{"JSON after JSON", request("name", base64.RawURLEncoding.EncodeToString([]byte(`{"v":1}{}`)))},
		{"too long", request("name", strings.Repeat("A", MaxCursor+1))},
		{"another version", request("name", content(func(m map[string]any) { m["v"] = 2 }))},
		{"unknown member", request("name", content(func(m map[string]any) { m["x"] = 1 }))},
		{"short position", request("name", content(func(m map[string]any) { m["k"] = []any{5} }))},
		{"long position", request("name", content(func(m map[string]any) { m["k"] = []any{"m", 5, 6} }))},
		{"number for text", request("name", content(func(m map[string]any) { m["k"] = []any{1, 5} }))},
		{"text for an id", request("name", content(func(m map[string]any) { m["k"] = []any{"m", "5"} }))},
		{"fractional id", request("name", content(func(m map[string]any) { m["k"] = []any{"m", 5.5} }))},
		{"null id", request("name", content(func(m map[string]any) { m["k"] = []any{"m", nil} }))},
		{"null for a column without nulls", request("updated_at", func() string {
			p, _ := NewPage(request("updated_at", ""), cursorSorts)
			n, _ := p.Next(true, []any{time.Unix(0, 0), int64(5)})
			b, _ := base64.RawURLEncoding.DecodeString(*n)
			var m map[string]any
			_ = json.Unmarshal(b, &m)
			m["k"] = []any{nil, 5}
			b, _ = json.Marshal(m)
			return base64.RawURLEncoding.EncodeToString(b)
		}())},
		{"position not a list", request("name", content(func(m map[string]any) { m["k"] = "m" }))},
	}
	typed := []struct {
		name, sort string
		k          []any
	}{
		{"not a time", "updated_at", []any{"yesterday", 5}},
		{"not a decimal", "quantity", []any{"1.2.3", 5}},
		{"decimal as number", "quantity", []any{1.5, 5}},
		{"not a bool", "active", []any{"true", 5}},
		{"not a float", "rate", []any{"0.1", 5}},
	}
	for _, tc := range typed {
		p, _ := NewPage(request(tc.sort, ""), cursorSorts)
		last := []any{nil, int64(5)}
		n, err := p.Next(true, last)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := base64.RawURLEncoding.DecodeString(*n)
		var m map[string]any
		_ = json.Unmarshal(b, &m)
		m["k"] = tc.k
		b, _ = json.Marshal(m)
		cases = append(cases, struct {
			name string
			r    Request
		}{tc.name, request(tc.sort, base64.RawURLEncoding.EncodeToString(b))})
	}
	for _, tc := range cases {
		_, err := NewPage(tc.r, cursorSorts)
		e, ok := problem.As(err)
		if !ok || e.Code != problem.Validation || len(e.Fields) != 1 || e.Fields[0].Field != "cursor" {
			t.Errorf("%s: error %v, want a 400 on cursor", tc.name, err)
		}
	}
	if _, err := NewPage(request("name", good), cursorSorts); err != nil {
		t.Fatalf("the cursor itself: %v", err)
	}
}

// The rows after a position follow the order's nulls placement: last
// ascending, so after a value come greater values and nulls and after a
// null nothing by that term; first descending, so after a value come lesser
// values only and after a null every value.
func TestAfterPredicate(t *testing.T) {
	cases := []struct {
		sort string
		last []any
		want string
	}{
		{"name", []any{"m", int64(5)},
			"`t`.`name` > ? OR `t`.`name` IS NULL OR (`t`.`name` = ? AND `t`.`id` > ?)"},
		{"name", []any{nil, int64(5)},
			"`t`.`name` IS NULL AND `t`.`id` > ?"},
		{"name:desc", []any{"m", int64(5)},
			"`t`.`name` < ? OR (`t`.`name` = ? AND `t`.`id` > ?)"},
		{"name:desc", []any{nil, int64(5)},
			"`t`.`name` IS NOT NULL OR (`t`.`name` IS NULL AND `t`.`id` > ?)"},
		{"updated_at", []any{time.Unix(0, 0), int64(5)},
			"`t`.`updated_at` > ? OR (`t`.`updated_at` = ? AND `t`.`id` > ?)"},
		{"id:desc", []any{int64(5)}, "`t`.`id` < ?"},
	}
	for _, tc := range cases {
		p, _ := NewPage(request(tc.sort, ""), cursorSorts)
		next, err := p.Next(true, tc.last)
		if err != nil {
			t.Fatal(err)
		}
		q, err := NewPage(request(tc.sort, *next), cursorSorts)
		if err != nil {
			t.Fatal(err)
		}
		s := sql.Dialect(dialect.SQLite).Select("*").From(sql.Table("t"))
		q.After(s)
		query, _ := s.Query()
		_, where, _ := strings.Cut(query, " WHERE ")
		if where != tc.want {
			t.Errorf("%s after %v:\n got %s\nwant %s", tc.sort, tc.last, where, tc.want)
		}
	}
}

// A page's statement selects the sort values but the id, which the last
// row's node carries; Last puts the id back in its place in the order.
func TestLastPutsTheIDInItsPlace(t *testing.T) {
	cases := []struct {
		sort     string
		selected int
		values   []any
		want     []any
	}{
		{"", 0, nil, []any{int64(7)}},
		{"name", 1, []any{"m"}, []any{"m", int64(7)}},
		{"id:desc,name", 0, nil, []any{int64(7)}},
		{"active,id,name", 1, []any{true}, []any{true, int64(7)}},
		{"updated_at:desc,name", 2, []any{"t", "n"}, []any{"t", "n", int64(7)}},
	}
	s := sql.Dialect(dialect.Postgres).Select().From(sql.Table("things"))
	for _, tc := range cases {
		p, err := NewPage(request(tc.sort, ""), cursorSorts)
		if err != nil {
			t.Fatal(err)
		}
		if got := len(p.Values(s)); got != tc.selected {
			t.Errorf("%q: %d values selected, want %d", tc.sort, got, tc.selected)
		}
		if got := p.Last(tc.values, 7); !cmp.Equal(got, tc.want) {
			t.Errorf("%q: Last = %v, want %v", tc.sort, got, tc.want)
		}
	}
	// Values that are not the row's make no position (no row was read).
	p, err := NewPage(request("name", ""), cursorSorts)
	if err != nil {
		t.Fatal(err)
	}
	for _, values := range [][]any{nil, {"a", "b"}} {
		if got := p.Last(values, 7); got != nil {
			t.Errorf("Last(%v) = %v, want nil", values, got)
		}
	}
}
