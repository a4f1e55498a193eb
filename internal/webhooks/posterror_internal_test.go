package webhooks

import (
	"net"
	"net/netip"
	"net/url"
	"strings"
	"testing"
)

// A post the dialer refused because the endpoint's host resolved to a
// private address is recorded without that address (net's error names the
// address dialled); other failures are recorded as they came.
func TestPostErrorHidesTheResolvedAddress(t *testing.T) {
	const u = "https://hook.example.com/in"
	dialled := func(inner error) error {
		return &url.Error{Op: "Post", URL: u, Err: &net.OpError{Op: "dial", Net: "tcp",
			Addr: &net.TCPAddr{IP: net.ParseIP("10.20.30.40"), Port: 443}, Err: inner}}
	}
	got := postError(u, dialled(&BlockedError{Addr: netip.MustParseAddr("10.20.30.40"), Resolved: true})).Error()
	if strings.Contains(got, "10.20.30.40") || !strings.Contains(got, "hook.example.com") || !strings.Contains(got, "private, loopback or link-local") {
		t.Errorf("recorded %q: want the URL and why, without the address", got)
	}
	refused := dialled(&net.DNSError{Err: "connection refused"})
	if got := postError(u, refused); got != refused {
		t.Errorf("another failure recorded as %v, want it unchanged", got)
	}
}
