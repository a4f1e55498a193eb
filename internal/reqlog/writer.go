package reqlog

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"entgo.io/ent/dialect"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/apirequest"
	"larder.dev/larder/internal/platform/clientaddr"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/policy"
)

// Writer defaults.
const (
	// DefaultQueue is how many entries wait for the writer before new ones
	// are dropped: at 10,000 requests a second, a second of a database that
	// does not answer.
	DefaultQueue = 10_000
	// batchSize is the most entries one write holds. On PostgreSQL a batch
	// of plain reads alone is one statement whose reads take the ids of one
	// value of the sequence, which reserves 1,024.
	batchSize = 1000
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
	// mu guards pending, the entries recorded and not yet taken by the
	// writer (at most limit of them), and spare, the slice of the last batch
	// written, which takes pending's place when the writer takes it.
	mu             sync.Mutex
	pending, spare []Entry
	limit          int
	// full wakes the writer when pending holds a batch: a request does not
	// wake it, which at thousands of requests a second cost every request a
	// goroutine's and often a thread's wake-up.
	full chan struct{}
	// written and dropped count entries since the start.
	written, dropped atomic.Int64
	// reported is the dropped count of the last warning.
	reported int64
	now      func() time.Time
	// rows is the batch's rows, and copyBuf their COPY data, reused from
	// batch to batch by the one goroutine that writes.
	rows    []row
	copyBuf []byte
	// idSeq is the sequence of api_requests' ids on PostgreSQL, once read.
	idSeq idSequence
	// oneExec, when the writer has a connection of its own (Dedicate),
	// runs the statement of a batch of plain reads alone, prepared on it
	// where the store prepares statements; stopCache ends its cache.
	oneExec   store.Execer
	stopCache func()
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
	return &Writer{db: st.DB, dialect: st.Dialect, parts: newPartitions(st.DB), log: log, limit: queue, full: make(chan struct{}, 1), now: time.Now}
}

// Dedicate makes the writer write through db, a pool of one connection of
// its own to st's database (store.Store.Dedicated), in place of the store's
// pool: a batch then never takes a connection a request waits for. Where
// st prepares statements (store.Store.Cached), the statement of a batch of
// plain reads alone, the most of a busy API's, is prepared on it from the
// second batch of a shape (its rows of reads and hours) instead of parsed
// and planned again each time, which cost PostgreSQL about a fifth of the
// batch. A nil db changes nothing. Call it before Run; the writer does not
// close db.
func (w *Writer) Dedicate(st *store.Store, db *sql.DB) {
	if db == nil {
		return
	}
	w.db = db
	w.oneExec, w.stopCache = st.Cached(db, maxPrepared)
}

// Close ends what Dedicate's statement cache does in the background, once
// Run has returned; the statements go with db's connection.
func (w *Writer) Close() {
	if w != nil && w.stopCache != nil {
		w.stopCache()
	}
}

// Record queues a copy of e for the writer, or drops it when the queue is
// full. It never waits for the writer, and wakes it only when a batch is
// ready; otherwise the writer takes what is queued every flushEvery.
func (w *Writer) Record(e *Entry) {
	if w == nil {
		return
	}
	w.mu.Lock()
	if len(w.pending) >= w.limit {
		w.mu.Unlock()
		w.dropped.Add(1)
		return
	}
	w.pending = append(w.pending, *e)
	n := len(w.pending)
	w.mu.Unlock()
	if n == batchSize {
		select {
		case w.full <- struct{}{}:
		default:
		}
	}
}

