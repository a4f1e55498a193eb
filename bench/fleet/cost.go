package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"larder.dev/larder/bench/internal/proccpu"
)

// Cost is one workload on one layout: its rate and the CPU each part spent
// per request.
type Cost struct {
	Layout   string  `json:"layout"`
	Workload string  `json:"workload"`
	RPS      float64 `json:"rps"`
	Errors   int     `json:"errors"`
	// CPU is microseconds of CPU per request, by part: larder (every server
	// process), pgbouncer, haproxy, postgres (this run's cluster).
	CPU map[string]float64 `json:"cpu_us"`
}

// layouts are the three ways to run compared: one process straight to
// PostgreSQL (its statement cache on), one through PgBouncer's transaction
// pool (--db-statements 0), three behind HAProxy through PgBouncer.
var layouts = []string{"1 server, PostgreSQL", "1 server, PgBouncer", "3 servers, HAProxy, PgBouncer"}

// costs measures each workload on each layout for d at c concurrent
// clients, one after the other.
func (f *fleet) costs(d time.Duration, c int) ([]Cost, error) {
	l, err := f.newLoadAt(fmt.Sprintf("http://127.0.0.1:%d", f.servers[0]))
	if err != nil {
		return nil, err
	}
	day := time.Now().UTC().Format(time.DateOnly)
	workloads := []struct {
		name string
		send func(*http.Client, string, int64) (int, error)
	}{
		{"GET /v1/products/{id}", func(hc *http.Client, base string, _ int64) (int, error) {
			return get(hc, base+fmt.Sprintf("/v1/products/%d", l.product), f.key)
		}},
		{"GET /v1/products?limit=100", func(hc *http.Client, base string, _ int64) (int, error) {
			return get(hc, base+"/v1/products?limit=100", f.key)
		}},
		{"POST /v1/purchase-orders (10 lines, Idempotency-Key)", func(hc *http.Client, base string, n int64) (int, error) {
			lines := make([]string, 10)
			for i := range lines {
				lines[i] = fmt.Sprintf(`{"product_id":%d,"quantity":%d,"cost":2.5}`, l.product, i+1)
			}
			body := fmt.Sprintf(`{"supplier_id":%d,"order_date":%q,"lines":[%s]}`, l.supplier, day, strings.Join(lines, ","))
			req, _ := http.NewRequest("POST", base+"/v1/purchase-orders", strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+f.key)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Idempotency-Key", fmt.Sprintf("cost-%d-%d", time.Now().UnixNano(), n))
			return status(hc.Do(req))
		}},
	}
	var out []Cost
	for li, layout := range layouts {
		if err := f.arrange(li); err != nil {
			return nil, err
		}
		base := fmt.Sprintf("http://127.0.0.1:%d", f.servers[0])
		if li == 2 {
			base = f.lbURL()
		}
		for _, w := range workloads {
			hc := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: c}}
			// A short warm-up fills the pools and the caches.
			run(hc, base, c, 2*time.Second, w.send)
			before := f.cpu()
			n, errs := run(hc, base, c, d, w.send)
			spent := f.cpu().since(before)
			x := Cost{Layout: layout, Workload: w.name, RPS: float64(n) / d.Seconds(), Errors: errs, CPU: map[string]float64{}}
			for part, t := range spent {
				if n > 0 {
					x.CPU[part] = float64(t.Microseconds()) / float64(n)
				}
			}
			out = append(out, x)
		}
	}
	return out, nil
}

// arrange starts the servers (and the balancer) of layout i, stopping
// those of the one before.
func (f *fleet) arrange(i int) error {
	for s := range f.servers {
		f.signal(fmt.Sprintf("server%d", s+1), 15)
	}
	f.signal("haproxy", 15)
	switch i {
	case 0:
		return f.startServerOn(0, f.direct(), "256")
	case 1:
		return f.startServerOn(0, f.pooled(), "0")
	}
	for s := range f.servers {
		if err := f.startServerOn(s, f.pooled(), "0"); err != nil {
			return err
		}
	}
	return f.startBalancer()
}

