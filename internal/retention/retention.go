// Package retention prunes what Larder keeps only for a while, every table
// on its own schedule, in one worker (Run): the request log, console
// sessions and one-time links, checked import files, rate-limit windows, the
// webhook delivery log and outbox, and Idempotency-Key records. Each table's
// package says what is old (reqlog.Pruner, people's Service.Prune,
// filecheck.Prune, a ratelimit.Limiter's Prune, webhooks.Prune,
// idempotency.Prune); the Jobs here say when it runs, and the command picks
// the Jobs of its process (serve, `larder webhook worker`).
package retention

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"larder.dev/larder/ent"
	"larder.dev/larder/internal/identity/idempotency"
	"larder.dev/larder/internal/identity/people"
	"larder.dev/larder/internal/identity/ratelimit"
	"larder.dev/larder/internal/modules/filecheck"
	"larder.dev/larder/internal/webhooks"
	"larder.dev/larder/policy"
)

// The schedules.
const (
	// RequestLogEvery is how often the request log is pruned.
	RequestLogEvery = time.Hour
	// SessionsEvery is how often ended sessions, expired one-time links and
	// expired checked files are pruned.
	SessionsEvery = 10 * time.Minute
	// RateWindowsEvery is how often finished rate-limit windows are forgotten.
	RateWindowsEvery = time.Minute
	// WebhooksEvery is how often the webhook delivery log, the outbox and the
	// Idempotency-Key records are pruned.
	WebhooksEvery = time.Hour
)

// A Job prunes one table (or the tables kept together) every Every.
type Job struct {
	// Name says what is pruned, in the log.
	Name string
	// Every is the schedule.
	Every time.Duration
	// Wait delays the first run by Every; otherwise it runs at the start.
	Wait bool
	// Level is the level at which a run that deleted rows is logged.
	Level slog.Level
	// Prune deletes what is older than its retention as of now and returns
	// how many rows went (-1 when it does not count them).
	Prune func(ctx context.Context, now time.Time) (int, error)
}

// Run runs every job on its schedule until ctx ends, and returns when all
// have stopped. A run that fails is logged and the job goes on.
func Run(ctx context.Context, log *slog.Logger, jobs ...Job) {
	var wg sync.WaitGroup
	for _, j := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			j.run(ctx, log)
		}()
	}
	wg.Wait()
}

func (j Job) run(ctx context.Context, log *slog.Logger) {
	t := time.NewTicker(j.Every)
	defer t.Stop()
	now := time.Now()
	if j.Wait {
		select {
		case <-ctx.Done():
			return
		case now = <-t.C:
		}
	}
	for {
		n, err := j.Prune(ctx, now)
		switch {
		case err != nil && ctx.Err() == nil:
			log.Warn(j.Name+": prune", "error", err)
		case err == nil && n > 0:
			log.Log(ctx, j.Level, j.Name+": pruned", "rows", n)
		}
		select {
		case <-ctx.Done():
			return
		case now = <-t.C:
		}
	}
}

// RequestLog prunes the requests older than period (--request-log-retention)
// hourly, from the start, with prune (reqlog.Pruner: whole days dropped on
// PostgreSQL, rows deleted on SQLite).
func RequestLog(prune func(ctx context.Context, cutoff time.Time) (int, error), period time.Duration) Job {
	return Job{Name: "request log", Every: RequestLogEvery, Level: slog.LevelInfo, Prune: func(ctx context.Context, now time.Time) (int, error) {
		return prune(ctx, now.Add(-period))
	}}
}

// Sessions prunes ended console sessions, expired one-time links and the
// sign-in throttle's past windows every 10 minutes, from the start.
func Sessions(p *people.Service) Job {
	return Job{Name: "console sessions", Every: SessionsEvery, Level: slog.LevelDebug, Prune: func(ctx context.Context, _ time.Time) (int, error) {
		return p.Prune(ctx)
	}}
}

// CheckedFiles prunes the checked import files past their end every 10
// minutes, from the start.
func CheckedFiles(c *ent.Client) Job {
	return Job{Name: "checked files", Every: SessionsEvery, Level: slog.LevelDebug, Prune: func(ctx context.Context, now time.Time) (int, error) {
		return filecheck.Prune(ctx, c, now)
	}}
}

// RateWindows forgets the rate limiter's finished windows every minute,
// the first a minute after the start.
func RateWindows(l ratelimit.Limiter) Job {
	return Job{Name: "rate limits", Every: RateWindowsEvery, Wait: true, Level: slog.LevelDebug, Prune: func(ctx context.Context, now time.Time) (int, error) {
		return -1, l.Prune(ctx, now)
	}}
}

// Webhooks prunes the webhook delivery log and the outbox (webhooks.Prune:
// 30 days, 90 for what was given up on) hourly, from the start.
func Webhooks(c *ent.Client) Job {
	return Job{Name: "webhooks", Every: WebhooksEvery, Level: slog.LevelDebug, Prune: func(ctx context.Context, now time.Time) (int, error) {
		return -1, webhooks.Prune(ctx, c, now)
	}}
}

// IdempotencyKeys prunes the Idempotency-Key records past their 24 hours
// (idempotency.Retention) hourly, from the start.
func IdempotencyKeys(c *ent.Client) Job {
	return Job{Name: "idempotency keys", Every: WebhooksEvery, Level: slog.LevelDebug, Prune: func(ctx context.Context, now time.Time) (int, error) {
		// System viewer: pruning is the server's own upkeep, across every account.
		return idempotency.Prune(policy.System(ctx), c, now)
	}}
}
