// Package console is the web application: server-rendered pages where people
// of an organization sign in and run its keys, webhook endpoints, events,
// request log, test data and people, and read its lots and their traces. It
// is presentation only: a page parses its form, calls the one function the
// CLI also calls (auth, webhooks, reqlog, tenancy, people, audit, inventory),
// always with the signed-in person's organization (business data through
// tenancy.Reader's viewer of that organization's account), and renders or
// redirects. The package holds no SQL and no tenant predicate.
package console

import (
	"context"
	"embed"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"larder.dev/larder/ent"
	"larder.dev/larder/internal/identity/people"
	"larder.dev/larder/internal/reqlog"
	"larder.dev/larder/internal/webhooks"
)

// Prefix is where the console lives, on the API's address or its own.
const Prefix = "/console/"

//go:embed templates/*.html
var templateFiles embed.FS

//go:embed assets/*
var assetFiles embed.FS

// Options are what the console needs.
type Options struct {
	// Client is the database; the console passes it to the packages it calls.
	Client *ent.Client
	// People signs people in and manages them.
	People *people.Service
	// Webhooks manages webhook endpoints and their deliveries.
	Webhooks *webhooks.Registry
	// Dispatcher posts a single delivery again when a person asks (the
	// function the CLI's resend calls); nil offers no single resend.
	Dispatcher *webhooks.Dispatcher
	// PingWait is how long the test button waits for the dispatcher to
	// send the test event (10 s when zero).
	PingWait time.Duration
	// Log takes the errors a page could not show.
	Log *slog.Logger
	// Trusted are the reverse proxies whose X-Forwarded-For and
	// X-Forwarded-Proto are believed.
	Trusted []netip.Prefix
	// BaseURL is the console's public origin (scheme and host), for the
	// links it shows (invitations, password resets), required: a link never
	// takes its host from a request, which a client chooses. An https
	// origin also makes the session cookie Secure and the answers carry
	// Strict-Transport-Security.
	BaseURL string
	// APIURL is the API's origin, for the request a new key's page shows;
	// empty means BaseURL (the console under /console/ on the API's address).
	APIURL string
	// RequestLogRetention is how long the request log keeps a request, as
	// its pages say (reqlog.DefaultRetention when zero).
	RequestLogRetention time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Snapshot gives the reads under a context one view of the database
	// (store.Store.Snapshot), for pages drawn from many statements (a lot's
	// trace); nil reads each statement as of when it runs.
	Snapshot func(context.Context) (context.Context, func())
}

// Server serves the console's pages and assets.
type Server struct {
	o Options
	// secure is an https BaseURL.
	secure  bool
	log     *slog.Logger
	pages   map[string]*page
	handler http.Handler
}

// New builds the console.
func New(o Options) (*Server, error) {
	if o.Log == nil {
		o.Log = slog.Default()
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Snapshot == nil {
		o.Snapshot = func(ctx context.Context) (context.Context, func()) { return ctx, func() {} }
	}
	if o.RequestLogRetention <= 0 {
		o.RequestLogRetention = reqlog.DefaultRetention
	}
	u, err := url.Parse(o.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("console: the base URL %q is not an http:// or https:// address; the console's links need it", o.BaseURL)
	}
	o.BaseURL = strings.TrimRight(o.BaseURL, "/")
	if o.APIURL == "" {
		o.APIURL = o.BaseURL
	}
	o.APIURL = strings.TrimRight(o.APIURL, "/")
	s := &Server{o: o, log: o.Log, secure: u.Scheme == "https"}
	pages, err := parsePages()
	if err != nil {
		return nil, err
	}
	s.pages = pages
	mux := http.NewServeMux()
	for _, rt := range s.routes() {
		mux.Handle(rt.Method+" "+rt.Path, s.guard(rt))
	}
	mux.HandleFunc("GET "+assetPath+"{file}", serveAsset)
	mux.HandleFunc(Prefix, func(w http.ResponseWriter, r *http.Request) {
		s.notFound(w, r)
	})
	mux.HandleFunc("GET /console", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, Prefix, http.StatusMovedPermanently)
	})
	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(http.HandlerFunc(s.crossOrigin))
	s.handler = headers(cop.Handler(mux), s.secure)
	return s, nil
}

// ServeHTTP serves a console request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// contentSecurity allows the console's own scripts, styles and images
// (and the QR code of a second factor, a data: image) and nothing else: no
// inline script or style, no frame around it, forms only to itself.
const contentSecurity = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

// headers sets what every console answer carries: the policy above, no
// sniffing, no referrer (one-time links carry their token in the path), and
// no storing of pages that show one organization's data; and, when the
// console's address is https, that the browser use nothing else for a year.
func headers(next http.Handler, secure bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		if secure {
			h.Set("Strict-Transport-Security", "max-age=31536000")
		}
		h.Set("Content-Security-Policy", contentSecurity)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		h.Set("Cache-Control", "no-store")
		next.ServeHTTP(w, r)
	})
}
