package handlers

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// gzipAbove is the smallest body worth compressing: below it the gzip
// header and the CPU cost more than they save.
const gzipAbove = 1024

// gzipLevel trades a little size for much less CPU: on a 200-row product
// list (121 KB of JSON) level 3 takes 0.48 ms and gives 6.8 KB, where the
// default level 6 takes 1.1 ms for 6.1 KB, which was about as much CPU as the
// rest of the request (BenchmarkGzipLevels).
const gzipLevel = 3

// gzipWriters keeps gzip writers between answers: a new one allocates about
// 850 KB of compressor state, which took a 121 KB list's compression from
// 0.35–0.69 ms to 1.65 ms.
var gzipWriters = sync.Pool{New: func() any { w, _ := gzip.NewWriterLevel(nil, gzipLevel); return w }}

// withHTTPCaching gives GET answers an entity tag and compression. A 200
// answer carries a weak ETag of its body (weak: the same entity whether
// sent plain or compressed); a request whose If-None-Match names it gets 304
// with no body, so a client polling a record, a list or the description
// downloads it again only when it changed. A body of at least gzipAbove
// bytes is gzip-compressed for a client that accepts it (lists and the
// description, in practice). Other methods pass through untouched.
//
// It needs nothing from the layers outside it. The layers inside it get the
// answer's header map itself (headers are set on the response directly) and,
// for a GET, a retractable writer, on which the gate may answer a request
// twice; nothing between this layer and the gate may wrap the writer, or
// every GET of a trusted key waits for its key to be read first.
func withHTTPCaching(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			next.ServeHTTP(w, r)
			return
		}
		// Headers go straight to the response's map: nothing is sent
		// before the body is complete.
		h := w.Header()
		b := &buffered{header: h, body: new(bytes.Buffer)}
		next.ServeHTTP(b, r)
		status := b.status
		if status == 0 {
			status = http.StatusOK
		}
		body := b.body.Bytes()
		if status != http.StatusOK {
			// The length known, said: a HEAD's answer (withHead), which
			// sends no body, carries it as its GET's does.
			if len(body) > 0 {
				h.Set("Content-Length", strconv.Itoa(len(body)))
			}
			w.WriteHeader(status)
			_, _ = w.Write(body)
			return
		}
		tag := entityTag(body)
		h["Etag"] = []string{tag} // ETag's canonical key, as Set would make it anew
		h.Add("Vary", "Accept-Encoding")
		if matches(r.Header.Get("If-None-Match"), tag) {
			h.Del("Content-Length")
			h.Del("Content-Type")
			w.WriteHeader(http.StatusNotModified)
			return
		}
		if len(body) >= gzipAbove && acceptsGzip(r.Header.Get("Accept-Encoding")) {
			z := new(bytes.Buffer)
			gz := gzipWriters.Get().(*gzip.Writer)
			gz.Reset(z)
			_, _ = gz.Write(body)
			_ = gz.Close()
			gzipWriters.Put(gz)
			h.Set("Content-Encoding", "gzip")
			body = z.Bytes()
		}
		h.Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(status)
		_, _ = w.Write(body)
	})
}

// entityTag is the weak entity tag of a 200 answer's body: W/"…" around the
// first 128 bits of its SHA-256 in hex, made in one allocation.
func entityTag(body []byte) string {
	sum := sha256.Sum256(body)
	var b [len(`W/""`) + 32]byte
	copy(b[:], `W/"`)
	hex.Encode(b[3:35], sum[:16])
	b[35] = '"'
	return string(b[:])
}

// matches reports whether an If-None-Match header names tag (weak
// comparison: W/ prefixes are ignored), or is *.
func matches(header, tag string) bool {
	if header == "" {
		return false
	}
	want := strings.TrimPrefix(tag, "W/")
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimSpace(t)
		if t == "*" || strings.TrimPrefix(t, "W/") == want {
			return true
		}
	}
	return false
}

// acceptsGzip reports whether an Accept-Encoding header accepts gzip (a
// q=0 refuses it).
func acceptsGzip(header string) bool {
	for _, part := range strings.Split(header, ",") {
		coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if !strings.EqualFold(strings.TrimSpace(coding), "gzip") && strings.TrimSpace(coding) != "*" {
			continue
		}
		q := strings.ReplaceAll(strings.TrimSpace(params), " ", "")
		return q != "q=0" && q != "q=0.0" && q != "q=0.00" && q != "q=0.000"
	}
	return false
}

// retractable is a response writer that sends nothing before the handler
// returns, so that what was written to it can still be taken back: the gate
// answers a trusted GET on it first and, if the key turns out to have
// changed, throws that answer away and answers again (gate.trusting).
// withHTTPCaching hands one to the layers inside it for every GET (buffered);
// a writer that is not one sends as it goes, and the gate then checks the key
// before it answers.
type retractable interface {
	http.ResponseWriter
	// mark notes the headers set so far, the ones retract keeps.
	mark()
	// retract forgets the status and body written since the handler began,
	// and every header set since mark.
	retract()
}

// buffered holds an answer until it is complete.
type buffered struct {
	header http.Header
	status int
	body   *bytes.Buffer
	// marked are the names of the headers set at mark, in kept while they
	// fit: the writer is made per GET anyway, and a slice of its own would
	// be one more allocation.
	marked []string
	kept   [8]string
}

var _ retractable = (*buffered)(nil)

func (b *buffered) mark() {
	b.marked = b.kept[:0]
	for name := range b.header {
		b.marked = append(b.marked, name)
	}
}

func (b *buffered) retract() {
	b.status = 0
	b.body.Reset()
	for name := range b.header {
		if !slices.Contains(b.marked, name) {
			delete(b.header, name)
		}
	}
}

func (b *buffered) Header() http.Header { return b.header }

func (b *buffered) WriteHeader(code int) {
	if b.status == 0 {
		b.status = code
	}
}

func (b *buffered) Write(p []byte) (int, error) {
	if b.status == 0 {
		b.status = http.StatusOK
	}
	return b.body.Write(p)
}
