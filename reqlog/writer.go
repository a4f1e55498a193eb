package reqlog

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"

	"larder.dev/larder/ent"
	"larder.dev/larder/policy"
)

// Writer defaults.
const (
	// DefaultQueue is how many entries wait for the writer before new ones
	// are dropped: at 10,000 requests a second, a second of a database that
	// does not answer.
	DefaultQueue = 10_000
	// batchSize is the most entries one INSERT writes (17 columns each,
	// well below either database's bound on a statement's parameters).
	batchSize = 500
	// flushEvery is the longest an entry waits for its batch to fill.
	flushEvery = 250 * time.Millisecond
	// writeTimeout bounds one batch's INSERT: past it the batch is dropped
	// and counted, and the writer takes the next.
	writeTimeout = 5 * time.Second
	// warnEvery spaces the warnings about dropped entries.
	warnEvery = time.Minute
)

// Writer records entries in batches, off the requests' path. Record never
// blocks; Run writes until its context ends. A nil *Writer records nothing.
type Writer struct {
	client *ent.Client
	log    *slog.Logger
	queue  chan *Entry
	// written and dropped count entries since the start.
	written, dropped atomic.Int64
	// reported is the dropped count of the last warning.
	reported int64
	now      func() time.Time
}

// NewWriter returns a writer to c that holds at most queue entries waiting
// (DefaultQueue when queue is 0), warning on log when it drops some.
func NewWriter(c *ent.Client, log *slog.Logger, queue int) *Writer {
	if queue <= 0 {
		queue = DefaultQueue
	}
	if log == nil {
		log = slog.Default()
	}
	return &Writer{client: c, log: log, queue: make(chan *Entry, queue), now: time.Now}
}

// Record queues e for the writer, or drops it when the queue is full.
func (w *Writer) Record(e *Entry) {
	if w == nil {
		return
	}
	select {
	case w.queue <- e:
	default:
		w.dropped.Add(1)
	}
}

// Written is how many entries the writer has stored.
func (w *Writer) Written() int64 { return w.written.Load() }

// Dropped is how many entries were dropped: the queue was full, or their
// batch could not be written.
func (w *Writer) Dropped() int64 { return w.dropped.Load() }

// Run writes the queued entries in batches until ctx ends, then writes what
// is left (for at most writeTimeout).
func (w *Writer) Run(ctx context.Context) {
	tick := time.NewTicker(flushEvery)
	defer tick.Stop()
	warned := w.now()
	batch := make([]*Entry, 0, batchSize)
	for {
		select {
		case <-ctx.Done():
			w.drain(batch)
			return
		case e := <-w.queue:
			batch = append(batch, e)
			if len(batch) < batchSize {
				continue
			}
		case <-tick.C:
			if len(batch) == 0 {
				w.warn(&warned)
				continue
			}
		}
		w.write(context.WithoutCancel(ctx), batch)
		batch = batch[:0]
		w.warn(&warned)
	}
}

// drain writes batch and whatever is queued, once the server stops.
func (w *Writer) drain(batch []*Entry) {
	ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
	defer cancel()
	for {
		select {
		case e := <-w.queue:
			batch = append(batch, e)
			if len(batch) < batchSize {
				continue
			}
		default:
			w.write(ctx, batch)
			return
		}
		w.write(ctx, batch)
		batch = batch[:0]
	}
}

// Flush writes what is queued now, for tests and commands that need the
// rows before they go on. Run must not be running.
func (w *Writer) Flush() { w.drain(make([]*Entry, 0, batchSize)) }

// warn logs the entries dropped since the last warning, at most once per
// warnEvery.
func (w *Writer) warn(last *time.Time) {
	now := w.now()
	if now.Sub(*last) < warnEvery {
		return
	}
	if d := w.dropped.Load(); d > w.reported {
		w.log.Warn("request log: entries dropped", "dropped", d-w.reported, "dropped_total", d)
		w.reported = d
	}
	*last = now
}

// write inserts batch in one statement; a failure drops and counts it.
func (w *Writer) write(ctx context.Context, batch []*Entry) {
	if len(batch) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, writeTimeout)
	defer cancel()
	// System viewer: the request log is system-only; the writer stores every account's requests.
	sys := policy.System(ctx)
	rows := make([]*ent.APIRequestCreate, len(batch))
	for i, e := range batch {
		rows[i] = w.row(e)
	}
	if err := w.client.APIRequest.CreateBulk(rows...).Exec(sys); err != nil {
		w.dropped.Add(int64(len(batch)))
		w.log.Debug("request log: batch not written", "entries", len(batch), "error", err)
		return
	}
	w.written.Add(int64(len(batch)))
}

// row is e as the row to insert, redacted, its fields bounded.
func (w *Writer) row(e *Entry) *ent.APIRequestCreate {
	c := w.client.APIRequest.Create().
		SetCreatedAt(e.At.UTC().Truncate(time.Microsecond)).
		SetMethod(cutText(e.Method, 16)).
		SetOperation(cutText(e.Operation, 100)).
		SetPath(string(Redact([]byte(cutText(e.Path, maxPath))))).
		SetStatus(e.Status).
		SetRequestID(cutText(e.RequestID, 100)).
		SetClientRequestID(string(Redact([]byte(cutText(e.ClientRequestID, maxText))))).
		SetDurationUs(e.Duration.Microseconds()).
		SetClientAddr(cutText(e.ClientAddr, 100)).
		SetUserAgent(string(Redact([]byte(cutText(e.UserAgent, maxText))))).
		SetTruncated(e.Truncated)
	if e.AccountID != 0 {
		c.SetAccountID(e.AccountID)
	}
	if e.KeyID != 0 {
		c.SetAPIKeyID(e.KeyID)
	}
	if e.RequestBody != nil {
		c.SetRequestBody(Redact(e.RequestBody))
	}
	if e.ResponseBody != nil {
		c.SetResponseBody(Redact(e.ResponseBody))
	}
	if e.Status >= 400 {
		c.SetErrorCode(errorCode(e.ResponseBody))
	}
	return c
}
