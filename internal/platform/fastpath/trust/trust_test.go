package trust_test

import (
	"testing"

	entsql "entgo.io/ent/dialect/sql"

	"larder.dev/larder/internal/platform/fastpath/trust"
)

var test = &trust.Expr{Column: "test_check", Write: func(b *entsql.Builder, args []any) {
	b.Arg(args[0]).WriteString(" = ").Arg(args[1])
}}

// A check wants its column until a row carries it; NULL reads as false, a
// SQLite integer as a boolean, and a false among the rows is kept.
func TestCheckKeepsWhatTheRowsCarried(t *testing.T) {
	for _, tc := range []struct {
		name   string
		values []any
		holds  bool
	}{
		{"true", []any{true}, true},
		{"false", []any{false}, false},
		{"null", []any{nil}, false},
		{"sqlite true", []any{int64(1)}, true},
		{"sqlite false", []any{int64(0)}, false},
		{"a false among trues", []any{true, false, true}, false},
	} {
		c := trust.New(test, []any{1, 2})
		if !c.Wants() {
			t.Errorf("%s: a new check does not want its column", tc.name)
		}
		for _, v := range tc.values {
			if err := c.Scan(v); err != nil {
				t.Fatalf("%s: Scan(%v): %v", tc.name, v, err)
			}
		}
		if holds, seen := c.Seen(); holds != tc.holds || !seen {
			t.Errorf("%s: Seen() = %v, %v; want %v, true", tc.name, holds, seen, tc.holds)
		}
		if c.Wants() {
			t.Errorf("%s: a check the rows carried still wants its column", tc.name)
		}
	}
	c := trust.New(test, []any{1, 2})
	if err := c.Scan("yes"); err == nil {
		t.Error("a string scanned into a check: no error")
	}
	if _, seen := c.Seen(); seen || !c.Wants() {
		t.Error("a value that could not be scanned counted as carried")
	}
}

// The column's expression is the Expr's, written of the arguments given.
func TestCheckWritesItsExpression(t *testing.T) {
	c := trust.New(test, []any{7, 8})
	var b entsql.Builder
	b.SetDialect("postgres")
	c.Write(&b, c.Args())
	got, args := b.Query()
	if got != "$1 = $2" || c.Column() != "test_check" {
		t.Errorf("the check wrote %q as %q; want \"$1 = $2\" as test_check", got, c.Column())
	}
	if len(args) != 2 || args[0] != 7 || args[1] != 8 {
		t.Errorf("the check's arguments: %v", args)
	}
}