// take returns the queued entries, leaving the queue empty; done gives the
// slice back once they are written.
func (w *Writer) take() (batch []Entry, done func()) {
	w.mu.Lock()
	batch, w.pending, w.spare = w.pending, w.spare[:0], nil
	w.mu.Unlock()
	return batch, func() {
		// The entries' strings and bodies are let go; the slice is kept
		// unless a burst grew it past a few batches.
		clear(batch)
		if cap(batch) > 4*batchSize {
			return
		}
		w.mu.Lock()
		w.spare = batch[:0]
		w.mu.Unlock()
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
	for {
		select {
		case <-ctx.Done():
			w.Flush() // Run returns: the last write is the only one
			return
		case <-w.full:
		case <-tick.C:
		}
		w.writeQueued(context.WithoutCancel(ctx))
		w.warn(&warned)
	}
}

// writeQueued writes what is queued, in batches of at most batchSize.
func (w *Writer) writeQueued(ctx context.Context) {
	queued, done := w.take()
	defer done()
	for len(queued) > 0 {
		n := min(len(queued), batchSize)
		w.write(ctx, queued[:n])
		queued = queued[n:]
	}
}

// Flush writes what is queued now, for at most writeTimeout in all: the
// writer's last write when the server stops, and for tests and commands
// that need the rows before they go on. Run must not be running.
func (w *Writer) Flush() {
	ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
	defer cancel()
	w.writeQueued(ctx)
}

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

// write stores batch with its hours' counts in one transaction (put); a
// failure drops and counts it.
func (w *Writer) write(ctx context.Context, batch []Entry) {
	if len(batch) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, writeTimeout)
	defer cancel()
	rows := w.rows[:0]
	for i := range batch {
		rows = append(rows, rowOfEntry(&batch[i]))
	}
	// The next batch reuses the slice; the rows' strings and bodies are let go.
	defer func() { clear(rows); w.rows = rows[:0] }()
	if err := w.put(ctx, rows, maxSpan); err != nil {
		w.dropped.Add(int64(len(batch)))
		w.log.Debug("request log: batch not written", "entries", len(batch), "error", err)
		return
	}
	w.written.Add(int64(len(batch)))
}

// columns are api_requests' columns in the order both writes give them.
var columns = []string{"created_at", "account_id", "api_key_id", "method", "operation", "path", "status", "status_class", "error_code", "request_id",
	"client_request_id", "duration_us", "client_addr", "user_agent", "request_body", "response_body", "truncated", "deprecated"}

// row is a request's row as stored, in the order of columns: a key of 0,
// and a nil body, are NULL; an account of 0 (NoAccount) is a failed
// authentication's.
type row struct {
	at                                                time.Time
	account, key                                      int64
	method, operation, path                           string
	status                                            int
	code, requestID, clientRequestID, addr, userAgent string
	us                                                int64
	request, response                                 []byte
	truncated                                         bool
	deprecated                                        string
}

// args are r's values in the order of columns, as database/sql takes them.
func (r *row) args() []any {
	var key, req, res any
	if r.key != 0 {
		key = r.key
	}
	if r.request != nil {
		req = r.request
	}
	if r.response != nil {
		res = r.response
	}
	return []any{r.at, r.account, key, r.method, r.operation, r.path, int64(r.status), int64(r.status / 100), r.code, r.requestID,
		r.clientRequestID, r.us, r.addr, r.userAgent, req, res, r.truncated, r.deprecated}
}

// appendCopy appends r to b as a row of COPY's text format, its values in
// the order of columns.
func (r *row) appendCopy(b []byte) []byte {
	b = r.at.AppendFormat(b, copyTime)
	b = append(b, '\t')
	b = strconv.AppendInt(b, r.account, 10)
	b = append(b, '\t')
	b = appendCopyID(b, r.key)
	b = append(b, '\t')
	b = store.AppendCopyText(b, r.method)
	b = append(b, '\t')
	b = store.AppendCopyText(b, r.operation)
	b = append(b, '\t')
	b = store.AppendCopyText(b, r.path)
	b = append(b, '\t')
	b = strconv.AppendInt(b, int64(r.status), 10)
	b = append(b, '\t')
	b = strconv.AppendInt(b, int64(r.status/100), 10)
	b = append(b, '\t')
	b = store.AppendCopyText(b, r.code)
	b = append(b, '\t')
	b = store.AppendCopyText(b, r.requestID)
	b = append(b, '\t')
	b = store.AppendCopyText(b, r.clientRequestID)
	b = append(b, '\t')
	b = strconv.AppendInt(b, r.us, 10)
	b = append(b, '\t')
	b = store.AppendCopyText(b, r.addr)
	b = append(b, '\t')
	b = store.AppendCopyText(b, r.userAgent)
	b = append(b, '\t')
	b = appendCopyBody(b, r.request)
	b = append(b, '\t')
	b = appendCopyBody(b, r.response)
	b = append(b, '\t')
	b = strconv.AppendBool(b, r.truncated)
	b = append(b, '\t')
	b = store.AppendCopyText(b, r.deprecated)
	return append(b, '\n')
}

