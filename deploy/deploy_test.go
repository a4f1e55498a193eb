package deploy

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"net/netip"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"larder.dev/larder/internal/platform/config"
	"larder.dev/larder/internal/platform/fastpath"
	"larder.dev/larder/internal/platform/secrets"
	"larder.dev/larder/internal/testkit/dbtest"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

// The units' binary and settings files, as docs/operators.md installs them.
const (
	binary     = "/usr/local/bin/larder"
	larderEnv  = "/etc/larder/larder.env"
	workerEnv  = "/etc/larder/webhook-worker.env"
	minStopSec = 40 * time.Second
)

// serveStop is what `larder serve` may take after SIGTERM: 20s for requests
// in flight, 10s for the console's own address, 5s to write the queued
// request log and 5s to flush traces (cmd/larder/serve.go).
const serveStop = 20*time.Second + 10*time.Second + 5*time.Second + 5*time.Second

// loadEnv sets the variables of the settings files, later files winning,
// with a real secret key in place of the example's placeholder, and returns
// their names by file.
func loadEnv(t *testing.T, files ...string) map[string][]string {
	t.Helper()
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	names := map[string][]string{}
	for _, f := range files {
		e := readEnv(t, f)
		for _, k := range e.order {
			v := e.set[k]
			if k == secrets.EnvKey && v == "CHANGE-ME" {
				v = base64.StdEncoding.EncodeToString(key)
			}
			t.Setenv(k, v)
		}
		names[f] = append(append(names[f], e.order...), e.commented...)
	}
	return names
}

// Every unit runs the binary's real command with flags and variables it
// reads, and the settings the kit documents come out of them: the servers
// without their dispatcher and without prepared statements behind PgBouncer,
// trusting the local proxy; the worker on the session-mode entry.
func TestUnitsUseRealFlagsAndVariables(t *testing.T) {
	// The settings of this process must not leak into the units'.
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "LARDER_") && k != dbtest.EnvPostgres && k != dbtest.EnvBackends {
			t.Setenv(k, "")
			os.Unsetenv(k)
		}
	}
	serveVars := newCommand(t, "serve", serveGroups).vars
	workerVars := newCommand(t, "webhook worker", workerGroups).vars

	cases := []struct {
		file, instance, cmd string
		envFiles            []string
		groups              []config.Options
		check               func(t *testing.T, c *config.Config)
	}{
		{"larder.service", "", "serve", []string{larderEnv}, serveGroups, func(t *testing.T, c *config.Config) {
			if c.Addr != "127.0.0.1:8080" {
				t.Errorf("addr %q", c.Addr)
			}
		}},
		{"larder@.service", "8081", "serve", []string{larderEnv}, serveGroups, func(t *testing.T, c *config.Config) {
			if c.Addr != "127.0.0.1:8081" || c.MetricsListen() != "127.0.0.1:18081" {
				t.Errorf("instance 8081: addr %q, metrics %q", c.Addr, c.MetricsListen())
			}
		}},
		{"larder-webhook-worker.service", "", "webhook worker", []string{larderEnv, workerEnv}, workerGroups, func(t *testing.T, c *config.Config) {
			u, err := url.Parse(c.Database)
			if err != nil || u.Path != "/larder" || u.Port() != "5432" {
				t.Errorf("the worker's database %q is not PostgreSQL itself", c.Database)
			}
			if c.MaxConns < 1 || c.MaxConns > 10 {
				t.Errorf("worker db-max-conns %d", c.MaxConns)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			u := readUnit(t, tc.file)
			bin, cmd, args := execStart(t, u, tc.instance)
			if bin != binary || cmd != tc.cmd {
				t.Fatalf("ExecStart runs %s %q, want %s %q", bin, cmd, binary, tc.cmd)
			}
			if !slices.Equal(u["EnvironmentFile"], tc.envFiles) {
				t.Fatalf("EnvironmentFile %q, want %q", u["EnvironmentFile"], tc.envFiles)
			}
			var examples []string
			for _, f := range tc.envFiles {
				examples = append(examples, strings.TrimSuffix(filepath.Base(f), ".env")+".env.example")
			}
			names := loadEnv(t, examples...)
			for f, vars := range names {
				for _, v := range vars {
					// larder.env is shared: each of its variables is read by
					// the servers or the worker; the worker's own file, by it.
					if !serveVars[v] && !workerVars[v] || f == "webhook-worker.env.example" && !workerVars[v] {
						t.Errorf("%s: %s is read by no command that uses it", f, v)
					}
				}
			}
			c := newCommand(t, tc.cmd, tc.groups)
			if err := c.fs.Parse(args); err != nil {
				t.Fatalf("ExecStart flags %q: %v", args, err)
			}
			if c.fs.NArg() != 0 {
				t.Fatalf("ExecStart leaves arguments %q", c.fs.Args())
			}
			if err := c.cfg.Validate(); err != nil {
				t.Fatal(err)
			}
			// Behind PgBouncer 1.18 in transaction mode: no prepared statements.
			if c.cfg.Statements != 0 {
				t.Errorf("db-statements %d, want 0", c.cfg.Statements)
			}
			if c.cfg.FastPath != fastpath.All {
				t.Errorf("fast path %v, want every mechanism", c.cfg.FastPath)
			}
			if tc.cmd == "serve" {
				if c.cfg.Webhooks {
					t.Error("the server runs its own dispatcher; the worker dispatches")
				}
				if !strings.Contains(c.cfg.Database, ":6432/larder?") {
					t.Errorf("the servers' database %q is not PgBouncer's transaction-mode entry", c.cfg.Database)
				}
				ps, _ := c.cfg.Proxies()
				if !slices.ContainsFunc(ps, func(p netip.Prefix) bool { return p.Contains(netip.MustParseAddr("127.0.0.1")) }) {
					t.Errorf("trusted proxies %q leave out HAProxy on 127.0.0.1: every client would be the proxy", c.cfg.TrustedProxies)
				}
			}
			tc.check(t, c.cfg)

			stop, err := time.ParseDuration(u.one(t, "TimeoutStopSec"))
			if err != nil || stop < serveStop {
				t.Errorf("TimeoutStopSec %v: serve may take %v to stop", stop, serveStop)
			}
			for k, want := range map[string]string{"DynamicUser": "yes", "NoNewPrivileges": "yes", "ProtectSystem": "strict", "PrivateTmp": "yes", "ProtectHome": "yes", "KillSignal": "SIGTERM"} {
				if got := u[k]; len(got) != 1 || got[0] != want {
					t.Errorf("%s=%q, want %s", k, got, want)
				}
			}
		})
	}
}

