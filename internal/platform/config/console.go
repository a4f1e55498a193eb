package config

import (
	"net"
	"net/netip"
	"net/url"
	"strings"
	"time"
)

// ConsoleSettings are the settings of the console, the web application
// people sign in to.
type ConsoleSettings struct {
	// Addr, when set, serves the console on its own address instead of under
	// /console/ on the API's (--console-addr, LARDER_CONSOLE_ADDR).
	Addr string
	// SessionIdle ends a session unused this long (--session-idle,
	// LARDER_SESSION_IDLE).
	SessionIdle time.Duration
	// SessionLifetime ends a session this long after it began however it is
	// used (--session-lifetime, LARDER_SESSION_LIFETIME).
	SessionLifetime time.Duration
}

// consoleDefaults are the console's settings when nothing is set: sessions
// end after 12 hours unused or 7 days in all.
func consoleDefaults() ConsoleSettings {
	return ConsoleSettings{SessionIdle: 12 * time.Hour, SessionLifetime: 7 * 24 * time.Hour}
}

// Console is the flag of the commands that print console links: the
// console's address. Those outside serve also take "addr", serve's listen
// address, which the console's address defaults from.
var Console = Options{"console-url"}

// ConsoleServer are the console's flags of serve.
var ConsoleServer = Options{"console-url", "console-addr", "session-idle", "session-lifetime"}

// consoleOptions are the console's settings.
func (c *Config) consoleOptions() map[string]option {
	k := &c.ConsoleSettings
	return map[string]option{
		"console-url":      {"console-url", "LARDER_CONSOLE_URL", "the console's address as browsers reach it, for one-time links (default http:// and the listen address)", str(&c.ConsoleURL), setStr(&c.ConsoleURL)},
		"console-addr":     {"console-addr", "LARDER_CONSOLE_ADDR", "serve the console on this address (default: under /console/ on the API's address)", str(&k.Addr), setStr(&k.Addr)},
		"session-idle":     {"session-idle", "LARDER_SESSION_IDLE", "end a console session unused this long", dur(&k.SessionIdle), setDur(&k.SessionIdle)},
		"session-lifetime": {"session-lifetime", "LARDER_SESSION_LIFETIME", "end a console session this long after sign-in however it is used", dur(&k.SessionLifetime), setDur(&k.SessionLifetime)},
	}
}

// validateConsole refuses console settings that cannot work.
func (c *Config) validateConsole() []string {
	var errs []string
	if c.ConsoleURL != "" {
		u, err := url.Parse(c.ConsoleURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
			errs = append(errs, "console-url must be an http:// or https:// URL without query or fragment")
		}
	}
	if c.ConsoleSettings.SessionIdle <= 0 {
		errs = append(errs, "session-idle must be positive")
	}
	if c.ConsoleSettings.SessionLifetime < c.ConsoleSettings.SessionIdle {
		errs = append(errs, "session-lifetime must be at least session-idle")
	}
	if a := c.ConsoleSettings.Addr; a != "" {
		if _, _, err := net.SplitHostPort(a); err != nil {
			errs = append(errs, "console-addr must be HOST:PORT")
		}
	}
	return errs
}

// ConsoleBase is the base of console links, without a trailing slash:
// ConsoleURL, or else the console's or the listen address as a browser on
// this machine reaches it (HTTPBase).
func (c *Config) ConsoleBase() string {
	if c.ConsoleURL != "" {
		return strings.TrimRight(c.ConsoleURL, "/")
	}
	if c.ConsoleSettings.Addr != "" {
		return HTTPBase(c.ConsoleSettings.Addr)
	}
	return HTTPBase(c.Addr)
}

// HTTPBase is the http:// URL at which a browser on this machine reaches a
// listen address: a wildcard host (":8080", "0.0.0.0:8080", "[::]:8080"),
// which no browser can open, is localhost; any other host is kept.
func HTTPBase(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "http://" + addr
	}
	if ip, err := netip.ParseAddr(host); host == "" || (err == nil && ip.IsUnspecified()) {
		host = "localhost"
	}
	return "http://" + net.JoinHostPort(host, port)
}