// keptCopyBuf is the largest COPY buffer the writer keeps for the next
// batch: a full batch of GETs takes about a tenth of it.
const keptCopyBuf = 1 << 20

// copyTime is the layout of a row's time (UTC, whole microseconds) in COPY's
// text format.
const copyTime = "2006-01-02 15:04:05.999999Z07:00"

func appendCopyID(b []byte, id int64) []byte {
	if id == 0 {
		return append(b, '\\', 'N')
	}
	return strconv.AppendInt(b, id, 10)
}

func appendCopyBody(b, body []byte) []byte {
	if body == nil {
		return append(b, '\\', 'N')
	}
	return store.AppendCopyBytea(b, body)
}

// put stores rows, each in the order of columns, and adds them to their
// hours' counts (api_request_hours), in one transaction: the plain reads as
// rows of reads (api_request_reads, reads.go), each row of reads spanning at
// most span, the others as rows of api_requests; COPY on PostgreSQL,
// multi-row INSERTs on SQLite, then one upsert of the counts.
func (w *Writer) put(ctx context.Context, rows []row, span time.Duration) error {
	var reads []readRow
	var others []row
	for _, b := range batches(rows, span) {
		r, o := splitReads(b, span)
		reads, others = append(reads, r...), append(others, o...)
	}
	if w.dialect == dialect.Postgres {
		return w.postgres(ctx, rows, reads, others)
	}
	return w.sqlite(ctx, rows, reads, others)
}

// batches cuts rows, in their order, into runs as the writer's batches
// are: at most batchSize rows, each run's arrivals within span of its
// first's. The writer's own batch is one run; a log loaded in bulk (Load)
// is stored as a writer would have stored it, each run's plain reads
// taking their ids together.
func batches(rows []row, span time.Duration) [][]row {
	var out [][]row
	for start := 0; start < len(rows); {
		end := start + 1
		for end < len(rows) && end-start < batchSize && rows[end].at.Sub(rows[start].at) <= span && rows[start].at.Sub(rows[end].at) <= span {
			end++
		}
		out = append(out, rows[start:end])
		start = end
	}
	return out
}

// writeReads draws the ids of reads and stores them in tx.
func (w *Writer) writeReads(ctx context.Context, tx *sql.Tx, reads []readRow) error {
	n := countReads(reads)
	if n == 0 {
		return nil
	}
	if err := w.sequence(ctx); err != nil {
		return err
	}
	ids, err := drawIDs(ctx, tx, w.dialect, w.idSeq, n)
	if err != nil {
		return err
	}
	return putReads(ctx, tx, w.dialect, giveIDs(reads, ids))
}

// sequence reads api_requests' sequence on PostgreSQL, once.
func (w *Writer) sequence(ctx context.Context) error {
	if w.dialect != dialect.Postgres || w.idSeq.name != "" {
		return nil
	}
	seq, err := readIDSequence(ctx, w.db)
	if err != nil {
		return err
	}
	w.idSeq = seq
	return nil
}

// oneValue reports whether reads, some, take the ids of one value of the
// sequence (on PostgreSQL, its sequence read): putOneValue stores them.
func (w *Writer) oneValue(reads []readRow) bool {
	n := countReads(reads)
	return w.dialect == dialect.Postgres && w.idSeq.name != "" && n > 0 && int64(n) <= w.idSeq.step
}

func countReads(reads []readRow) int {
	n := 0
	for _, r := range reads {
		n += len(r.reads)
	}
	return n
}