// startServerOn runs server i on database url keeping statements prepared
// statements, with a budget no load reaches.
func (f *fleet) startServerOn(i int, url, statements string) error {
	err := f.start(fmt.Sprintf("server%d", i+1), nil, f.c.larder, "serve", "--database", url, "--db-statements", statements,
		"--addr", fmt.Sprintf("127.0.0.1:%d", f.servers[i]), "--webhooks=false", "--rate-limit", "100000000",
		"--trusted-proxies", "127.0.0.1/32", "--metrics-addr", "off")
	if err != nil {
		return err
	}
	return waitReady(fmt.Sprintf("http://127.0.0.1:%d/readyz", f.servers[i]), 30*time.Second)
}

// cpuSample is the CPU time so far of each part's processes.
type cpuSample map[string]map[int]time.Duration

// cpu reads the CPU time of the servers, PgBouncer, HAProxy and this run's
// PostgreSQL (the postmaster and its children).
func (f *fleet) cpu() cpuSample {
	out := cpuSample{}
	add := func(part string, pid int) {
		if t, ok := proccpu.Process(pid); ok {
			if out[part] == nil {
				out[part] = map[int]time.Duration{}
			}
			out[part][pid] = t
		}
	}
	f.mu.Lock()
	for name, cmd := range f.procs {
		if cmd.Process == nil {
			continue
		}
		switch {
		case strings.HasPrefix(name, "server"):
			add("larder", cmd.Process.Pid)
		case name == "pgbouncer", name == "haproxy":
			add(name, cmd.Process.Pid)
		}
	}
	f.mu.Unlock()
	if b, err := os.ReadFile(f.path("pg/postmaster.pid")); err == nil {
		if pm, err := strconv.Atoi(strings.SplitN(string(b), "\n", 2)[0]); err == nil {
			add("postgres", pm)
			for _, pid := range children(pm) {
				add("postgres", pid)
			}
		}
	}
	return out
}

// since is what each part spent after before (processes that started
// meanwhile count from zero).
func (s cpuSample) since(before cpuSample) map[string]time.Duration {
	out := map[string]time.Duration{}
	for part, pids := range s {
		for pid, t := range pids {
			out[part] += t - before[part][pid]
		}
	}
	return out
}

// children are the processes whose parent is pid.
func children(pid int) []int {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	var out []int
	for _, p := range stats {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) > 1 && f[1] == strconv.Itoa(pid) {
			if n, err := strconv.Atoi(filepath.Base(filepath.Dir(p))); err == nil {
				out = append(out, n)
			}
		}
	}
	return out
}

// run sends requests from c clients for d and counts the 2xx answers and
// the others.
func run(hc *http.Client, base string, c int, d time.Duration, send func(*http.Client, string, int64) (int, error)) (int, int) {
	var ok, bad, seq atomic.Int64
	end := time.Now().Add(d)
	var wg sync.WaitGroup
	for range c {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(end) {
				st, err := send(hc, base, seq.Add(1))
				if err == nil && st >= 200 && st < 300 {
					ok.Add(1)
				} else {
					bad.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	return int(ok.Load()), int(bad.Load())
}

func get(hc *http.Client, url, key string) (int, error) {
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Authorization", "Bearer "+key)
	return status(hc.Do(req))
}

func status(res *http.Response, err error) (int, error) {
	if err != nil {
		return 0, err
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res.StatusCode, nil
}

// printCosts writes the table of costs.
func printCosts(w io.Writer, cs []Cost) {
	fmt.Fprintf(w, "%-32s %-54s %8s %6s %9s %9s %9s %9s %9s\n", "layout", "workload", "req/s", "errors", "larder", "pgbouncer", "haproxy", "postgres", "total")
	for _, x := range cs {
		total := 0.0
		for _, v := range x.CPU {
			total += v
		}
		fmt.Fprintf(w, "%-32s %-54s %8.0f %6d %9.0f %9.0f %9.0f %9.0f %9.0f\n", x.Layout, x.Workload, x.RPS, x.Errors,
			x.CPU["larder"], x.CPU["pgbouncer"], x.CPU["haproxy"], x.CPU["postgres"], total)
	}
	fmt.Fprintln(w, "(CPU: microseconds per 2xx answer, user and system, from /proc)")
}
