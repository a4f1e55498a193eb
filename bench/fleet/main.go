// Command fleet runs Larder as a fleet on loopback and breaks parts of it
// under load: three `larder serve` processes behind HAProxy (checking
// /readyz) over PgBouncer in transaction pooling, webhook dispatch in a
// separate `larder webhook worker`, a PostgreSQL cluster of its own and a
// local webhook receiver. HAProxy and PgBouncer run the deployment kit's
// configurations (deploy/haproxy.cfg, deploy/pgbouncer.ini) with this run's
// ports and paths put in.
//
// It first checks that the three processes spend one rate budget, then runs
// a mixed load (reads, lists, purchase orders and bills with idempotency
// keys, sales orders and their shipments) while it SIGKILLs a server and
// restarts it, stops the worker for 30 s, restarts PgBouncer and stops
// PostgreSQL for 10 s. It reports acknowledged writes lost, answers other
// than 2xx, 4xx and 503, events not delivered after recovery, repeated
// deliveries, the rate limit across processes and the time each fault took
// to recover from, and exits 1 when any figure that must be 0 is not.
//
// With -mode failover (failover.go) the database is instead a Patroni
// cluster made from the kit, whose leader and standby fail under the load.
// With -mode load (load.go) it runs only the mixed load and its checks,
// against a Larder already serving (-url, -database: bench/citus.sh on a
// Citus cluster); -mode receive is a webhook receiver alone.
package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	_ "github.com/lib/pq"
)

// config is what the flags set.
type config struct {
	dir, larder, kit, pgbin string
	base                    int
	limit, probe            int
	workers                 int
	steady, measure         time.Duration
	jsonOut, mode           string
	// only, with -mode failover, runs only the faults whose name has it.
	only string
	// With -mode load and -mode receive (load.go): Larder's URL and
	// database, and the received webhooks' file.
	url, database, received string
}

func main() {
	var c config
	flag.StringVar(&c.dir, "dir", "", "results directory (required; the cluster, logs and configurations go there)")
	flag.StringVar(&c.larder, "larder", "", "the larder binary (required)")
	flag.StringVar(&c.kit, "kit", "deploy", "the deployment kit's directory")
	flag.StringVar(&c.pgbin, "pgbin", "/usr/lib/postgresql/15/bin", "PostgreSQL's programs")
	flag.IntVar(&c.base, "port", 27400, "first of the loopback ports used (PostgreSQL, PgBouncer, HAProxy, three servers, the receiver; 22 with -mode failover; the receiver's alone with -mode load and -mode receive)")
	flag.IntVar(&c.limit, "rate-limit", 600, "requests per minute per account while the shared budget is checked")
	flag.IntVar(&c.probe, "probe", 900, "requests sent within one minute to check the shared budget")
	flag.IntVar(&c.workers, "c", 8, "concurrent clients of the mixed load")
	flag.DurationVar(&c.steady, "steady", 10*time.Second, "load between faults")
	flag.StringVar(&c.jsonOut, "json", "", "also write the report as JSON to this file")
	flag.StringVar(&c.mode, "mode", "faults", "faults: the faults under load; cost: the throughput and CPU per request of each layout; failover: a Patroni cluster's faults under load (bench/failover.sh); load: the mixed load alone against -url and -database; receive: a webhook receiver on -port only")
	flag.StringVar(&c.only, "only", "", "with -mode failover: run only the faults whose name contains this (all when empty)")
	flag.DurationVar(&c.measure, "d", 10*time.Second, "with -mode cost: how long each workload runs on each layout")
	flag.StringVar(&c.url, "url", "", "with -mode load: the URL of a Larder already serving (its webhook dispatcher on)")
	flag.StringVar(&c.database, "database", "", "with -mode load: the database that Larder serves (the organization is made there)")
	flag.StringVar(&c.received, "received", "", "with -mode receive: the file each delivery's webhook-id is added to")
	flag.Parse()
	if c.mode == "receive" {
		receive(c)
		return
	}
	if c.dir == "" || c.larder == "" {
		log.Fatal("fleet: -dir and -larder are required")
	}
	f := &fleet{c: c}
	if c.mode == "cost" {
		cs, err := f.costRun()
		f.stopAll()
		if err != nil {
			log.Fatalf("fleet: %v", err)
		}
		printCosts(os.Stdout, cs)
		if c.jsonOut != "" {
			b, _ := json.MarshalIndent(cs, "", "  ")
			if err := os.WriteFile(c.jsonOut, b, 0o644); err != nil {
				log.Fatal(err)
			}
		}
		return
	}
	run := f.run
	switch c.mode {
	case "failover":
		run = f.failoverRun
	case "load":
		run = f.loadRun
	}
	rep, err := run()
	f.stopAll()
	if err != nil {
		log.Fatalf("fleet: %v", err)
	}
	if c.mode == "failover" {
		rep.printFailover(os.Stdout)
	} else if c.mode == "load" {
		rep.printLoad(os.Stdout)
	} else {
		rep.print(os.Stdout)
	}
	if c.jsonOut != "" {
		b, _ := json.MarshalIndent(rep, "", "  ")
		if err := os.WriteFile(c.jsonOut, b, 0o644); err != nil {
			log.Fatal(err)
		}
	}
	if !rep.OK {
		os.Exit(1)
	}
}

