package deploy

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lib/pq"

	"larder.dev/larder/handlers"
	"larder.dev/larder/hooks"
	"larder.dev/larder/internal/platform/config"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/restapi"
	"larder.dev/larder/internal/seed"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/migrate"
	"larder.dev/larder/policy"
)

// openMigrated opens a store on dbURL and applies the migrations and the
// shared rows, as `larder serve` does when it starts; statements is
// --db-statements.
func openMigrated(t *testing.T, dbURL string, statements int) (*store.Store, []string) {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, dbURL, store.Options{Statements: statements, Snapshots: restapi.Snapshots{}, Fast: config.Defaults().FastPath})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	applied, err := migrate.Apply(ctx, st.DB, st.Dialect, func(ctx context.Context) error { return seed.Shared(ctx, st.Client) })
	if err != nil {
		t.Fatal(err)
	}
	return st, applied
}

// freePort is a loopback port nothing listens on.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startPgBouncer runs PgBouncer with the kit's configuration in front of the
// PostgreSQL database of dbURL, on a free loopback port, its files in a
// temporary directory; it returns the URLs of the transaction-mode and the
// session-mode entries.
func startPgBouncer(t *testing.T, dbURL string) (txURL, sessionURL string) {
	t.Helper()
	bin, err := exec.LookPath("pgbouncer")
	if err != nil {
		t.Skip("pgbouncer is not installed (apt-get install pgbouncer): the kit's pools are not run")
	}
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	// PgBouncer refuses to run as root; as another user it reads its files.
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	db := strings.TrimPrefix(u.Path, "/")
	b, err := os.ReadFile("pgbouncer.ini")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		k, _, _ := strings.Cut(line, " = ")
		switch k {
		case "listen_port":
			line = fmt.Sprintf("listen_port = %d", port)
		case "auth_file":
			line = "auth_file = " + filepath.Join(dir, "userlist.txt")
		case "logfile", "pidfile", "unix_socket_dir":
			line = k + " ="
		case "larder", "larder_session":
			line = strings.NewReplacer("host=127.0.0.1", "host="+u.Hostname(), "port=5432", "port="+u.Port(), "dbname=larder ", "dbname="+db+" ").Replace(line)
		}
		out = append(out, line)
	}
	ini := filepath.Join(dir, "pgbouncer.ini")
	user := u.User.Username()
	pass, _ := u.User.Password()
	if pass == "" {
		pass = "deploy-test"
	}
	for name, body := range map[string]string{ini: strings.Join(out, "\n"), filepath.Join(dir, "userlist.txt"): fmt.Sprintf("%q %q\n", user, pass)} {
		if err := os.WriteFile(name, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	args := []string{ini}
	if os.Geteuid() == 0 {
		args = []string{"-u", "nobody", ini}
	}
	startListening(t, fmt.Sprintf("127.0.0.1:%d", port), bin, args...)
	base := fmt.Sprintf("postgres://%s:%s@127.0.0.1:%d/", url.PathEscape(user), url.PathEscape(pass), port)
	return base + "larder?sslmode=disable", base + "larder_session?sslmode=disable"
}

// startListening runs a daemon in the foreground until the test ends, and
// returns once it accepts connections on addr; its output is logged when the
// test fails.
func startListening(t *testing.T, addr, bin string, args ...string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var logs strings.Builder
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	name := filepath.Base(bin)
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("%s:\n%s", name, logs.String())
		}
	})
	for deadline := time.Now().Add(10 * time.Second); ; {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s does not listen on %s: %v\n%s", name, addr, err, logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// advisoryLocks counts the advisory locks held in the database of dbURL.
func advisoryLocks(t *testing.T, dbURL string) int {
	t.Helper()
	db, err := sql.Open("postgres", dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// Behind the kit's PgBouncer: servers starting together through the
// transaction-mode entry apply the migrations once and leave no migration
// lock behind (a session-level lock would stay with a server connection and
// stop the next start); the servers work with --db-statements 0; and the
// worker's LISTEN through the session-mode entry hears a commit's
// notification.
func TestPgBouncerLive(t *testing.T) {
	if dbtest.AdminURL() == "" {
		t.Skipf("no PostgreSQL (%s unset): the kit's pools are not run", dbtest.EnvPostgres)
	}
	direct := dbtest.Scratch(t, "pgbouncer")
	txURL, sessionURL := startPgBouncer(t, direct)

	for round := range 2 {
		var wg sync.WaitGroup
		errs := make(chan error, 3)
		for range 3 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ctx, cancel := context.WithTimeout(context.Background(), 50*time.Second)
				defer cancel()
				st, err := store.Open(ctx, txURL, store.Options{MaxConns: 20, Snapshots: restapi.Snapshots{}, Fast: config.Defaults().FastPath})
				if err != nil {
					errs <- err
					return
				}
				defer st.Close()
				if _, err := migrate.Apply(ctx, st.DB, st.Dialect, func(ctx context.Context) error { return seed.Shared(ctx, st.Client) }); err != nil {
					errs <- fmt.Errorf("round %d: %w", round, err)
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		if n := advisoryLocks(t, direct); n != 0 {
			t.Fatalf("round %d: %d advisory locks still held after the servers started", round, n)
		}
	}

	st, applied := openMigrated(t, txURL, 0)
	if len(applied) != 0 {
		t.Fatalf("applied %v again", applied)
	}
	org := dbtest.NewSeededOrg(t, st)
	n, err := st.Client.Product.Query().Count(org.Ctx(policy.Test))
	if err != nil || n == 0 {
		t.Fatalf("products through the transaction pool: %d %v", n, err)
	}

	// Three servers with --db-statements 0 through the transaction entry
	// answer every authenticated request: nothing they run is prepared (a
	// statement prepared on one server connection is missing on the next,
	// or another client's has its name).
	cfg := config.Defaults()
	cfg.Statements, cfg.RateLimit = 0, 100000
	key := org.Key(t, policy.Live, "read-all")
	var bases []string
	for range 3 {
		s, _ := openMigrated(t, txURL, 0)
		bases = append(bases, serveStore(t, s, cfg))
	}
	var wg sync.WaitGroup
	failed := make(chan string, 8*30)
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 30 {
				req, _ := http.NewRequest("GET", bases[(w+i)%3]+"/v1/organization", nil)
				req.Header.Set("Authorization", "Bearer "+key)
				res, err := http.DefaultClient.Do(req)
				if err != nil {
					failed <- err.Error()
					continue
				}
				body, _ := io.ReadAll(res.Body)
				res.Body.Close()
				if res.StatusCode != 200 {
					failed <- fmt.Sprintf("%d %s", res.StatusCode, body)
				}
			}
		}()
	}
	wg.Wait()
	close(failed)
	var fails []string
	for f := range failed {
		fails = append(fails, f)
	}
	if len(fails) > 0 {
		t.Fatalf("%d of 240 requests through the transaction pool failed, e.g. %s", len(fails), fails[0])
	}

	l := pq.NewListener(sessionURL, 100*time.Millisecond, time.Second, nil)
	defer l.Close()
	if err := l.Listen(hooks.EventsChannel); err != nil {
		t.Fatal(err)
	}
	if _, err := st.DB.Exec("NOTIFY " + hooks.EventsChannel); err != nil {
		t.Fatal(err)
	}
	select {
	case ev := <-l.Notify:
		if ev == nil || ev.Channel != hooks.EventsChannel {
			t.Fatalf("notification %+v", ev)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the session-mode LISTEN heard no notification in 5s")
	}
}

// get fetches path from the server at base with key (none when empty).
func get(t *testing.T, base, path, key string) int {
	t.Helper()
	req, _ := http.NewRequest("GET", base+path, nil)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	_, _ = io.Copy(io.Discard, res.Body)
	return res.StatusCode
}

// serveStore serves the API over st with cfg, as `larder serve` does.
func serveStore(t *testing.T, st *store.Store, cfg config.Config) string {
	t.Helper()
	srv, err := handlers.New(st, handlers.Options{Config: cfg, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	return hs.URL
}
