// Package config is Larder's configuration: one struct filled from flags and
// their LARDER_* environment twins, validated before anything starts.
package config

import (
	"flag"
	"fmt"
	"maps"
	"os"
	"strconv"
	"strings"
	"time"
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
	// Statements is how many prepared statements to keep per server; 0 turns
	// the cache off, e.g. behind a pooler without prepared-statement support
	// (--db-statements, LARDER_DB_STATEMENTS).
	Statements int
	// LogFormat is text or json (--log-format, LARDER_LOG_FORMAT).
	LogFormat string
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
}

// Defaults is the configuration when nothing is set.
func Defaults() Config {
	return Config{
		Database:       "sqlite://larder.db",
		Addr:           "127.0.0.1:8080",
		RateLimit:      300,
		AuthFailLimit:  20,
		RequestTimeout: 15 * time.Second,
		MaxInFlight:    512,
		Statements:     256,
		LogFormat:      "text",
		DevDatabase:    "postgres://postgres@127.0.0.1:5432/larder_dev?sslmode=disable",

		Webhooks:             true,
		WebhookRetryInterval: 5 * time.Hour,
		WebhookDisableAfter:  24 * time.Hour,
		WebhookPollInterval:  2 * time.Second,
	}
}

// option is one setting: its flag, its environment twin and its field.
type option struct {
	flag, env, help string
	bind            func(fs *flag.FlagSet, name, help string)
	set             func(string) error
}

// Options are the settings a command accepts, by flag name.
type Options []string

// Common flags every command takes.
var Common = Options{"database", "log-format", "db-statements"}

// Webhooks flags of serve and the webhook commands.
var Webhooks = Options{"webhooks", "webhook-retry-interval", "webhook-disable-after", "webhook-allow-private", "webhook-poll-interval", "smtp-url"}

// Server flags of serve.
var Server = Options{"addr", "rate-limit", "auth-fail-limit", "request-timeout", "max-in-flight", "db-max-conns", "debug-addr"}

func (c *Config) options() map[string]option {
	str := func(p *string) func(*flag.FlagSet, string, string) {
		return func(fs *flag.FlagSet, n, h string) { fs.StringVar(p, n, *p, h) }
	}
	num := func(p *int) func(*flag.FlagSet, string, string) {
		return func(fs *flag.FlagSet, n, h string) { fs.IntVar(p, n, *p, h) }
	}
	setStr := func(p *string) func(string) error { return func(v string) error { *p = v; return nil } }
	setNum := func(p *int) func(string) error {
		return func(v string) error {
			n, err := strconv.Atoi(v)
			*p = n
			return err
		}
	}
	return map[string]option{
		"database":        {"database", "LARDER_DATABASE_URL", "database URL: sqlite://PATH, postgres://…", str(&c.Database), setStr(&c.Database)},
		"log-format":      {"log-format", "LARDER_LOG_FORMAT", "log format: text or json", str(&c.LogFormat), setStr(&c.LogFormat)},
		"addr":            {"addr", "LARDER_ADDR", "listen address", str(&c.Addr), setStr(&c.Addr)},
		"rate-limit":      {"rate-limit", "LARDER_RATE_LIMIT", "requests per minute per account", num(&c.RateLimit), setNum(&c.RateLimit)},
		"auth-fail-limit": {"auth-fail-limit", "LARDER_AUTH_FAIL_LIMIT", "invalid keys per minute per client address before 429", num(&c.AuthFailLimit), setNum(&c.AuthFailLimit)},
		"request-timeout": {"request-timeout", "LARDER_REQUEST_TIMEOUT", "time a request may take", func(fs *flag.FlagSet, n, h string) {
			fs.DurationVar(&c.RequestTimeout, n, c.RequestTimeout, h)
		}, func(v string) (err error) { c.RequestTimeout, err = time.ParseDuration(v); return err }},
		"max-in-flight": {"max-in-flight", "LARDER_MAX_IN_FLIGHT", "requests served at once before 503", num(&c.MaxInFlight), setNum(&c.MaxInFlight)},
		"db-max-conns":  {"db-max-conns", "LARDER_DB_MAX_CONNS", "database connections (0: default)", num(&c.MaxConns), setNum(&c.MaxConns)},
		"debug-addr":    {"debug-addr", "LARDER_DEBUG_ADDR", "serve net/http/pprof on this address (off when empty; keep it private)", str(&c.DebugAddr), setStr(&c.DebugAddr)},
		"db-statements": {"db-statements", "LARDER_DB_STATEMENTS", "prepared statements kept (0: none, for poolers without prepared statements)", num(&c.Statements), setNum(&c.Statements)},
		"dev-database":  {"dev-database", "LARDER_DEV_DATABASE_URL", "scratch PostgreSQL database (name ending in _dev) that migrate diff recreates", str(&c.DevDatabase), setStr(&c.DevDatabase)},
	}
}

// Bind reads the environment twins of opts into c, then registers the flags on
// fs with those values as defaults, so a flag overrides its variable.
func (c *Config) Bind(fs *flag.FlagSet, opts ...Options) error {
	all := c.options()
	maps.Copy(all, c.webhookOptions())
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
			o.bind(fs, o.flag, o.help+" ($"+o.env+")")
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
	if c.MaxConns < 0 {
		errs = append(errs, "db-max-conns cannot be negative")
	}
	if c.Statements < 0 {
		errs = append(errs, "db-statements cannot be negative")
	}
	if c.LogFormat != "text" && c.LogFormat != "json" {
		errs = append(errs, "log-format must be text or json")
	}
	errs = append(errs, c.validateWebhooks()...)
	if len(errs) > 0 {
		return fmt.Errorf("configuration: %s", strings.Join(errs, "; "))
	}
	return nil
}
