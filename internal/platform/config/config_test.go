package config

import (
	"flag"
	"io"
	"net"
	"net/netip"
	"strings"
	"testing"
	"time"
)

// --trusted-proxies takes comma-separated IPs and CIDRs; anything else is
// refused by Validate with a message naming the entry.
func TestTrustedProxies(t *testing.T) {
	cases := []struct {
		name, in string
		want     []string
		err      string
	}{
		{"empty", "", nil, ""},
		{"one address", "192.0.2.1", []string{"192.0.2.1/32"}, ""},
		{"list with spaces and networks", " 10.0.0.0/8 , 192.0.2.1,2001:db8::/32,", []string{"10.0.0.0/8", "192.0.2.1/32", "2001:db8::/32"}, ""},
		{"network written with host bits", "10.1.2.3/8", []string{"10.0.0.0/8"}, ""},
		{"IPv6 address", "2001:db8::1", []string{"2001:db8::1/128"}, ""},
		{"IPv4-mapped forms count as IPv4", "::ffff:192.0.2.1,::ffff:10.0.0.0/104", []string{"192.0.2.1/32", "10.0.0.0/8"}, ""},
		{"host name", "proxy.internal", nil, `"proxy.internal" is not an IP address or CIDR`},
		{"bad prefix length", "10.0.0.0/33", nil, `"10.0.0.0/33"`},
		{"address with a port", "192.0.2.1:80", nil, `"192.0.2.1:80"`},
		{"address with a zone", "fe80::1%eth0", nil, `"fe80::1%eth0"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := Defaults()
			c.TrustedProxies = tc.in
			got, err := c.Proxies()
			verr := c.Validate()
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || verr == nil || !strings.Contains(verr.Error(), "trusted-proxies") {
					t.Fatalf("Proxies: %v; Validate: %v; want errors mentioning %s", err, verr, tc.err)
				}
				return
			}
			if err != nil || verr != nil {
				t.Fatalf("Proxies: %v; Validate: %v", err, verr)
			}
			var s []string
			for _, p := range got {
				s = append(s, p.String())
			}
			if strings.Join(s, " ") != strings.Join(tc.want, " ") {
				t.Fatalf("Proxies = %v, want %v", s, tc.want)
			}
			for _, p := range got {
				if p != p.Masked() || (p.Addr().Is4In6()) {
					t.Fatalf("%v is not normalised", p)
				}
			}
		})
	}
}

// --actor defaults to user@host and must be a printable, bounded name.
func TestActor(t *testing.T) {
	if a := Defaults().Actor; !strings.Contains(a, "@") || a != DefaultActor() {
		t.Fatalf("default actor %q, want user@host", a)
	}
	cases := []struct {
		in string
		ok bool
	}{
		{"alice@example.com", true},
		{"deploy bot (ci)", true},
		{"", false},
		{"   ", false},
		{"eve\nkey_revoked", false},
		{strings.Repeat("a", MaxActorLen), true},
		{strings.Repeat("a", MaxActorLen+1), false},
	}
	for _, tc := range cases {
		c := Defaults()
		c.Actor = tc.in
		if err := c.Validate(); (err == nil) != tc.ok {
			t.Fatalf("actor %q: Validate = %v, want ok=%v", tc.in, err, tc.ok)
		}
	}
}

// Every new setting has its environment twin, and the flag wins over it.
func TestEnvironmentTwins(t *testing.T) {
	t.Setenv("LARDER_TRUSTED_PROXIES", "10.0.0.0/8")
	t.Setenv("LARDER_ACTOR", "from-env")
	c := Defaults()
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	if err := c.Bind(fs, Server, Admin); err != nil {
		t.Fatal(err)
	}
	if err := fs.Parse([]string{"--actor", "from-flag"}); err != nil {
		t.Fatal(err)
	}
	p, err := c.Proxies()
	if err != nil || len(p) != 1 || p[0] != netip.MustParsePrefix("10.0.0.0/8") {
		t.Fatalf("LARDER_TRUSTED_PROXIES gave %v, %v", p, err)
	}
	if c.Actor != "from-flag" {
		t.Fatalf("actor %q, want the flag's", c.Actor)
	}
}

func TestLogFlush(t *testing.T) {
	if d := Defaults().LogFlush; d != 100*time.Millisecond {
		t.Fatalf("default --log-flush %v, want 100ms", d)
	}
	t.Setenv("LARDER_LOG_FLUSH", "0")
	c := Defaults()
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	if err := c.Bind(fs, Server); err != nil {
		t.Fatal(err)
	}
	if err := fs.Parse(nil); err != nil || c.LogFlush != 0 {
		t.Fatalf("LARDER_LOG_FLUSH=0 gave %v (%v)", c.LogFlush, err)
	}
	if err := fs.Parse([]string{"--log-flush", "-1s"}); err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "log-flush cannot be negative") {
		t.Fatalf("a negative --log-flush was accepted: %v", err)
	}
}

// The metrics are off the API's address by default: on a loopback address
// of their own, which "off" turns off; a token that puts them on the API's
// address must be long enough to guess at no better than a key.
func TestMetricsDefaults(t *testing.T) {
	c := Defaults()
	host, _, err := net.SplitHostPort(c.MetricsListen())
	if err != nil {
		t.Fatal(err)
	}
	if ip, err := netip.ParseAddr(host); err != nil || !ip.IsLoopback() {
		t.Errorf("default metrics address %q is not loopback", c.MetricsListen())
	}
	if c.MetricsToken != "" {
		t.Errorf("a metrics token by default: %q", c.MetricsToken)
	}
	c.MetricsAddr = "off"
	if got := c.MetricsListen(); got != "" {
		t.Errorf("off listens on %q", got)
	}
	for token, ok := range map[string]bool{
		"":                      true,
		"0123456789abcdef":      true,
		"0123456789abcde":       false,
		"0123456789 abcdef":     false,
		"0123456789abcdef\x00x": false,
	} {
		c := Defaults()
		c.MetricsToken = token
		if err := c.Validate(); (err == nil) != ok {
			t.Errorf("token %q: %v", token, err)
		}
	}
}

// --replica-database takes several replicas: a comma-separated list, in
// LARDER_REPLICA_DATABASE_URL or the flag, and the flag repeated; the first
// flag replaces the variable's list, the next ones add to it. Each entry
// must be a PostgreSQL URL.
func TestReplicaList(t *testing.T) {
	const a, b, c = "postgres://r1:5432/x", "postgres://r2:5432/x", "postgresql://r3/x?sslmode=disable"
	t.Setenv("LARDER_REPLICA_DATABASE_URL", a+", "+b+",")
	bind := func(args ...string) Config {
		t.Helper()
		cfg := Defaults()
		cfg.Database = "postgres://p/x"
		fs := flag.NewFlagSet("x", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		if err := cfg.Bind(fs, Server); err != nil {
			t.Fatal(err)
		}
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{nil, []string{a, b}},
		{[]string{"--replica-database", c}, []string{c}},
		{[]string{"--replica-database", c, "--replica-database", a + "," + b}, []string{c, a, b}},
	} {
		cfg := bind(tc.args...)
		if got := cfg.Replicas(); strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("%v: replicas %q, want %q", tc.args, got, tc.want)
		}
		if err := cfg.Validate(); err != nil {
			t.Errorf("%v: %v", tc.args, err)
		}
	}
	cfg := bind("--replica-database", c, "--replica-database", "sqlite://r.db")
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "replica-database must be postgres://") {
		t.Fatalf("a list with an SQLite URL was accepted: %v", err)
	}
}
