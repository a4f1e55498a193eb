// Command webhooks measures the webhook dispatcher in one process, on a
// migrated empty database (bench/webhooks.sh makes one):
//
//   - latency: changes committed one at a time, -gap apart; the time from each
//     commit to its delivery's arrival at a local receiver (p50, p90, p99);
//   - throughput: -backlog changes committed while no dispatcher runs, then
//     one dispatcher started; deliveries per second until the last arrives;
//   - slow endpoint: the latency run again while another account's endpoint
//     holds every post it gets until the run ends, with a backlog of its own.
//
// The dispatcher runs as in `larder serve`: default options (poll interval
// 2 s, 64 posts in flight, 16 per endpoint) on a pool of 4 connections.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"maps"
	"net"
	"net/http"
	"os"
	"runtime/pprof"
	"slices"
	"sync"
	"time"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/tag"
	"larder.dev/larder/internal/identity/tenancy"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/restapi"
	"larder.dev/larder/internal/seed"
	"larder.dev/larder/internal/webhooks"
	"larder.dev/larder/migrate"
	"larder.dev/larder/policy"
)

func main() {
	dbURL := flag.String("database", "", "database URL of a migrated or empty database")
	changes := flag.Int("changes", 300, "changes of the latency runs")
	gap := flag.Duration("gap", 20*time.Millisecond, "time between the latency runs' changes")
	backlog := flag.Int("backlog", 20000, "changes of the throughput run")
	slowBacklog := flag.Int("slow-backlog", 200, "changes waiting for the slow endpoint")
	concurrency := flag.Int("concurrency", 0, "the dispatcher's Concurrency (0: its default)")
	perEndpoint := flag.Int("per-endpoint", 0, "the dispatcher's PerEndpoint (0: its default)")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the throughput run to this file")
	flag.Parse()
	if *dbURL == "" {
		log.Fatal("webhooks: -database is required")
	}
	ctx := context.Background()
	st, err := store.Open(ctx, *dbURL, store.Options{Statements: 256, Snapshots: restapi.Snapshots{}})
	check(err)
	_, err = migrate.Apply(ctx, st.DB, st.Dialect, func(ctx context.Context) error { return seed.Shared(ctx, st.Client) })
	check(err)

	b := &bench{st: st, dbURL: *dbURL, profile: *cpuprofile,
		o: webhooks.Options{AllowPrivate: true, Concurrency: *concurrency, PerEndpoint: *perEndpoint}}
	fast := b.receiver(false)
	slow := b.receiver(true)
	defer slow.release()
	a := b.account("Fast")
	b.endpoint(a, fast.url)

	fmt.Printf("database: %s\n", st.Dialect)
	b.latency("latency", a, fast, *changes, *gap, nil)
	b.throughput(a, fast, *backlog)

	s := b.account("Slow")
	b.endpoint(s, slow.url)
	b.write(s, *slowBacklog, 500)
	b.latency("latency, beside a slow endpoint", a, fast, *changes, *gap, func() {
		fmt.Printf("  meanwhile the slow endpoint held %d posts, of its %d deliveries\n", slow.holding(), *slowBacklog)
	})
}

type bench struct {
	st      *store.Store
	dbURL   string
	o       webhooks.Options
	profile string
	n       int
}

// account creates an organization and returns its test account's context.
func (b *bench) account(name string) *tenancy.Organization {
	o, err := tenancy.Create(context.Background(), b.st.Client, fmt.Sprintf("%s %d", name, time.Now().UnixNano()), tenancy.Entitled, "CAD")
	check(err)
	return o
}

func appCtx(o *tenancy.Organization) context.Context {
	return policy.App(context.Background(), o.Test.ID, policy.Test)
}

func (b *bench) endpoint(o *tenancy.Organization, url string) {
	r := &webhooks.Registry{Client: b.st.Client, AllowPrivate: true}
	_, err := r.Create(context.Background(), o.Org.ID, policy.Test, url, "bench@example.com", "", nil)
	check(err)
}

// write commits n changes (tags) of o's test account, per transactions of
// batch, and returns the tag ids with their commit times.
func (b *bench) write(o *tenancy.Organization, n, batch int) map[int]time.Time {
	ctx := appCtx(o)
	at := make(map[int]time.Time, n)
	for done := 0; done < n; done += batch {
		var ids []int
		err := ent.RunInTx(ctx, b.st.Client, func(tx *ent.Tx) error {
			ids = ids[:0]
			for range min(batch, n-done) {
				b.n++
				t, err := tx.Tag.Create().SetName(fmt.Sprintf("bench %d", b.n)).SetRefType(tag.RefTypePRODUCT).Save(ctx)
				if err != nil {
					return err
				}
				ids = append(ids, t.ID)
			}
			return nil
		})
		check(err)
		now := time.Now()
		for _, id := range ids {
			at[id] = now
		}
	}
	return at
}

