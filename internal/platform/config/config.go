// Package config is Larder's configuration: one struct filled from flags and
// their LARDER_* environment twins, validated before anything starts.
package config

import (
	"flag"
	"fmt"
	"maps"
	"net/netip"
	"os"
	"os/user"
	"strconv"
	"strings"
	"time"
	"unicode"

	"larder.dev/larder/internal/platform/fastpath"
)

// Config is everything an operator can set.
type Config struct {
	// Database is the database URL (--database, LARDER_DATABASE_URL).
	Database string
	// Addr is the listen address of serve (--addr, LARDER_ADDR).
	Addr string
	// RateLimit is the requests per minute of an account (--rate-limit, LARDER_RATE_LIMIT).
	RateLimit int
	// AuthFailLimit is the invalid keys per minute one client address may send
	// before getting 429 (--auth-fail-limit, LARDER_AUTH_FAIL_LIMIT).
	AuthFailLimit int
	// RequestTimeout bounds the work of one request (--request-timeout, LARDER_REQUEST_TIMEOUT).
	RequestTimeout time.Duration
	// MaxInFlight is how many requests run at once before new ones get 503
	// (--max-in-flight, LARDER_MAX_IN_FLIGHT).
	MaxInFlight int
	// MaxConns bounds database connections; 0 picks a default (--db-max-conns, LARDER_DB_MAX_CONNS).
	MaxConns int
	// ReplicaDatabase, when set, lists PostgreSQL streaming replicas of
	// Database, comma-separated, that answer the API's reads they may
	// (--replica-database, repeated or a list; LARDER_REPLICA_DATABASE_URL;
	// store.Replicas); see Replicas.
	ReplicaDatabase string
	// ReplicaMaxLag is the replay lag past which the replica's reads go to
	// the primary (--replica-max-lag, LARDER_REPLICA_MAX_LAG).
	ReplicaMaxLag time.Duration
	// GCPercent is the Go garbage collector's target (GOGC) while serving:
	// the heap may grow this many percent over the live heap before a
	// collection (--gc-percent, LARDER_GC_PERCENT).
	GCPercent int
	// Statements is how many prepared statements to keep per server; 0 turns
	// the cache off, e.g. behind a pooler without prepared-statement support
	// (--db-statements, LARDER_DB_STATEMENTS).
	Statements int
	// FastPath is which of the mechanisms that exist for speed alone run
	// (--fast-path, LARDER_FAST_PATH): all of them by default; false serves
	// the same API the plain way (package fastpath).
	FastPath fastpath.Set
	// LogFormat is text or json (--log-format, LARDER_LOG_FORMAT).
	LogFormat string
	// LogFlush is how long serve may hold log lines below WARN before
	// writing them in one batch; 0 writes each line at once (--log-flush,
	// LARDER_LOG_FLUSH).
	LogFlush time.Duration
	// RequestLog records every authenticated API request and every failed
	// authentication in the request log (--request-log, LARDER_REQUEST_LOG).
	RequestLog bool
	// RequestLogRetention is how long the request log keeps a request
	// (--request-log-retention, LARDER_REQUEST_LOG_RETENTION).
	RequestLogRetention time.Duration
	// MetricsAddr is where /metrics is served, apart from the API
	// (--metrics-addr, LARDER_METRICS_ADDR): loopback by default, "off" for
	// nowhere. The metrics show every account's traffic and backlog counts,
	// so they are not on the API's public address unless MetricsToken
	// guards them there.
	MetricsAddr string
	// MetricsToken, when set, also serves /metrics on the API's address to
	// requests bearing it (Authorization: Bearer TOKEN; --metrics-token,
	// LARDER_METRICS_TOKEN).
	MetricsToken string
	// DebugAddr, when set, serves Go's profiler (net/http/pprof) there, apart
	// from the API (--debug-addr, LARDER_DEBUG_ADDR).
	DebugAddr string
	// DevDatabase is the scratch PostgreSQL database `migrate diff` recreates
	// (--dev-database, LARDER_DEV_DATABASE_URL).
	DevDatabase string
	// Webhooks runs the webhook dispatcher inside serve (--webhooks, LARDER_WEBHOOKS).
	Webhooks bool
	// WebhookRetryInterval separates the retries of a delivery
	// (--webhook-retry-interval, LARDER_WEBHOOK_RETRY_INTERVAL).
	WebhookRetryInterval time.Duration
	// WebhookDisableAfter disables an endpoint failing every delivery this long
	// (--webhook-disable-after, LARDER_WEBHOOK_DISABLE_AFTER).
	WebhookDisableAfter time.Duration
	// WebhookAllowPrivate admits plain HTTP and private addresses for endpoints
	// (--webhook-allow-private, LARDER_WEBHOOK_ALLOW_PRIVATE=1), for development.
	WebhookAllowPrivate bool
	// WebhookPollInterval is how often the dispatcher looks for due work
	// (--webhook-poll-interval, LARDER_WEBHOOK_POLL_INTERVAL).
	WebhookPollInterval time.Duration
	// SMTPURL is the mail server telling owners of disabled endpoints
	// (--smtp-url, LARDER_SMTP_URL): smtp://user:pass@host:port/?from=address.
	SMTPURL string
	// TrustedProxies lists the reverse proxies (comma-separated IPs or CIDRs)
	// whose X-Forwarded-For names the client address of the failed-auth
	// throttle (--trusted-proxies, LARDER_TRUSTED_PROXIES); see Proxies.
	TrustedProxies string
	// Actor names who makes the administrative changes of a command (keys,
	// plans) in the audit history (--actor, LARDER_ACTOR); by default the
	// operating-system user@host.
	Actor string
	// SecretKey encrypts webhook signing secrets at rest, base64 of 32 bytes
	// (LARDER_SECRET_KEY only); without it they are stored in plain text.
	SecretKey string
	// SecretKeyOld is the key before the last rotation, which only decrypts
	// (LARDER_SECRET_KEY_OLD only).
	SecretKeyOld string
	// ConsoleURL is the console's address as people's browsers reach it, the
	// base of the one-time links the CLI prints (--console-url,
	// LARDER_CONSOLE_URL); see ConsoleBase.
	ConsoleURL string
	// ConsoleSettings are the settings of the console.
	ConsoleSettings ConsoleSettings
}

