package main

// With -mode failover (bench/failover.sh) the fleet's database is a Patroni
// cluster made from the deployment kit (deploy/patroni.yml,
// deploy/etcd.env.example, deploy/haproxy-patroni.cfg): three etcd members,
// three PostgreSQL 15 nodes each under its Patroni, and HAProxy's leader
// frontend, which PgBouncer's entries and the webhook worker reach. Two
// `larder serve` behind the kit's HAProxy take the fleet's mixed load while
// the leader's PostgreSQL is killed, the leader's Patroni is killed, the
// leader is cut off for 30 s, the leader is switched over on purpose, the
// synchronous standby is killed and etcd loses its quorum for 20 s.

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/go-faster/yaml"
)

// node is one PostgreSQL machine of the cluster: its PostgreSQL, its
// Patroni and its etcd member.
type node struct {
	name                          string
	pg, api, etcdClient, etcdPeer int
	dir, conf                     string
}

func (n *node) patroni() string { return "patroni-" + n.name }
func (n *node) etcd() string    { return "etcd-" + n.name }

// failoverPorts: PgBouncer, the kit's HAProxy, two servers and the receiver
// as the fleet has them; HAProxy's leader and replica frontends; then each
// node's PostgreSQL, REST API, etcd client and etcd peer ports.
func (f *fleet) failoverPorts() {
	b := f.c.base
	f.bouncer, f.lb, f.recv = b+1, b+2, b+6
	f.servers = []int{b + 3, b + 4}
	f.pg, f.replicas = b+7, b+8
	f.nodes = nil
	for i := 0; i < 3; i++ {
		name := fmt.Sprintf("pg%d", i+1)
		f.nodes = append(f.nodes, &node{name: name, pg: b + 10 + i, api: b + 13 + i, etcdClient: b + 16 + i, etcdPeer: b + 19 + i,
			dir: f.path(name), conf: f.path(name + ".yml")})
	}
}

// postgresUser is the credential PostgreSQL's processes run with, nil when
// not root (they run as this user then).
func postgresUser() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, err
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

// readEnvFile reads a KEY=VALUE file of the kit.
func readEnvFile(path string) (map[string]string, []string, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer fh.Close()
	m := map[string]string{}
	var order []string
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			return nil, nil, fmt.Errorf("%s: %q", path, line)
		}
		m[k] = v
		order = append(order, k)
	}
	return m, order, sc.Err()
}

// setPath sets a value at a dotted path of a YAML document.
func setPath(m map[string]any, path string, v any) {
	parts := strings.Split(path, ".")
	for _, p := range parts[:len(parts)-1] {
		next, ok := m[p].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[p] = next
		}
		m = next
	}
	m[parts[len(parts)-1]] = v
}

func loopback(port int) string { return "127.0.0.1:" + strconv.Itoa(port) }

// renderPatroni writes a node's Patroni configuration: the kit's, with this
// run's name, ports, directories and trust on loopback.
func (f *fleet) renderPatroni(n *node) error {
	b, err := os.ReadFile(filepath.Join(f.c.kit, "patroni.yml"))
	if err != nil {
		return err
	}
	var m map[string]any
	if err := yaml.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("patroni.yml: %w", err)
	}
	var hosts []string
	for _, o := range f.nodes {
		hosts = append(hosts, loopback(o.etcdClient))
	}
	for k, v := range map[string]any{
		"name":                    n.name,
		"restapi.listen":          loopback(n.api),
		"restapi.connect_address": loopback(n.api),
		"etcd.hosts":              strings.Join(hosts, ","),
		"bootstrap.pg_hba": []any{"local all all trust", "host replication replicator 127.0.0.1/32 trust",
			"host all all 127.0.0.1/32 trust"},
		"postgresql.listen":                             loopback(n.pg),
		"postgresql.connect_address":                    loopback(n.pg),
		"postgresql.data_dir":                           n.dir,
		"postgresql.bin_dir":                            f.c.pgbin,
		"postgresql.pgpass":                             n.dir + ".pgpass",
		"postgresql.parameters.unix_socket_directories": f.c.dir,
	} {
		setPath(m, k, v)
	}
	out, err := yaml.Marshal(m)
	if err != nil {
		return err
	}
	return os.WriteFile(n.conf, out, 0o644)
}

