// Command load is the closed-loop HTTP load generator of the benchmark: a fixed
// number of workers, each sending GET requests one after another over
// keep-alive connections to paths drawn at random from a list, for a warm-up
// and then a measured duration. It reports requests per second, latency
// percentiles and the count of errors (transport failures and non-2xx), as
// text and optionally as one JSON object.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"larder.dev/larder/bench/internal/proccpu"
)

// config is what the flags set.
type config struct {
	base        string
	key         string
	label       string
	concurrency int
	duration    time.Duration
	warmup      time.Duration
	timeout     time.Duration
	paths       []string
	jsonOut     string
	cpuPIDs     map[string]int
	cpuComms    []string
}

// Result is the report of one run; it is also the JSON output.
type Result struct {
	Label       string  `json:"label"`
	URL         string  `json:"url"`
	Paths       int     `json:"paths"`
	Concurrency int     `json:"concurrency"`
	DurationS   float64 `json:"duration_s"`
	Requests    int     `json:"requests"`
	Errors      int     `json:"errors"`
	RPS         float64 `json:"rps"`
	MeanMS      float64 `json:"mean_ms"`
	P50MS       float64 `json:"p50_ms"`
	P90MS       float64 `json:"p90_ms"`
	P99MS       float64 `json:"p99_ms"`
	P999MS      float64 `json:"p999_ms"`
	MaxMS       float64 `json:"max_ms"`
	FirstError  string  `json:"first_error,omitempty"`
	// CPUCores is the CPU time each watched process group used over the
	// measured window, in cores (1.0 = one core busy the whole time).
	CPUCores map[string]float64 `json:"cpu_cores,omitempty"`
	// CPUPerReqMS is that CPU time divided by the requests, in milliseconds.
	CPUPerReqMS map[string]float64 `json:"cpu_ms_per_req,omitempty"`
}

// worker is the tally of one worker over the measured window.
type worker struct {
	latencies  []time.Duration
	errors     int
	firstError string
}

// main parses the flags, runs the load and prints the report.
func main() {
	cfg, err := parseFlags()
	if err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		os.Exit(2)
	}
	res := run(context.Background(), cfg)
	fmt.Println(res.text())
	if res.FirstError != "" {
		fmt.Fprintln(os.Stderr, "load: first error:", res.FirstError)
	}
	if cfg.jsonOut != "" {
		if err := writeJSON(cfg.jsonOut, res); err != nil {
			fmt.Fprintln(os.Stderr, "load:", err)
			os.Exit(1)
		}
	}
	if res.Requests == 0 {
		os.Exit(1)
	}
}

