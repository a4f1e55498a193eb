package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"net/url"
	"runtime"
	"runtime/debug"
	"time"

	"larder.dev/larder/handlers"
	"larder.dev/larder/internal/identity/auth"
	"larder.dev/larder/internal/identity/people"
	"larder.dev/larder/internal/identity/tenancy"
	"larder.dev/larder/internal/platform/config"
	"larder.dev/larder/internal/platform/metrics"
	"larder.dev/larder/internal/platform/secrets"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/platform/tracing"
	"larder.dev/larder/internal/reqlog"
	"larder.dev/larder/internal/restapi"
	"larder.dev/larder/internal/seed"
	"larder.dev/larder/policy"
)

func serve(ctx context.Context, e *env, args []string) error {
	c := e.command("serve", needs{opts: []config.Options{config.Server, config.Webhooks, config.ConsoleServer}})
	demo := c.Bool("demo", false, "on an empty database, create a demo organization and print a test key with every scope and the one-time console link of its admin, "+demoAdmin)
	return c.run(ctx, args, nil, func(ctx context.Context, _ *store.Store) error {
		return serveAPI(ctx, e, *demo)
	})
}

// serveAPI serves the API (and the console) until ctx ends. It opens the
// database itself once its address is taken, and may make a new SQLite file.
func serveAPI(ctx context.Context, e *env, demo bool) error {
	if e.cfg.SMTPURL != "" && e.cfg.ConsoleURL == "" {
		return errors.New("--smtp-url is set but --console-url (LARDER_CONSOLE_URL) is not: e-mailed console links need the console's address as browsers reach it, e.g. --console-url https://larder.example.com")
	}
	if !e.keys.Enabled() {
		e.log.Warn(secrets.EnvKey + " is not set: webhook signing secrets and console second-factor (TOTP) secrets are stored in plain text; set it to 32 random bytes in base64 (openssl rand -base64 32) and run `larder secrets rotate`")
	}
	// Tracing first: the store's statements and the server's operations
	// are instrumented when they are made (docs/operators.md, "Tracing").
	stopTracing, err := tracing.Setup(ctx, moduleVersion())
	if err != nil {
		return fmt.Errorf("tracing: %w", err)
	}
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := stopTracing(sctx); err != nil {
			e.log.Warn("tracing: flush", "error", err)
		}
	}()
	if tracing.Provider() != nil {
		e.log.Info("tracing on (OTLP/HTTP)")
	}
	// The port first: a taken port must not use up the demo (it is made on
	// an empty database only, and its key is shown once), nor make a
	// database.
	ln, err := net.Listen("tcp", e.cfg.Addr)
	if err != nil {
		return fmt.Errorf("%w: another program (another larder?) listens on %s; choose a free address with --addr or LARDER_ADDR, such as --addr 127.0.0.1:8081", err, e.cfg.Addr)
	}
	defer ln.Close()
	// serve applies the migrations as migrate does, so it may make a new
	// SQLite file: a first server starts on an empty database.
	e.creates = true
	st, applied, err := e.open(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	if len(applied) > 0 {
		e.log.Info("applied migrations", "versions", applied)
	}
	var demoKey, demoLink string
	if demo {
		console := config.HTTPBase(ln.Addr().String())
		if e.cfg.ConsoleURL != "" {
			console = e.cfg.ConsoleBase()
		}
		if demoKey, demoLink, err = createDemo(ctx, e, st, console); err != nil {
			return err
		}
	}
	tuneForServing(e.cfg)
	requests, stopRequestLog := startRequestLog(ctx, e, st)
	defer stopRequestLog()
	replicas, err := openReplicas(ctx, e, st)
	if err != nil {
		return err
	}
	if replicas != nil {
		defer replicas.Close()
	}
	srv, err := handlers.New(st, handlers.Options{Config: e.cfg, Log: e.log, AccessLines: e.accessLines, RequestLog: requests, Replicas: replicas})
	if err != nil {
		return err
	}
	con, ppl, stopConsole, err := startConsole(e, st, srv, ln.Addr())
	if err != nil {
		return err
	}
	defer stopConsole()
	base := config.HTTPBase(ln.Addr().String()) + "/v1"
	if demoKey != "" {
		fmt.Fprintf(e.stdout, "Test key (every scope; shown once): %s\nTry:\n  curl -H 'Authorization: Bearer %s' %s/organization\n", demoKey, demoKey, base)
		fmt.Fprintf(e.stdout, "Console sign-in (one-time link, 24 h): %s\n", demoLink)
	}
	e.log.Info("serving", "url", base, "database", redact(e.cfg.Database))
	hs := &http.Server{
		Handler:           withConsole(srv, con),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      e.cfg.RequestTimeout + 15*time.Second,
		IdleTimeout:       2 * time.Minute,
	}
	dispatching, stopWebhooks, err := startWebhooks(ctx, e, srv.Metrics.Attempt)
	if err != nil {
		return err
	}
	defer stopWebhooks()
	stopRetention := startRetention(ctx, e, serveRetention(e, st, srv, ppl, dispatching))
	defer stopRetention()
	if e.cfg.DebugAddr != "" {
		go debugServer(ctx, e, e.cfg.DebugAddr)
	}
	if addr := e.cfg.MetricsListen(); addr != "" {
		mln, err := net.Listen("tcp", addr)
		switch {
		case err != nil && addr == config.DefaultMetricsAddr:
			// The default is a convenience: a second server on the same
			// machine goes on without its own metrics rather than failing.
			e.log.Warn("metrics: default address taken; serving no metrics (set --metrics-addr)", "addr", addr, "error", err)
		case err != nil:
			return fmt.Errorf("metrics-addr: %w", err)
		default:
			mux := http.NewServeMux()
			mux.Handle("GET "+metrics.Path, srv.Metrics.Handler())
			ms := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
			defer ms.Close()
			go func() { _ = ms.Serve(mln) }()
			e.log.Info("metrics", "url", config.HTTPBase(mln.Addr().String())+metrics.Path)
		}
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	e.log.Info("shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// startRequestLog starts the request log's writer, when the log is on
// (--request-log); package retention prunes it. stop, called once the
// server no longer answers, writes what is queued and waits for the writer.
func startRequestLog(ctx context.Context, e *env, st *store.Store) (w *reqlog.Writer, stop func()) {
	if !e.cfg.RequestLog {
		return nil, func() {}
	}
	w = reqlog.NewWriter(st, e.log, 0)
	// On PostgreSQL the writer has a connection of its own; without one
	// (the database refused it) it shares the server's pool.
	own, err := st.Dedicated(ctx, "larder request log")
	if err != nil {
		e.log.Warn("request log: no connection of its own, the writer shares the server's", "error", err)
	}
	w.Dedicate(st, own)
	wctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	go func() {
		defer close(done)
		w.Run(wctx)
	}()
	return w, func() {
		cancel()
		<-done
		w.Close()
		if own != nil {
			_ = own.Close()
		}
	}
}

// demoAdmin is the demo organization's admin, who signs in to the console.
const demoAdmin = "admin@demo.larder.dev"

// createDemo makes a demo organization on an empty database and returns a test
// key with every scope, and the one-time link (under console) where the demo
// admin sets a password; on a database that has organizations it does nothing.
func createDemo(ctx context.Context, e *env, st *store.Store, console string) (key, link string, err error) {
	// System viewer: whether any organization exists decides the demo; organizations are system-only.
	n, err := st.Client.Organization.Query().Count(policy.System(ctx))
	if err != nil {
		return "", "", err
	}
	if n > 0 {
		e.log.Info("demo: the database already has organizations; create a key with `larder key create`")
		return "", "", nil
	}
	org, err := tenancy.Create(ctx, st.Client, "Demo Bakery", tenancy.Entitled, "CAD", seed.TestAccount)
	if err != nil {
		return "", "", err
	}
	k, err := auth.CreateKey(ctx, st.Client, org.Org.ID, auth.Holder, policy.Test, policy.Known(), "demo")
	if err != nil {
		return "", "", err
	}
	_, l, err := people.New(st.Client, people.Options{Keys: e.keys}).Invite(ctx, org.Org.ID, demoAdmin, people.Admin)
	if err != nil {
		return "", "", err
	}
	fmt.Fprintf(e.stdout, "Created demo organization %d (%q) with a seeded test account and an admin, %s.\n", org.Org.ID, org.Org.Name, demoAdmin)
	return k.Key, console + people.LinkPath(l.Token), nil
}

// redact hides a password in a database URL for logs.
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable URL)"
	}
	return u.Redacted()
}

