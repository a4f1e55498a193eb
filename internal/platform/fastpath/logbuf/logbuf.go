// Package logbuf holds a serving process's log lines for a moment and writes
// them in batches (the fastpath mechanism batched-log): one write per batch
// instead of one per request. Under load
// the access log's write was a system call per request (4 µs of a GET's
// 220 on the benchmark machine, more on a pipe, where each write wakes the
// reader). Lines at WARN and
// above are written at once, with every line before them (Handler).
//
// What a batch holds is at most Every old, and it is written when the
// process ends normally (Flush). A process killed outright loses the lines
// of its last batch; nginx's buffered access_log makes the same trade.
package logbuf

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"time"
)

// Size is how many bytes a batch holds before it is written without waiting.
const Size = 32 << 10

// Writer batches the writes to w: a batch is written when it holds Size
// bytes, or every after its first line, whichever is first.
type Writer struct {
	mu    sync.Mutex
	w     io.Writer
	every time.Duration
	buf   []byte
	timer *time.Timer
	armed bool
}

// New batches the writes to w for at most every.
func New(w io.Writer, every time.Duration) *Writer {
	b := &Writer{w: w, every: every, buf: make([]byte, 0, Size)}
	b.timer = time.AfterFunc(time.Hour, func() { _ = b.Flush() })
	b.timer.Stop()
	return b
}

// Write adds p to the batch. Its error is the failed write of a batch, if
// this write made one.
func (b *Writer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if len(b.buf) >= Size {
		return len(p), b.flush()
	}
	if !b.armed {
		b.armed = true
		b.timer.Reset(b.every)
	}
	return len(p), nil
}

// Flush writes the batch now.
func (b *Writer) Flush() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.flush()
}

func (b *Writer) flush() error {
	if b.armed {
		b.armed = false
		b.timer.Stop()
	}
	if len(b.buf) == 0 {
		return nil
	}
	_, err := b.w.Write(b.buf)
	if cap(b.buf) > 4*Size {
		b.buf = make([]byte, 0, Size)
	} else {
		b.buf = b.buf[:0]
	}
	return err
}

// Handler is a slog.Handler over a Writer's handler: records below WARN wait
// in the batch, the others are written at once with the batch before them.
type Handler struct {
	slog.Handler
	W *Writer
}

// Handle implements slog.Handler.
func (h Handler) Handle(ctx context.Context, r slog.Record) error {
	err := h.Handler.Handle(ctx, r)
	if r.Level >= slog.LevelWarn {
		if ferr := h.W.Flush(); err == nil {
			err = ferr
		}
	}
	return err
}

// WithAttrs implements slog.Handler.
func (h Handler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return Handler{h.Handler.WithAttrs(attrs), h.W}
}

// WithGroup implements slog.Handler.
func (h Handler) WithGroup(name string) slog.Handler {
	return Handler{h.Handler.WithGroup(name), h.W}
}
