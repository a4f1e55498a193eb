package deploy

import (
	"bufio"
	"flag"
	"os"
	"regexp"
	"strings"
	"testing"

	"larder.dev/larder/internal/platform/config"
	"larder.dev/larder/internal/platform/secrets"
)

// The flag groups of the commands the units run, as cmd/larder binds them:
// `larder serve` and `larder webhook worker`.
var (
	serveGroups  = []config.Options{config.Common, config.Server, config.Webhooks, config.ConsoleServer}
	workerGroups = []config.Options{config.Common, config.Webhooks, {"db-max-conns"}}
)

// command is the flag set of one command over a configuration, and the
// environment variables it reads.
type command struct {
	cfg  *config.Config
	fs   *flag.FlagSet
	vars map[string]bool
}

var envOfHelp = regexp.MustCompile(`\(\$(LARDER_[A-Z0-9_]+)\)`)

// newCommand binds groups as the command does, reading the environment as it
// is now.
func newCommand(t *testing.T, name string, groups []config.Options) *command {
	t.Helper()
	cfg := config.Defaults()
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.Bool("json", false, "")
	if name == "serve" {
		fs.Bool("demo", false, "")
	}
	if err := cfg.Bind(fs, groups...); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	c := &command{cfg: &cfg, fs: fs, vars: map[string]bool{}}
	fs.VisitAll(func(f *flag.Flag) {
		if m := envOfHelp.FindStringSubmatch(f.Usage); m != nil {
			c.vars[m[1]] = true
		}
	})
	for _, g := range groups {
		for _, o := range g {
			switch o {
			case "secret-key":
				c.vars[secrets.EnvKey] = true
			case "secret-key-old":
				c.vars[secrets.EnvOldKey] = true
			}
		}
	}
	if len(c.vars) < 10 {
		t.Fatalf("%s: only %d variables read from the flags' help: %v", name, len(c.vars), c.vars)
	}
	return c
}

// unit is a systemd unit file: each key's values in order.
type unit map[string][]string

func readUnit(t *testing.T, path string) unit {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	u := unit{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' || line[0] == ';' || line[0] == '[' {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			t.Fatalf("%s: %q is not KEY=VALUE", path, line)
		}
		u[k] = append(u[k], v)
	}
	return u
}

// one is the single value of key.
func (u unit) one(t *testing.T, key string) string {
	t.Helper()
	if len(u[key]) != 1 {
		t.Fatalf("%s: %d values, want one: %q", key, len(u[key]), u[key])
	}
	return u[key][0]
}

// envFile is a KEY=VALUE file; lines commented out as "#LARDER_X=..." are
// kept apart, as settings an operator may turn on.
type envFile struct {
	set       map[string]string
	order     []string
	commented []string
}

var commentedVar = regexp.MustCompile(`^#\s*(LARDER_[A-Z0-9_]+)=`)

func readEnv(t *testing.T, path string) envFile {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	e := envFile{set: map[string]string{}}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if m := commentedVar.FindStringSubmatch(line); m != nil {
			e.commented = append(e.commented, m[1])
			continue
		}
		if line == "" || line[0] == '#' {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok || strings.ContainsAny(v, "\"'") {
			t.Fatalf("%s: %q is not KEY=VALUE without quotes", path, line)
		}
		if _, dup := e.set[k]; dup {
			t.Fatalf("%s: %s set twice", path, k)
		}
		e.set[k] = v
		e.order = append(e.order, k)
	}
	return e
}

// execStart splits a unit's ExecStart into the binary, the command's words
// and its flags, with the instance name %i replaced by instance.
func execStart(t *testing.T, u unit, instance string) (bin, cmd string, args []string) {
	t.Helper()
	fields := strings.Fields(strings.ReplaceAll(u.one(t, "ExecStart"), "%i", instance))
	bin = fields[0]
	var words []string
	i := 1
	for ; i < len(fields) && !strings.HasPrefix(fields[i], "-"); i++ {
		words = append(words, fields[i])
	}
	return bin, strings.Join(words, " "), fields[i:]
}