// Load stores rows in the request log as the writer stores a batch (the
// rows and their hours' counts in one transaction, the day partitions made
// first on PostgreSQL), the plain reads grouped into rows of reads that
// span at most span (the writer's own bound when 0): for tests and tools
// that need rows the writer's entries do not make (a given error code,
// bodies as they are, a log filled in bulk).
func Load(ctx context.Context, st *store.Store, span time.Duration, rows ...*ent.APIRequest) error {
	if len(rows) == 0 {
		return nil
	}
	if span <= 0 || span > maxSpan {
		span = maxSpan
	}
	vals := make([]row, len(rows))
	for i, r := range rows {
		vals[i] = rowOf(r)
	}
	w := &Writer{db: st.DB, dialect: st.Dialect, parts: newPartitions(st.DB)}
	return w.put(ctx, vals, span)
}

// Insert stores rows as Load does and returns them as stored, with their
// ids, in their order. A row's status class is its status's; its request id
// must be unique among rows.
func Insert(ctx context.Context, st *store.Store, rows ...*ent.APIRequest) ([]*ent.APIRequest, error) {
	if len(rows) == 0 {
		return nil, nil
	}
	if err := Load(ctx, st, 0, rows...); err != nil {
		return nil, err
	}
	rids := make([]string, len(rows))
	first, last := rows[0].CreatedAt, rows[0].CreatedAt
	for i, r := range rows {
		rids[i] = r.RequestID
		first, last = minTime(first, r.CreatedAt), maxTime(last, r.CreatedAt)
	}
	stored, err := lookup(ctx, st.Client, first.Truncate(time.Microsecond), last.Add(time.Microsecond), rids)
	if err != nil {
		return nil, err
	}
	byID := make(map[string]*ent.APIRequest, len(stored))
	for _, r := range stored {
		byID[r.RequestID] = r
	}
	out := make([]*ent.APIRequest, len(rids))
	for i, rid := range rids {
		if out[i] = byID[rid]; out[i] == nil {
			return nil, fmt.Errorf("request %q was stored but not found", rid)
		}
	}
	return out, nil
}

// Lookup returns the requests of the whole log, of any account, whose
// request ids are rids, in no order: for tests and tools that check what
// the log holds. It reads every row of reads.
func Lookup(ctx context.Context, c *ent.Client, rids ...string) ([]*ent.APIRequest, error) {
	return lookup(ctx, c, time.Time{}, time.Time{}, rids)
}

// lookup is Lookup of the requests that arrived in [since, until) (zero:
// any time).
func lookup(ctx context.Context, c *ent.Client, since, until time.Time, rids []string) ([]*ent.APIRequest, error) {
	q := c.APIRequest.Query().Where(apirequest.RequestIDIn(rids...))
	if !since.IsZero() {
		q.Where(apirequest.CreatedAtGTE(since))
	}
	if !until.IsZero() {
		q.Where(apirequest.CreatedAtLT(until))
	}
	// System viewer: the request log is system-only; the rows are found by request id, for tools and tests (the request id has no index: the times keep the search to their days).
	rows, err := q.All(policy.System(ctx))
	if err != nil {
		return nil, err
	}
	reads, err := readsByRequestID(ctx, c, nil, rids, since, until)
	if err != nil {
		return nil, err
	}
	return append(rows, reads...), nil
}

// rowOf is r's row, as rowOfEntry makes an entry's.
func rowOf(r *ent.APIRequest) row {
	out := row{at: r.CreatedAt.UTC().Truncate(time.Microsecond), method: r.Method, operation: r.Operation, path: r.Path,
		status: r.Status, code: r.ErrorCode, requestID: r.RequestID, clientRequestID: r.ClientRequestID, us: r.DurationUs,
		addr: r.ClientAddr, userAgent: r.UserAgent, request: r.RequestBody, response: r.ResponseBody, truncated: r.Truncated,
		deprecated: r.Deprecated}
	out.account = int64(r.AccountID)
	if r.APIKeyID != nil {
		out.key = int64(*r.APIKeyID)
	}
	return out
}

