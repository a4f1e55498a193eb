package handlers

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"runtime/debug"
	"time"

	"larder.dev/larder/internal/platform/fastpath/logline"
	"larder.dev/larder/internal/platform/metrics"
	"larder.dev/larder/internal/reqlog"
)

// recorder remembers the status and size of a response, and for the request
// log the first reqlog.MaxBody bytes of an answer it keeps.
type recorder struct {
	http.ResponseWriter
	status int
	bytes  int
	// log and method decide, at the status, whether the answer is kept.
	log    *requestLog
	method string
	keep   bool
	kept   []byte
	cut    bool
}

func (r *recorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
		r.keep = r.log.keeps(r.method, code)
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
		r.keep = r.log.keeps(r.method, r.status)
	}
	n, err := r.ResponseWriter.Write(b)
	r.bytes += n
	if r.keep && n > 0 {
		r.keepAnswer(b[:n])
	}
	return n, err
}

// keepAnswer copies b after what was kept so far, up to reqlog.MaxBody.
func (r *recorder) keepAnswer(b []byte) {
	room := reqlog.MaxBody - len(r.kept)
	if len(b) > room {
		b, r.cut = b[:room], true
	}
	r.kept = append(r.kept, b...)
}

// Unwrap lets http.ResponseController reach the connection.
func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// withAccessLog logs one line per request, hands the request log (rl, nil
// when it is off) its entry, and turns a panic into a 500
// problem (when nothing was written yet) instead of a dropped connection.
//
// It needs the exchange of withRequestID outside it, for the request id of
// its line and the reason of a 429 or 503 that the layers inside it record
// (exchange.refusal); without one the line has no id and the reason is "other". It
// sits outside the caching layer so that it sees, and counts, the status and
// bytes that go on the wire: a 304, a compressed body.
func withAccessLog(log accessLog, m *metrics.Metrics, name func(*http.Request) string, rl *requestLog, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &recorder{ResponseWriter: w, log: rl, method: r.Method}
		ctx := r.Context()
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				log.log.ErrorContext(ctx, "panic", "request_id", RequestID(ctx), "panic", v, "stack", string(debug.Stack()))
				if rec.status == 0 {
					writeProblem(ctx, rec, internal)
				}
			}
			now := time.Now()
			took := now.Sub(start)
			op := name(r)
			m.Request(op, r.Method, rec.status, took)
			rl.record(r, rec, exchangeOf(ctx), op, start, took)
			if rec.status == http.StatusTooManyRequests || rec.status == http.StatusServiceUnavailable {
				reason := exchangeOf(ctx).refusal()
				if reason == "" {
					reason = "other"
				}
				m.Refused(rec.status, reason)
			}
			if quiet(r, rec.status) {
				return
			}
			x := exchangeOf(ctx)
			a := access{
				requestID:       x.id(),
				method:          r.Method,
				path:            r.URL.Path,
				status:          rec.status,
				bytes:           rec.bytes,
				duration:        took,
				remote:          r.RemoteAddr,
				clientRequestID: x.clientID(),
				// The client closed its side before the answer.
				clientAbort: ctx.Err() != nil,
			}
			log.write(ctx, now, &a)
		}()
		next.ServeHTTP(rec, r)
	})
}

// access is one line of the access log: the request's fields, in the order
// the line shows them.
type access struct {
	requestID, method, path string
	status, bytes           int
	duration                time.Duration
	remote                  string
	clientRequestID         string // when the client sent one
	clientAbort             bool
}

// accessLog writes the access log's lines: through log's handler, or, with
// the fast path's batched-log, to lines, formatted by hand as that handler
// would (logline).
type accessLog struct {
	log   *slog.Logger
	lines io.Writer
}

// write logs a's line at now.
func (l accessLog) write(ctx context.Context, now time.Time, a *access) {
	if l.lines != nil {
		e := logline.Entry{
			RequestID: a.requestID, Method: a.method, Path: a.path,
			Status: a.status, Bytes: a.bytes, Duration: a.duration, Remote: a.remote,
			ClientRequestID: a.clientRequestID, ClientAbort: a.clientAbort,
		}
		_, _ = l.lines.Write(e.Append(make([]byte, 0, 512), now))
		return
	}
	// A record of its own, without the caller's pc that Logger.LogAttrs
	// walks the stack for: no handler shows the source of the access log's
	// one call.
	h := l.log.Handler()
	if !h.Enabled(ctx, slog.LevelInfo) {
		return
	}
	line := slog.NewRecord(now, slog.LevelInfo, "request", 0)
	line.AddAttrs(
		slog.String("request_id", a.requestID),
		slog.String("method", a.method),
		slog.String("path", a.path),
		slog.Int("status", a.status),
		slog.Int("bytes", a.bytes),
		slog.Duration("duration", a.duration),
		slog.String("remote", a.remote),
	)
	if a.clientRequestID != "" {
		line.AddAttrs(slog.String("client_request_id", a.clientRequestID))
	}
	if a.clientAbort {
		// The client closed its side before the answer: not a server
		// error, whatever the status it was sent.
		line.AddAttrs(slog.Bool("client_abort", true))
	}
	_ = h.Handle(ctx, line)
}
