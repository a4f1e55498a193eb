package handlers

import (
	"bytes"
	"context"
	"log/slog"
	"math/rand/v2"
	"testing"
	"time"
)

// The access log's own lines are slog's text handler's, byte for byte: the
// same entries written both ways read the same, whatever the strings hold
// and whenever they were written.
func TestAccessLineIsSlogs(t *testing.T) {
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
		a := access{
			requestID: pick(), method: pick(), path: pick(), remote: pick(),
			status: r.IntN(600), bytes: r.IntN(1 << 20),
			duration:    time.Duration(r.Int64N(int64(20 * time.Second))),
			clientAbort: r.IntN(2) == 0,
		}
		if i%3 == 0 {
			a.clientRequestID = pick()
		}
		if i == 0 {
			a.duration = 0
		}
		now := times[i%len(times)]
		var want bytes.Buffer
		accessLog{log: slog.New(slog.NewTextHandler(&want, nil))}.write(context.Background(), now, &a)
		var got bytes.Buffer
		accessLog{lines: &got}.write(context.Background(), now, &a)
		if got.String() != want.String() {
			t.Fatalf("entry %+v at %v:\n got %q\nwant %q", a, now, got.String(), want.String())
		}
	}
}

func BenchmarkAccessLine(b *testing.B) {
	a := access{requestID: "req_01M8ECEYH2WC1WD8FHKSAQT2TH", method: "GET", path: "/v1/tags/8", status: 200, bytes: 88, duration: 1234567, remote: "127.0.0.1:51234"}
	for _, l := range []struct {
		name string
		log  accessLog
	}{
		{"slog", accessLog{log: slog.New(slog.NewTextHandler(discard{}, nil))}},
		{"own", accessLog{lines: discard{}}},
	} {
		b.Run(l.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				l.log.write(context.Background(), time.Now(), &a)
			}
		})
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
