package config

import (
	"flag"
	"io"
	"strings"
	"testing"
)

// Console links start at LARDER_CONSOLE_URL (or --console-url, which wins),
// without a trailing slash; without either, at http:// and the listen address.
// Anything but an absolute http(s) URL is refused.
func TestConsoleBase(t *testing.T) {
	t.Setenv("LARDER_ADDR", "10.1.2.3:9000")
	c := Defaults()
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	if err := c.Bind(fs, Console, Options{"addr"}); err != nil {
		t.Fatal(err)
	}
	if got := c.ConsoleBase(); got != "http://10.1.2.3:9000" {
		t.Fatalf("default base %q", got)
	}
	t.Setenv("LARDER_CONSOLE_URL", "https://larder.example.com/")
	c = Defaults()
	fs = flag.NewFlagSet("x", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	if err := c.Bind(fs, Console, Options{"addr"}); err != nil {
		t.Fatal(err)
	}
	if got := c.ConsoleBase(); got != "https://larder.example.com" {
		t.Fatalf("base from the environment %q", got)
	}
	if err := fs.Parse([]string{"--console-url", "ftp://x"}); err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "console-url must be") {
		t.Fatalf("ftp:// accepted: %v", err)
	}
}

// A link made of a wildcard listen address opens on this machine: its host
// is localhost; any other host is kept as it is.
func TestHTTPBase(t *testing.T) {
	for addr, want := range map[string]string{
		":8080":          "http://localhost:8080",
		"0.0.0.0:8080":   "http://localhost:8080",
		"[::]:8080":      "http://localhost:8080",
		"127.0.0.1:9000": "http://127.0.0.1:9000",
		"[::1]:9000":     "http://[::1]:9000",
		"larder.lan:80":  "http://larder.lan:80",
		"10.1.2.3:9000":  "http://10.1.2.3:9000",
		"no port at all": "http://no port at all",
	} {
		if got := HTTPBase(addr); got != want {
			t.Errorf("HTTPBase(%q) = %q, want %q", addr, got, want)
		}
	}
	c := Defaults()
	c.Addr = ":8080"
	if got := c.ConsoleBase(); got != "http://localhost:8080" {
		t.Errorf("the default listen address's links start at %q", got)
	}
}
