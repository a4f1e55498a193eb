package deploy

import (
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-faster/yaml"
)

// patroniConfig is what the tests read of patroni.yml.
type patroniConfig struct {
	Scope   string `yaml:"scope"`
	Name    string `yaml:"name"`
	RestAPI struct {
		Listen         string `yaml:"listen"`
		ConnectAddress string `yaml:"connect_address"`
	} `yaml:"restapi"`
	Etcd struct {
		Hosts string `yaml:"hosts"`
	} `yaml:"etcd"`
	Bootstrap struct {
		DCS struct {
			TTL                   int   `yaml:"ttl"`
			LoopWait              int   `yaml:"loop_wait"`
			RetryTimeout          int   `yaml:"retry_timeout"`
			SynchronousMode       *bool `yaml:"synchronous_mode"`
			SynchronousModeStrict *bool `yaml:"synchronous_mode_strict"`
			SynchronousNodeCount  int   `yaml:"synchronous_node_count"`
			MaximumLagOnFailover  int64 `yaml:"maximum_lag_on_failover"`
			FailsafeMode          bool  `yaml:"failsafe_mode"`
			PostgreSQL            struct {
				UsePgRewind bool              `yaml:"use_pg_rewind"`
				Parameters  map[string]string `yaml:"parameters"`
			} `yaml:"postgresql"`
		} `yaml:"dcs"`
		InitDB []any `yaml:"initdb"`
	} `yaml:"bootstrap"`
	PostgreSQL struct {
		Listen         string `yaml:"listen"`
		ConnectAddress string `yaml:"connect_address"`
		BinDir         string `yaml:"bin_dir"`
		Authentication map[string]struct {
			Username string `yaml:"username"`
			Password string `yaml:"password"`
		} `yaml:"authentication"`
	} `yaml:"postgresql"`
}

func readPatroni(t *testing.T) patroniConfig {
	t.Helper()
	b, err := os.ReadFile("patroni.yml")
	if err != nil {
		t.Fatal(err)
	}
	var c patroniConfig
	if err := yaml.Unmarshal(b, &c); err != nil {
		t.Fatalf("patroni.yml: %v", err)
	}
	return c
}

