package handlers

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"path"
	"strings"
	"time"

	"larder.dev/larder/apidocs"
	"larder.dev/larder/auth"
	"larder.dev/larder/bounds"
	"larder.dev/larder/config"
	"larder.dev/larder/ent/rest"
	"larder.dev/larder/metrics"
	"larder.dev/larder/openapi"
	"larder.dev/larder/openapi/oas"
	"larder.dev/larder/problem"
	"larder.dev/larder/ratelimit"
	"larder.dev/larder/store"
	"larder.dev/larder/tracing"
)

// MaxBodyBytes bounds a request body (the description's 413).
const MaxBodyBytes = bounds.MaxBodyBytes

// Server is the HTTP side of Larder.
type Server struct {
	http.Handler
	// Limiter counts requests; Prune it now and then.
	Limiter ratelimit.Limiter
	// Metrics are the server's series: Metrics.Handler serves them, which
	// serve does on the metrics address; on the API's address they are
	// served only to the configured metrics token.
	Metrics *metrics.Metrics
}

// Options are what New needs beyond the store.
type Options struct {
	Config config.Config
	Log    *slog.Logger
	// Now is the clock of the limits; nil means time.Now.
	Now func() time.Time
	// AccessLines, when set, takes the access log's lines, written here
	// byte for byte as slog.NewTextHandler writes them (without ReplaceAttr
	// or AddSource), instead of through Log, which still takes every other
	// line: the writer of Log's text handler, for the same log in half the
	// time. It must take concurrent writes, each a whole line.
	AccessLines io.Writer
}

// New assembles the API: request id, access log and panic recovery, ETag and
// gzip for GET answers, time bound, load shedding, key and limits, then the
// generated router.
func New(st *store.Store, o Options) (*Server, error) {
	cfg, log := o.Config, o.Log
	if log == nil {
		log = slog.Default()
	}
	now := o.Now
	if now == nil {
		now = time.Now
	}
	h := &Handler{
		Handlers:  &rest.Handlers{Client: st.Client, Log: log, RequestID: RequestID},
		client:    st.Client,
		log:       log,
		rateLimit: cfg.RateLimit,
	}
	api, err := oas.NewServer(h, security{},
		oas.WithPathPrefix("/v1"),
		oas.WithErrorHandler(func(ctx context.Context, w http.ResponseWriter, _ *http.Request, err error) {
			h.writeError(ctx, w, err)
		}),
		oas.WithNotFound(func(w http.ResponseWriter, r *http.Request) {
			writeProblem(r.Context(), w, notFound(r))
		}),
		oas.WithMethodNotAllowed(func(w http.ResponseWriter, r *http.Request, allowed string) {
			w.Header().Set("Allow", allowed)
			writeProblem(r.Context(), w, problem.New(problem.MethodNotAllowed, "%s is not allowed on %s; allowed: %s.", r.Method, r.URL.Path, allowed))
		}),
	)
	if err != nil {
		return nil, err
	}
	limiter, err := ratelimit.New(st.DB, st.Dialect)
	if err != nil {
		return nil, err
	}
	authn, err := auth.NewAuthenticator(st.DB, st.Dialect, limiter, cfg.RateLimit)
	if err != nil {
		return nil, err
	}
	trusted, err := cfg.Proxies()
	if err != nil {
		return nil, err
	}
	var reservations func() (int64, int64)
	if pg, ok := limiter.(*ratelimit.Postgres); ok {
		reservations = pg.Leases.Reserved
	}
	m := metrics.New(st, reservations)
	g := &gate{authn: authn, limiter: limiter, authFailLimit: cfg.AuthFailLimit, trusted: trusted, now: now, h: h, metrics: m, snapshot: st.Snapshot}

	mux := http.NewServeMux()
	mux.HandleFunc("GET "+openapiPath, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(openapi.Document)
	})
	apidocs.Register(mux, func(w http.ResponseWriter, r *http.Request) { writeProblem(r.Context(), w, notFound(r)) })
	mux.HandleFunc("GET /{$}", apidocs.Redirect)
	if cfg.MetricsToken != "" {
		mux.Handle("GET "+metrics.Path, bearer(cfg.MetricsToken, m.Handler()))
	}
	mux.HandleFunc("GET "+LivePath, live)
	mux.HandleFunc("GET "+ReadyPath, ready(st))
	v1 := g.wrap(limitBody(api))
	mux.Handle("/v1/", v1)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeProblem(r.Context(), w, notFound(r))
	})
	var handler http.Handler = canonical(mux, v1)
	handler = withShedding(cfg.MaxInFlight, handler)
	handler = withTimeout(cfg.RequestTimeout, handler)
	handler = withHTTPCaching(handler)
	handler = withAccessLog(accessLog{log: log, lines: o.AccessLines}, m, operation(api), handler)
	if tracing.Provider() != nil {
		handler = withOperationSpan(api, handler)
	}
	handler = withRequestID(handler)
	return &Server{Handler: handler, Limiter: limiter, Metrics: m}, nil
}

// openapiPath is where the API description is served, the one path under
// /v1/ that is not the generated router's.
const openapiPath = "/v1/openapi.json"

func notFound(r *http.Request) *problem.Error {
	return problem.New(problem.NotFound, "No route %s %s; the API description is at /v1/openapi.json.", r.Method, r.URL.Path)
}

// canonical answers 404 to a path net/http's mux would redirect (dot
// segments, doubled slashes) instead of a 3xx that no client of the API
// expects: every answer is a resource or a problem. The one redirect is GET
// /v1 (like GET /), a browser's way to the docs page.
//
// A canonical path under /v1/ other than the description's, written without
// escapes, goes straight to v1, the handler mux has for /v1/ and would
// choose for it anyway (an escaped path is left to the mux, which matches
// the path as written): the mux's
// pattern matching costs an API request about 1.5 µs and six allocations
// (bench/README.md, "The request's own layers").
func canonical(mux *http.ServeMux, v1 http.Handler) http.Handler {
	var next http.Handler = mux
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		if p == "/v1" && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
			apidocs.Redirect(w, r)
			return
		}
		clean := path.Clean(p)
		if strings.HasSuffix(p, "/") && clean != "/" {
			clean += "/"
		}
		if p == "/v1" || clean != p {
			writeProblem(r.Context(), w, notFound(r))
			return
		}
		if strings.HasPrefix(p, "/v1/") && p != openapiPath && r.URL.RawPath == "" {
			v1.ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// limitBody bounds request bodies, and keeps a copy of what was read for the
// error handler (locateLine).
func limitBody(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil && r.Body != http.NoBody {
			var raw bytes.Buffer
			r.Body = teeBody{io.TeeReader(http.MaxBytesReader(w, r.Body, MaxBodyBytes), &raw), r.Body}
			r = r.WithContext(context.WithValue(r.Context(), rawBodyKey{}, &raw))
		}
		next.ServeHTTP(w, r)
	})
}

// rawBodyKey holds the *bytes.Buffer of the body read so far.
type rawBodyKey struct{}

// teeBody reads through r and closes c.
type teeBody struct {
	r io.Reader
	c io.Closer
}

func (t teeBody) Read(p []byte) (int, error) { return t.r.Read(p) }
func (t teeBody) Close() error               { return t.c.Close() }

// PruneLimits forgets finished rate-limit windows every minute until ctx ends.
func (s *Server) PruneLimits(ctx context.Context, log *slog.Logger) {
	t := time.NewTicker(time.Minute)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			if err := s.Limiter.Prune(ctx, now); err != nil && ctx.Err() == nil {
				log.Warn("prune rate limits", "error", err)
			}
		}
	}
}
