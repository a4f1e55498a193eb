package handlers

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"time"

	"larder.dev/larder/internal/platform/deprecation"

	"larder.dev/larder/client/bounds"
	"larder.dev/larder/internal/identity/auth"
	"larder.dev/larder/internal/identity/ratelimit"
	"larder.dev/larder/internal/platform/apidocs"
	"larder.dev/larder/internal/platform/config"
	"larder.dev/larder/internal/platform/fastpath"
	"larder.dev/larder/internal/platform/fastpath/encoders"
	"larder.dev/larder/internal/platform/metrics"
	"larder.dev/larder/internal/platform/problem"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/platform/tracing"
	"larder.dev/larder/internal/reqlog"
	"larder.dev/larder/internal/restapi"
	"larder.dev/larder/openapi"
	"larder.dev/larder/openapi/oas"
)

// MaxBodyBytes bounds a request body (the description's 413).
const MaxBodyBytes = bounds.MaxBodyBytes

// Server is the HTTP side of Larder.
type Server struct {
	http.Handler
	// Limiter counts requests; package retention prunes it.
	Limiter ratelimit.Limiter
	// Metrics are the server's series: Metrics.Handler serves them, which
	// serve does on the metrics address; on the API's address they are
	// served only to the configured metrics token.
	Metrics *metrics.Metrics
	// logged wraps a handler in the request id and the access log.
	logged middleware
}

// Logged wraps another handler of the process (the console) in the API's
// request id and access log: each of its requests has an X-Request-Id and a
// line of the access log, as the API's do, and counts in the request series
// as operation "console". The request log, of requests made with keys,
// leaves it out.
func (s *Server) Logged(h http.Handler) http.Handler { return s.logged(h) }

// Options are what New needs beyond the store.
type Options struct {
	Config config.Config
	Log    *slog.Logger
	// Now is the clock of the limits; nil means time.Now.
	Now func() time.Time
	// AccessLines, when set, takes the access log's lines, written by hand
	// (logline) byte for byte as slog.NewTextHandler writes them (without
	// ReplaceAttr or AddSource), instead of through Log, which still takes
	// every other line: the writer of Log's text handler, for the same log
	// in half the time, with the fast path's batched-log on. It must take
	// concurrent writes, each a whole line.
	AccessLines io.Writer
	// RequestLog, when set, takes every authenticated request and every
	// failed authentication for the request log (package reqlog); nil
	// records none.
	RequestLog *reqlog.Writer
	// Deprecations are what answers announce as deprecated; nil reads them
	// from the served description (openapi.Document).
	Deprecations *deprecation.Table
	// Replicas, when set, answer the reads of GETs one of them has caught
	// up with (store.Replicas); its caller runs them (Replicas.Run).
	Replicas *store.Replicas
}

