package leases

import (
	"testing"
	"time"
)

// Reserved numbers are used in order, once, and only in their window.
func TestLeasesHandOutReservedNumbers(t *testing.T) {
	l := New(time.Minute)
	now := time.Date(2030, 5, 1, 8, 30, 10, 0, time.UTC)
	if l.Has("acct:1", now) {
		t.Fatal("a new bucket has reserved numbers")
	}
	if got := l.Add("acct:1", now, 14, 5); got != 10 {
		t.Fatalf("Add(last 14, n 5) used %d, want 10", got)
	}
	var got []int
	for l.Has("acct:1", now) {
		n, ok := l.Take("acct:1", now)
		if !ok {
			t.Fatal("Has but no Take")
		}
		got = append(got, n)
	}
	if want := []int{11, 12, 13, 14}; len(got) != len(want) || got[0] != 11 || got[3] != 14 {
		t.Fatalf("took %v, want %v", got, want)
	}
	l.Add("acct:1", now, 20, 3)
	if l.Has("acct:1", now.Add(time.Minute)) {
		t.Fatal("numbers of the last window are offered in the next")
	}
	if _, ok := l.Take("acct:1", now.Add(time.Minute)); ok {
		t.Fatal("took a number of the last window")
	}
}

// A quiet account reserves one number at a time; a busy one more, within 1%
// of its limit and maxLease.
func TestLeaseSizeGrowsWithDemand(t *testing.T) {
	now := time.Date(2030, 5, 1, 8, 30, 10, 0, time.UTC)
	cases := []struct {
		served, limit, want int
	}{
		{0, 1000000, 1},
		{7, 1000000, 1},
		{80, 1000000, 10},
		{8 * maxLease, 1000000, maxLease},
		{100000, 1000000, maxLease},
		{10000, 300, 3},
		{10000, 99, 1},
	}
	for _, tc := range cases {
		l := New(time.Minute)
		for range tc.served {
			l.Add("b", now, 1, 1)
		}
		if got := size(l.pool("b", now), tc.limit); got != tc.want {
			t.Errorf("served %d, limit %d: size %d, want %d", tc.served, tc.limit, got, tc.want)
		}
	}
}

func TestLeasesPrune(t *testing.T) {
	l := New(time.Minute)
	now := time.Date(2030, 5, 1, 8, 30, 10, 0, time.UTC)
	l.Add("b", now, 5, 5)
	l.Prune(now.Add(time.Minute))
	if len(l.pools) != 0 {
		t.Fatalf("%d pools left", len(l.pools))
	}
}

// One batch at a time: while a batch is being reserved, requests that find
// the pool empty reserve one number each; an abandoned batch lets the next one
// start.
func TestOneBatchAtATime(t *testing.T) {
	l := New(time.Minute)
	now := time.Date(2030, 5, 1, 8, 30, 10, 0, time.UTC)
	for i := range 8 * maxLease {
		l.Add("b", now, i+1, 1)
	}
	if n := l.Next("b", 1000000, now); n != maxLease {
		t.Fatalf("first batch %d, want %d", n, maxLease)
	}
	if n := l.Next("b", 1000000, now); n != 1 {
		t.Fatalf("reservation during a batch %d, want 1", n)
	}
	l.Abandon("b", now, maxLease)
	if n := l.Next("b", 1000000, now); n != maxLease {
		t.Fatalf("batch after an abandoned batch %d, want %d", n, maxLease)
	}
	l.Add("b", now, 10*maxLease, maxLease)
	if n := l.Next("b", 1000000, now); n != 0 {
		t.Fatalf("reservation with %d numbers held %d, want 0", maxLease-1, n)
	}
}

// The next batch is reserved while the last quarter of the current one is
// served, for what the pool lacks of a batch: the pool does not run dry under
// steady use, and never holds more than one batch.
func TestNextBatchBeforeThePoolRunsDry(t *testing.T) {
	l := New(time.Minute)
	now := time.Date(2030, 5, 1, 8, 30, 10, 0, time.UTC)
	for i := range 8 * maxLease {
		l.Add("b", now, i+1, 1)
	}
	last := 8 * maxLease
	reserve := func(n int) {
		last += n
		l.Add("b", now, last, n)
	}
	reserve(l.Next("b", 1000000, now)) // maxLease: one used, the rest held
	taken := 0
	for l.Next("b", 1000000, now) == 0 {
		if _, ok := l.Take("b", now); !ok {
			t.Fatalf("the pool ran dry after %d numbers", taken)
		}
		taken++
	}
	if want := maxLease - 1 - maxLease/4; taken != want {
		t.Fatalf("the next batch was asked for after %d numbers, want %d (a quarter of %d left)", taken, want, maxLease)
	}
	if h := l.pool("b", now).held(); h != maxLease/4 {
		t.Fatalf("%d numbers held when the next batch was asked for, want %d", h, maxLease/4)
	}
	// Next started the batch: others take held numbers meanwhile.
	if n := l.Next("b", 1000000, now); n != 0 {
		t.Fatalf("reservation while the batch is reserved %d, want 0", n)
	}
	l.Take("b", now)
	reserve(maxLease - maxLease/4)
	if h := l.pool("b", now).held(); h > maxLease {
		t.Fatalf("%d numbers held, more than one batch", h)
	}
	var got []int
	for {
		n, ok := l.Take("b", now)
		if !ok {
			break
		}
		got = append(got, n)
	}
	for i := 1; i < len(got); i++ {
		if got[i] <= got[i-1] {
			t.Fatalf("numbers out of order or repeated: %v", got)
		}
	}
}

// A request from the previous minute cannot discard the current minute's numbers.
func TestLateRequestKeepsTheCurrentWindow(t *testing.T) {
	l := New(time.Minute)
	now := time.Date(2030, 5, 1, 8, 31, 0, 0, time.UTC)
	l.Add("b", now, 10, 5)
	if l.Has("b", now.Add(-time.Second)) {
		t.Fatal("the previous minute sees this minute's numbers")
	}
	if !l.Has("b", now) {
		t.Fatal("a late request discarded this minute's numbers")
	}
}