// postgres writes reads and others with COPY, into the day partitions they
// need (made first when they are not known to exist, and again when the
// copy finds one missing: a day another server pruned), and adds rows to
// their hours' counts.
func (w *Writer) postgres(ctx context.Context, rows []row, reads []readRow, others []row) error {
	times := make([]time.Time, len(rows))
	for i := range rows {
		times[i] = rows[i].at
	}
	if err := w.parts.ensure(ctx, times...); err != nil {
		return err
	}
	err := w.copy(ctx, rows, reads, others)
	if noPartition(err) {
		w.parts.forget()
		if err := w.parts.ensure(ctx, times...); err != nil {
			return err
		}
		err = w.copy(ctx, rows, reads, others)
	}
	return err
}

// copy writes reads and others, and adds rows' counts, in one
// transaction. A batch of plain reads alone, the most of a busy API's, is
// one statement (putOneValue), a transaction of its own; otherwise others
// go in a COPY, their data encoded here into a buffer reused from batch to
// batch.
func (w *Writer) copy(ctx context.Context, rows []row, reads []readRow, others []row) error {
	one := false
	if countReads(reads) > 0 {
		if err := w.sequence(ctx); err != nil {
			return err
		}
		one = w.oneValue(reads)
	}
	if one && len(others) == 0 {
		var ex store.Execer = w.db
		if w.oneExec != nil {
			ex = w.oneExec
		}
		return putOneValue(ctx, ex, w.idSeq, reads, countHours(rows))
	}
	b := w.copyBuf[:0]
	for i := range others {
		b = others[i].appendCopy(b)
	}
	// A batch of writes with large bodies grows the buffer to megabytes,
	// which the writer does not keep.
	if w.copyBuf = b; cap(b) > keptCopyBuf {
		w.copyBuf = nil
	}
	return w.inTx(ctx, func(conn *sql.Conn, tx *sql.Tx) error {
		if one {
			if err := putOneValue(ctx, tx, w.idSeq, reads, countHours(rows)); err != nil {
				return err
			}
		} else {
			if err := w.writeReads(ctx, tx, reads); err != nil {
				return err
			}
			if err := addCounts(ctx, tx, w.dialect, rows); err != nil {
				return err
			}
		}
		return store.CopyText(ctx, conn, "api_requests", columns, b)
	})
}

// maxPrepared bounds the statements a dedicated connection keeps prepared:
// one for each shape of batch met (its rows of reads and hours), which a
// busy API's few keys and operations repeat.
const maxPrepared = 64

// inTx runs write in one transaction on one connection: a batch's rows and
// their hours' counts together, no row without its count, no count without
// its row.
func (w *Writer) inTx(ctx context.Context, write func(*sql.Conn, *sql.Tx) error) error {
	conn, err := w.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	if err := write(conn, tx); err != nil {
		return err
	}
	return tx.Commit()
}

// rowOfEntry is e's row as stored: no account, no key, and no bodies
// (NULL) for a request whose bodies are not kept; redacted, bounded, the
// error code read from the answer.
func rowOfEntry(e *Entry) row {
	r := row{
		at:              e.At.UTC().Truncate(time.Microsecond),
		account:         int64(e.AccountID),
		key:             int64(e.KeyID),
		us:              e.Duration.Microseconds(),
		method:          cutText(e.Method, 16),
		operation:       cutText(e.Operation, 100),
		path:            redactText(cutText(e.Path, maxPath)),
		status:          e.Status,
		requestID:       cutText(e.RequestID, 100),
		clientRequestID: redactText(cutText(e.ClientRequestID, maxText)),
		addr:            cutText(clientaddr.From(e.RemoteAddr, e.ForwardedFor, e.Trusted), 100),
		userAgent:       redactText(cutText(e.UserAgent, maxText)),
		truncated:       e.Truncated,
		deprecated:      cutText(e.Deprecated, maxText),
	}
	if e.RequestBody != nil || e.ResponseBody != nil {
		r.request, r.response = nonNil(Redact(e.RequestBody)), nonNil(Redact(e.ResponseBody))
	}
	if e.Status >= 400 {
		r.code = errorCode(e.ResponseBody)
	}
	return r
}

// sqliteRows is the most rows of api_requests one INSERT holds: 18
// parameters a row stay under SQLite's 32,766, and a full batch's INSERTs
// repeat one statement.
const sqliteRows = batchSize / 2

