package logbuf_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"larder.dev/larder/internal/platform/fastpath/logbuf"
)

// out records each write it gets.
type out struct {
	mu     sync.Mutex
	writes []string
}

func (o *out) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.writes = append(o.writes, string(p))
	return len(p), nil
}

func (o *out) get() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]string(nil), o.writes...)
}

func TestLinesWaitForTheirBatch(t *testing.T) {
	var o out
	w := logbuf.New(&o, time.Hour)
	log := slog.New(logbuf.Handler{Handler: slog.NewTextHandler(w, nil), W: w})
	log.Info("one")
	log.Info("two")
	if got := o.get(); len(got) != 0 {
		t.Fatalf("INFO lines written before their batch: %q", got)
	}
	log.Warn("three")
	got := o.get()
	if len(got) != 1 {
		t.Fatalf("a WARN line must write the batch with it in one write, got %d writes: %q", len(got), got)
	}
	for i, msg := range []string{"msg=one", "msg=two", "msg=three"} {
		lines := strings.Split(strings.TrimSpace(got[0]), "\n")
		if len(lines) != 3 || !strings.Contains(lines[i], msg) {
			t.Fatalf("line %d of the batch is not %s, in order: %q", i, msg, got[0])
		}
	}
	log.With("k", "v").WithGroup("g").Error("four", "x", 1)
	if got := o.get(); len(got) != 2 || !strings.Contains(got[1], "msg=four k=v g.x=1") {
		t.Fatalf("an ERROR line of a derived logger is not written at once: %q", got)
	}
	log.Info("five")
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if got := o.get(); len(got) != 3 || !strings.Contains(got[2], "msg=five") {
		t.Fatalf("Flush did not write the batch: %q", got)
	}
	if err := w.Flush(); err != nil || len(o.get()) != 3 {
		t.Fatalf("Flush of an empty batch wrote: %q, %v", o.get(), err)
	}
}

func TestBatchIsWrittenInTime(t *testing.T) {
	var o out
	w := logbuf.New(&o, 20*time.Millisecond)
	_, _ = w.Write([]byte("a\n"))
	_, _ = w.Write([]byte("b\n"))
	deadline := time.Now().Add(5 * time.Second)
	for len(o.get()) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("a batch was not written after its time")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if got := o.get(); len(got) != 1 || got[0] != "a\nb\n" {
		t.Fatalf("want one write of both lines, got %q", got)
	}
	// The next line starts a new wait.
	_, _ = w.Write([]byte("c\n"))
	for len(o.get()) == 1 {
		if time.Now().After(deadline) {
			t.Fatal("the second batch was not written after its time")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if got := o.get(); got[1] != "c\n" {
		t.Fatalf("second batch %q", got[1])
	}
}

func TestFullBatchIsWrittenAtOnce(t *testing.T) {
	var o out
	w := logbuf.New(&o, time.Hour)
	line := bytes.Repeat([]byte("x"), 1000)
	n := 0
	for len(o.get()) == 0 {
		if _, err := w.Write(line); err != nil {
			t.Fatal(err)
		}
		n += len(line)
		if n > 2*logbuf.Size {
			t.Fatalf("%d bytes held without a write", n)
		}
	}
	if got := o.get(); len(got[0]) != n || n < logbuf.Size {
		t.Fatalf("a batch of %d bytes written after %d bytes (Size %d)", len(got[0]), n, logbuf.Size)
	}
}

func TestHandlerKeepsLevels(t *testing.T) {
	w := logbuf.New(new(out), time.Hour)
	h := logbuf.Handler{Handler: slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelWarn}), W: w}
	if h.Enabled(context.Background(), slog.LevelInfo) || !h.Enabled(context.Background(), slog.LevelWarn) {
		t.Fatal("the batching handler does not keep its handler's level")
	}
}
