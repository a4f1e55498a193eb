package console

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A bar's segments stack from the plot's floor in the series' order, each
// as tall as its share of the tallest bar; a value above zero is never drawn
// as nothing, and a period of zero draws no segment.
func TestBarsScaleToTheTallest(t *testing.T) {
	c := newBarChart("x", "X", requestSeries, []chartPeriod{
		{Label: "a", Values: []int{3, 1}},
		{Label: "b", Values: []int{0, 0}},
		{Label: "c", Values: []int{999, 1}},
	})
	if c.Max != 1000 {
		t.Fatalf("top %d, want the tallest total 1000", c.Max)
	}
	want := []chartBar{
		{X: 1, Y: 99, W: 8, H: 1, Class: "bar-ok"}, // 3 of 1000: at least one unit
		{X: 1, Y: 98, W: 8, H: 1, Class: "bar-err"},
		{X: 21, Y: 1, W: 8, H: 99, Class: "bar-ok"},
		{X: 21, Y: 0, W: 8, H: 1, Class: "bar-err"},
	}
	if d := cmp.Diff(want, c.Bars()); d != "" {
		t.Errorf("bars (-want +got):\n%s", d)
	}
	if c.Data() != "3 1,0 0,999 1" || c.Width() != 30 {
		t.Errorf("data %q, width %d", c.Data(), c.Width())
	}
	half := newBarChart("y", "Y", requestSeries, []chartPeriod{{Label: "a", Values: []int{30, 10}}, {Label: "b", Values: []int{20, 0}}})
	if d := cmp.Diff([]chartBar{
		{X: 1, Y: 25, W: 8, H: 75, Class: "bar-ok"},
		{X: 1, Y: 0, W: 8, H: 25, Class: "bar-err"},
		{X: 11, Y: 50, W: 8, H: 50, Class: "bar-ok"},
	}, half.Bars()); d != "" {
		t.Errorf("bars (-want +got):\n%s", d)
	}
}

func TestPercent(t *testing.T) {
	for _, c := range []struct {
		n, total int
		want     string
	}{{0, 0, "—"}, {0, 5, "0%"}, {2, 3, "67%"}, {1, 200, "0.5%"}, {5, 5, "100%"}, {1, 10, "10%"}} {
		if got := percent(c.n, c.total); got != c.want {
			t.Errorf("percent(%d, %d) = %q, want %q", c.n, c.total, got, c.want)
		}
	}
}

// The article before an event's resource reads as spoken: an invoice, a
// bill, an order, a unit.
func TestCapitalArticle(t *testing.T) {
	for w, want := range map[string]string{"invoice": "An", "bill": "A", "order": "An", "unit": "A", "hour": "An", "shipment": "A", "Estimate": "An", "": "A"} {
		if got := capitalArticle(w); got != want {
			t.Errorf("capitalArticle(%q) = %q, want %q", w, got, want)
		}
	}
}