// Patroni's configuration makes every acknowledged write exist on two
// machines (synchronous mode, strict, one synchronous standby), promotes
// only a replica that is not behind, can make a former leader a replica
// again (pg_rewind, with hint bits logged), fails over within 30 s of a
// leader going silent, and keeps the passwords out of the file.
func TestPatroniConfig(t *testing.T) {
	c := readPatroni(t)
	dcs := c.Bootstrap.DCS
	if dcs.SynchronousMode == nil || !*dcs.SynchronousMode {
		t.Error("bootstrap.dcs.synchronous_mode is not true: a commit would not wait for a standby")
	}
	if dcs.SynchronousModeStrict == nil || !*dcs.SynchronousModeStrict {
		t.Error("bootstrap.dcs.synchronous_mode_strict is not true: with no standby left the leader would acknowledge writes only it holds")
	}
	if dcs.SynchronousNodeCount < 1 {
		t.Errorf("synchronous_node_count %d", dcs.SynchronousNodeCount)
	}
	if !dcs.FailsafeMode {
		t.Error("bootstrap.dcs.failsafe_mode is not true: the leader would stop taking writes whenever etcd loses its quorum")
	}
	if dcs.MaximumLagOnFailover <= 0 || dcs.MaximumLagOnFailover > 16<<20 {
		t.Errorf("maximum_lag_on_failover %d: want a bound of at most a WAL segment or so", dcs.MaximumLagOnFailover)
	}
	// Patroni's own rule, and the time a silent leader keeps its key.
	if dcs.LoopWait <= 0 || dcs.RetryTimeout <= 0 || dcs.TTL < dcs.LoopWait+2*dcs.RetryTimeout {
		t.Errorf("ttl %d, loop_wait %d, retry_timeout %d: ttl must be at least loop_wait + 2 x retry_timeout", dcs.TTL, dcs.LoopWait, dcs.RetryTimeout)
	}
	if dcs.TTL+dcs.LoopWait >= 30 {
		t.Errorf("ttl %d + loop_wait %d: a leader that goes silent is replaced in 30 s or more", dcs.TTL, dcs.LoopWait)
	}
	// A switchover under 5 s (bench/failover.sh): in strict mode the new
	// leader commits nothing until a replica streams from it, which waits
	// for that replica's loop and, after a failed WAL source, for
	// wal_retrieve_retry_interval (5 s by default, which also held the
	// candidate's promotion).
	if dcs.LoopWait > 1 {
		t.Errorf("loop_wait %d: a replica follows a new leader only at its next loop, and the new leader's commits wait for it", dcs.LoopWait)
	}
	if d, err := time.ParseDuration(dcs.PostgreSQL.Parameters["wal_retrieve_retry_interval"]); err != nil || d > time.Second {
		t.Errorf("wal_retrieve_retry_interval %q: a standby whose leader stopped waits that long to promote or to stream from the new one",
			dcs.PostgreSQL.Parameters["wal_retrieve_retry_interval"])
	}
	checksums := false
	for _, o := range c.Bootstrap.InitDB {
		if o == "data-checksums" {
			checksums = true
		}
	}
	if !dcs.PostgreSQL.UsePgRewind || (dcs.PostgreSQL.Parameters["wal_log_hints"] != "on" && !checksums) {
		t.Error("a former leader cannot be rewound: use_pg_rewind with wal_log_hints or data checksums")
	}
	for role, a := range c.PostgreSQL.Authentication {
		if a.Username == "" || a.Password != "" {
			t.Errorf("postgresql.authentication.%s: a user name and no password (the passwords are in patroni.env.example)", role)
		}
	}
	env := readEnv(t, "patroni.env.example").set
	for role := range c.PostgreSQL.Authentication {
		if env["PATRONI_"+strings.ToUpper(role)+"_PASSWORD"] == "" {
			t.Errorf("patroni.env.example sets no PATRONI_%s_PASSWORD", strings.ToUpper(role))
		}
	}
	if !strings.HasSuffix(c.PostgreSQL.BinDir, "/15/bin") {
		t.Errorf("postgresql.bin_dir %q is not PostgreSQL 15's", c.PostgreSQL.BinDir)
	}
	// Each node listens where it says it does.
	if c.RestAPI.Listen != c.RestAPI.ConnectAddress || c.PostgreSQL.Listen != c.PostgreSQL.ConnectAddress {
		t.Errorf("restapi %s/%s, postgresql %s/%s: listen and connect_address differ", c.RestAPI.Listen, c.RestAPI.ConnectAddress, c.PostgreSQL.Listen, c.PostgreSQL.ConnectAddress)
	}

	p, err := exec.LookPath("patroni")
	if err != nil {
		t.Skip("patroni is not installed: patroni --validate-config not run (apt-get install patroni)")
	}
	// The validator checks that the data directory's parent exists and
	// that the listening addresses are free on this machine: point them at
	// a temporary directory and at a free loopback port each.
	b, _ := os.ReadFile("patroni.yml")
	s := strings.ReplaceAll(string(b), "/var/lib/postgresql/15/larder", filepath.Join(t.TempDir(), "data"))
	s = strings.ReplaceAll(s, "/var/run/postgresql", t.TempDir())
	s = strings.ReplaceAll(s, "/var/lib/postgresql/.pgpass.patroni", filepath.Join(t.TempDir(), "pgpass"))
	s = strings.Replace(s, "listen: "+c.RestAPI.Listen, "listen: 127.0.0.1:"+strconv.Itoa(freePort(t)), 1)
	s = strings.Replace(s, "listen: "+c.PostgreSQL.Listen, "listen: 127.0.0.1:"+strconv.Itoa(freePort(t)), 1)
	file := filepath.Join(t.TempDir(), "patroni.yml")
	if err := os.WriteFile(file, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(p, "--validate-config", file).CombinedOutput()
	if err != nil {
		t.Fatalf("patroni --validate-config: %v\n%s", err, out)
	}
}

// haproxyListen is one listen section of haproxy-patroni.cfg.
type haproxyListen struct {
	bind    string
	lines   []string
	servers []string // "name address check-port"
}

func readPatroniHAProxy(t *testing.T) map[string]*haproxyListen {
	t.Helper()
	b, err := os.ReadFile("haproxy-patroni.cfg")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*haproxyListen{}
	var cur *haproxyListen
	server := regexp.MustCompile(`^server (\S+) (\S+) .*\bcheck port (\d+)\b`)
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.Join(strings.Fields(l), " "); l == "" || l[0] == '#' {
			continue
		}
		if name, ok := strings.CutPrefix(l, "listen "); ok {
			cur = &haproxyListen{}
			out[name] = cur
			continue
		}
		if strings.HasPrefix(l, "defaults") || strings.HasPrefix(l, "global") || strings.HasPrefix(l, "frontend") || strings.HasPrefix(l, "backend") {
			cur = nil
			continue
		}
		if cur == nil {
			continue
		}
		cur.lines = append(cur.lines, l)
		if a, ok := strings.CutPrefix(l, "bind "); ok {
			cur.bind = a
		}
		if m := server.FindStringSubmatch(l); m != nil {
			cur.servers = append(cur.servers, m[1]+" "+m[2]+" "+m[3])
		}
	}
	return out
}

