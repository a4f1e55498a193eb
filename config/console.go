package config

import (
	"net"
	"time"
)

// Console is the settings of the console, the web application people sign
// in to.
type Console struct {
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
func consoleDefaults() Console {
	return Console{SessionIdle: 12 * time.Hour, SessionLifetime: 7 * 24 * time.Hour}
}

// ConsoleServer are the console's flags of serve.
var ConsoleServer = Options{"console-addr", "session-idle", "session-lifetime"}

// consoleOptions are the console's settings.
func (c *Config) consoleOptions() map[string]option {
	k := &c.Console
	return map[string]option{
		"console-addr":     {"console-addr", "LARDER_CONSOLE_ADDR", "serve the console on this address (default: under /console/ on the API's address)", str(&k.Addr), setStr(&k.Addr)},
		"session-idle":     {"session-idle", "LARDER_SESSION_IDLE", "end a console session unused this long", dur(&k.SessionIdle), setDur(&k.SessionIdle)},
		"session-lifetime": {"session-lifetime", "LARDER_SESSION_LIFETIME", "end a console session this long after sign-in however it is used", dur(&k.SessionLifetime), setDur(&k.SessionLifetime)},
	}
}

// validateConsole refuses console settings that cannot work.
func (c *Config) validateConsole() []string {
	var errs []string
	if c.Console.SessionIdle <= 0 {
		errs = append(errs, "session-idle must be positive")
	}
	if c.Console.SessionLifetime < c.Console.SessionIdle {
		errs = append(errs, "session-lifetime must be at least session-idle")
	}
	if a := c.Console.Addr; a != "" {
		if _, _, err := net.SplitHostPort(a); err != nil {
			errs = append(errs, "console-addr must be HOST:PORT")
		}
	}
	return errs
}
