// Command profile serves Larder's API exactly as `larder serve` assembles it
// (store.Open, then handlers.New, logging request lines as text to stderr),
// and writes a CPU profile of the whole process for as long as it runs. Larder
// has no pprof endpoint; this wrapper is how bench/README.md finds where a
// request's CPU time goes:
//
//	go run ./bench/profile --database URL --addr 127.0.0.1:PORT --cpuprofile cpu.out
//	(load it, then SIGINT)
//	go tool pprof -top cpu.out
package main

import (
	"context"
	"errors"
	"flag"
	"log"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"runtime/pprof"
	"syscall"
	"time"

	"larder.dev/larder/config"
	"larder.dev/larder/handlers"
	"larder.dev/larder/store"
)

// main serves until SIGINT or SIGTERM, profiling the CPU meanwhile.
func main() {
	cfg := config.Defaults()
	flag.StringVar(&cfg.Database, "database", os.Getenv("LARDER_DATABASE_URL"), "database URL")
	flag.StringVar(&cfg.Addr, "addr", cfg.Addr, "listen address")
	flag.IntVar(&cfg.RateLimit, "rate-limit", 100000000, "requests per minute per account")
	cpu := flag.String("cpuprofile", "cpu.out", "CPU profile written on exit")
	flag.Parse()
	if err := run(cfg, *cpu); err != nil {
		log.Fatalf("profile: %v", err)
	}
}

// run opens the store, starts the profile and serves until a signal.
func run(cfg config.Config, cpuFile string) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	st, err := store.Open(ctx, cfg.Database, store.Options{MaxConns: cfg.MaxConns})
	if err != nil {
		return err
	}
	defer st.Close()
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	srv, err := handlers.New(st, handlers.Options{Config: cfg, Log: logger})
	if err != nil {
		return err
	}
	f, err := os.Create(cpuFile)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := pprof.StartCPUProfile(f); err != nil {
		return err
	}
	defer pprof.StopCPUProfile()
	hs := &http.Server{Addr: cfg.Addr, Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- hs.ListenAndServe() }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