// Defaults is the configuration when nothing is set.
func Defaults() Config {
	return Config{
		Database:       "sqlite://larder.db",
		Addr:           "127.0.0.1:8080",
		MetricsAddr:    DefaultMetricsAddr,
		RateLimit:      300,
		AuthFailLimit:  20,
		RequestTimeout: 15 * time.Second,
		MaxInFlight:    512,
		GCPercent:      400,
		ReplicaMaxLag:  2 * time.Second,
		Statements:     256,
		FastPath:       envFastPath(),
		LogFormat:      "text",
		LogFlush:       100 * time.Millisecond,

		RequestLog:          true,
		RequestLogRetention: 30 * 24 * time.Hour,
		DevDatabase:         "postgres://postgres@127.0.0.1:5432/larder_dev?sslmode=disable",

		Webhooks:             true,
		WebhookRetryInterval: 5 * time.Hour,
		WebhookDisableAfter:  24 * time.Hour,
		WebhookPollInterval:  2 * time.Second,
		Actor:                DefaultActor(),
		ConsoleSettings:      consoleDefaults(),
	}
}

// envFastPath is the switch as LARDER_FAST_PATH sets it, so that every
// configuration built from Defaults, a test's included, runs the path the
// environment asks for; an unreadable value counts as unset here, and Bind
// reports it.
func envFastPath() fastpath.Set {
	s, err := fastpath.FromEnv()
	if err != nil {
		return fastpath.All
	}
	return s
}

// DefaultMetricsAddr is where serve offers /metrics unless told otherwise:
// loopback only, on the port OpenTelemetry's Prometheus exporters use.
const DefaultMetricsAddr = "127.0.0.1:9464"

// MinMetricsToken is the shortest metrics token accepted, in bytes.
const MinMetricsToken = 16

// DefaultActor is the operating-system user and host running the command,
// user@host.
func DefaultActor() string {
	name := os.Getenv("USER")
	if u, err := user.Current(); err == nil && u.Username != "" {
		name = u.Username
	}
	if name == "" {
		name = "unknown"
	}
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "localhost"
	}
	return name + "@" + host
}

// MaxActorLen bounds an actor name.
const MaxActorLen = 200

// option is one setting: its flag (none for a setting read from the environment
// only), its environment twin and its field.
type option struct {
	flag, env, help string
	bind            func(fs *flag.FlagSet, name, help string)
	set             func(string) error
}

// Options are the settings a command accepts, by flag name.
type Options []string

// Common flags every command takes.
var Common = Options{"database", "log-format", "db-statements", "fast-path"}

