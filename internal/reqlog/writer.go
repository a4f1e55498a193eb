package reqlog

import (
	"context"
	"database/sql"
	"log/slog"
	"strings"
	"sync/atomic"
	"time"

	"entgo.io/ent/dialect"

	"larder.dev/larder/internal/platform/clientaddr"
	"larder.dev/larder/internal/platform/store"
)

// Writer defaults.
const (
	// DefaultQueue is how many entries wait for the writer before new ones
	// are dropped: at 10,000 requests a second, a second of a database that
	// does not answer.
	DefaultQueue = 10_000
	// batchSize is the most entries one write holds (on SQLite one INSERT
	// of 18 parameters a row, well below its bound on a statement's).
	batchSize = 500
	// flushEvery is the longest an entry waits for its batch to fill.
	flushEvery = 250 * time.Millisecond
	// writeTimeout bounds one batch's write: past it the batch is dropped
	// and counted, and the writer takes the next.
	writeTimeout = 5 * time.Second
	// warnEvery spaces the warnings about dropped entries.
	warnEvery = time.Minute
)

// Writer records entries in batches, off the requests' path. Record never
// blocks; Run writes until its context ends. A nil *Writer records nothing.
type Writer struct {
	db      *sql.DB
	dialect string
	// parts are the day partitions of api_requests on PostgreSQL.
	parts *partitions
	log   *slog.Logger
	queue chan *Entry
	// written and dropped count entries since the start.
	written, dropped atomic.Int64
	// reported is the dropped count of the last warning.
	reported int64
	now      func() time.Time
}

// NewWriter returns a writer to st's database that holds at most queue
// entries waiting (DefaultQueue when queue is 0), warning on log when it
// drops some.
func NewWriter(st *store.Store, log *slog.Logger, queue int) *Writer {
	if queue <= 0 {
		queue = DefaultQueue
	}
	if log == nil {
		log = slog.Default()
	}
	return &Writer{db: st.DB, dialect: st.Dialect, parts: newPartitions(st.DB), log: log, queue: make(chan *Entry, queue), now: time.Now}
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

// write stores batch in one transaction (COPY on PostgreSQL, one multi-row
// INSERT on SQLite); a failure drops and counts it.
func (w *Writer) write(ctx context.Context, batch []*Entry) {
	if len(batch) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, writeTimeout)
	defer cancel()
	var err error
	if w.dialect == dialect.Postgres {
		err = w.postgres(ctx, batch)
	} else {
		err = w.sqlite(ctx, batch)
	}
	if err != nil {
		w.dropped.Add(int64(len(batch)))
		w.log.Debug("request log: batch not written", "entries", len(batch), "error", err)
		return
	}
	w.written.Add(int64(len(batch)))
}

// columns are api_requests' columns in the order both writes give them.
var columns = []string{"created_at", "account_id", "api_key_id", "method", "operation", "path", "status", "status_class", "error_code", "request_id",
	"client_request_id", "duration_us", "client_addr", "user_agent", "request_body", "response_body", "truncated", "deprecated"}

// postgres writes batch with COPY, into the day partitions it needs (made
// first when they are not known to exist, and again when the copy finds one
// missing: a day another server pruned).
func (w *Writer) postgres(ctx context.Context, batch []*Entry) error {
	rows := make([][]any, len(batch))
	times := make([]time.Time, len(batch))
	for i, e := range batch {
		rows[i] = values(e)
		times[i] = rows[i][0].(time.Time)
	}
	if err := w.parts.ensure(ctx, times...); err != nil {
		return err
	}
	err := w.copy(ctx, rows)
	if noPartition(err) {
		w.parts.forget()
		if err := w.parts.ensure(ctx, times...); err != nil {
			return err
		}
		err = w.copy(ctx, rows)
	}
	return err
}

// copy writes rows with COPY in one transaction.
func (w *Writer) copy(ctx context.Context, rows [][]any) error {
	return store.CopyIn(ctx, w.db, "api_requests", columns, func(add func(...any) error) error {
		for _, r := range rows {
			if err := add(r...); err != nil {
				return err
			}
		}
		return nil
	})
}

// values is e's row as stored, in the order of columns: NULL (nil) for no
// account, no key, and the bodies of a request whose bodies are not kept.
func values(e *Entry) []any {
	r := columnsOf(e)
	var account, key, req, res any
	if e.AccountID != 0 {
		account = int64(e.AccountID)
	}
	if e.KeyID != 0 {
		key = int64(e.KeyID)
	}
	if r.kept {
		req, res = nonNil(r.request), nonNil(r.response)
	}
	return []any{r.at, account, key, r.method, r.operation, r.path, int64(e.Status), int64(e.Status / 100), r.code, r.requestID,
		r.clientRequestID, r.us, r.addr, r.userAgent, req, res, e.Truncated, r.deprecated}
}

// sqlite writes batch in one multi-row insert (18 parameters a row: a full
// batch stays under SQLite's 32,766, and full batches repeat one statement).
func (w *Writer) sqlite(ctx context.Context, batch []*Entry) error {
	var q strings.Builder
	args := make([]any, 0, len(columns)*len(batch))
	q.WriteString(`INSERT INTO api_requests (` + strings.Join(columns, ", ") + `) VALUES `)
	for i, e := range batch {
		if i > 0 {
			q.WriteByte(',')
		}
		q.WriteString("(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
		args = append(args, values(e)...)
	}
	// Direct SQL: the request log's writer stores a batch of every account's requests in one multi-row insert (ent's per-row mutations and hooks cost more than the request being logged); api_requests is system-only and emits no event.
	_, err := w.db.ExecContext(ctx, q.String(), args...)
	return err
}

func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

// stored is an entry's columns as stored: redacted, bounded, the error code
// read from the answer.
type stored struct {
	at                                                              time.Time
	us                                                              int64
	method, operation, path, code, requestID, clientRequestID, addr string
	userAgent, deprecated                                           string
	request, response                                               []byte
	kept                                                            bool
}

func columnsOf(e *Entry) stored {
	r := stored{
		at:              e.At.UTC().Truncate(time.Microsecond),
		us:              e.Duration.Microseconds(),
		method:          cutText(e.Method, 16),
		operation:       cutText(e.Operation, 100),
		path:            redactText(cutText(e.Path, maxPath)),
		requestID:       cutText(e.RequestID, 100),
		clientRequestID: redactText(cutText(e.ClientRequestID, maxText)),
		addr:            cutText(clientaddr.From(e.RemoteAddr, e.ForwardedFor, e.Trusted), 100),
		userAgent:       redactText(cutText(e.UserAgent, maxText)),
		deprecated:      cutText(e.Deprecated, maxText),
		kept:            e.RequestBody != nil || e.ResponseBody != nil,
	}
	if r.kept {
		r.request, r.response = Redact(e.RequestBody), Redact(e.ResponseBody)
	}
	if e.Status >= 400 {
		r.code = errorCode(e.ResponseBody)
	}
	return r
}
