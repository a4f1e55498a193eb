package handlers

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strconv"
	"time"
	"unicode"
	"unicode/utf8"

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

// accessLog writes the access log's lines: to lines, when it is set,
// formatted here; otherwise through log's handler.
type accessLog struct {
	log   *slog.Logger
	lines io.Writer
}

// write logs a's line at now.
func (l accessLog) write(ctx context.Context, now time.Time, a *access) {
	if l.lines != nil {
		_, _ = l.lines.Write(a.appendText(make([]byte, 0, 512), now))
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

// appendText appends a's line at now as slog.NewTextHandler writes it
// (without ReplaceAttr or AddSource; the default --log-format), byte for
// byte: half the CPU of
// building a record and handling it, which was 3% of a GET's.
// TestAccessLineIsSlogs holds it to slog's.
func (a *access) appendText(b []byte, now time.Time) []byte {
	b = append(b, "time="...)
	b = appendRFC3339Millis(b, now)
	b = append(b, " level=INFO msg=request request_id="...)
	b = appendTextString(b, a.requestID)
	b = append(b, " method="...)
	b = appendTextString(b, a.method)
	b = append(b, " path="...)
	b = appendTextString(b, a.path)
	b = append(b, " status="...)
	b = strconv.AppendInt(b, int64(a.status), 10)
	b = append(b, " bytes="...)
	b = strconv.AppendInt(b, int64(a.bytes), 10)
	b = append(b, " duration="...)
	b = append(b, a.duration.String()...)
	b = append(b, " remote="...)
	b = appendTextString(b, a.remote)
	if a.clientRequestID != "" {
		b = append(b, " client_request_id="...)
		b = appendTextString(b, a.clientRequestID)
	}
	if a.clientAbort {
		b = append(b, " client_abort=true"...)
	}
	return append(b, '\n')
}

// appendRFC3339Millis appends t as slog's handlers write a record's time:
// RFC 3339 truncated to the millisecond, always three digits of it.
func appendRFC3339Millis(b []byte, t time.Time) []byte {
	const prefixLen = len("2006-01-02T15:04:05.000")
	n := len(b)
	// RFC3339Nano trims trailing zeros: a tenth of a millisecond more
	// keeps four digits, of which the fourth is dropped.
	b = t.Truncate(time.Millisecond).Add(time.Millisecond/10).AppendFormat(b, time.RFC3339Nano)
	return append(b[:n+prefixLen], b[n+prefixLen+1:]...)
}

// appendTextString appends s as slog's text handler writes a string value:
// quoted (strconv.Quote) when it is empty or holds a space, '=', '"', a
// control character, or a rune that is invalid, a space or not printable.
func appendTextString(b []byte, s string) []byte {
	if needsQuoting(s) {
		return strconv.AppendQuote(b, s)
	}
	return append(b, s...)
}

func needsQuoting(s string) bool {
	if s == "" {
		return true
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < ' ' || c == ' ' || c == '=' || c == '"' {
				return true
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError || unicode.IsSpace(r) || !unicode.IsPrint(r) {
			return true
		}
		i += size
	}
	return false
}