// Webhooks flags of serve and the webhook commands, and the keys of their secrets.
var Webhooks = Options{"webhooks", "webhook-retry-interval", "webhook-disable-after", "webhook-allow-private", "webhook-poll-interval", "smtp-url", "secret-key", "secret-key-old"}

// Secrets are the keys that encrypt secrets at rest (environment only).
var Secrets = Options{"secret-key", "secret-key-old"}

// Server flags of serve.
var Server = Options{"addr", "rate-limit", "auth-fail-limit", "trusted-proxies", "request-timeout", "max-in-flight", "db-max-conns", "replica-database", "replica-max-lag", "metrics-addr", "metrics-token", "debug-addr", "gc-percent", "log-flush", "request-log", "request-log-retention"}

// Admin flags of the commands that change keys and plans.
var Admin = Options{"actor"}

// str, num, dur and boolean bind an option's flag to a field of its type;
// setStr, setNum, setDur and setBool set it from its environment variable.
func str(p *string) func(*flag.FlagSet, string, string) {
	return func(fs *flag.FlagSet, n, h string) { fs.StringVar(p, n, *p, h) }
}

func setStr(p *string) func(string) error { return func(v string) error { *p = v; return nil } }

// strList binds a comma-separated list whose flag may be repeated: the
// first use replaces the value of the environment, each further one adds
// to it.
func strList(p *string) func(*flag.FlagSet, string, string) {
	return func(fs *flag.FlagSet, n, h string) {
		set := false
		fs.Func(n, h, func(v string) error {
			if set && *p != "" {
				v = *p + "," + v
			}
			*p, set = v, true
			return nil
		})
	}
}

func num(p *int) func(*flag.FlagSet, string, string) {
	return func(fs *flag.FlagSet, n, h string) { fs.IntVar(p, n, *p, h) }
}

func setNum(p *int) func(string) error {
	return func(v string) error {
		n, err := strconv.Atoi(v)
		*p = n
		return err
	}
}

func dur(p *time.Duration) func(*flag.FlagSet, string, string) {
	return func(fs *flag.FlagSet, n, h string) { fs.DurationVar(p, n, *p, h) }
}

func setDur(p *time.Duration) func(string) error {
	return func(v string) (err error) { *p, err = time.ParseDuration(v); return err }
}

func boolean(p *bool) func(*flag.FlagSet, string, string) {
	return func(fs *flag.FlagSet, n, h string) { fs.BoolVar(p, n, *p, h) }
}

func setBool(p *bool) func(string) error {
	return func(v string) (err error) { *p, err = strconv.ParseBool(v); return err }
}

func fast(p *fastpath.Set) func(*flag.FlagSet, string, string) {
	return func(fs *flag.FlagSet, n, h string) {
		fs.Func(n, h+" (default "+p.String()+")", setFast(p))
	}
}

func setFast(p *fastpath.Set) func(string) error {
	return func(v string) (err error) { *p, err = fastpath.Parse(v); return err }
}