// systemd accepts the units: systemd-analyze verify prints nothing about
// them (it warns of an unknown or misspelt key, and still exits 0).
func TestUnitsVerify(t *testing.T) {
	sa, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("systemd-analyze is not installed: the units are not verified")
	}
	dir := t.TempDir()
	var paths []string
	for _, f := range []string{"larder.service", "larder@.service", "larder-webhook-worker.service"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		// verify wants the binary to exist.
		b = bytes.ReplaceAll(b, []byte(binary), []byte("/bin/true"))
		name := strings.Replace(f, "@.", "@8081.", 1)
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
		if name != f { // the template, for the instance
			if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		paths = append(paths, filepath.Join(dir, name))
	}
	out, err := exec.Command(sa, append([]string{"verify", "--man=no"}, paths...)...).CombinedOutput()
	if err != nil || bytes.Contains(out, []byte(dir)) {
		t.Fatalf("systemd-analyze verify: %v\n%s", err, out)
	}
}

// The Containerfile's build is the static binary the units run.
func TestContainerfile(t *testing.T) {
	b, err := os.ReadFile("Containerfile")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	if !strings.Contains(s, "RUN "+staticBuild+" -o /out/larder ./cmd/larder") {
		t.Errorf("the Containerfile does not build with %q", staticBuild)
	}
	for _, want := range []string{"FROM gcr.io/distroless/static", "USER nonroot", "EXPOSE 8080", `CMD ["serve"]`} {
		if !strings.Contains(s, want) {
			t.Errorf("Containerfile: no %q", want)
		}
	}
	if regexp.MustCompile(`(?m)^HEALTHCHECK`).MatchString(s) {
		t.Error("HEALTHCHECK: the image has nothing to run it with")
	}
	vars := newCommand(t, "serve", serveGroups).vars
	for _, line := range strings.Split(s, "\n") {
		for _, f := range strings.Fields(strings.TrimPrefix(strings.TrimSpace(line), "ENV ")) {
			if k, _, ok := strings.Cut(f, "="); ok && strings.HasPrefix(k, "LARDER_") && !vars[k] {
				t.Errorf("Containerfile sets %s, which serve does not read", k)
			}
		}
	}
}