// fleet is the processes of one run.
type fleet struct {
	c     config
	mu    sync.Mutex
	procs map[string]*exec.Cmd
	db    *sql.DB // PostgreSQL itself, for the checks
	// The ports.
	pg, bouncer, lb, recv int
	servers               []int
	// The load's account and key, the probe's key.
	account    int
	key, probe string
	rc         *receiver
	// With -mode failover: the Patroni nodes, and HAProxy's replica
	// frontend (f.pg is its leader frontend).
	nodes    []*node
	replicas int
}

// Ports, from -port.
func (f *fleet) ports() {
	b := f.c.base
	f.pg, f.bouncer, f.lb, f.recv = b, b+1, b+2, b+6
	f.servers = []int{b + 3, b + 4, b + 5}
}

func (f *fleet) direct() string {
	if f.c.database != "" {
		return f.c.database
	}
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/larder?sslmode=disable", f.pg)
}

func (f *fleet) pooled() string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/larder?sslmode=disable", f.bouncer)
}

// session is PgBouncer's session-pooled entry of the kit, for the worker's
// LISTEN.
func (f *fleet) session() string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/larder_session?sslmode=disable", f.bouncer)
}

func (f *fleet) lbURL() string { return fmt.Sprintf("http://127.0.0.1:%d", f.lb) }

func (f *fleet) path(name string) string { return filepath.Join(f.c.dir, name) }

// start runs a process named name, its output in name.out.
func (f *fleet) start(name string, env []string, args ...string) error {
	return f.startAs(name, nil, env, args...)
}