func (c *Config) options() map[string]option {
	return map[string]option{
		"database":              {"database", "LARDER_DATABASE_URL", "database URL: sqlite://PATH, postgres://…", str(&c.Database), setStr(&c.Database)},
		"log-format":            {"log-format", "LARDER_LOG_FORMAT", "log format: text or json", str(&c.LogFormat), setStr(&c.LogFormat)},
		"log-flush":             {"log-flush", "LARDER_LOG_FLUSH", "how long serve may hold log lines below WARN to write them in batches (0: each at once)", dur(&c.LogFlush), setDur(&c.LogFlush)},
		"request-log":           {"request-log", "LARDER_REQUEST_LOG", "record every authenticated API request and failed authentication in the request log", boolean(&c.RequestLog), setBool(&c.RequestLog)},
		"request-log-retention": {"request-log-retention", "LARDER_REQUEST_LOG_RETENTION", "how long the request log keeps a request", dur(&c.RequestLogRetention), setDur(&c.RequestLogRetention)},
		"addr":                  {"addr", "LARDER_ADDR", "listen address", str(&c.Addr), setStr(&c.Addr)},
		"rate-limit":            {"rate-limit", "LARDER_RATE_LIMIT", "requests per minute per account", num(&c.RateLimit), setNum(&c.RateLimit)},
		"auth-fail-limit":       {"auth-fail-limit", "LARDER_AUTH_FAIL_LIMIT", "invalid keys per minute per client address before 429", num(&c.AuthFailLimit), setNum(&c.AuthFailLimit)},
		"request-timeout":       {"request-timeout", "LARDER_REQUEST_TIMEOUT", "time a request may take", dur(&c.RequestTimeout), setDur(&c.RequestTimeout)},
		"max-in-flight":         {"max-in-flight", "LARDER_MAX_IN_FLIGHT", "requests served at once before 503", num(&c.MaxInFlight), setNum(&c.MaxInFlight)},
		"gc-percent":            {"gc-percent", "LARDER_GC_PERCENT", "garbage-collector target while serving (GOGC; 100 is Go's default)", num(&c.GCPercent), setNum(&c.GCPercent)},
		"db-max-conns":          {"db-max-conns", "LARDER_DB_MAX_CONNS", "database connections (0: default)", num(&c.MaxConns), setNum(&c.MaxConns)},
		"metrics-addr":          {"metrics-addr", "LARDER_METRICS_ADDR", "serve the Prometheus metrics (/metrics) on this address, apart from the API (off: nowhere)", str(&c.MetricsAddr), setStr(&c.MetricsAddr)},
		"metrics-token":         {"metrics-token", "LARDER_METRICS_TOKEN", "also serve /metrics on the API's address to requests with Authorization: Bearer TOKEN", str(&c.MetricsToken), setStr(&c.MetricsToken)},
		"debug-addr":            {"debug-addr", "LARDER_DEBUG_ADDR", "serve net/http/pprof on this address (off when empty; keep it private)", str(&c.DebugAddr), setStr(&c.DebugAddr)},
		"replica-database":      {"replica-database", "LARDER_REPLICA_DATABASE_URL", "PostgreSQL streaming replica (postgres://…) that answers the API's reads when it has caught up; repeat the flag or separate URLs by commas for several", strList(&c.ReplicaDatabase), setStr(&c.ReplicaDatabase)},
		"replica-max-lag":       {"replica-max-lag", "LARDER_REPLICA_MAX_LAG", "replay lag past which the replica's reads go to the primary", dur(&c.ReplicaMaxLag), setDur(&c.ReplicaMaxLag)},
		"db-statements":         {"db-statements", "LARDER_DB_STATEMENTS", "prepared statements kept (0: none, for poolers without prepared statements)", num(&c.Statements), setNum(&c.Statements)},
		"fast-path":             {"fast-path", fastpath.Env, "speed mechanisms: true, false (the plain path) or a list such as -compiled-reads,-trusted-keys", fast(&c.FastPath), setFast(&c.FastPath)},
		"trusted-proxies":       {"trusted-proxies", "LARDER_TRUSTED_PROXIES", "comma-separated IPs or CIDRs of reverse proxies whose X-Forwarded-For names the client", str(&c.TrustedProxies), setStr(&c.TrustedProxies)},
		"actor":                 {"actor", "LARDER_ACTOR", "who makes the change, for the audit history (default user@host)", str(&c.Actor), setStr(&c.Actor)},
		"dev-database":          {"dev-database", "LARDER_DEV_DATABASE_URL", "scratch PostgreSQL database (name ending in _dev) that migrate diff recreates", str(&c.DevDatabase), setStr(&c.DevDatabase)},
	}
}

// Bind reads the environment twins of opts into c, then registers the flags on
// fs with those values as defaults, so a flag overrides its variable.
func (c *Config) Bind(fs *flag.FlagSet, opts ...Options) error {
	all := c.options()
	maps.Copy(all, c.webhookOptions())
	maps.Copy(all, c.secretOptions())
	maps.Copy(all, c.consoleOptions())
	for _, group := range opts {
		for _, name := range group {
			o, ok := all[name]
			if !ok {
				panic("config: unknown option " + name)
			}
			if v, ok := os.LookupEnv(o.env); ok && v != "" {
				if err := o.set(v); err != nil {
					return fmt.Errorf("%s=%q: %w", o.env, v, err)
				}
			}
			if o.flag != "" {
				o.bind(fs, o.flag, o.help+" ($"+o.env+")")
			}
		}
	}
	return nil
}

