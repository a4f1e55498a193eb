package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"larder.dev/larder/internal/modules/catalog"
)

// progressAbove is the size of a job from which a progress bar is drawn.
const progressAbove = 2000

// progress draws a one-line progress bar on stderr, at most a few times a
// second, when stderr is a terminal (never into a log file or a pipe).
type progress struct {
	w     io.Writer
	tty   bool
	label string
	start time.Time
	last  time.Time
	total int
	done_ int
}

func newProgress(w io.Writer, label string) *progress {
	return &progress{w: w, tty: isTerminal(w), label: label, start: time.Now()}
}

// set reports done of total.
func (p *progress) set(done, total int) {
	p.done_, p.total = done, total
	if !p.tty || time.Since(p.last) < 200*time.Millisecond && done < total {
		return
	}
	p.last = time.Now()
	const width = 30
	filled := 0
	if total > 0 {
		filled = width * done / total
	}
	rate := float64(done) / time.Since(p.start).Seconds()
	fmt.Fprintf(p.w, "\r%s [%s%s] %d/%d %.0f/s", p.label, strings.Repeat("#", filled), strings.Repeat(".", width-filled), done, total, rate)
}

// done ends the bar's line.
func (p *progress) done() {
	if p.tty {
		fmt.Fprintln(p.w)
	}
}

// rate is the items per second so far.
func (p *progress) rate() float64 { return float64(p.done_) / time.Since(p.start).Seconds() }

func sortProblems(ps []catalog.LineError) {
	slices.SortStableFunc(ps, func(a, b catalog.LineError) int { return a.Line - b.Line })
}
