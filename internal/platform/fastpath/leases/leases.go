// Package leases holds the rate-limit numbers a process reserved in advance
// in the shared counter of an account's window: the fastpath mechanism
// reserved-budget. ratelimit's PostgreSQL limiter keeps them; auth takes
// from them.
package leases

import (
	"sync"
	"time"
)

// Leases hold, for one process, the hits it reserved in the shared counter of
// an account's window before serving them. A hit is a numbered token: the
// database hands out the numbers 1, 2, … of a window across all processes, so
// the count never exceeds the limit however many processes serve the account,
// and a request is allowed exactly when its number is within the limit.
//
// A quiet account reserves one number per request, which is exact. A busy one
// reserves a few at a time, growing with how many it served in this process
// this window, up to 1% of its limit (and 256), one batch at a time per
// process, the next one while the last quarter of the current one is served:
// numbers a process reserved but did not use before the window ends are lost
// to the others, so at most 1% of the budget per process can go unused, in
// exchange for one write per batch.
type Leases struct {
	window time.Duration
	mu     sync.Mutex
	pools  map[string]*tokens
	// batches and numbers count what Add recorded (Reserved).
	batches, numbers int64
}

// tokens are a bucket's reserved numbers in one window.
type tokens struct {
	start    time.Time
	ranges   []span // reserved numbers not yet used, in order
	served   int    // numbers used by this process in the window
	batching bool   // a batch is being reserved
}

type span struct{ next, last int }

// maxLease bounds a reservation, for accounts whose limit is so large that
// 1% of it, which bounds what a process may leave unused, is more. At 256,
// a busy account allowed 25,600 requests a minute or more reserves once
// per 192 requests; at 64 it was once per 48, 2% of bench/run.sh's GETs.
const maxLease = 256

// New returns empty leases for windows of the given length (ratelimit.Window).
func New(window time.Duration) *Leases {
	return &Leases{window: window, pools: map[string]*tokens{}}
}

// pool returns the tokens of bucket in the window of now (locked by caller).
// A request still in an earlier window than the pool's gets an empty pool of
// its own, so it cannot discard the numbers reserved for the current one.
func (l *Leases) pool(bucket string, now time.Time) *tokens {
	start := now.Truncate(l.window)
	t := l.pools[bucket]
	switch {
	case t != nil && t.start.Equal(start):
		return t
	case t != nil && t.start.After(start):
		return &tokens{start: start}
	}
	t = &tokens{start: start}
	l.pools[bucket] = t
	return t
}

// Has reports whether a reserved number of bucket is waiting in the window of now.
func (l *Leases) Has(bucket string, now time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.pool(bucket, now).ranges) > 0
}

// Take uses the next reserved number of bucket in the window of now.
func (l *Leases) Take(bucket string, now time.Time) (int, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.pool(bucket, now).take()
}

// TakeHeld uses a reserved number of bucket in the window of now when the
// next key lookup would reserve none (Next would return 0), and otherwise
// reports false and changes nothing: no batch is started, so the lookup that
// follows reserves it.
func (l *Leases) TakeHeld(bucket string, limit int, now time.Time) (int, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	t := l.pool(bucket, now)
	if !t.spare(limit) {
		return 0, false
	}
	return t.take()
}

// Spare reports whether TakeHeld would use a held number of bucket now.
func (l *Leases) Spare(bucket string, limit int, now time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.pool(bucket, now).spare(limit)
}

// spare reports whether a number is held that the next request may use
// without the key lookup reserving a batch (locked by caller).
func (t *tokens) spare(limit int) bool {
	held := t.held()
	n := size(t, limit)
	return held > 0 && (held > n/4 || t.batching || n-held < 2)
}

// take uses the next reserved number (locked by caller).
func (t *tokens) take() (int, bool) {
	if len(t.ranges) == 0 {
		return 0, false
	}
	r := &t.ranges[0]
	n := r.next
	r.next++
	if r.next > r.last {
		t.ranges = t.ranges[1:]
	}
	t.served++
	return n, true
}

// Next is how many numbers the next key lookup of bucket reserves in the
// window of now: none while this process holds more than a quarter of a
// batch, so the request takes a held number; otherwise one batch (size),
// less what is still held. The next batch is thus reserved while the last
// numbers of the current one are served, and a busy account's pool rarely
// runs dry; at most one batch is held at any time.
// While a batch is being reserved, requests that find the pool empty reserve
// one number each, which they use at once. A batch ends with Add or, when it
// was not reserved after all, Abandon.
func (l *Leases) Next(bucket string, limit int, now time.Time) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	t := l.pool(bucket, now)
	held := t.held()
	n := size(t, limit)
	switch {
	case held > n/4:
		return 0
	case t.batching || n-held < 2:
		if held > 0 {
			return 0
		}
		return 1
	}
	t.batching = true
	return n - held
}

// size is how many numbers a batch holds: one while the account is quiet
// here, then an eighth of what this process served in the window, at most 1%
// of limit and maxLease.
func size(t *tokens, limit int) int {
	return max(1, min(t.served/8, limit/100, maxLease))
}

// held counts the reserved numbers not yet used.
func (t *tokens) held() int {
	n := 0
	for _, r := range t.ranges {
		n += r.last - r.next + 1
	}
	return n
}

// Add records that the numbers last-n+1 … last of bucket were reserved in the
// window of now, and uses the first of them for the caller.
func (l *Leases) Add(bucket string, now time.Time, last, n int) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.batches++
	l.numbers += int64(n)
	t := l.pool(bucket, now)
	first := last - n + 1
	if n > 1 {
		t.ranges = append(t.ranges, span{first + 1, last})
		t.batching = false
	}
	t.served++
	return first
}

// Abandon ends a batch of n that Next started but nothing reserved.
func (l *Leases) Abandon(bucket string, now time.Time, n int) {
	if n <= 1 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.pool(bucket, now).batching = false
}

// Reserved reports the batches of numbers reserved so far and the numbers
// they held (metrics).
func (l *Leases) Reserved() (batches, numbers int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.batches, l.numbers
}

// Prune forgets windows that ended before now.
func (l *Leases) Prune(now time.Time) {
	start := now.Truncate(l.window)
	l.mu.Lock()
	defer l.mu.Unlock()
	for k, t := range l.pools {
		if t.start.Before(start) {
			delete(l.pools, k)
		}
	}
}