// Validate refuses settings that cannot work.
func (c *Config) Validate() error {
	var errs []string
	if !strings.HasPrefix(c.Database, "sqlite://") && !strings.HasPrefix(c.Database, "postgres://") && !strings.HasPrefix(c.Database, "postgresql://") {
		errs = append(errs, "database must be sqlite://PATH, postgres://… or postgresql://…")
	}
	if c.RateLimit < 1 {
		errs = append(errs, "rate-limit must be at least 1")
	}
	if c.AuthFailLimit < 1 {
		errs = append(errs, "auth-fail-limit must be at least 1")
	}
	if c.RequestTimeout <= 0 {
		errs = append(errs, "request-timeout must be positive")
	}
	if c.MaxInFlight < 1 {
		errs = append(errs, "max-in-flight must be at least 1")
	}
	if c.GCPercent < 10 {
		errs = append(errs, "gc-percent must be at least 10")
	}
	if c.MaxConns < 0 {
		errs = append(errs, "db-max-conns cannot be negative")
	}
	if rs := c.Replicas(); len(rs) > 0 {
		for _, r := range rs {
			if !strings.HasPrefix(r, "postgres://") && !strings.HasPrefix(r, "postgresql://") {
				errs = append(errs, "replica-database must be postgres://… or postgresql://… (each of a list)")
				break
			}
		}
		if strings.HasPrefix(c.Database, "sqlite://") {
			errs = append(errs, "replica-database needs a PostgreSQL database (SQLite has no replicas)")
		}
	}
	if c.ReplicaMaxLag <= 0 {
		errs = append(errs, "replica-max-lag must be positive")
	}
	if c.Statements < 0 {
		errs = append(errs, "db-statements cannot be negative")
	}
	if c.RequestLogRetention < time.Hour {
		errs = append(errs, "request-log-retention must be at least 1h")
	}
	if c.LogFlush < 0 {
		errs = append(errs, "log-flush cannot be negative")
	}
	if c.LogFormat != "text" && c.LogFormat != "json" {
		errs = append(errs, "log-format must be text or json")
	}
	if c.MetricsToken != "" && (len(c.MetricsToken) < MinMetricsToken || strings.IndexFunc(c.MetricsToken, func(r rune) bool { return r <= ' ' || r >= 0x7f }) >= 0) {
		errs = append(errs, fmt.Sprintf("metrics-token must be at least %d printable ASCII characters without spaces", MinMetricsToken))
	}
	errs = append(errs, c.validateWebhooks()...)
	errs = append(errs, c.validateConsole()...)
	if _, err := c.Keyring(); err != nil {
		errs = append(errs, err.Error())
	}
	if _, err := c.Proxies(); err != nil {
		errs = append(errs, err.Error())
	}
	if a := strings.TrimSpace(c.Actor); a == "" || len(c.Actor) > MaxActorLen || strings.IndexFunc(c.Actor, unicode.IsControl) >= 0 {
		errs = append(errs, fmt.Sprintf("actor must be 1 to %d characters without control characters", MaxActorLen))
	}
	if len(errs) > 0 {
		return fmt.Errorf("configuration: %s", strings.Join(errs, "; "))
	}
	return nil
}

// MetricsListen is the address serve offers /metrics on apart from the API,
// or "" for none.
func (c *Config) MetricsListen() string {
	if c.MetricsAddr == "off" {
		return ""
	}
	return c.MetricsAddr
}

// Replicas are the URLs of ReplicaDatabase: comma-separated, blanks around
// them and empty entries ignored. A comma inside a URL is written %2C.
func (c *Config) Replicas() []string {
	var out []string
	for _, raw := range strings.Split(c.ReplicaDatabase, ",") {
		if s := strings.TrimSpace(raw); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// Proxies parses TrustedProxies: each entry an IP address (a proxy) or a CIDR
// (a network of proxies). IPv4-mapped IPv6 forms count as IPv4.
func (c *Config) Proxies() ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, raw := range strings.Split(c.TrustedProxies, ",") {
		s := strings.TrimSpace(raw)
		if s == "" {
			continue
		}
		if strings.Contains(s, "/") {
			p, err := netip.ParsePrefix(s)
			if err != nil {
				return nil, fmt.Errorf("trusted-proxies: %q is not an IP address or CIDR", s)
			}
			if p.Addr().Is4In6() {
				bits := p.Bits() - 96
				if bits < 0 {
					return nil, fmt.Errorf("trusted-proxies: %q is wider than the IPv4-mapped range", s)
				}
				p = netip.PrefixFrom(p.Addr().Unmap(), bits)
			}
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(s)
		if err != nil || a.Zone() != "" {
			return nil, fmt.Errorf("trusted-proxies: %q is not an IP address or CIDR", s)
		}
		a = a.Unmap()
		out = append(out, netip.PrefixFrom(a, a.BitLen()))
	}
	return out, nil
}