// sqlite writes reads and others in multi-row inserts and adds rows' counts,
// in one transaction.
func (w *Writer) sqlite(ctx context.Context, rows []row, reads []readRow, others []row) error {
	return w.inTx(ctx, func(conn *sql.Conn, tx *sql.Tx) error {
		for len(reads) > 0 {
			n := min(len(reads), sqliteRows)
			if err := w.writeReads(ctx, tx, reads[:n]); err != nil {
				return err
			}
			reads = reads[n:]
		}
		for len(others) > 0 {
			n := min(len(others), sqliteRows)
			var q strings.Builder
			args := make([]any, 0, len(columns)*n)
			q.WriteString(`INSERT INTO api_requests (` + strings.Join(columns, ", ") + `) VALUES `)
			for i := range others[:n] {
				if i > 0 {
					q.WriteByte(',')
				}
				q.WriteString("(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
				args = append(args, others[i].args()...)
			}
			// Direct SQL: the request log's writer stores a batch of every account's requests in one multi-row insert (ent's per-row mutations and hooks cost more than the request being logged); api_requests is system-only and emits no event.
			if _, err := tx.ExecContext(ctx, q.String(), args...); err != nil {
				return err
			}
			others = others[n:]
		}
		return addCounts(ctx, tx, w.dialect, rows)
	})
}

// hourCount is one account's requests and errors in one UTC hour.
type hourCount struct {
	account          int64
	hour             time.Time
	requests, errors int64
}

// countHours counts rows per account and UTC hour, ordered by account and hour; rows without an account (failed
// authentications) are not counted, nor are they in the log's charts.
func countHours(rows []row) []hourCount {
	type key struct {
		account int64
		hour    int64
	}
	at := make(map[key]int, 2)
	var out []hourCount
	for i := range rows {
		r := &rows[i]
		acct := r.account
		if acct == 0 {
			continue
		}
		h := r.at.UTC().Truncate(time.Hour)
		k := key{acct, h.Unix()}
		i, ok := at[k]
		if !ok {
			i = len(out)
			at[k] = i
			out = append(out, hourCount{account: acct, hour: h})
		}
		out[i].requests++
		if r.status >= 400 {
			out[i].errors++
		}
	}
	// One order for every writer, so that two servers' upserts of the
	// same hours wait for each other instead of deadlocking.
	slices.SortFunc(out, func(a, b hourCount) int {
		if c := cmp.Compare(a.account, b.account); c != 0 {
			return c
		}
		return a.hour.Compare(b.hour)
	})
	return out
}

// addCounts adds rows to their hours' counts in tx with one upsert.
func addCounts(ctx context.Context, tx *sql.Tx, dia string, rows []row) error {
	counts := countHours(rows)
	if len(counts) == 0 {
		return nil
	}
	var q strings.Builder
	args := appendCounts(&q, nil, dia, counts)
	// Direct SQL: the request log's writer adds a batch's counts per account and hour in the transaction that writes its rows (database/sql's, which ent cannot join), one upsert for every hour of the batch; api_request_hours is system-only and emits no event.
	_, err := tx.ExecContext(ctx, q.String(), args...)
	return err
}

// appendCounts writes to q the upsert that adds counts, some, to their
// hours' counts, its parameters numbered after args, and returns args with
// its arguments.
func appendCounts(q *strings.Builder, args []any, dia string, counts []hourCount) []any {
	q.WriteString(`INSERT INTO api_request_hours (account_id, hour, requests, errors) VALUES `)
	for i, c := range counts {
		if i > 0 {
			q.WriteByte(',')
		}
		if dia == dialect.Postgres {
			n := len(args)
			fmt.Fprintf(q, "($%d, $%d, $%d, $%d)", n+1, n+2, n+3, n+4)
		} else {
			q.WriteString("(?, ?, ?, ?)")
		}
		args = append(args, c.account, c.hour, c.requests, c.errors)
	}
	q.WriteString(` ON CONFLICT (account_id, hour) DO UPDATE SET requests = api_request_hours.requests + excluded.requests, errors = api_request_hours.errors + excluded.errors`)
	return args
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}