// startEtcd runs a node's etcd member with the kit's settings and this
// run's name, ports and directory.
func (f *fleet) startEtcd(n *node) error {
	kit, order, err := readEnvFile(filepath.Join(f.c.kit, "etcd.env.example"))
	if err != nil {
		return err
	}
	var cluster []string
	for _, o := range f.nodes {
		cluster = append(cluster, o.name+"=http://"+loopback(o.etcdPeer))
	}
	set := map[string]string{
		"ETCD_NAME": n.name, "ETCD_DATA_DIR": f.path("etcd-" + n.name),
		"ETCD_LISTEN_PEER_URLS": "http://" + loopback(n.etcdPeer), "ETCD_INITIAL_ADVERTISE_PEER_URLS": "http://" + loopback(n.etcdPeer),
		"ETCD_LISTEN_CLIENT_URLS": "http://" + loopback(n.etcdClient), "ETCD_ADVERTISE_CLIENT_URLS": "http://" + loopback(n.etcdClient),
		"ETCD_INITIAL_CLUSTER": strings.Join(cluster, ","),
	}
	var env []string
	for _, k := range order {
		v := kit[k]
		if s, ok := set[k]; ok {
			v = s
		}
		env = append(env, k+"="+v)
	}
	return f.start(n.etcd(), env, "etcd")
}

func (f *fleet) startPatroni(n *node) error {
	cred, err := postgresUser()
	if err != nil {
		return err
	}
	kit, _, err := readEnvFile(filepath.Join(f.c.kit, "patroni.env.example"))
	if err != nil {
		return err
	}
	env := []string{"HOME=" + f.c.dir}
	for k, v := range kit {
		env = append(env, k+"="+v)
	}
	return f.startAs(n.patroni(), cred, env, "patroni", n.conf)
}

// member is one node as Patroni's /cluster lists it.
type member struct {
	Name  string `json:"name"`
	Role  string `json:"role"`
	State string `json:"state"`
	Lag   any    `json:"lag"`
}

var restClient = &http.Client{Timeout: 2 * time.Second}

// members asks each node's REST API in turn for the cluster.
func (f *fleet) members() []member {
	for _, n := range f.nodes {
		res, err := restClient.Get("http://" + loopback(n.api) + "/cluster")
		if err != nil {
			continue
		}
		var c struct{ Members []member }
		err = json.NewDecoder(res.Body).Decode(&c)
		res.Body.Close()
		if err == nil {
			return c.Members
		}
	}
	return nil
}

