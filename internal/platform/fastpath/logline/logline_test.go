package logline

import (
	"bytes"
	"context"
	"log/slog"
	"math/rand/v2"
	"testing"
	"time"
)

// slogLine is e's line at now as slog.NewTextHandler writes its record: the
// plain path's line.
func slogLine(w *bytes.Buffer, e *Entry, now time.Time) {
	line := slog.NewRecord(now, slog.LevelInfo, "request", 0)
	line.AddAttrs(
		slog.String("request_id", e.RequestID),
		slog.String("method", e.Method),
		slog.String("path", e.Path),
		slog.Int("status", e.Status),
		slog.Int("bytes", e.Bytes),
		slog.Duration("duration", e.Duration),
		slog.String("remote", e.Remote),
	)
	if e.ClientRequestID != "" {
		line.AddAttrs(slog.String("client_request_id", e.ClientRequestID))
	}
	if e.ClientAbort {
		line.AddAttrs(slog.Bool("client_abort", true))
	}
	_ = slog.NewTextHandler(w, nil).Handle(context.Background(), line)
}

// The line written by hand is slog's text handler's, byte for byte: the
// same entries written both ways read the same, whatever the strings hold
// and whenever they were written.
func TestLineIsSlogs(t *testing.T) {
	tokyo := time.FixedZone("JST", 9*3600)
	times := []time.Time{
		time.Date(2026, 11, 27, 11, 32, 3, 592_000_000, time.UTC),
		time.Date(2026, 11, 27, 11, 32, 3, 0, time.UTC),
		time.Date(2026, 11, 27, 11, 32, 3, 999_999_999, tokyo),
		time.Date(1999, 12, 31, 23, 59, 59, 100_500, time.Local),
		time.Now(), // with a monotonic reading
	}
	strs := []string{
		"", "req_01M8ECEYH2WC1WD8FHKSAQT2TH", "/v1/tags/8", "/v1/a b", "/v1/a=b", `/v1/"q"`, `/v1/back\\slash`,
		"/v1/é", "/v1/\u00a0", "/v1/\u2028", "tab\there", "nl\n", "\x7f", "\xff", "[::1]:443", "caller-7f3a", "日本",
	}
	r := rand.New(rand.NewPCG(1, 2))
	pick := func() string { return strs[r.IntN(len(strs))] }
	for i := range 400 {
		e := Entry{
			RequestID: pick(), Method: pick(), Path: pick(), Remote: pick(),
			Status: r.IntN(600), Bytes: r.IntN(1 << 20),
			Duration:    time.Duration(r.Int64N(int64(20 * time.Second))),
			ClientAbort: r.IntN(2) == 0,
		}
		if i%3 == 0 {
			e.ClientRequestID = pick()
		}
		if i == 0 {
			e.Duration = 0
		}
		now := times[i%len(times)]
		var want bytes.Buffer
		slogLine(&want, &e, now)
		if got := e.Append(nil, now); string(got) != want.String() {
			t.Fatalf("entry %+v at %v:\n got %q\nwant %q", e, now, got, want.String())
		}
	}
}

func BenchmarkLine(b *testing.B) {
	e := Entry{RequestID: "req_01M8ECEYH2WC1WD8FHKSAQT2TH", Method: "GET", Path: "/v1/tags/8", Status: 200, Bytes: 88, Duration: 1234567, Remote: "127.0.0.1:51234"}
	var w bytes.Buffer
	b.Run("slog", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			w.Reset()
			slogLine(&w, &e, time.Now())
		}
	})
	b.Run("own", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = e.Append(make([]byte, 0, 512), time.Now())
		}
	})
}
