package handlers

import (
	"net/http"
	"net/netip"
	"time"

	"larder.dev/larder/internal/reqlog"
)

// requestLog hands the request log (package reqlog) every authenticated
// request and every failed authentication, after its answer: an Entry put
// on the writer's queue, which never waits. The bodies are kept for writes
// and for answers of 400 and above only, so a GET answered 200 costs no copy
// of its answer.
//
// It is part of the access log's layer (withAccessLog), which sees the status
// and bytes that go on the wire; a GET's answer of 400 and above is never
// compressed (withHTTPCaching compresses 200s alone), so the body it keeps is
// the body as sent.
type requestLog struct {
	w       *reqlog.Writer
	trusted []netip.Prefix
}

// keeps reports whether rec should copy the answer it is writing, for the log.
func (l *requestLog) keeps(method string, status int) bool {
	return l != nil && reqlog.Keeps(method, status)
}

// record hands the request of r, answered through rec, to the writer, if it
// is an authenticated request or a failed authentication.
func (l *requestLog) record(r *http.Request, rec *recorder, x *exchange, operation string, start time.Time, took time.Duration) {
	if l == nil || x == nil {
		return
	}
	v := x.caller()
	if v == nil && rec.status != http.StatusUnauthorized && x.refusal() != "auth_failures" {
		return
	}
	e := &reqlog.Entry{
		At:              start,
		Method:          r.Method,
		Operation:       operation,
		Path:            r.URL.RequestURI(),
		Status:          rec.status,
		Duration:        took,
		RequestID:       x.id(),
		ClientRequestID: x.clientID(),
		RemoteAddr:      r.RemoteAddr,
		UserAgent:       r.Header.Get("User-Agent"),
		Trusted:         l.trusted,
		Deprecated:      x.deprecatedUses(),
	}
	if v != nil {
		e.AccountID, e.KeyID = v.AccountID, v.KeyID
	}
	if len(l.trusted) > 0 {
		e.ForwardedFor = r.Header.Values("X-Forwarded-For")
	}
	if reqlog.Keeps(r.Method, rec.status) {
		if body := x.body(); body != nil {
			b, cut := reqlog.Cut(body.Bytes())
			e.RequestBody, e.Truncated = b, cut
		}
		e.ResponseBody = rec.kept
		if e.ResponseBody == nil {
			e.ResponseBody = []byte{}
		}
		e.Truncated = e.Truncated || rec.cut
	}
	l.w.Record(e)
}