// roles asks each node's Patroni what it is (not etcd, whose member keys
// outlive a dead node by up to ttl): the leader, the synchronous standby
// ("" when none or more than one) and how many run PostgreSQL.
func (f *fleet) roles() (leader, sync string, running int) {
	ok := func(n *node, path string) bool {
		res, err := restClient.Get("http://" + loopback(n.api) + path)
		if err != nil {
			return false
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return res.StatusCode == 200
	}
	var leaders, syncs []string
	for _, n := range f.nodes {
		if !ok(n, "/health") {
			continue
		}
		running++
		if ok(n, "/primary") {
			leaders = append(leaders, n.name)
		} else if ok(n, "/sync") {
			syncs = append(syncs, n.name)
		}
	}
	if len(leaders) == 1 {
		leader = leaders[0]
	}
	if len(syncs) == 1 {
		sync = syncs[0]
	}
	return leader, sync, running
}

// waitWhole waits until the cluster has one leader, one synchronous standby
// and all three nodes running, and both replicas stream from the leader (a
// node that runs may still be about to rewind).
func (f *fleet) waitWhole(d time.Duration) error {
	return f.await(d, "the cluster is not whole", func(l, s string, r int) bool {
		return l != "" && s != "" && r == len(f.nodes) && f.streaming(f.nodeNamed(l)) == len(f.nodes)-1
	})
}

// streaming counts the replicas streaming from n.
func (f *fleet) streaming(n *node) int {
	db, err := sql.Open("postgres", fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable&connect_timeout=2", n.pg))
	if err != nil {
		return 0
	}
	defer db.Close()
	var c int
	if err := db.QueryRow("SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'").Scan(&c); err != nil {
		return 0
	}
	return c
}

// await waits until cond holds of the roles.
func (f *fleet) await(d time.Duration, what string, cond func(leader, sync string, running int) bool) error {
	end := time.Now().Add(d)
	for time.Now().Before(end) {
		if cond(f.roles()) {
			return nil
		}
		time.Sleep(200 * time.Millisecond)
	}
	return fmt.Errorf("%s within %s: %+v", what, d, f.members())
}

func (f *fleet) nodeNamed(name string) *node {
	for _, n := range f.nodes {
		if n.name == name {
			return n
		}
	}
	return nil
}

// startPatroniCluster starts etcd, the first node (which makes the cluster)
// then the two others, and HAProxy's PostgreSQL frontends.
func (f *fleet) startPatroniCluster() error {
	for _, n := range f.nodes {
		if err := f.startEtcd(n); err != nil {
			return err
		}
	}
	for _, n := range f.nodes {
		if err := waitReady("http://"+loopback(n.etcdClient)+"/health", 30*time.Second); err != nil {
			return err
		}
		if err := f.renderPatroni(n); err != nil {
			return err
		}
	}
	if err := f.startPatroni(f.nodes[0]); err != nil {
		return err
	}
	if err := waitReady("http://"+loopback(f.nodes[0].api)+"/primary", 90*time.Second); err != nil {
		return err
	}
	for _, n := range f.nodes[1:] {
		if err := f.startPatroni(n); err != nil {
			return err
		}
	}
	if err := f.waitWhole(180 * time.Second); err != nil {
		return err
	}
	if err := f.renderPatroniHAProxy(); err != nil {
		return err
	}
	if err := f.start("haproxy-postgres", nil, "haproxy", "-db", "-f", f.path("haproxy-patroni.cfg")); err != nil {
		return err
	}
	if err := waitPort(f.pg, 10*time.Second); err != nil {
		return err
	}
	return f.waitLeaderOnly(30 * time.Second)
}

// waitLeaderOnly waits until ten new connections in a row through the
// leader frontend reach a primary: HAProxy starts with every server up and
// takes the replicas out only after their first failed checks.
func (f *fleet) waitLeaderOnly(d time.Duration) error {
	end := time.Now().Add(d)
	for good := 0; good < 10; {
		if time.Now().After(end) {
			return fmt.Errorf("the leader frontend still reaches a replica after %s", d)
		}
		db, err := sql.Open("postgres", fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", f.pg))
		if err != nil {
			return err
		}
		var replica bool
		if err := db.QueryRow("SELECT pg_is_in_recovery()").Scan(&replica); err != nil || replica {
			good = 0
			time.Sleep(200 * time.Millisecond)
		} else {
			good++
		}
		db.Close()
	}
	return nil
}

// renderPatroniHAProxy writes the kit's haproxy-patroni.cfg with this run's
// frontends and nodes.
func (f *fleet) renderPatroniHAProxy() error {
	b, err := os.ReadFile(filepath.Join(f.c.kit, "haproxy-patroni.cfg"))
	if err != nil {
		return err
	}
	binds := []int{f.pg, f.replicas}
	nb := 0
	var bad error
	h := regexp.MustCompile(`(?m)^(\s*bind\s+)\S+`).ReplaceAllStringFunc(string(b), func(line string) string {
		m := regexp.MustCompile(`^(\s*bind\s+)`).FindString(line)
		if nb >= len(binds) {
			bad = fmt.Errorf("haproxy-patroni.cfg has more than %d binds", len(binds))
			return line
		}
		nb++
		return m + loopback(binds[nb-1])
	})
	srv := regexp.MustCompile(`(?m)^(\s*server\s+)(\S+)\s+\S+(.*\bcheck port )\d+`)
	h = srv.ReplaceAllStringFunc(h, func(line string) string {
		m := srv.FindStringSubmatch(line)
		n := f.nodeNamed(m[2])
		if n == nil {
			bad = fmt.Errorf("haproxy-patroni.cfg: server %s is none of the nodes", m[2])
			return line
		}
		return m[1] + m[2] + " " + loopback(n.pg) + m[3] + strconv.Itoa(n.api)
	})
	if bad != nil {
		return bad
	}
	h = regexp.MustCompile(`(?m)^\s*log global\s*$`).ReplaceAllString(h, "")
	return os.WriteFile(f.path("haproxy-patroni.cfg"), []byte(h), 0o644)
}

// stopNodes stops what is left of the cluster's PostgreSQL once the
// processes the fleet started are gone (a node whose Patroni was killed
// leaves its PostgreSQL running).
func (f *fleet) stopNodes() {
	for _, n := range f.nodes {
		pids := n.postgresPIDs()
		for _, p := range pids {
			_ = syscall.Kill(p, syscall.SIGCONT)
		}
		if len(pids) > 0 {
			_ = syscall.Kill(pids[0], syscall.SIGQUIT)
		}
	}
}

// postgresPIDs is the node's postmaster and its children, none when it is
// not running.
func (n *node) postgresPIDs() []int {
	b, err := os.ReadFile(filepath.Join(n.dir, "postmaster.pid"))
	if err != nil {
		return nil
	}
	first, _, _ := strings.Cut(string(b), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(first))
	if err != nil || syscall.Kill(pid, 0) != nil {
		return nil
	}
	return append([]int{pid}, children(pid)...)
}

// pid is the process the fleet started under name, 0 when none.
func (f *fleet) pid(name string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	if c := f.procs[name]; c != nil && c.Process != nil {
		return c.Process.Pid
	}
	return 0
}

func signalAll(pids []int, sig syscall.Signal) {
	for _, p := range pids {
		if p > 0 {
			_ = syscall.Kill(p, sig)
		}
	}
}

// maxGap is the longest time without an acknowledged write between from
// and to, and the write that ended it.
func (l *load) maxGap(from, to time.Time) (time.Duration, time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	prev, gap, end := from, time.Duration(0), from
	for _, w := range l.writes {
		if !w.After(from) || w.After(to) {
			continue
		}
		if d := w.Sub(prev); d > gap {
			gap, end = d, w
		}
		prev = w
	}
	if d := to.Sub(prev); d > gap {
		gap, end = d, to
	}
	return gap, end
}

// outcome is what a fault returns: when it began, what the cluster must
// have done before the node is brought back (a new leader, a new
// synchronous standby), and what brings it back.
type outcome struct {
	began   time.Time
	await   func(leader, sync string, running int) bool
	restore func() error
}

// failoverFaults are the faults in order; each gets the current leader and
// synchronous standby.
func (f *fleet) failoverFaults() []struct {
	name string
	do   func(leader, sync *node) (outcome, error)
} {
	restart := func(n *node) func() error { return func() error { return f.startPatroni(n) } }
	newLeader := func(old *node) func(string, string, int) bool {
		return func(l, _ string, _ int) bool { return l != "" && l != old.name }
	}
	return []struct {
		name string
		do   func(leader, sync *node) (outcome, error)
	}{
		{"SIGKILL the leader's PostgreSQL", func(leader, _ *node) (outcome, error) {
			pids := leader.postgresPIDs()
			if len(pids) == 0 {
				return outcome{}, fmt.Errorf("%s: PostgreSQL is not running", leader.name)
			}
			t := time.Now()
			signalAll(pids, syscall.SIGKILL)
			return outcome{began: t}, nil
		}},
		{"SIGKILL the leader's Patroni", func(leader, _ *node) (outcome, error) {
			t := time.Now()
			f.signal(leader.patroni(), syscall.SIGKILL)
			// Restarted at once it would find its key and lead on; systemd's
			// RestartSec or a machine that does not come back lets the key go.
			return outcome{began: t, await: newLeader(leader), restore: restart(leader)}, nil
		}},
		{"cut the leader off 30 s (SIGSTOP)", func(leader, _ *node) (outcome, error) {
			pids := append([]int{f.pid(leader.patroni()), f.pid(leader.etcd())}, leader.postgresPIDs()...)
			t := time.Now()
			signalAll(pids, syscall.SIGSTOP)
			time.Sleep(30 * time.Second)
			// Children forked meanwhile (none while stopped) and the ones
			// stopped all go on.
			signalAll(append(pids, leader.postgresPIDs()...), syscall.SIGCONT)
			return outcome{began: t}, nil
		}},
		{"switchover (POST /switchover)", func(leader, sync *node) (outcome, error) {
			// What patronictl switchover sends once it has read the
			// cluster and asked for confirmation (about 3 s of its own
			// on this machine, left out): the leader's Patroni answers
			// once the candidate leads, or says why not.
			body := fmt.Sprintf(`{"leader":%q,"candidate":%q}`, leader.name, sync.name)
			t := time.Now()
			res, err := (&http.Client{Timeout: 60 * time.Second}).Post("http://"+loopback(leader.api)+"/switchover", "application/json", strings.NewReader(body))
			if err != nil {
				return outcome{}, fmt.Errorf("POST /switchover: %w", err)
			}
			out, _ := io.ReadAll(res.Body)
			res.Body.Close()
			_ = os.WriteFile(f.path("switchover.out"), fmt.Appendf(nil, "%s %d %s after %.2f s\n", t.UTC().Format("15:04:05.000"), res.StatusCode, out, time.Since(t).Seconds()), 0o644)
			if res.StatusCode != http.StatusOK {
				return outcome{}, fmt.Errorf("POST /switchover: %d %s", res.StatusCode, out)
			}
			return outcome{began: t, await: newLeader(leader)}, nil
		}},
		{"SIGKILL the synchronous standby", func(_, sync *node) (outcome, error) {
			pids := append([]int{f.pid(sync.patroni())}, sync.postgresPIDs()...)
			t := time.Now()
			signalAll(pids, syscall.SIGKILL)
			f.signal(sync.patroni(), syscall.SIGKILL)
			return outcome{began: t, restore: restart(sync), await: func(_, s string, _ int) bool { return s != "" && s != sync.name }}, nil
		}},
		{"etcd quorum lost 20 s (2 of 3 SIGSTOP)", func(leader, _ *node) (outcome, error) {
			var pids []int
			for _, n := range f.nodes {
				if n != leader && len(pids) < 2 {
					pids = append(pids, f.pid(n.etcd()))
				}
			}
			t := time.Now()
			signalAll(pids, syscall.SIGSTOP)
			time.Sleep(20 * time.Second)
			signalAll(pids, syscall.SIGCONT)
			return outcome{began: t}, nil
		}},
	}
}

// failoverRun builds the fleet on a Patroni cluster and runs the faults
// under the mixed load.
func (f *fleet) failoverRun() (*Report, error) {
	f.failoverPorts()
	for _, p := range []string{"patroni", "patronictl", "etcd", "haproxy", "pgbouncer"} {
		if _, err := exec.LookPath(p); err != nil {
			return nil, fmt.Errorf("%s is not installed (apt-get install -y patroni etcd-server etcd-client haproxy pgbouncer)", p)
		}
	}
	if err := f.setup(); err != nil {
		return nil, err
	}
	if err := f.startBouncer(); err != nil {
		return nil, err
	}
	for i := range f.servers {
		if err := f.startServer(i, 100_000_000); err != nil {
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
	fail := func(err error) (*Report, error) {
		stop()
		wg.Wait()
		return nil, err
	}
	time.Sleep(f.c.steady)
	for _, ft := range f.failoverFaults() {
		if !strings.Contains(ft.name, f.c.only) {
			continue
		}
		ln, sn, _ := f.roles()
		leader, syncStandby := f.nodeNamed(ln), f.nodeNamed(sn)
		if leader == nil || syncStandby == nil {
			return fail(fmt.Errorf("%s: no leader or synchronous standby: %+v", ft.name, f.members()))
		}
		log := fmt.Sprintf("%s %s: leader %s, synchronous standby %s\n", time.Now().UTC().Format("15:04:05.000"), ft.name, ln, sn)
		_ = appendFile(f.path("faults.log"), log)
		before := l.unavailable.Load()
		oc, err := ft.do(leader, syncStandby)
		if err != nil {
			return fail(fmt.Errorf("%s: %w", ft.name, err))
		}
		done := l.writeAfter(oc.began, 120*time.Second)
		if done.IsZero() {
			return fail(fmt.Errorf("%s: no write acknowledged within 120 s: %+v", ft.name, f.members()))
		}
		if oc.await != nil {
			if err := f.await(90*time.Second, ft.name+": the cluster did not move on", oc.await); err != nil {
				return fail(err)
			}
		}
		if oc.restore != nil {
			if err := oc.restore(); err != nil {
				return fail(fmt.Errorf("%s: %w", ft.name, err))
			}
		}
		if err := f.waitWhole(180 * time.Second); err != nil {
			return fail(fmt.Errorf("%s: %w", ft.name, err))
		}
		whole := time.Now()
		after, _, _ := f.roles()
		gap, resumed := l.maxGap(oc.began, whole)
		if gap < time.Second {
			// Writes never stopped: recovered with the first one.
			resumed = done
		}
		fl := Fault{Name: ft.name, FirstS: done.Sub(oc.began).Seconds(), RecoverS: resumed.Sub(oc.began).Seconds(), GapS: gap.Seconds(),
			Leader: ln + " -> " + after}
		_ = appendFile(f.path("faults.log"), fmt.Sprintf("%s whole again: leader %s; first write after %.2f s, writes again after %.2f s, longest gap %.2f s\n",
			whole.UTC().Format("15:04:05.000"), after, fl.FirstS, fl.RecoverS, fl.GapS))
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
	// No server dies here: a write without an answer is unexpected too.
	rep.Unexpected += rep.Cut
	if rep.Duplicated, err = f.duplicated(); err != nil {
		return nil, err
	}
	rep.OK = len(rep.Lost) == 0 && rep.Duplicated == 0 && rep.Unexpected == 0 && rep.Undelivered == 0
	return rep, nil
}

// duplicated counts the Idempotency-Keys (each create's supplier
// reference) that made more than one purchase order or bill.
func (f *fleet) duplicated() (int, error) {
	n := 0
	for _, table := range []string{"purchase_orders", "bills"} {
		var c int
		err := f.db.QueryRow(`SELECT count(*) FROM (SELECT supplier_reference FROM `+table+
			` WHERE account_id = $1 AND supplier_reference LIKE 'fleet-%' GROUP BY supplier_reference HAVING count(*) > 1) d`, f.account).Scan(&c)
		if err != nil {
			return 0, err
		}
		n += c
	}
	return n, nil
}

func appendFile(path, s string) error {
	fh, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer fh.Close()
	_, err = io.WriteString(fh, s)
	return err
}

func (r *Report) printFailover(w io.Writer) {
	var parts []string
	for k, v := range r.Requests {
		parts = append(parts, fmt.Sprintf("%s=%d", k, v))
	}
	slices.Sort(parts)
	fmt.Fprintf(w, "load answers: %s\n", strings.Join(parts, " "))
	fmt.Fprintf(w, "acknowledged writes: %v\n", r.Acknowledged)
	for _, fl := range r.Faults {
		goal := 30.0
		if strings.Contains(fl.Name, "switchover") {
			goal = 5
		}
		met := "goal met"
		if fl.RecoverS >= goal {
			met = "GOAL MISSED"
		}
		if strings.Contains(fl.Name, "etcd") {
			met += ", the outage included"
		}
		fmt.Fprintf(w, "fault %-40s writes again after %6.2f s (goal %2.0f s: %s; longest gap %6.2f s; first write after %5.2f s), %4d answers 503, leader %s\n",
			fl.Name, fl.RecoverS, goal, met, fl.GapS, fl.FirstS, fl.Unavailable, fl.Leader)
	}
	fmt.Fprintf(w, "events during the load: %d; every one delivered %.1f s after the last fault\n", r.Events, r.DrainS)
	fmt.Fprintf(w, "MUST BE 0: lost acknowledged writes %d, duplicated acknowledged writes %d, undelivered events %d, unexpected answers %d (503 without Retry-After %d, no answer %d)\n",
		len(r.Lost), r.Duplicated, r.Undelivered, r.Unexpected, r.NoRetryAfter, r.Requests["error"]+r.Cut)
	fmt.Fprintf(w, "events delivered more than once: %d\n", r.Repeated)
	printVerdict(w, r.Lost, r.Failures, r.OK)
}