// dispatcher starts a dispatcher as serve does; stop ends it.
func (b *bench) dispatcher() (stop func()) {
	st, err := store.Open(context.Background(), b.dbURL, store.Options{MaxConns: 4, Snapshots: restapi.Snapshots{}})
	check(err)
	d := webhooks.New(st, b.o)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		d.Run(ctx)
	}()
	return func() {
		cancel()
		<-done
		st.Close()
	}
}

func (b *bench) latency(title string, o *tenancy.Organization, r *receiver, n int, gap time.Duration, during func()) {
	stop := b.dispatcher()
	defer stop()
	time.Sleep(100 * time.Millisecond) // listening
	r.reset()
	commits := map[int]time.Time{}
	for range n {
		for id, t := range b.write(o, 1, 1) {
			commits[id] = t
		}
		time.Sleep(gap)
	}
	arrivals := r.wait(n, time.Minute)
	var lat []time.Duration
	for id, c := range commits {
		if a, ok := arrivals[id]; ok {
			lat = append(lat, a.Sub(c))
		}
	}
	slices.Sort(lat)
	fmt.Printf("%s: %d changes %s apart, %d delivered: commit → delivered p50 %s, p90 %s, p99 %s, max %s\n",
		title, n, gap, len(lat), pct(lat, 50), pct(lat, 90), pct(lat, 99), pct(lat, 100))
	if during != nil {
		during()
	}
}

func (b *bench) throughput(o *tenancy.Organization, r *receiver, n int) {
	b.write(o, n, 1000)
	r.reset()
	if b.profile != "" {
		f, err := os.Create(b.profile)
		check(err)
		check(pprof.StartCPUProfile(f))
		defer pprof.StopCPUProfile()
	}
	start := time.Now()
	stop := b.dispatcher()
	defer stop()
	arrivals := r.wait(n, 10*time.Minute)
	var first, last time.Time
	for _, a := range arrivals {
		if a.After(last) {
			last = a
		}
		if first.IsZero() || a.Before(first) {
			first = a
		}
	}
	el := last.Sub(start)
	fmt.Printf("throughput: %d deliveries waiting, %d delivered in %s from the dispatcher's start (the first after %s): %.0f deliveries/s\n",
		n, len(arrivals), el.Round(time.Millisecond), first.Sub(start).Round(time.Millisecond), float64(len(arrivals))/el.Seconds())
}

// receiver records when each tag's delivery arrives; a slow one holds every
// post until released.
type receiver struct {
	url      string
	slow     bool
	mu       sync.Mutex
	arrivals map[int]time.Time
	held     int
	hold     chan struct{}
}

func (b *bench) receiver(slow bool) *receiver {
	r := &receiver{slow: slow, arrivals: map[int]time.Time{}, hold: make(chan struct{})}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	check(err)
	r.url = "http://" + ln.Addr().String() + "/hook"
	srv := &http.Server{Handler: r, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	return r
}

func (r *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	now := time.Now()
	var env struct {
		Resource struct {
			ID int `json:"id"`
		} `json:"resource"`
	}
	_ = json.Unmarshal(body, &env)
	if r.slow {
		r.mu.Lock()
		r.held++
		r.mu.Unlock()
		select {
		case <-r.hold:
		case <-req.Context().Done():
		}
		r.mu.Lock()
		r.held--
		r.mu.Unlock()
		return
	}
	r.mu.Lock()
	if _, seen := r.arrivals[env.Resource.ID]; !seen {
		r.arrivals[env.Resource.ID] = now
	}
	r.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

func (r *receiver) reset() {
	r.mu.Lock()
	r.arrivals = map[int]time.Time{}
	r.mu.Unlock()
}

func (r *receiver) release() { close(r.hold) }

func (r *receiver) holding() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.held
}

// wait returns the arrivals once n have come, or at the deadline.
func (r *receiver) wait(n int, limit time.Duration) map[int]time.Time {
	deadline := time.Now().Add(limit)
	for {
		r.mu.Lock()
		got := len(r.arrivals)
		r.mu.Unlock()
		if got >= n || time.Now().After(deadline) {
			r.mu.Lock()
			defer r.mu.Unlock()
			return maps.Clone(r.arrivals)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func pct(d []time.Duration, p int) time.Duration {
	if len(d) == 0 {
		return 0
	}
	i := min(len(d)-1, len(d)*p/100)
	return d[i].Round(10 * time.Microsecond)
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "webhooks:", err)
		os.Exit(1)
	}
}