// HAProxy's PostgreSQL frontends send to the node whose Patroni says it is
// the leader (/primary) or a replica (/replica), at the ports patroni.yml
// gives PostgreSQL and the REST API, and cut a node's connections when it
// drops out; PgBouncer's entries and the webhook worker reach the leader
// frontend, PgBouncer retrying it within seconds; and HAProxy accepts the
// file beside haproxy.cfg.
func TestPatroniHAProxyConfig(t *testing.T) {
	c := readPatroni(t)
	ls := readPatroniHAProxy(t)
	leader, replicas := ls["postgres_leader"], ls["postgres_replicas"]
	if leader == nil || replicas == nil {
		t.Fatalf("haproxy-patroni.cfg: no listen postgres_leader and postgres_replicas (%d sections)", len(ls))
	}
	_, pgPort, _ := net.SplitHostPort(c.PostgreSQL.ConnectAddress)
	_, apiPort, _ := net.SplitHostPort(c.RestAPI.ConnectAddress)
	for name, l := range map[string]*haproxyListen{"postgres_leader": leader, "postgres_replicas": replicas} {
		check := map[string]string{"postgres_leader": "/primary", "postgres_replicas": "/replica"}[name]
		for _, want := range []string{"option httpchk GET " + check, "http-check expect status 200"} {
			if !contains(l.lines, want) {
				t.Errorf("%s: no %q", name, want)
			}
		}
		ds := ""
		for _, x := range l.lines {
			if strings.HasPrefix(x, "default-server ") {
				ds = x
			}
		}
		if !strings.Contains(ds, "on-marked-down shutdown-sessions") {
			t.Errorf("%s: a node marked down keeps its connections (%q)", name, ds)
		}
		if name == "postgres_leader" {
			// A switchover stops the former leader's PostgreSQL while its
			// Patroni, busy demoting it, answers its checks late: the first
			// refused connection takes it out, and goes to another node.
			if !strings.Contains(ds, "observe layer4 error-limit 1 on-error mark-down") || !contains(l.lines, "option redispatch 1") {
				t.Errorf("%s: a refused connection does not take the node out at once and go elsewhere (%q)", name, ds)
			}
		}
		if len(l.servers) != 3 {
			t.Fatalf("%s: %d servers, want the three nodes", name, len(l.servers))
		}
		found := false
		for _, s := range l.servers {
			f := strings.Fields(s)
			_, port, _ := net.SplitHostPort(f[1])
			if port != pgPort || f[2] != apiPort {
				t.Errorf("%s: server %s at port %s checked on %s; patroni.yml has PostgreSQL on %s and the REST API on %s", name, f[0], port, f[2], pgPort, apiPort)
			}
			if f[0] == c.Name && f[1] == c.PostgreSQL.ConnectAddress {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: no server %s at %s (patroni.yml's node)", name, c.Name, c.PostgreSQL.ConnectAddress)
		}
		if h, _, _ := net.SplitHostPort(l.bind); h != "127.0.0.1" {
			t.Errorf("%s binds %q, want loopback", name, l.bind)
		}
	}
	if leader.bind == replicas.bind {
		t.Errorf("the leader and the replicas share %s", leader.bind)
	}

	// PgBouncer's entries and the worker's LISTEN reach the leader.
	cfg := readINI(t, "pgbouncer.ini")
	for _, db := range []string{"larder", "larder_session"} {
		p := params(t, cfg["databases"][db])
		if net.JoinHostPort(p["host"], p["port"]) != leader.bind {
			t.Errorf("pgbouncer.ini %s: %s:%s is not the leader frontend %s", db, p["host"], p["port"], leader.bind)
		}
	}
	// PgBouncer tries the leader again soon after a failed login, not
	// after its default 15 s, longer than a failover.
	if retry := cfg["pgbouncer"]["server_login_retry"]; retry == "" || seconds(t, "server_login_retry", retry) > 1 {
		t.Errorf("pgbouncer.ini server_login_retry %q: PgBouncer would refuse clients long after the new leader is in", retry)
	}
	worker := readEnv(t, "webhook-worker.env.example").set
	if u, err := urlHost(worker["LARDER_DATABASE_URL"]); err != nil || u != leader.bind {
		t.Errorf("webhook-worker.env.example: %q does not reach the leader frontend %s", worker["LARDER_DATABASE_URL"], leader.bind)
	}

	hp, err := exec.LookPath("haproxy")
	if err != nil {
		t.Skip("haproxy is not installed: haproxy -c not run (apt-get install haproxy)")
	}
	cmd := exec.Command(hp, "-c", "-f", "haproxy.cfg", "-f", "haproxy-patroni.cfg")
	cmd.Env = append(os.Environ(), "LB_SOCKET="+filepath.Join(t.TempDir(), "admin.sock"))
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "Configuration file is valid") || strings.Contains(string(out), "WARNING") {
		t.Fatalf("haproxy -c: %v\n%s", err, out)
	}
}

// seconds parses a PgBouncer time setting: seconds, fractions allowed.
func seconds(t *testing.T, name, v string) float64 {
	t.Helper()
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		t.Fatalf("%s %q: %v", name, v, err)
	}
	return f
}

