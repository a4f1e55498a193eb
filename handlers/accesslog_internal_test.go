package handlers

import (
	"bytes"
	"context"
	"log/slog"
	"testing"
	"time"
)

// The access log writes the same line through its slog handler (the plain
// path) and by hand (batched-log, logline): every field reaches the line
// written by hand, in its place. logline's TestLineIsSlogs holds the
// formatting itself to slog's for any strings.
func TestAccessLineIsSlogs(t *testing.T) {
	now := time.Date(2026, 11, 27, 11, 32, 3, 592_000_000, time.UTC)
	for _, a := range []access{
		{requestID: "req_01M8ECEYH2WC1WD8FHKSAQT2TH", method: "GET", path: "/v1/tags/8", status: 200, bytes: 88, duration: 1234567, remote: "127.0.0.1:51234"},
		{requestID: "req_2", method: "POST", path: "/v1/a b", status: 503, bytes: 0, remote: "[::1]:443", clientRequestID: "caller-7f3a", clientAbort: true},
		{requestID: "req_3", method: "HEAD", path: "/v1/é", status: 499, bytes: 7, duration: time.Second, remote: "x", clientRequestID: "nl\n"},
	} {
		var want bytes.Buffer
		accessLog{log: slog.New(slog.NewTextHandler(&want, nil))}.write(context.Background(), now, &a)
		var got bytes.Buffer
		accessLog{lines: &got}.write(context.Background(), now, &a)
		if got.String() != want.String() {
			t.Errorf("entry %+v:\n got %q\nwant %q", a, got.String(), want.String())
		}
	}
}
