package main

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

// loadRun is -mode load: the mixed load of run, without its processes and
// faults, against a Larder already serving at -url on -database (whose
// dispatcher delivers the webhooks), for -steady. It makes an organization
// there, whose test account's endpoint is a receiver on -port, runs the load
// with -c clients, and then reads every acknowledged write back and waits
// for every event of the load to reach the receiver. bench/citus.sh runs it
// against Larder on a Citus cluster (FLEET=1).
func (f *fleet) loadRun() (*Report, error) {
	if f.c.url == "" || f.c.database == "" {
		return nil, fmt.Errorf("-mode load needs -url and -database")
	}
	if err := os.MkdirAll(f.c.dir, 0o755); err != nil {
		return nil, err
	}
	f.recv = f.c.base
	var err error
	if f.db, err = sql.Open("postgres", f.direct()); err != nil {
		return nil, err
	}
	if err := f.organizations(); err != nil {
		return nil, err
	}
	l, err := f.newLoadAt(f.c.url)
	if err != nil {
		return nil, err
	}
	// The events of the load are the account's written from now on (by
	// the account: on a Citus cluster, one shard).
	var first int64
	if err := f.db.QueryRow("SELECT COALESCE(MAX(id), 0) FROM events WHERE account_id = $1", f.account).Scan(&first); err != nil {
		return nil, err
	}
	rep := &Report{Requests: map[string]int{}, Acknowledged: map[string]int{}}
	ctx, stop := context.WithTimeout(context.Background(), f.c.steady)
	defer stop()
	var wg sync.WaitGroup
	for w := 0; w < f.c.workers; w++ {
		wg.Add(1)
		go func() { defer wg.Done(); l.work(ctx, w) }()
	}
	wg.Wait()
	if err := f.settle(rep, l, first, time.Now()); err != nil {
		return nil, err
	}
	rep.OK = len(rep.Lost) == 0 && rep.Unexpected == 0 && rep.Undelivered == 0
	return rep, nil
}

// printLoad prints what -mode load found.
func (r *Report) printLoad(w io.Writer) {
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range r.Requests {
			if !yield(k) {
				return
			}
		}
	})
	var parts []string
	classes := map[string]int{}
	total, acked := 0, 0
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s=%d", k, r.Requests[k]))
		class := k
		if len(k) == 3 {
			class = k[:1] + "xx"
		}
		classes[class] += r.Requests[k]
		total += r.Requests[k]
	}
	var byClass []string
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range classes {
			if !yield(k) {
				return
			}
		}
	}) {
		byClass = append(byClass, fmt.Sprintf("%s=%d", k, classes[k]))
	}
	for _, n := range r.Acknowledged {
		acked += n
	}
	fmt.Fprintf(w, "load answers: %d (%s): %s\n", total, strings.Join(byClass, " "), strings.Join(parts, " "))
	fmt.Fprintf(w, "acknowledged writes: %d %v\n", acked, r.Acknowledged)
	fmt.Fprintf(w, "events during the load: %d; every one delivered %.1f s after the load\n", r.Events, r.DrainS)
	fmt.Fprintf(w, "MUST BE 0: lost acknowledged writes %d, unexpected answers %d, undelivered events %d\n", len(r.Lost), r.Unexpected, r.Undelivered)
	fmt.Fprintf(w, "events delivered more than once: %d\n", r.Repeated)
	printVerdict(w, r.Lost, r.Failures, r.OK)
}

// receive is -mode receive: a webhook receiver on -port that answers 204 to
// every post and adds its webhook-id to the file -received, one a line,
// until it is stopped (SIGTERM or SIGINT).
func receive(c config) {
	if c.received == "" {
		log.Fatal("fleet: -mode receive needs -received")
	}
	out, err := os.OpenFile(c.received, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		log.Fatal(err)
	}
	var mu sync.Mutex
	srv := &http.Server{Addr: fmt.Sprintf("127.0.0.1:%d", c.base), ReadHeaderTimeout: 10 * time.Second,
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			if id := r.Header.Get("webhook-id"); id != "" {
				mu.Lock()
				_, err := fmt.Fprintln(out, id)
				mu.Unlock()
				if err != nil {
					http.Error(w, err.Error(), http.StatusInternalServerError)
					return
				}
			}
			w.WriteHeader(http.StatusNoContent)
		})}
	go func() {
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
		<-sig
		_ = srv.Shutdown(context.Background())
	}()
	if err := srv.ListenAndServe(); err != nil && err != http.ErrServerClosed {
		log.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if err := out.Close(); err != nil {
		log.Fatal(err)
	}
}