// etcd's members are the hosts Patroni asks, three of them, each
// advertising the client address Patroni lists.
func TestEtcdConfig(t *testing.T) {
	c := readPatroni(t)
	env := readEnv(t, "etcd.env.example").set
	hosts := strings.Split(c.Etcd.Hosts, ",")
	if len(hosts) != 3 {
		t.Fatalf("patroni.yml etcd.hosts %q: want three members", c.Etcd.Hosts)
	}
	members := strings.Split(env["ETCD_INITIAL_CLUSTER"], ",")
	if len(members) != len(hosts) {
		t.Fatalf("ETCD_INITIAL_CLUSTER has %d members, Patroni lists %d", len(members), len(hosts))
	}
	// Patroni 3.0.2's etcd client speaks the v2 API, off by default in
	// etcd 3.4.
	if env["ETCD_ENABLE_V2"] != "true" {
		t.Errorf("ETCD_ENABLE_V2 %q: Patroni's etcd client needs the v2 API", env["ETCD_ENABLE_V2"])
	}
	adv, err := urlHost(env["ETCD_ADVERTISE_CLIENT_URLS"])
	if err != nil || !contains(hosts, adv) {
		t.Errorf("ETCD_ADVERTISE_CLIENT_URLS %q is not among Patroni's etcd hosts %q", env["ETCD_ADVERTISE_CLIENT_URLS"], hosts)
	}
	if !strings.Contains(env["ETCD_LISTEN_CLIENT_URLS"], "//"+adv) {
		t.Errorf("ETCD_LISTEN_CLIENT_URLS %q does not listen at %s", env["ETCD_LISTEN_CLIENT_URLS"], adv)
	}
	peer := env["ETCD_NAME"] + "=" + env["ETCD_INITIAL_ADVERTISE_PEER_URLS"]
	if !contains(members, peer) || env["ETCD_NAME"] != c.Name {
		t.Errorf("member %q (ETCD_NAME, ETCD_INITIAL_ADVERTISE_PEER_URLS) is not in ETCD_INITIAL_CLUSTER or not named as the node %q", peer, c.Name)
	}
	// Each member's host is a PostgreSQL node's.
	pgHost, _, _ := net.SplitHostPort(c.PostgreSQL.ConnectAddress)
	if h, _, _ := net.SplitHostPort(adv); h != pgHost {
		t.Errorf("etcd member at %s, its PostgreSQL node at %s", h, pgHost)
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// urlHost is host:port of a URL.
func urlHost(s string) (string, error) {
	u, err := url.Parse(s)
	if err != nil {
		return "", err
	}
	return u.Host, nil
}