// parseFlags reads the command line into a config.
func parseFlags() (config, error) {
	var c config
	var paths, pathsFile, pids, comms string
	flag.StringVar(&c.base, "url", "http://127.0.0.1:8080", "base URL the paths are appended to")
	flag.StringVar(&c.key, "key", "", "bearer key sent in Authorization (none when empty)")
	flag.StringVar(&c.label, "label", "", "name of the run in the report")
	flag.IntVar(&c.concurrency, "c", 16, "concurrent workers (and keep-alive connections)")
	flag.DurationVar(&c.duration, "d", 10*time.Second, "measured duration")
	flag.DurationVar(&c.warmup, "warmup", 2*time.Second, "unmeasured warm-up before the measured duration")
	flag.DurationVar(&c.timeout, "timeout", 10*time.Second, "timeout of one request")
	flag.StringVar(&paths, "paths", "", "comma-separated paths, each request takes one at random")
	flag.StringVar(&pathsFile, "paths-file", "", "file of paths, one a line (blank lines and # comments skipped); a line `POST /path {json}` (or PATCH) sends that body, with {n} replaced by a number unique to the run")
	flag.StringVar(&c.jsonOut, "json", "", "also write the result as JSON to this file (- for stdout)")
	flag.StringVar(&pids, "cpu-pid", "", "comma-separated name=PID processes whose CPU time over the window is reported (Linux)")
	flag.StringVar(&comms, "cpu-comm", "", "comma-separated process names (as in /proc/PID/comm), each reported as the sum of its processes, e.g. postgres")
	flag.Parse()
	if c.concurrency < 1 {
		return c, errors.New("-c must be at least 1")
	}
	if c.duration <= 0 || c.warmup < 0 {
		return c, errors.New("-d must be positive and -warmup not negative")
	}
	for p := range strings.SplitSeq(paths, ",") {
		if p = strings.TrimSpace(p); p != "" {
			c.paths = append(c.paths, p)
		}
	}
	if pathsFile != "" {
		more, err := readPaths(pathsFile)
		if err != nil {
			return c, err
		}
		c.paths = append(c.paths, more...)
	}
	if len(c.paths) == 0 {
		return c, errors.New("give target paths with -paths or -paths-file")
	}
	c.cpuPIDs = map[string]int{"load": os.Getpid()}
	for kv := range strings.SplitSeq(pids, ",") {
		if kv = strings.TrimSpace(kv); kv == "" {
			continue
		}
		name, v, ok := strings.Cut(kv, "=")
		pid, err := strconv.Atoi(v)
		if !ok || err != nil || name == "" {
			return c, fmt.Errorf("-cpu-pid: %q is not name=PID", kv)
		}
		c.cpuPIDs[name] = pid
	}
	for name := range strings.SplitSeq(comms, ",") {
		if name = strings.TrimSpace(name); name != "" {
			c.cpuComms = append(c.cpuComms, name)
		}
	}
	c.base = strings.TrimRight(c.base, "/")
	if c.label == "" {
		c.label = c.base
	}
	return c, nil
}

// readPaths reads one path a line from a file.
func readPaths(name string) ([]string, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line != "" && !strings.HasPrefix(line, "#") {
			out = append(out, line)
		}
	}
	return out, sc.Err()
}

// run drives the workers through the warm-up and the measured window and
// gathers their tallies.
func run(ctx context.Context, cfg config) Result {
	tr := &http.Transport{
		MaxIdleConns:        cfg.concurrency,
		MaxIdleConnsPerHost: cfg.concurrency,
		IdleConnTimeout:     time.Minute,
		DisableCompression:  true,
	}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: cfg.timeout}
	urls := make([]string, len(cfg.paths))
	for i, p := range cfg.paths {
		if m, rest, ok := strings.Cut(p, " "); ok {
			urls[i] = m + " " + cfg.base + rest // METHOD URL BODY
		} else {
			urls[i] = cfg.base + p
		}
	}

	start := time.Now()
	from, until := start.Add(cfg.warmup), start.Add(cfg.warmup+cfg.duration)
	tallies := make([]worker, cfg.concurrency)
	var wg sync.WaitGroup
	for i := range tallies {
		wg.Go(func() { tallies[i] = work(ctx, client, cfg.key, urls, from, until) })
	}
	var cpu map[string]time.Duration
	if proccpu.Supported() {
		wg.Go(func() {
			set := proccpu.Set{PIDs: cfg.cpuPIDs, Comms: cfg.cpuComms}
			time.Sleep(time.Until(from))
			before := set.Take()
			stop := set.Watch(250 * time.Millisecond)
			time.Sleep(time.Until(until))
			cpu = stop().Since(before)
		})
	}
	wg.Wait()

	res := Result{
		Label:       cfg.label,
		URL:         cfg.base,
		Paths:       len(urls),
		Concurrency: cfg.concurrency,
		DurationS:   cfg.duration.Seconds(),
	}
	var all []time.Duration
	for _, t := range tallies {
		all = append(all, t.latencies...)
		res.Errors += t.errors
		if res.FirstError == "" {
			res.FirstError = t.firstError
		}
	}
	res.Requests = len(all)
	res.RPS = float64(len(all)) / cfg.duration.Seconds()
	if len(all) > 0 {
		slices.Sort(all)
		var sum time.Duration
		for _, d := range all {
			sum += d
		}
		res.MeanMS = ms(sum / time.Duration(len(all)))
		res.P50MS = ms(percentile(all, 0.50))
		res.P90MS = ms(percentile(all, 0.90))
		res.P99MS = ms(percentile(all, 0.99))
		res.P999MS = ms(percentile(all, 0.999))
		res.MaxMS = ms(all[len(all)-1])
	}
	if len(cpu) > 0 {
		res.CPUCores = map[string]float64{}
		res.CPUPerReqMS = map[string]float64{}
		for name, d := range cpu {
			res.CPUCores[name] = d.Seconds() / cfg.duration.Seconds()
			if res.Requests > 0 {
				res.CPUPerReqMS[name] = ms(d) / float64(res.Requests)
			}
		}
	}
	return res
}

