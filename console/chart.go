// Bar charts drawn on the server: inline SVG the page's stylesheet colours
// (light and dark alike), with their numbers in words and in a table for
// whoever cannot see them. No script draws them.

package console

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"
)

// The plot's coordinates: each period is slotWidth wide, its bar barWidth;
// the plot is chartHeight tall. The SVG stretches to its box (the stylesheet
// sets the box's size), so these fix only the proportions.
const (
	slotWidth   = 10
	barWidth    = 8
	chartHeight = 100
)

// chartSeries is one part of every bar: its name (in the legend and the
// table's heading) and the class that colours it.
type chartSeries struct {
	Name, Class string
}

// chartPeriod is one bar: its period in words (in the table and the bar's
// title), and a value per series, stacked from the bottom in the series'
// order.
type chartPeriod struct {
	Label  string
	Values []int
}

// barChart is a stacked bar chart of periods, ready for the "barchart"
// template.
type barChart struct {
	// ID makes the chart's element ids unique on the page.
	ID string
	// Title names the chart (its heading and the SVG's title); Summary says
	// what it shows in a sentence (the SVG's description).
	Title, Summary string
	Series         []chartSeries
	Periods        []chartPeriod
	// First and Last label the time axis's ends.
	First, Last string
	// Max is the value the plot's top stands for.
	Max int
	// Small draws a compact chart (in a table's cell), without its legend
	// and axis.
	Small bool
	// Extra is a column the table adds after the series' values (a share in
	// percent), with its heading; ExtraOf is its value per period.
	Extra   string
	ExtraOf []string
}

// chartBar is one stacked segment as drawn.
type chartBar struct {
	X, Y, W, H int
	Class      string
}

// Width is the plot's width in its own coordinates.
func (c barChart) Width() int { return max(1, len(c.Periods)) * slotWidth }

// Height is the plot's height in its own coordinates.
func (c barChart) Height() int { return chartHeight }

// Bars are the segments of every bar, each scaled to Max: a segment of a
// value above zero is at least one unit tall, so a period with a few
// requests among many still shows.
func (c barChart) Bars() []chartBar {
	top := max(c.Max, 1)
	var out []chartBar
	for i, p := range c.Periods {
		y := chartHeight
		for j, v := range p.Values {
			if v <= 0 || j >= len(c.Series) {
				continue
			}
			h := max(1, v*chartHeight/top)
			h = min(h, y)
			y -= h
			out = append(out, chartBar{X: i*slotWidth + (slotWidth-barWidth)/2, Y: y, W: barWidth, H: h, Class: c.Series[j].Class})
		}
	}
	return out
}

// Totals are each period's values added up, as the bars' data.
func (c barChart) Totals() []int {
	out := make([]int, len(c.Periods))
	for i, p := range c.Periods {
		for _, v := range p.Values {
			out[i] += v
		}
	}
	return out
}

// Rows are the table's rows: each period with its values (and the extra
// column's).
func (c barChart) Rows() [][]string {
	out := make([][]string, len(c.Periods))
	for i, p := range c.Periods {
		row := []string{p.Label}
		for _, v := range p.Values {
			row = append(row, counted(v))
		}
		if c.Extra != "" && i < len(c.ExtraOf) {
			row = append(row, c.ExtraOf[i])
		}
		out[i] = row
	}
	return out
}

// Data is the bars' values as the SVG carries them (data-values): per
// period, its values space separated; periods separated by commas.
func (c barChart) Data() string {
	parts := make([]string, len(c.Periods))
	for i, p := range c.Periods {
		vs := make([]string, len(p.Values))
		for j, v := range p.Values {
			vs[j] = strconv.Itoa(v)
		}
		parts[i] = strings.Join(vs, " ")
	}
	return strings.Join(parts, ",")
}

// newBarChart is a chart of periods whose top is the largest period's total
// (at least 1).
func newBarChart(id, title string, series []chartSeries, periods []chartPeriod) barChart {
	c := barChart{ID: id, Title: title, Series: series, Periods: periods}
	for _, t := range c.Totals() {
		c.Max = max(c.Max, t)
	}
	if len(periods) > 0 {
		c.First, c.Last = periods[0].Label, periods[len(periods)-1].Label
	}
	return c
}

// percent is n of total in percent, to one decimal below 10%: "—" of none.
func percent(n, total int) string {
	if total == 0 {
		return "—"
	}
	p := float64(n) * 100 / float64(total)
	if p > 0 && p < 10 {
		return strconv.FormatFloat(p, 'f', 1, 64) + "%"
	}
	return fmt.Sprintf("%.0f%%", p)
}

// counted is a count with its thousands grouped (12,345).
func counted(n int) string { return grouped(decimal.NewFromInt(int64(n))) }

// MaxLabel is the value of the plot's top, in words.
func (c barChart) MaxLabel() string { return counted(c.Max) }
