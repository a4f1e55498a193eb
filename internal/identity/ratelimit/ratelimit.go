// Package ratelimit counts requests in fixed one-minute windows that start at
// the top of each minute. A bucket is an account (its request budget) or a
// client address (its failed authentications). On PostgreSQL the counters live
// in the database, so every server process shares them; on SQLite, which one
// process serves, they live in memory.
package ratelimit

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"sync"
	"time"

	"entgo.io/ent/dialect"

	"larder.dev/larder/internal/platform/fastpath/leases"
	"larder.dev/larder/internal/platform/fastpath/prepared"
)

// Window is the length of a window.
const Window = time.Minute

// Result is the state of a bucket after a hit.
type Result struct {
	Limit int
	// Remaining is what is left in the window after this hit.
	Remaining int
	// Reset is when the window ends.
	Reset time.Time
	// Allowed is false once the hits exceed the limit.
	Allowed bool
}

// RetryAfter is the whole seconds to the next window: at least 1, never more
// than the window.
func (r Result) RetryAfter(now time.Time) int {
	s := int((r.Reset.Sub(now) + time.Second - 1) / time.Second)
	return min(max(s, 1), int(Window/time.Second))
}

// Limiter counts hits.
type Limiter interface {
	// Hit counts one request of bucket at now against limit.
	Hit(ctx context.Context, bucket string, limit int, now time.Time) (Result, error)
	// Prune forgets windows that ended before now.
	Prune(ctx context.Context, now time.Time) error
}

// New returns the limiter for a database: shared counters on PostgreSQL,
// in-process counters on SQLite. prepare says whether its statement may be
// prepared (package prepared).
func New(db *sql.DB, dia string, prepare bool) (Limiter, error) {
	if dia != dialect.Postgres {
		return NewMemory(), nil
	}
	reserve, err := prepared.Prepare(db, ReserveSQL, prepare)
	if err != nil {
		return nil, fmt.Errorf("prepare rate limit: %w", err)
	}
	return &Postgres{db: db, reserve: reserve, Leases: leases.New(Window)}, nil
}

// AccountBucket is the bucket of an account's request budget. On PostgreSQL,
// auth spends from it in the statement that looks the key up.
func AccountBucket(accountID int) string { return "acct:" + strconv.Itoa(accountID) }

// NewResult is the state of a window that started at start after hits.
func NewResult(hits, limit int, start time.Time) Result {
	return Result{
		Limit:     limit,
		Remaining: max(limit-hits, 0),
		Reset:     start.Add(Window),
		Allowed:   hits <= limit,
	}
}

// Memory is an in-process Limiter.
type Memory struct {
	mu      sync.Mutex
	buckets map[string]counter
}

type counter struct {
	start time.Time
	hits  int
}

// NewMemory returns an empty in-process limiter.
func NewMemory() *Memory { return &Memory{buckets: map[string]counter{}} }

// Hit implements Limiter.
func (m *Memory) Hit(_ context.Context, bucket string, limit int, now time.Time) (Result, error) {
	start := now.Truncate(Window)
	m.mu.Lock()
	c := m.buckets[bucket]
	if !c.start.Equal(start) {
		c = counter{start: start}
	}
	c.hits++
	m.buckets[bucket] = c
	m.mu.Unlock()
	return NewResult(c.hits, limit, start), nil
}

// Prune implements Limiter.
func (m *Memory) Prune(_ context.Context, now time.Time) error {
	start := now.Truncate(Window)
	m.mu.Lock()
	defer m.mu.Unlock()
	for k, c := range m.buckets {
		if c.start.Before(start) {
			delete(m.buckets, k)
		}
	}
	return nil
}

// ReserveSQL counts $3 hits of bucket $1 in the window that starts at Unix
// second $2 and returns the count.
const ReserveSQL = `INSERT INTO rate_windows (bucket, window_start, hits) VALUES ($1, $2, $3)
ON CONFLICT (bucket, window_start) DO UPDATE SET hits = rate_windows.hits + $3 RETURNING hits`

// Postgres keeps counters in rate_windows (UNLOGGED), shared by every server
// process. A hit is one upsert; a busy account's requests spend tokens the
// process reserved in advance (package internal/platform/fastpath/leases), so they write far less often.
type Postgres struct {
	db      *sql.DB
	reserve *prepared.Stmt
	// Leases are this process's reserved numbers of account buckets.
	Leases *leases.Leases
}

// Hit implements Limiter.
func (p *Postgres) Hit(ctx context.Context, bucket string, limit int, now time.Time) (Result, error) {
	start := now.Truncate(Window)
	hits, err := p.Reserve(ctx, bucket, 1, now)
	if err != nil {
		return Result{}, err
	}
	return NewResult(hits, limit, start), nil
}

// Reserve counts n hits of bucket in the window of now and returns the count
// after them: the hits numbered count-n+1 … count are the caller's.
func (p *Postgres) Reserve(ctx context.Context, bucket string, n int, now time.Time) (int, error) {
	// Direct SQL: one upsert counts a request in the shared per-account window (rate_windows is system-only).
	var hits int
	err := p.reserve.QueryRowContext(ctx, bucket, now.Truncate(Window).Unix(), n).Scan(&hits)
	if err != nil {
		return 0, fmt.Errorf("rate limit %s: %w", bucket, err)
	}
	return hits, nil
}

// Prune implements Limiter.
func (p *Postgres) Prune(ctx context.Context, now time.Time) error {
	// Direct SQL: old windows of the system-only rate_windows table are deleted.
	p.Leases.Prune(now)
	_, err := p.db.ExecContext(ctx, `DELETE FROM rate_windows WHERE window_start < $1`, now.Truncate(Window).Unix())
	return err
}
