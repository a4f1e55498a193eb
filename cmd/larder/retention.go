package main

import (
	"context"

	"larder.dev/larder/handlers"
	"larder.dev/larder/internal/identity/people"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/reqlog"
	"larder.dev/larder/internal/retention"
)

// serveRetention are the tables serve prunes: the rate-limit windows of its
// limiter, console sessions and links, checked import files, the request
// log when it is on (--request-log) and, when serve dispatches webhooks
// (dispatching, the dispatcher's pool, is not nil), what the webhook worker
// prunes too.
func serveRetention(e *env, st *store.Store, srv *handlers.Server, ppl *people.Service, dispatching *store.Store) []retention.Job {
	jobs := []retention.Job{
		retention.RateWindows(srv.Limiter),
		retention.Sessions(ppl),
		retention.CheckedFiles(st.Client),
	}
	if e.cfg.RequestLog {
		jobs = append(jobs, retention.RequestLog(reqlog.Pruner(st), e.cfg.RequestLogRetention))
	}
	if dispatching != nil {
		jobs = append(jobs, webhookRetention(dispatching)...)
	}
	return jobs
}

// webhookRetention are the tables a process that dispatches webhooks prunes:
// the delivery log and the outbox, and the Idempotency-Key records.
func webhookRetention(st *store.Store) []retention.Job {
	return []retention.Job{retention.Webhooks(st.Client), retention.IdempotencyKeys(st.Client)}
}

// startRetention runs jobs in the background until ctx ends; stop ends them
// and waits until they have.
func startRetention(ctx context.Context, e *env, jobs []retention.Job) (stop func()) {
	rctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		retention.Run(rctx, e.log, jobs...)
	}()
	return func() {
		cancel()
		<-done
	}
}