// startAs is start with the process running as cred's user when set.
func (f *fleet) startAs(name string, cred *syscall.Credential, env []string, args ...string) error {
	out, err := os.OpenFile(f.path(name+".out"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdout, cmd.Stderr = out, out
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Credential: cred}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	go func() { _ = cmd.Wait(); out.Close() }()
	f.mu.Lock()
	if f.procs == nil {
		f.procs = map[string]*exec.Cmd{}
	}
	f.procs[name] = cmd
	f.mu.Unlock()
	return nil
}

// signal sends sig to the process named name and waits for it to exit.
func (f *fleet) signal(name string, sig syscall.Signal) {
	f.mu.Lock()
	cmd := f.procs[name]
	delete(f.procs, name)
	f.mu.Unlock()
	if cmd == nil || cmd.Process == nil {
		return
	}
	_ = cmd.Process.Signal(sig)
	for i := 0; i < 300; i++ {
		if syscall.Kill(cmd.Process.Pid, 0) != nil {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	_ = cmd.Process.Kill()
}

func (f *fleet) stopAll() {
	f.mu.Lock()
	var names []string
	for n := range f.procs {
		names = append(names, n)
	}
	f.mu.Unlock()
	for _, n := range names {
		f.signal(n, syscall.SIGTERM)
	}
	if _, err := os.Stat(f.path("pg/PG_VERSION")); err == nil {
		_ = f.pgctl("stop", "-m", "immediate")
	}
	f.stopNodes()
}

// asPostgres runs a PostgreSQL program as the postgres user.
func (f *fleet) asPostgres(prog string, args ...string) error {
	cmd := exec.Command("runuser", append([]string{"-u", "postgres", "--", filepath.Join(f.c.pgbin, prog)}, args...)...)
	if os.Geteuid() != 0 {
		cmd = exec.Command(filepath.Join(f.c.pgbin, prog), args...)
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s %s: %w\n%s", prog, strings.Join(args, " "), err, out)
	}
	return nil
}

func (f *fleet) pgctl(action string, extra ...string) error {
	args := append([]string{"-D", f.path("pg"), "-w", "-t", "60"}, extra...)
	if action == "start" {
		args = append(args, "-l", f.path("pg/postgres.log"), "-o",
			fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c max_connections=200", f.pg, f.path("pg")))
	}
	return f.asPostgres("pg_ctl", append(args, action)...)
}

// larderJSON runs a larder command and decodes its JSON answer.
func (f *fleet) larderJSON(v any, args ...string) error {
	cmd := exec.Command(f.c.larder, append(args, "--json", "--database", f.direct())...)
	cmd.Env = append(os.Environ(), "LARDER_WEBHOOK_ALLOW_PRIVATE=1")
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return fmt.Errorf("larder %s: %w\n%s", strings.Join(args, " "), err, ee.Stderr)
		}
		return err
	}
	return json.Unmarshal(out, v)
}

// setup makes the cluster, the database, the organizations, keys and the
// webhook endpoint, and the kit's configurations for this run.
func (f *fleet) setup() error {
	if err := os.MkdirAll(f.c.dir, 0o755); err != nil {
		return err
	}
	if err := os.Chmod(f.c.dir, 0o755); err != nil {
		return err
	}
	if err := os.MkdirAll(f.path("pg"), 0o700); err != nil {
		return err
	}
	if os.Geteuid() == 0 {
		// PostgreSQL and PgBouncer run as postgres and write their files here.
		if out, err := exec.Command("chown", "postgres:postgres", f.c.dir, f.path("pg")).CombinedOutput(); err != nil {
			return fmt.Errorf("chown: %v %s", err, out)
		}
	}
	if f.c.mode == "failover" {
		if err := f.startPatroniCluster(); err != nil {
			return err
		}
	} else {
		if err := f.asPostgres("initdb", "-D", f.path("pg"), "-U", "postgres", "-A", "trust", "--no-sync"); err != nil {
			return err
		}
		if err := f.pgctl("start"); err != nil {
			return err
		}
	}
	admin, err := sql.Open("postgres", fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", f.pg))
	if err != nil {
		return err
	}
	defer admin.Close()
	if _, err := admin.Exec("CREATE DATABASE larder"); err != nil {
		return err
	}
	if f.db, err = sql.Open("postgres", f.direct()); err != nil {
		return err
	}
	if out, err := exec.Command(f.c.larder, "migrate", "--database", f.direct()).CombinedOutput(); err != nil {
		return fmt.Errorf("migrate: %v\n%s", err, out)
	}
	if err := f.organizations(); err != nil {
		return err
	}
	return f.renderKit()
}

// organizations makes the load's organization, its key and its test
// account's webhook endpoint at the receiver (started here), and the probe's
// organization and key.
func (f *fleet) organizations() error {
	var org struct {
		ID       int
		Accounts map[string]struct{ ID int }
	}
	if err := f.larderJSON(&org, "org", "create", "--name", "Fleet Foods"); err != nil {
		return err
	}
	f.account = org.Accounts["test"].ID
	var key struct{ Key string }
	if err := f.larderJSON(&key, "key", "create", "--org", strconv.Itoa(org.ID), "--env", "test", "--scopes", "all"); err != nil {
		return err
	}
	f.key = key.Key
	var other struct{ ID int }
	if err := f.larderJSON(&other, "org", "create", "--name", "Fleet Probe"); err != nil {
		return err
	}
	if err := f.larderJSON(&key, "key", "create", "--org", strconv.Itoa(other.ID), "--env", "live", "--scopes", "read-all"); err != nil {
		return err
	}
	f.probe = key.Key
	f.rc = newReceiver()
	if err := f.rc.listen(f.recv); err != nil {
		return err
	}
	var ep struct{ ID int }
	if err := f.larderJSON(&ep, "webhook", "create", "--org", strconv.Itoa(org.ID), "--env", "test",
		"--url", fmt.Sprintf("http://127.0.0.1:%d/hook", f.recv)); err != nil {
		return err
	}
	return nil
}

// renderKit writes the kit's HAProxy and PgBouncer configurations with
// this run's ports and paths: only addresses, ports, files and the
// authentication of the throwaway cluster change.
func (f *fleet) renderKit() error {
	ini, err := os.ReadFile(filepath.Join(f.c.kit, "pgbouncer.ini"))
	if err != nil {
		return err
	}
	s := string(ini)
	for k, v := range map[string]string{
		"listen_addr": "127.0.0.1", "listen_port": strconv.Itoa(f.bouncer), "unix_socket_dir": "",
		"logfile": f.path("pgbouncer.log"), "pidfile": f.path("pgbouncer.pid"),
		"auth_type": "trust", "auth_file": f.path("userlist.txt"),
	} {
		s = setINI(s, k, v)
	}
	// Every database of the kit points at this run's cluster.
	s = regexp.MustCompile(`(?m)\bhost=\S+`).ReplaceAllString(s, "host=127.0.0.1")
	s = regexp.MustCompile(`(?m)\bport=\d+`).ReplaceAllString(s, "port="+strconv.Itoa(f.pg))
	s = regexp.MustCompile(`(?m)\bdbname=\S+`).ReplaceAllString(s, "dbname=larder")
	if err := os.WriteFile(f.path("pgbouncer.ini"), []byte(s), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(f.path("userlist.txt"), []byte(`"postgres" ""`+"\n"), 0o644); err != nil {
		return err
	}
	cfg, err := os.ReadFile(filepath.Join(f.c.kit, "haproxy.cfg"))
	if err != nil {
		return err
	}
	h := string(cfg)
	// Lines that need the Debian service's directories or user go.
	h = regexp.MustCompile(`(?m)^\s*(chroot|user|group|daemon|stats socket|log )\b.*$`).ReplaceAllString(h, "")
	h = regexp.MustCompile(`(?m)^(\s*bind\s+)\S+`).ReplaceAllString(h, "${1}127.0.0.1:"+strconv.Itoa(f.lb))
	n := 0
	h = regexp.MustCompile(`(?m)^(\s*server\s+\S+\s+)\S+`).ReplaceAllStringFunc(h, func(line string) string {
		m := regexp.MustCompile(`^(\s*server\s+\S+\s+)\S+`).FindStringSubmatch(line)
		port := f.servers[n%len(f.servers)]
		n++
		return m[1] + "127.0.0.1:" + strconv.Itoa(port)
	})
	// With fewer servers than the kit's lines, a server stands for more
	// than one line.
	if n < len(f.servers) {
		return fmt.Errorf("the kit's haproxy.cfg has %d server lines; the fleet runs %d servers", n, len(f.servers))
	}
	return os.WriteFile(f.path("haproxy.cfg"), []byte(h), 0o644)
}

// setINI sets key in an ini text, replacing its line or adding it to the
// [pgbouncer] section; "" removes it.
func setINI(s, key, value string) string {
	re := regexp.MustCompile(`(?m)^\s*;?\s*` + regexp.QuoteMeta(key) + `\s*=.*$`)
	line := key + " = " + value
	if value == "" {
		line = ""
	}
	if re.MatchString(s) {
		done := false
		return re.ReplaceAllStringFunc(s, func(string) string {
			if done {
				return ""
			}
			done = true
			return line
		})
	}
	return strings.Replace(s, "[pgbouncer]", "[pgbouncer]\n"+line, 1)
}

func (f *fleet) startBouncer() error {
	args := []string{"pgbouncer", f.path("pgbouncer.ini")}
	if os.Geteuid() == 0 {
		args = []string{"pgbouncer", "-u", "postgres", f.path("pgbouncer.ini")}
	}
	if err := f.start("pgbouncer", nil, args...); err != nil {
		return err
	}
	return waitPort(f.bouncer, 10*time.Second)
}

func (f *fleet) startServer(i, limit int) error {
	port := f.servers[i]
	err := f.start(fmt.Sprintf("server%d", i+1), []string{"LARDER_DB_STATEMENTS=0"}, f.c.larder, "serve",
		"--database", f.pooled(), "--addr", fmt.Sprintf("127.0.0.1:%d", port), "--webhooks=false",
		"--rate-limit", strconv.Itoa(limit), "--trusted-proxies", "127.0.0.1/32", "--log-flush", "100ms", "--metrics-addr", "off")
	if err != nil {
		return err
	}
	return waitReady(fmt.Sprintf("http://127.0.0.1:%d/readyz", port), 30*time.Second)
}

func (f *fleet) startWorker() error {
	return f.start("worker", []string{"LARDER_WEBHOOK_ALLOW_PRIVATE=1"}, f.c.larder, "webhook", "worker", "--database", f.direct())
}

func (f *fleet) startBalancer() error {
	if err := f.start("haproxy", nil, "haproxy", "-db", "-f", f.path("haproxy.cfg")); err != nil {
		return err
	}
	return waitReady(f.lbURL()+"/readyz", 30*time.Second)
}

func waitPort(port int, d time.Duration) error {
	end := time.Now().Add(d)
	for time.Now().Before(end) {
		if c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), time.Second); err == nil {
			c.Close()
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("port %d did not open within %s", port, d)
}

func waitReady(url string, d time.Duration) error {
	end := time.Now().Add(d)
	for time.Now().Before(end) {
		if res, err := http.Get(url); err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return nil
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("%s not ready within %s", url, d)
}

// Report is what a run found.
type Report struct {
	OK bool `json:"ok"`
	// Requests counts the load's answers by status ("error" for no answer).
	Requests map[string]int `json:"requests"`
	// Unexpected counts answers other than 2xx, 4xx and 503, and requests
	// without an answer; must be 0.
	Unexpected int `json:"unexpected"`
	// Cut counts the writes without an Idempotency-Key (sales orders,
	// shipments) that got no answer: in flight on the server killed, which
	// HAProxy must not send again; reported, not failed.
	Cut int `json:"cut"`
	// Failures are the first few requests without an answer, or with an
	// unexpected one, as the client saw them.
	Failures []string `json:"failures"`
	// Acknowledged writes by kind, and those not found afterwards (must be 0).
	Acknowledged map[string]int `json:"acknowledged"`
	Lost         []string       `json:"lost"`
	// Events written during the load, those never delivered (must be 0),
	// and the deliveries received more than once for one event.
	Events      int `json:"events"`
	Undelivered int `json:"undelivered"`
	Repeated    int `json:"repeated"`
	// NoRetryAfter counts 503 answers without a Retry-After (counted in
	// Unexpected too).
	NoRetryAfter int `json:"no_retry_after"`
	// Duplicated counts the creates sent with an Idempotency-Key that made
	// more than one document (with -mode failover; must be 0).
	Duplicated int `json:"duplicated"`
	// DrainS is how long after the last fault every event had arrived.
	DrainS float64 `json:"drain_s"`
	// The shared rate budget: the limit, requests sent in one minute, and
	// those allowed; Exact says allowed is within the limit and no more than
	// 1% of it per process under.
	Limit, Sent, Allowed int  `json:"-"`
	RateLimit            Rate `json:"rate_limit"`
	// Faults in order, with the time to recover from each.
	Faults []Fault `json:"faults"`
}

// Rate is the check of the shared rate budget.
type Rate struct {
	Limit   int  `json:"limit"`
	Sent    int  `json:"sent"`
	Allowed int  `json:"allowed"`
	Limited int  `json:"limited"`
	Other   int  `json:"other"`
	Exact   bool `json:"exact"`
}

// Fault is one fault and its recovery.
type Fault struct {
	Name string `json:"name"`
	// RecoverS is the time from the end of the fault (the restart) to the
	// first write acknowledged through the load balancer after it, or to the
	// restarted process being ready, whichever the fault is about.
	RecoverS float64 `json:"recover_s"`
	// Errors counts the load's 503 answers during the fault and its
	// recovery.
	Unavailable int `json:"unavailable"`
	// With -mode failover: the longest time without an acknowledged write
	// from the fault until the cluster was whole again, and the leader
	// before and after.
	// FirstS is the time to the first write acknowledged after the fault
	// (one in flight on a leader that HAProxy still sent to counts), and
	// RecoverS, with -mode failover, the time to the end of the longest gap.
	GapS   float64 `json:"gap_s,omitempty"`
	FirstS float64 `json:"first_s,omitempty"`
	Leader string  `json:"leader,omitempty"`
}

func (r *Report) print(w io.Writer) {
	fmt.Fprintf(w, "rate limit across 3 processes: limit %d/min, %d sent in one minute, %d allowed, %d limited, %d other: exact=%v\n",
		r.RateLimit.Limit, r.RateLimit.Sent, r.RateLimit.Allowed, r.RateLimit.Limited, r.RateLimit.Other, r.RateLimit.Exact)
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range r.Requests {
			if !yield(k) {
				return
			}
		}
	})
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s=%d", k, r.Requests[k]))
	}
	fmt.Fprintf(w, "load answers: %s\n", strings.Join(parts, " "))
	fmt.Fprintf(w, "acknowledged writes: %v\n", r.Acknowledged)
	for _, fl := range r.Faults {
		fmt.Fprintf(w, "fault %-32s recovered in %6.2f s (%d answers 503 meanwhile)\n", fl.Name, fl.RecoverS, fl.Unavailable)
	}
	fmt.Fprintf(w, "events during the load: %d; every one delivered %.1f s after the last fault\n", r.Events, r.DrainS)
	fmt.Fprintf(w, "MUST BE 0: lost acknowledged writes %d, unexpected answers %d, undelivered events %d\n", len(r.Lost), r.Unexpected, r.Undelivered)
	fmt.Fprintf(w, "events delivered more than once (at-least-once after a worker stop): %d\n", r.Repeated)
	fmt.Fprintf(w, "writes without an Idempotency-Key cut without an answer (in flight on the killed server): %d\n", r.Cut)
	printVerdict(w, r.Lost, r.Failures, r.OK)
}

// costRun sets up as run does and measures the layouts' costs.
func (f *fleet) costRun() ([]Cost, error) {
	f.ports()
	if err := f.setup(); err != nil {
		return nil, err
	}
	if err := f.startBouncer(); err != nil {
		return nil, err
	}
	if err := f.startServerOn(0, f.direct(), "256"); err != nil {
		return nil, err
	}
	return f.costs(f.c.measure, f.c.workers)
}

func (f *fleet) run() (*Report, error) {
	f.ports()
	if err := f.setup(); err != nil {
		return nil, err
	}
	if err := f.startBouncer(); err != nil {
		return nil, err
	}
	for i := range f.servers {
		if err := f.startServer(i, f.c.limit); err != nil {
			return nil, err
		}
	}
	if err := f.startWorker(); err != nil {
		return nil, err
	}
	if err := f.startBalancer(); err != nil {
		return nil, err
	}
	rep := &Report{Requests: map[string]int{}, Acknowledged: map[string]int{}}
	var err error
	if rep.RateLimit, err = f.rateCheck(); err != nil {
		return nil, err
	}
	// The load runs with a budget it cannot reach: each server restarts,
	// one at a time, while the balancer sends to the others.
	for i := range f.servers {
		f.signal(fmt.Sprintf("server%d", i+1), syscall.SIGTERM)
		if err := f.startServer(i, 100_000_000); err != nil {
			return nil, err
		}
	}
	if err := waitReady(f.lbURL()+"/readyz", 30*time.Second); err != nil {
		return nil, err
	}
	l, err := f.newLoad()
	if err != nil {
		return nil, err
	}
	var first int64
	if err := f.db.QueryRow("SELECT COALESCE(MAX(id), 0) FROM events").Scan(&first); err != nil {
		return nil, err
	}
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for w := 0; w < f.c.workers; w++ {
		wg.Add(1)
		go func() { defer wg.Done(); l.work(ctx, w) }()
	}
	time.Sleep(f.c.steady)
	faults := []struct {
		name string
		do   func() (time.Time, error)
		// ready, when set, is what recovery waits for instead of a write.
		ready func() error
	}{
		{"SIGKILL server 1, restart", func() (time.Time, error) {
			f.signal("server1", syscall.SIGKILL)
			time.Sleep(2 * time.Second)
			t := time.Now()
			return t, f.start("server1", []string{"LARDER_DB_STATEMENTS=0"}, f.c.larder, "serve", "--database", f.pooled(),
				"--addr", fmt.Sprintf("127.0.0.1:%d", f.servers[0]), "--webhooks=false", "--rate-limit", "100000000",
				"--trusted-proxies", "127.0.0.1/32", "--log-flush", "100ms", "--metrics-addr", "off")
		}, func() error {
			return waitReady(fmt.Sprintf("http://127.0.0.1:%d/readyz", f.servers[0]), 60*time.Second)
		}},
		{"stop the webhook worker 30 s", func() (time.Time, error) {
			f.signal("worker", syscall.SIGTERM)
			time.Sleep(30 * time.Second)
			return time.Now(), f.startWorker()
		}, nil},
		{"restart PgBouncer", func() (time.Time, error) {
			f.signal("pgbouncer", syscall.SIGINT)
			t := time.Now()
			return t, f.startBouncer()
		}, nil},
		{"stop PostgreSQL 10 s", func() (time.Time, error) {
			if err := f.pgctl("stop", "-m", "fast"); err != nil {
				return time.Time{}, err
			}
			time.Sleep(10 * time.Second)
			t := time.Now()
			return t, f.pgctl("start")
		}, nil},
	}
	for _, ft := range faults {
		before := l.unavailable.Load()
		at, err := ft.do()
		if err != nil {
			stop()
			wg.Wait()
			return nil, fmt.Errorf("%s: %w", ft.name, err)
		}
		fl := Fault{Name: ft.name}
		if ft.ready != nil {
			if err := ft.ready(); err != nil {
				stop()
				wg.Wait()
				return nil, err
			}
			fl.RecoverS = time.Since(at).Seconds()
		} else {
			done := l.writeAfter(at, 120*time.Second)
			if done.IsZero() {
				stop()
				wg.Wait()
				return nil, fmt.Errorf("%s: no write acknowledged within 120 s", ft.name)
			}
			fl.RecoverS = done.Sub(at).Seconds()
		}
		time.Sleep(f.c.steady)
		fl.Unavailable = int(l.unavailable.Load() - before)
		rep.Faults = append(rep.Faults, fl)
	}
	last := time.Now()
	stop()
	wg.Wait()

	if err := f.settle(rep, l, first, last); err != nil {
		return nil, err
	}
	rep.OK = len(rep.Lost) == 0 && rep.Unexpected == 0 && rep.Undelivered == 0 && rep.RateLimit.Exact
	return rep, nil
}

// settle fills rep with what the load saw, once it has stopped: its
// answers, the acknowledged writes read back, and the events written since
// the event numbered first, each delivered (waiting up to two minutes).
func (f *fleet) settle(rep *Report, l *load, first int64, last time.Time) error {
	var err error
	l.mu.Lock()
	maps := l.answers
	rep.Failures = l.failures
	l.mu.Unlock()
	for k, v := range maps {
		rep.Requests[k] = v
		switch {
		case k == "cut":
			rep.Cut += v
		case k == "error" || (k != "503" && !strings.HasPrefix(k, "2") && !strings.HasPrefix(k, "4")):
			rep.Unexpected += v
		}
	}
	for _, w := range l.acked {
		rep.Acknowledged[w.kind]++
	}
	if rep.Lost, err = f.lost(l.acked); err != nil {
		return err
	}
	// Every event written since the load began reaches the receiver.
	var events []string
	rows, err := f.db.Query("SELECT event_id FROM events WHERE account_id = $1 AND id > $2", f.account, first)
	if err != nil {
		return err
	}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return err
		}
		events = append(events, id)
	}
	rows.Close()
	rep.Events = len(events)
	deadline := time.Now().Add(120 * time.Second)
	for {
		missing := f.rc.missing(events)
		if missing == 0 || time.Now().After(deadline) {
			rep.Undelivered = missing
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	rep.DrainS = time.Since(last).Seconds()
	rep.Repeated = f.rc.repeated()
	rep.NoRetryAfter = int(l.noRetryAfter.Load())
	rep.Unexpected += rep.NoRetryAfter
	return nil
}

// rateCheck sends c.probe requests with the probe's key through the
// balancer within one minute, spread over the three servers, and counts
// what was allowed: at most the limit, and at most 1% of it per server
// under (what each server's reserved numbers may leave unused).
func (f *fleet) rateCheck() (Rate, error) {
	r := Rate{Limit: f.c.limit, Sent: f.c.probe}
	// Start just after a minute begins, so all of it falls in one window.
	now := time.Now()
	time.Sleep(now.Truncate(time.Minute).Add(time.Minute + 500*time.Millisecond).Sub(now))
	start := time.Now()
	var allowed, limited, other atomic.Int64
	var wg sync.WaitGroup
	next := atomic.Int64{}
	client := &http.Client{Timeout: 10 * time.Second}
	for w := 0; w < 12; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= int64(f.c.probe) {
				req, _ := http.NewRequest("GET", f.lbURL()+"/v1/organization", nil)
				req.Header.Set("Authorization", "Bearer "+f.probe)
				res, err := client.Do(req)
				if err != nil {
					other.Add(1)
					continue
				}
				_, _ = io.Copy(io.Discard, res.Body)
				res.Body.Close()
				switch {
				case res.StatusCode == 200:
					allowed.Add(1)
				case res.StatusCode == 429:
					limited.Add(1)
				default:
					other.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	if time.Since(start) > 50*time.Second {
		return r, fmt.Errorf("the rate check took %s: more than one window", time.Since(start))
	}
	r.Allowed, r.Limited, r.Other = int(allowed.Load()), int(limited.Load()), int(other.Load())
	slack := (f.c.limit + 99) / 100 * len(f.servers)
	r.Exact = r.Other == 0 && r.Allowed <= r.Limit && r.Allowed >= r.Limit-slack
	return r, nil
}

// receiver is the webhook endpoint: it counts each event's deliveries.
type receiver struct {
	mu   sync.Mutex
	seen map[string]int
}

func newReceiver() *receiver { return &receiver{seen: map[string]int{}} }

func (rc *receiver) listen(port int) error {
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		return err
	}
	go http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		if id := r.Header.Get("webhook-id"); id != "" {
			rc.mu.Lock()
			rc.seen[id]++
			rc.mu.Unlock()
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	return nil
}

func (rc *receiver) missing(ids []string) int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	n := 0
	for _, id := range ids {
		if rc.seen[id] == 0 {
			n++
		}
	}
	return n
}

func (rc *receiver) repeated() int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	n := 0
	for _, c := range rc.seen {
		if c > 1 {
			n++
		}
	}
	return n
}

// written is a write the API acknowledged, and where it can be read back.
type written struct {
	kind, path string
	// check, when set, tells from the read whether the write is there.
	check func(body []byte) bool
}

// load is the mixed load of the test account, through the balancer.
type load struct {
	f                   *fleet
	base                string
	client              *http.Client
	supplier, customer  int
	product, stocked    int
	mu                  sync.Mutex
	answers             map[string]int
	failures            []string
	acked               []written
	writes              []time.Time
	unavailable         atomic.Int64
	noRetryAfter        atomic.Int64
	seq                 atomic.Int64
	getPaths, listPaths []string
}

func (f *fleet) newLoad() (*load, error) { return f.newLoadAt(f.lbURL()) }

// newLoadAt is newLoad sending to base.
func (f *fleet) newLoadAt(base string) (*load, error) {
	// Keep-alive connections are kept for every worker, and let go before
	// HAProxy's http-keep-alive timeout closes them under a request.
	tr := &http.Transport{MaxIdleConnsPerHost: f.c.workers, IdleConnTimeout: 5 * time.Second}
	l := &load{f: f, base: base, client: &http.Client{Timeout: 40 * time.Second, Transport: tr}, answers: map[string]int{}}
	first := func(path string) (int, error) {
		var page struct{ Data []struct{ ID int } }
		st, body, err := l.do("GET", path, "", nil)
		if err != nil || st != 200 {
			return 0, fmt.Errorf("GET %s: %d %v %s", path, st, err, body)
		}
		if err := json.Unmarshal(body, &page); err != nil || len(page.Data) == 0 {
			return 0, fmt.Errorf("GET %s: nothing listed (%v)", path, err)
		}
		return page.Data[0].ID, nil
	}
	var err error
	if l.supplier, err = first("/v1/suppliers?limit=1"); err != nil {
		return nil, err
	}
	if l.customer, err = first("/v1/customers?limit=1"); err != nil {
		return nil, err
	}
	if l.product, err = first("/v1/products?limit=1"); err != nil {
		return nil, err
	}
	// The bills stock the product the shipments take from.
	l.stocked = l.product
	l.getPaths = []string{fmt.Sprintf("/v1/products/%d", l.product), fmt.Sprintf("/v1/suppliers/%d", l.supplier), fmt.Sprintf("/v1/customers/%d", l.customer), "/v1/organization"}
	l.listPaths = []string{"/v1/products?limit=100", "/v1/product-lots?limit=100", "/v1/sales-orders?limit=50"}
	return l, nil
}

// do sends one request through the balancer and returns its status and body.
func (l *load) do(method, path, idem string, body any) (int, []byte, error) {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, l.base+path, rd)
	req.Header.Set("Authorization", "Bearer "+l.f.key)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if idem != "" {
		req.Header.Set("Idempotency-Key", idem)
	}
	res, err := l.client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode == 503 && res.Header.Get("Retry-After") == "" {
		l.noRetryAfter.Add(1)
	}
	return res.StatusCode, b, nil
}

// count records an answer of the load. A write the balancer may not send
// again (a POST without an Idempotency-Key) that got no answer at all is
// "cut": it was in flight on a server that died, and no one can say whether
// it was applied.
func (l *load) count(st int, err error) { l.countWrite(st, err, true) }

func (l *load) countWrite(st int, err error, replayable bool) {
	k := strconv.Itoa(st)
	if err != nil {
		k = "error"
		if !replayable {
			k = "cut"
		}
	}
	if err != nil || (st >= 500 && st != 503) {
		l.mu.Lock()
		if len(l.failures) < 10 {
			l.failures = append(l.failures, fmt.Sprintf("%s: %d %v", time.Now().UTC().Format("15:04:05.000"), st, err))
		}
		l.mu.Unlock()
	}
	if st == 503 {
		l.unavailable.Add(1)
	}
	l.mu.Lock()
	l.answers[k]++
	l.mu.Unlock()
}

// ack records an acknowledged write.
func (l *load) ack(w written) {
	l.mu.Lock()
	l.acked = append(l.acked, w)
	l.writes = append(l.writes, time.Now())
	l.mu.Unlock()
}

// writeAfter waits until a write acknowledged after t and returns when it
// was, or the zero time after d.
func (l *load) writeAfter(t time.Time, d time.Duration) time.Time {
	end := time.Now().Add(d)
	for time.Now().Before(end) {
		l.mu.Lock()
		i := slices.IndexFunc(l.writes, func(w time.Time) bool { return w.After(t) })
		var at time.Time
		if i >= 0 {
			at = l.writes[i]
		}
		l.mu.Unlock()
		if i >= 0 {
			return at
		}
		time.Sleep(20 * time.Millisecond)
	}
	return time.Time{}
}

// create posts a document: with an idempotency key it retries with the same
// key until it is acknowledged or refused for good (for at most a minute,
// so a document whose first attempt met a fault is settled either way);
// without one it is sent once. It returns the created id, 0 when not
// acknowledged.
func (l *load) create(path string, body any, idempotent bool) int {
	idem := ""
	if idempotent {
		idem = fmt.Sprintf("fleet-%d-%d", time.Now().UnixNano(), l.seq.Add(1))
		// The key is the document's supplier reference too, so that a
		// document made twice for one key can be found.
		if m, ok := body.(map[string]any); ok {
			m["supplier_reference"] = idem
		}
	}
	for end := time.Now().Add(time.Minute); ; {
		st, b, err := l.do("POST", path, idem, body)
		l.countWrite(st, err, idempotent)
		if err == nil && (st == 201 || st == 200) {
			var out struct{ Data struct{ ID int } }
			if json.Unmarshal(b, &out) == nil {
				return out.Data.ID
			}
			return 0
		}
		retry := idempotent && (err != nil || st == 503 || st == 409 || st == 429 || st >= 500)
		if !retry || time.Now().After(end) {
			return 0
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func (l *load) work(ctx context.Context, w int) {
	rnd := rand.New(rand.NewPCG(uint64(w), uint64(time.Now().UnixNano())))
	day := time.Now().UTC().Format(time.DateOnly)
	for ctx.Err() == nil {
		switch x := rnd.IntN(100); {
		case x < 50:
			st, _, err := l.do("GET", l.getPaths[rnd.IntN(len(l.getPaths))], "", nil)
			l.count(st, err)
		case x < 65:
			st, _, err := l.do("GET", l.listPaths[rnd.IntN(len(l.listPaths))], "", nil)
			l.count(st, err)
		case x < 80:
			body := map[string]any{"supplier_id": l.supplier, "order_date": day,
				"lines": []map[string]any{{"product_id": l.product, "quantity": 2, "cost": 3.5}}}
			id := l.create("/v1/purchase-orders", body, true)
			if id != 0 {
				l.ack(written{kind: "purchase order", path: fmt.Sprintf("/v1/purchase-orders/%d", id), check: carries(body["supplier_reference"])})
			}
		case x < 90:
			lot := fmt.Sprintf("FLEET-%d-%d", w, l.seq.Add(1))
			body := map[string]any{"supplier_id": l.supplier, "bill_date": day,
				"lines": []map[string]any{{"product_id": l.stocked, "quantity": 50, "cost": 1.25, "lot_number": lot}}}
			id := l.create("/v1/bills", body, true)
			if id != 0 {
				l.ack(written{kind: "bill", path: fmt.Sprintf("/v1/bills/%d", id), check: carries(body["supplier_reference"])})
			}
		default:
			mark := fmt.Sprintf("FLEET-SO-%d-%d", w, l.seq.Add(1))
			so := l.create("/v1/sales-orders", map[string]any{"customer_id": l.customer, "order_date": day,
				"customer_purchase_order_no": mark,
				"lines":                      []map[string]any{{"product_id": l.stocked, "order_qty": 1, "price": 4}}}, false)
			if so == 0 {
				continue
			}
			l.ack(written{kind: "sales order", path: fmt.Sprintf("/v1/sales-orders/%d", so), check: carries(mark)})
			st, b, err := l.do("GET", fmt.Sprintf("/v1/sales-orders/%d", so), "", nil)
			l.count(st, err)
			var order struct {
				Data struct {
					Lines []struct{ ID int }
				}
			}
			if err != nil || st != 200 || json.Unmarshal(b, &order) != nil || len(order.Data.Lines) != 1 {
				continue
			}
			line := order.Data.Lines[0].ID
			st, _, err = l.do("POST", fmt.Sprintf("/v1/sales-orders/%d/shipments", so), "", map[string]any{"ship_date": day,
				"lines": []map[string]any{{"sales_order_line_id": line, "quantity_base": 1}}})
			l.countWrite(st, err, false)
			if err == nil && st == 201 {
				l.ack(written{kind: "shipment", path: fmt.Sprintf("/v1/sales-orders/%d", so), check: func(b []byte) bool { return carries(mark)(b) && shippedOne(b) }})
			}
		}
	}
}

// carries tells from a read whether it is the document written with mark
// (a document written on a node that then lost its writes could be
// replaced by another under the same id).
func carries(mark any) func([]byte) bool {
	m, _ := json.Marshal(mark)
	return func(body []byte) bool { return bytes.Contains(body, m) }
}

// shippedOne reads a sales order and tells whether its line shipped.
func shippedOne(body []byte) bool {
	var order struct {
		Data struct {
			Lines []struct {
				ShippedQtyBase json.Number `json:"shipped_qty_base"`
			}
		}
	}
	if json.Unmarshal(body, &order) != nil || len(order.Data.Lines) != 1 {
		return false
	}
	q, err := strconv.ParseFloat(order.Data.Lines[0].ShippedQtyBase.String(), 64)
	return err == nil && q >= 1
}

// readBack is where lost reads the writes back: -url, or the second server.
func (f *fleet) readBack() string {
	if f.c.url != "" {
		return f.c.url
	}
	return fmt.Sprintf("http://127.0.0.1:%d", f.servers[1])
}

// lost reads every acknowledged write back, from one server directly.
func (f *fleet) lost(acked []written) ([]string, error) {
	var lost []string
	client := &http.Client{Timeout: 15 * time.Second}
	for _, w := range acked {
		req, _ := http.NewRequest("GET", f.readBack()+w.path, nil)
		req.Header.Set("Authorization", "Bearer "+f.key)
		res, err := client.Do(req)
		if err != nil {
			return nil, err
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || (w.check != nil && !w.check(b)) {
			lost = append(lost, fmt.Sprintf("%s %s: %d", w.kind, w.path, res.StatusCode))
		}
	}
	return lost, nil
}

// printVerdict ends a report: the writes lost and the answers not expected,
// one a line, then PASS or FAIL.
func printVerdict(w io.Writer, lost, failures []string, ok bool) {
	for _, l := range lost {
		fmt.Fprintf(w, "  lost: %s\n", l)
	}
	for _, x := range failures {
		fmt.Fprintf(w, "  unexpected: %s\n", x)
	}
	if ok {
		fmt.Fprintln(w, "PASS")
	} else {
		fmt.Fprintln(w, "FAIL")
	}
}