// New assembles the API: request id, tracing span, access log and panic
// recovery, HEAD answered as GET, ETag and gzip for GET answers, time bound,
// load shedding, routing, key and limits, the body's bound, then the
// generated router, in the one ordered list of layers at its end.
func New(st *store.Store, o Options) (*Server, error) {
	cfg, log := o.Config, o.Log
	if log == nil {
		log = slog.Default()
	}
	now := o.Now
	if now == nil {
		now = time.Now
	}
	encoders.Use(cfg.FastPath.Has(fastpath.PooledEncoders))
	deprecations := o.Deprecations
	if deprecations == nil {
		var err error
		if deprecations, err = deprecation.FromDescription(openapi.Document); err != nil {
			return nil, err
		}
	}
	h := &Handler{
		Handlers:  &restapi.Handlers{Client: st.Client, Log: log, RequestID: RequestID},
		client:    st.Client,
		log:       log,
		rateLimit: cfg.RateLimit,
		snapshot:  st.Snapshot,
	}
	api, err := oas.NewServer(h, security{},
		oas.WithPathPrefix("/v1"),
		oas.WithErrorHandler(func(ctx context.Context, w http.ResponseWriter, r *http.Request, err error) {
			p := h.classify(ctx, err)
			if p.Code == problem.UnsupportedMediaType {
				accepts(w.Header(), r.Method)
			}
			writeProblem(ctx, w, p)
		}),
		oas.WithNotFound(func(w http.ResponseWriter, r *http.Request) {
			writeProblem(r.Context(), w, notFound(r))
		}),
		oas.WithMethodNotAllowed(methodNotAllowed),
	)
	if err != nil {
		return nil, err
	}
	limiter, err := ratelimit.New(st.DB, st.Dialect, st.Prepare)
	if err != nil {
		return nil, err
	}
	authn, err := auth.NewAuthenticator(st.DB, st.Dialect, limiter, cfg.RateLimit, cfg.FastPath, st.Prepare)
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
	var rl *requestLog
	if o.RequestLog != nil {
		rl = &requestLog{w: o.RequestLog, trusted: trusted}
		m.RequestLog(o.RequestLog.Written, o.RequestLog.Dropped)
	}
	g := &gate{authn: authn, limiter: limiter, authFailLimit: cfg.AuthFailLimit, trusted: trusted, now: now, h: h, metrics: m, snapshot: st.Snapshot, replicas: o.Replicas}

	mux := http.NewServeMux()
	mux.HandleFunc("GET "+openapiPath, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(openapi.Document)
	})
	mux.HandleFunc("OPTIONS "+openapiPath, options)
	apidocs.Register(mux, func(w http.ResponseWriter, r *http.Request) { writeProblem(r.Context(), w, notFound(r)) })
	mux.HandleFunc("GET /{$}", apidocs.Redirect)
	if cfg.MetricsToken != "" {
		mux.Handle("GET "+metrics.Path, bearer(cfg.MetricsToken, m.Handler()))
	}
	mux.HandleFunc("GET "+LivePath, live)
	mux.HandleFunc("GET "+ReadyPath, ready(st, o.Replicas))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeProblem(r.Context(), w, notFound(r))
	})
	var span middleware // none: tracing is off, and nothing is built per request
	if tracing.Provider() != nil {
		span = func(next http.Handler) http.Handler { return withOperationSpan(api, next) }
	}
	// The layers of every request, outermost first; each file's doc comment
	// says what its layer needs from the ones above it.
	layers := []middleware{
		// First: it makes the exchange that every layer below reads (the
		// request id of the log, the span and a problem) or fills in (the
		// reason of a refusal, the viewer of a key).
		withRequestID,
		// Inside the id, which the span carries; outside the access log,
		// so that the span covers the whole answer, logging included.
		span,
		// Above the caching: it logs and counts the status and bytes that
		// go on the wire (a 304, a gzipped body), and turns a panic of any
		// layer below into a 500.
		func(next http.Handler) http.Handler {
			return withAccessLog(accessLog{log: log, lines: o.AccessLines}, m, operation(api), rl, next)
		},
		// Inside the access log, which logs a HEAD as the HEAD it is and
		// counts the bytes sent, none; outside everything that answers it
		// as a GET.
		withHead,
		// Above the deadline: a GET's answer is held until complete, then
		// tagged and compressed. Its writer reaches the gate unwrapped, for
		// the gate's retraction of a trusted key's answer: no layer between
		// the two may wrap it.
		withHTTPCaching,
		// Bounds the work of everything below, the gate's key and limit
		// reads included.
		func(next http.Handler) http.Handler {
			return withTimeout(cfg.RequestTimeout, next)
		},
		// Counts the requests that do work, each under its deadline, and
		// refuses past MaxInFlight before any route, key or database read.
		func(next http.Handler) http.Handler { return withShedding(cfg.MaxInFlight, next) },
		// Routing: the description, the docs, health and metrics end in
		// mux, without a key or a limit; the API's operations go on below.
		routes(mux),
		// The key and the limits, for the API's operations alone.
		g.wrap,
		// Last before the router: the body's bound, and its copy for the
		// router's error handler.
		limitBody,
		// What the request uses that is deprecated, read from the
		// description (no layer when nothing is).
		withDeprecation(deprecations, operation(api)),
	}
	handler := chain(api, layers...)
	console := func(*http.Request) string { return "console" }
	logged := func(next http.Handler) http.Handler {
		return chain(next, withRequestID, func(next http.Handler) http.Handler {
			return withAccessLog(accessLog{log: log, lines: o.AccessLines}, m, console, nil, next)
		})
	}
	return &Server{Handler: handler, Limiter: limiter, Metrics: m, logged: logged}, nil
}
