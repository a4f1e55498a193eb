package deploy

import (
	"bufio"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"larder.dev/larder/internal/platform/config"
)

// ini is PgBouncer's configuration: each section's keys.
type ini map[string]map[string]string

func readINI(t *testing.T, path string) ini {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := ini{}
	var section string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || line[0] == ';' || line[0] == '#':
		case line[0] == '[' && line[len(line)-1] == ']':
			section = line[1 : len(line)-1]
			out[section] = map[string]string{}
		default:
			k, v, ok := strings.Cut(line, "=")
			if !ok || section == "" {
				t.Fatalf("%s: %q", path, line)
			}
			out[section][strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	return out
}

// params splits a database entry, "host=… port=… dbname=…".
func params(t *testing.T, entry string) map[string]string {
	t.Helper()
	m := map[string]string{}
	for _, f := range strings.Fields(entry) {
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			t.Fatalf("database entry %q: %q", entry, f)
		}
		m[k] = v
	}
	return m
}

func atoi(t *testing.T, what, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatalf("%s: %q is not a number", what, s)
	}
	return n
}

// PgBouncer's configuration gives the servers a transaction-mode entry and
// the worker a session-mode entry to the same database, on loopback, where
// the settings files point, with pools the servers and the worker fit in.
// (PgBouncer has no mode that only checks a configuration; the live test
// below runs it.)
func TestPgBouncerConfig(t *testing.T) {
	cfg := readINI(t, "pgbouncer.ini")
	pb := cfg["pgbouncer"]
	if pb["listen_addr"] != "127.0.0.1" {
		t.Errorf("listen_addr %q, want loopback", pb["listen_addr"])
	}
	if pb["pool_mode"] != "transaction" || !strings.Contains(pb["ignore_startup_parameters"], "extra_float_digits") {
		t.Errorf("pool_mode %q, ignore_startup_parameters %q", pb["pool_mode"], pb["ignore_startup_parameters"])
	}
	if pb["idle_transaction_timeout"] != "0" {
		t.Errorf("idle_transaction_timeout %q would end the migration lock's transaction", pb["idle_transaction_timeout"])
	}
	tx, sess := params(t, cfg["databases"]["larder"]), params(t, cfg["databases"]["larder_session"])
	if tx["pool_mode"] != "transaction" || sess["pool_mode"] != "session" {
		t.Fatalf("pool modes: larder %q, larder_session %q", tx["pool_mode"], sess["pool_mode"])
	}
	for _, k := range []string{"host", "port", "dbname"} {
		if tx[k] != sess[k] || tx[k] == "" {
			t.Errorf("the two entries differ in %s: %q, %q", k, tx[k], sess[k])
		}
	}

	serve := readEnv(t, "larder.env.example").set
	worker := readEnv(t, "webhook-worker.env.example").set
	// The worker's LISTEN goes straight to PostgreSQL: the database the
	// entries name, on their host and port.
	if u, err := url.Parse(worker["LARDER_DATABASE_URL"]); err != nil || u.Port() != tx["port"] || u.Path != "/"+tx["dbname"] {
		t.Errorf("webhook-worker.env.example: %q is not PostgreSQL itself (port %s, database %s)", worker["LARDER_DATABASE_URL"], tx["port"], tx["dbname"])
	}
	for name, e := range map[string]struct{ url, db string }{
		"larder.env.example": {serve["LARDER_DATABASE_URL"], "larder"},
	} {
		u, err := url.Parse(e.url)
		if err != nil || u.Hostname() != pb["listen_addr"] || u.Port() != pb["listen_port"] || u.Path != "/"+e.db {
			t.Errorf("%s: LARDER_DATABASE_URL %q is not PgBouncer's %s entry at %s:%s", name, e.url, e.db, pb["listen_addr"], pb["listen_port"])
		}
	}

	// Three servers (haproxy.cfg's), each with its pool and its request
	// log's writer's connection; `larder migrate` and the CLI beside them.
	servers := 3
	serverConns := atoi(t, "LARDER_DB_MAX_CONNS", serve["LARDER_DB_MAX_CONNS"])
	if clients := servers * (serverConns + 1); atoi(t, "max_client_conn", pb["max_client_conn"]) < clients+20 {
		t.Errorf("max_client_conn %s: the servers alone open %d", pb["max_client_conn"], clients)
	}
	// In session mode a client holds its server connection: a migrate's lock
	// and statements, and the CLI.
	if got := atoi(t, "larder_session pool_size", sess["pool_size"]); got < 4 {
		t.Errorf("larder_session pool_size %d < a migrate's and the CLI's", got)
	}
	// A query the pooler holds (PostgreSQL down, the pool paused) is
	// refused before the servers' request timeout, so its answer is 503.
	if wait := atoi(t, "query_wait_timeout", pb["query_wait_timeout"]); time.Duration(wait)*time.Second >= config.Defaults().RequestTimeout {
		t.Errorf("query_wait_timeout %d s is not below the request timeout %s", wait, config.Defaults().RequestTimeout)
	}
	txPool := atoi(t, "larder pool_size", tx["pool_size"])
	if txPool < serverConns {
		t.Errorf("larder pool_size %d: one server's %d connections would queue", txPool, serverConns)
	}
	total := txPool + atoi(t, "reserve_pool", tx["reserve_pool"]) + atoi(t, "larder_session pool_size", sess["pool_size"])
	if limit := atoi(t, "max_db_connections", pb["max_db_connections"]); total > limit || limit > 100-3 {
		t.Errorf("%d PostgreSQL connections, max_db_connections %d: PostgreSQL's default max_connections is 100 (3 for superusers)", total, limit)
	}
}
