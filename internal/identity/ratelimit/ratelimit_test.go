package ratelimit

import (
	"context"
	"testing"
	"time"
)

func TestMemoryWindow(t *testing.T) {
	m := NewMemory()
	ctx := context.Background()
	start := time.Date(2030, 5, 1, 8, 30, 0, 0, time.UTC)
	for i := 1; i <= 4; i++ {
		r, _ := m.Hit(ctx, "acct:1", 3, start.Add(time.Duration(i)*time.Second))
		if r.Allowed != (i <= 3) || r.Remaining != max(3-i, 0) || !r.Reset.Equal(start.Add(time.Minute)) || r.Limit != 3 {
			t.Fatalf("hit %d: %+v", i, r)
		}
	}
	if r, _ := m.Hit(ctx, "acct:2", 3, start); !r.Allowed || r.Remaining != 2 {
		t.Fatalf("another bucket: %+v", r)
	}
	if r, _ := m.Hit(ctx, "acct:1", 3, start.Add(time.Minute)); !r.Allowed || r.Remaining != 2 {
		t.Fatalf("next window: %+v", r)
	}
	if err := m.Prune(ctx, start.Add(2*time.Minute)); err != nil || len(m.buckets) != 0 {
		t.Fatalf("prune left %d buckets (%v)", len(m.buckets), err)
	}
}

func TestRetryAfter(t *testing.T) {
	start := time.Date(2030, 5, 1, 8, 30, 0, 0, time.UTC)
	r := Result{Reset: start.Add(time.Minute)}
	cases := map[time.Duration]int{
		0:                        60,
		500 * time.Millisecond:   60,
		time.Second:              59,
		59 * time.Second:         1,
		59900 * time.Millisecond: 1,
		time.Minute:              1,
	}
	for offset, want := range cases {
		if got := r.RetryAfter(start.Add(offset)); got != want {
			t.Fatalf("at +%v: Retry-After %d, want %d", offset, got, want)
		}
	}
}
