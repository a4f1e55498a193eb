package csvcell_test

import (
	"bytes"
	"testing"

	"larder.dev/larder/internal/platform/csvcell"
)

// A cell a spreadsheet would evaluate (=, +, -, @, tab, carriage return
// first) is written behind a single quote, the rest (plain numbers
// included) as they are; reading the cells back gives every value as it was.
func TestCellsNeverFormulas(t *testing.T) {
	cases := []struct{ value, cell string }{
		{"=HYPERLINK(\"http://x\")", "'=HYPERLINK(\"http://x\")"},
		{"+1", "'+1"},
		{"-5", "-5"},
		{"-0.5", "-0.5"},
		{"-2+3", "'-2+3"},
		{"-1e9", "'-1e9"},
		{"@SUM(A1)", "'@SUM(A1)"},
		{"\tx", "'\tx"},
		{"\rx", "'\rx"},
		{"'=x", "''=x"},
		{"''-1", "'''-1"},
		{"'Tis", "'Tis"},
		{"plain", "plain"},
		{"a=b", "a=b"},
		{"", ""},
		{"'", "'"},
	}
	for _, tc := range cases {
		if got := csvcell.Neutral(tc.value); got != tc.cell {
			t.Errorf("Neutral(%q) = %q, want %q", tc.value, got, tc.cell)
		}
		if got := csvcell.Value(tc.cell); got != tc.value {
			t.Errorf("Value(%q) = %q, want %q", tc.cell, got, tc.value)
		}
	}
	var b bytes.Buffer
	w := csvcell.NewWriter(&b)
	if err := w.Write([]string{"=1+1", "-2", "ok", "@x", "-x"}); err != nil {
		t.Fatal(err)
	}
	w.Flush()
	if err := w.Error(); err != nil {
		t.Fatal(err)
	}
	if got, want := b.String(), "'=1+1,-2,ok,'@x,'-x\n"; got != want {
		t.Fatalf("written %q, want %q", got, want)
	}
}
