package handlers

import (
	"net/http"
	"net/url"
	"strings"

	"larder.dev/larder/internal/platform/problem"
	"larder.dev/larder/openapi/oas"
)

// HTTP's own methods, beside the operations of the description: HEAD on
// every path that GET reads (RFC 9110, section 9.3.2), and OPTIONS on every
// path of the API (section 9.3.7), answered with the methods the path takes.
// Neither carries any Access-Control-* header: the API is not for browsers
// (its keys are secrets), so no cross-origin request is ever let through.

// withHead answers HEAD as GET: the layers inside it, caching, the gate and
// the router, see a GET and answer it in full (status, ETag, Content-Length,
// the rate limit spent), and the body is dropped on the way out. It sits
// inside the access log, which records the request as the HEAD it is, and
// outside the caching, whose Content-Length and ETag are the GET's.
//
// It needs nothing from the layers outside it.
func withHead(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodHead {
			next.ServeHTTP(w, r)
			return
		}
		get := *r
		get.Method = http.MethodGet
		next.ServeHTTP(headWriter{w}, &get)
	})
}

// headWriter sends a status and headers, and no body.
type headWriter struct{ http.ResponseWriter }

func (w headWriter) Write(p []byte) (int, error) { return len(p), nil }

// Unwrap lets http.ResponseController reach the connection.
func (w headWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// findRoute is the operation of a request to the API, HEAD taken as the GET
// it is answered as.
func findRoute(api *oas.Server, method string, u *url.URL) (oas.Route, bool) {
	if method == http.MethodHead {
		method = http.MethodGet
	}
	return api.FindPath(method, u)
}

// allow is the Allow header of a path whose operations take methods (the
// router's comma list, "GET,POST"): those, HEAD beside GET, and OPTIONS.
func allow(methods string) string {
	var b strings.Builder
	for _, m := range strings.Split(methods, ",") {
		if b.Len() > 0 {
			b.WriteString(", ")
		}
		b.WriteString(m)
		if m == http.MethodGet {
			b.WriteString(", " + http.MethodHead)
		}
	}
	b.WriteString(", " + http.MethodOptions)
	return b.String()
}

// methodNotAllowed is the router's answer to a method a path of the API does
// not take: OPTIONS gets 204 with Allow, every other method 405 with Allow.
// The router has set its own CORS preflight headers on an OPTIONS request by
// then; they are taken back.
func methodNotAllowed(w http.ResponseWriter, r *http.Request, methods string) {
	h := w.Header()
	for name := range h {
		if strings.HasPrefix(name, "Access-Control-") {
			delete(h, name)
		}
	}
	h.Set("Allow", allow(methods))
	if r.Method == http.MethodOptions {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	writeProblem(r.Context(), w, problem.New(problem.MethodNotAllowed, "%s is not allowed on %s; allowed: %s.", r.Method, r.URL.Path, h.Get("Allow")))
}

// options answers OPTIONS on a path outside the router that GET reads (the
// description).
func options(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Allow", allow(http.MethodGet))
	w.WriteHeader(http.StatusNoContent)
}

// accepts sets, on a 415, the header that names the media type the method
// takes: Accept-Patch (RFC 5789, section 2.2) or Accept-Post.
func accepts(h http.Header, method string) {
	switch method {
	case http.MethodPatch:
		h.Set("Accept-Patch", bodyMediaType)
	case http.MethodPost:
		h.Set("Accept-Post", bodyMediaType)
	}
}
