package handlers

import (
	"bytes"
	"context"
	"io"
	"net/http"
)

// limitBody bounds request bodies, and keeps a copy of what was read for the
// error handler (locateLine).
//
// It needs nothing from the layers outside it. It sits innermost, next to
// the router it serves: only an operation reads a body, the copy is for the
// router's error handler, and a request the gate refuses costs no copy.
func limitBody(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil && r.Body != http.NoBody {
			raw := &rawBody{contentType: r.Header.Get("Content-Type")}
			r.Body = teeBody{io.TeeReader(http.MaxBytesReader(w, r.Body, MaxBodyBytes), &raw.Buffer), r.Body}
			r = r.WithContext(context.WithValue(r.Context(), rawBodyKey{}, raw))
			exchangeOf(r.Context()).limitBodyCopying(&raw.Buffer) // for the request log
		}
		next.ServeHTTP(w, r)
	})
}

// rawBodyKey holds the *rawBody of the request.
type rawBodyKey struct{}

// rawBody is the body of a request read so far, and the Content-Type it was
// sent with (for the error handler: mediaTypeParses).
type rawBody struct {
	bytes.Buffer
	contentType string
}

// teeBody reads through r and closes c.
type teeBody struct {
	r io.Reader
	c io.Closer
}

func (t teeBody) Read(p []byte) (int, error) { return t.r.Read(p) }
func (t teeBody) Close() error               { return t.c.Close() }
