// Command alternate compares servers one request at a time: each round sends
// the same GET path, drawn at random, to every server in turn (the first
// server goes first in even rounds, last in odd ones), so that whatever slows
// the machine for a moment slows them all alike. On a shared two-core machine
// whose speed drifts by a third within minutes, this tells two builds apart
// where runs one after another cannot. It reports each server's latency
// percentiles, its p50 as a ratio of the first server's, and, for servers
// given a PID, the CPU time the process used per request over the run.
// With -body, each request is a POST of that file's JSON instead (a document
// create: each server must answer 201).
//
//	alternate -key KEY -paths-file paths.txt -n 2000 \
//		old=http://127.0.0.1:8081 new=http://127.0.0.1:8082 -cpu-pid old=123,new=456
package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"larder.dev/larder/bench/internal/proccpu"
)

// server is one side of the comparison.
type server struct {
	name, base string
	pid        int // 0: CPU not reported
	latencies  []time.Duration
	cpuBefore  time.Duration
}

func main() {
	key := flag.String("key", "", "bearer key sent to every server")
	pathsFile := flag.String("paths-file", "", "file of GET paths, one a line (blank lines and # comments skipped)")
	bodyFile := flag.String("body", "", "POST this file's JSON to the paths instead of GETs; 201 expected")
	n := flag.Int("n", 1000, "measured rounds (one request to each server per round)")
	warmup := flag.Int("warmup", 100, "unmeasured rounds first")
	pids := flag.String("cpu-pid", "", "comma-separated name=PID of the servers whose CPU per request is reported (Linux)")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: alternate [flags] name=URL name=URL ...")
		flag.PrintDefaults()
	}
	flag.Parse()
	servers, paths, err := setup(flag.Args(), *pathsFile, *pids)
	if err == nil && *n < 1 {
		err = errors.New("-n must be at least 1")
	}
	var body []byte
	if err == nil && *bodyFile != "" {
		body, err = os.ReadFile(*bodyFile)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "alternate:", err)
		flag.Usage()
		os.Exit(2)
	}
	client := &http.Client{Transport: &http.Transport{DisableCompression: true, MaxIdleConnsPerHost: 1}, Timeout: 30 * time.Second}
	for round := range *warmup + *n {
		if round == *warmup {
			for _, s := range servers {
				var ok bool
				if s.cpuBefore, ok = proccpu.Process(s.pid); !ok {
					s.pid = 0 // no CPU figure rather than one counted from the process's start
				}
			}
		}
		path := paths[rand.IntN(len(paths))]
		for i := range servers {
			s := servers[i]
			if round%2 == 1 {
				s = servers[len(servers)-1-i]
			}
			took, err := send(client, s.base+path, *key, body)
			if err != nil {
				fmt.Fprintf(os.Stderr, "alternate: %s: %v\n", s.name, err)
				os.Exit(1)
			}
			if round >= *warmup {
				s.latencies = append(s.latencies, took)
			}
		}
	}
	first := pct(servers[0].latencies, 50)
	for _, s := range servers {
		p50 := pct(s.latencies, 50)
		line := fmt.Sprintf("%-12s %6d req  p50 %7.2f ms  p90 %7.2f ms  p99 %7.2f ms  p50 ratio %.2f",
			s.name, len(s.latencies), ms(p50), ms(pct(s.latencies, 90)), ms(pct(s.latencies, 99)), float64(p50)/float64(first))
		if s.pid != 0 {
			if after, ok := proccpu.Process(s.pid); ok {
				line += fmt.Sprintf("  CPU %.3f ms/req", ms(after-s.cpuBefore)/float64(len(s.latencies)))
			}
		}
		fmt.Println(line)
	}
}

// setup parses the servers, their PIDs and the paths.
func setup(args []string, pathsFile, pids string) ([]*server, []string, error) {
	if len(args) < 2 {
		return nil, nil, errors.New("give at least two servers as name=URL")
	}
	var servers []*server
	byName := map[string]*server{}
	for _, a := range args {
		name, base, ok := strings.Cut(a, "=")
		if !ok || name == "" || !strings.HasPrefix(base, "http") {
			return nil, nil, fmt.Errorf("%q is not name=URL", a)
		}
		s := &server{name: name, base: strings.TrimRight(base, "/")}
		servers = append(servers, s)
		byName[name] = s
	}
	for kv := range strings.SplitSeq(pids, ",") {
		if kv = strings.TrimSpace(kv); kv == "" {
			continue
		}
		name, v, _ := strings.Cut(kv, "=")
		pid, err := strconv.Atoi(v)
		if err != nil || byName[name] == nil {
			return nil, nil, fmt.Errorf("-cpu-pid: %q is not name=PID of a server", kv)
		}
		byName[name].pid = pid
	}
	f, err := os.Open(pathsFile)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	var paths []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); line != "" && !strings.HasPrefix(line, "#") {
			paths = append(paths, line)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, nil, err
	}
	if len(paths) == 0 {
		return nil, nil, errors.New("no paths in " + pathsFile)
	}
	return servers, paths, nil
}

// send sends one GET, or a POST of body when there is one, reads the whole
// answer and times it; an answer other than 200 (201 for a POST) is an
// error.
func send(c *http.Client, url, key string, body []byte) (time.Duration, error) {
	method, want := http.MethodGet, http.StatusOK
	var r io.Reader
	if body != nil {
		method, want, r = http.MethodPost, http.StatusCreated, bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, url, r)
	if err != nil {
		return 0, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	start := time.Now()
	resp, err := c.Do(req)
	if err != nil {
		return 0, err
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	took := time.Since(start)
	if err == nil && resp.StatusCode != want {
		err = fmt.Errorf("%s %s: %s", method, url, resp.Status)
	}
	return took, err
}

// pct is the p-th percentile of ds (nearest rank).
func pct(ds []time.Duration, p int) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*p/100)]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
