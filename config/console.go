package config

import (
	"net/url"
	"strings"
)

// Console is the flag of the commands that print console links: the
// console's address. Those outside serve also take "addr", serve's listen
// address, which the console's address defaults from.
var Console = Options{"console-url"}

func (c *Config) consoleOptions() map[string]option {
	return map[string]option{
		"console-url": {"console-url", "LARDER_CONSOLE_URL", "the console's address as browsers reach it, for one-time links (default http:// and the listen address)", str(&c.ConsoleURL), setStr(&c.ConsoleURL)},
	}
}

// validateConsole refuses a console address that is not an absolute http(s) URL.
func (c *Config) validateConsole() []string {
	if c.ConsoleURL == "" {
		return nil
	}
	u, err := url.Parse(c.ConsoleURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return []string{"console-url must be an http:// or https:// URL without query or fragment"}
	}
	return nil
}

// ConsoleBase is the base of console links, without a trailing slash:
// ConsoleURL, or http:// and the listen address when it is not set.
func (c *Config) ConsoleBase() string {
	if c.ConsoleURL != "" {
		return strings.TrimRight(c.ConsoleURL, "/")
	}
	return "http://" + c.Addr
}
