package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"larder.dev/larder/console"
	"larder.dev/larder/handlers"
	"larder.dev/larder/internal/identity/people"
	"larder.dev/larder/internal/identity/ratelimit"
	"larder.dev/larder/internal/platform/config"
	"larder.dev/larder/internal/platform/store"
)

// people is the people service of the console, with the configured session
// lifetimes, the server's secret keys, the sign-in throttle's limiter (shared
// by every process on PostgreSQL) and the mail server of one-time links.
func (e *env) people(st *store.Store, limiter ratelimit.Limiter) (*people.Service, error) {
	m, err := people.NewMailer(e.cfg.SMTPURL)
	if err != nil {
		return nil, fmt.Errorf("smtp-url: %w", err)
	}
	o := people.Options{
		Idle:     e.cfg.ConsoleSettings.SessionIdle,
		Absolute: e.cfg.ConsoleSettings.SessionLifetime,
		Keys:     e.keys,
		Limiter:  limiter,
		Mailer:   m,
	}
	return people.New(st.Client, o), nil
}

// startConsole builds the console, its requests in the access log of srv
// and its sign-ins throttled by srv's limiter. With --console-addr it serves
// there (and the returned handler is nil); otherwise the returned handler serves it
// under /console/ on the API's address, api (where serve listens). Its links
// are under --console-url, or else the address it listens at: never the
// host a request names. It returns the people service it built, whose
// sessions and links serve prunes.
func startConsole(e *env, st *store.Store, srv *handlers.Server, api net.Addr) (onAPI http.Handler, ppl *people.Service, stop func(), err error) {
	trusted, err := e.cfg.Proxies()
	if err != nil {
		return nil, nil, nil, err
	}
	var ln net.Listener
	if e.cfg.ConsoleSettings.Addr != "" {
		if ln, err = net.Listen("tcp", e.cfg.ConsoleSettings.Addr); err != nil {
			return nil, nil, nil, fmt.Errorf("console-addr: %w", err)
		}
	}
	apiURL := config.HTTPBase(api.String())
	base := apiURL
	if ln != nil {
		base = config.HTTPBase(ln.Addr().String())
	} else if e.cfg.ConsoleURL != "" {
		// The console shares the API's address, so it is reached there too.
		apiURL = e.cfg.ConsoleBase()
	}
	if e.cfg.ConsoleURL != "" {
		base = e.cfg.ConsoleBase()
	}
	closeListener := func() {
		if ln != nil {
			ln.Close()
		}
	}
	ppl, err = e.people(st, srv.Limiter)
	if err != nil {
		closeListener()
		return nil, nil, nil, err
	}
	// The console resends a single delivery as `larder webhook resend`
	// does: posted now with the server's webhook settings.
	disp, err := e.dispatcher(st, nil)
	if err != nil {
		closeListener()
		return nil, nil, nil, err
	}
	pages, err := console.New(console.Options{
		Client:     st.Client,
		People:     ppl,
		Webhooks:   e.registry(st),
		Dispatcher: disp,
		Log:        e.log,
		Trusted:    trusted,
		BaseURL:    base,
		APIURL:     apiURL,

		RequestLogRetention: e.cfg.RequestLogRetention,
		Snapshot:            st.Snapshot,
	})
	if err != nil {
		closeListener()
		return nil, nil, nil, fmt.Errorf("console: %w", err)
	}
	con := srv.Logged(pages)
	if ln == nil {
		return con, ppl, func() {}, nil
	}
	mux := http.NewServeMux()
	mux.Handle("/console/", con)
	mux.Handle("/console", con)
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, console.Prefix, http.StatusSeeOther)
	})
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second, WriteTimeout: e.cfg.RequestTimeout + 15*time.Second}
	go func() {
		if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			e.log.Error("console: serve", "error", err)
		}
	}()
	e.log.Info("console", "url", config.HTTPBase(ln.Addr().String())+console.Prefix)
	return nil, ppl, func() {
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = hs.Shutdown(sctx)
	}, nil
}

// withConsole serves the console under /console/ and the API everywhere else.
func withConsole(api, con http.Handler) http.Handler {
	if con == nil {
		return api
	}
	mux := http.NewServeMux()
	mux.Handle("/console/", con)
	mux.Handle("/console", con)
	mux.Handle("/", api)
	return mux
}