// tuneForServing sets the runtime for a serving process.
func tuneForServing(cfg config.Config) {
	// The live heap is small (tens of MB) and every request allocates its
	// rows and JSON: collecting less often costs little memory and much CPU.
	debug.SetGCPercent(cfg.GCPercent)
	// What the fast path's mechanisms change for the whole process (the
	// errors of ogen's decoders made without the caller's frame).
	cfg.FastPath.ApplyProcess()
	// Only --debug-addr serves heap profiles; without it, sampling the
	// allocations for one is a stack walk every 512 KB allocated.
	if cfg.DebugAddr == "" {
		runtime.MemProfileRate = 0
	}
}

// debugServer serves Go's profiler on addr until ctx ends.
func debugServer(ctx context.Context, e *env, addr string) {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	hs := &http.Server{Addr: addr, Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		_ = hs.Close()
	}()
	e.log.Info("profiler", "url", "http://"+addr+"/debug/pprof/")
	if err := hs.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		e.log.Warn("profiler", "error", err)
	}
}

// openReplicas opens the read replicas of --replica-database, each
// measured on its own until ctx ends, or returns nil without one. Each logs
// its changes of state with its URL (redacted).
func openReplicas(ctx context.Context, e *env, st *store.Store) (*store.Replicas, error) {
	urls := e.cfg.Replicas()
	if len(urls) == 0 {
		return nil, nil
	}
	o := store.Options{MaxConns: e.cfg.MaxConns, Statements: e.cfg.Statements, Snapshots: restapi.Snapshots{}, Fast: e.cfg.FastPath}
	var rs []*store.Replica
	for _, u := range urls {
		r, err := store.OpenReplica(ctx, st, u, o, store.ReplicaOptions{MaxLag: e.cfg.ReplicaMaxLag, Log: e.log.With("replica", redact(u))})
		if err != nil {
			for _, open := range rs {
				_ = open.Close()
			}
			return nil, fmt.Errorf("%s: %w", redact(u), err)
		}
		rs = append(rs, r)
		e.log.Info("reads on a replica", "replica", redact(u), "max_lag", e.cfg.ReplicaMaxLag.String())
	}
	set := store.JoinReplicas(rs...)
	go set.Run(ctx)
	return set, nil
}