// work sends requests one after another until the window closes, keeping the
// latency of every request that started and finished inside [from, until].
// Errors are counted in the same window; their latencies are kept too.
func work(ctx context.Context, client *http.Client, key string, urls []string, from, until time.Time) worker {
	var w worker
	rng := rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	for {
		t0 := time.Now()
		if !t0.Before(until) {
			return w
		}
		err := send(ctx, client, key, urls[rng.IntN(len(urls))])
		t1 := time.Now()
		if t0.Before(from) || t1.After(until) {
			continue
		}
		w.latencies = append(w.latencies, t1.Sub(t0))
		if err != nil {
			w.errors++
			if w.firstError == "" {
				w.firstError = err.Error()
			}
		}
	}
}

// sent numbers the bodies of writes ({n}).
var sent atomic.Int64

// send sends one request and reads the whole body, so the connection is
// reused; a transport failure or a status outside 2xx is an error. target is
// a URL (GET) or "METHOD URL BODY".
func send(ctx context.Context, client *http.Client, key, target string) error {
	method, url, body := http.MethodGet, target, ""
	if m, rest, ok := strings.Cut(target, " "); ok {
		method = m
		url, body, _ = strings.Cut(rest, " ")
		body = strings.ReplaceAll(body, "{n}", strconv.FormatInt(sent.Add(1), 10))
	}
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return err
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		_, _ = io.Copy(io.Discard, resp.Body)
		return fmt.Errorf("%s %s: %s: %s", method, url, resp.Status, strings.TrimSpace(string(b)))
	}
	_, err = io.Copy(io.Discard, resp.Body)
	return err
}

// percentile is the nearest-rank q-quantile of sorted durations.
func percentile(sorted []time.Duration, q float64) time.Duration {
	i := int(q*float64(len(sorted))+0.5) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// ms converts a duration to fractional milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// text is the human report: one line, plus one of CPU use when watched.
func (r Result) text() string {
	s := fmt.Sprintf("%-24s c=%-3d %6d req in %4.1fs  %8.1f req/s  p50 %6.2f ms  p90 %6.2f ms  p99 %6.2f ms  p99.9 %6.2f ms  max %7.2f ms  errors %d",
		r.Label, r.Concurrency, r.Requests, r.DurationS, r.RPS, r.P50MS, r.P90MS, r.P99MS, r.P999MS, r.MaxMS, r.Errors)
	if len(r.CPUCores) == 0 {
		return s
	}
	s += "\n" + strings.Repeat(" ", 24) + " CPU:"
	for _, name := range slices.Sorted(maps.Keys(r.CPUCores)) {
		s += fmt.Sprintf("  %s %.2f cores (%.3f ms/req)", name, r.CPUCores[name], r.CPUPerReqMS[name])
	}
	return s
}

// writeJSON writes r as JSON to a file, or to stdout for "-".
func writeJSON(name string, r Result) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	if name == "-" {
		_, err = os.Stdout.Write(b)
		return err
	}
	return os.WriteFile(name, b, 0o644)
}
