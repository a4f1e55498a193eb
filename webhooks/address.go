package webhooks

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"syscall"
)

// BlockedError refuses an address in a private, loopback, link-local or
// otherwise non-public range.
type BlockedError struct{ Addr netip.Addr }

func (e *BlockedError) Error() string {
	return fmt.Sprintf("address %s is private, loopback or link-local (set LARDER_WEBHOOK_ALLOW_PRIVATE=1 for local development)", e.Addr)
}

// nonPublic are ranges no endpoint may resolve to, beyond what netip names:
// "this network", carrier-grade NAT, benchmarking and the IPv6 documentation
// and NAT64-free ranges are never a customer's server.
var nonPublic = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("240.0.0.0/4"),
	netip.MustParsePrefix("2001:db8::/32"),
}

// Blocked reports whether an endpoint may not be reached at a.
func Blocked(a netip.Addr) bool {
	a = a.Unmap()
	if !a.IsValid() || a.IsPrivate() || a.IsLoopback() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsInterfaceLocalMulticast() || a.IsMulticast() || a.IsUnspecified() {
		return true
	}
	for _, p := range nonPublic {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// Resolver resolves a host name to its addresses (net.DefaultResolver).
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// CheckURL validates an endpoint URL at registration: absolute HTTPS (plain
// HTTP too when allowPrivate), a host and no credentials, and a host that
// resolves only to public addresses unless allowPrivate. Deliveries check the
// address actually dialed again (see Dialer), against DNS rebinding.
func CheckURL(ctx context.Context, raw string, allowPrivate bool, r Resolver) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("url %q: %w", raw, err)
	}
	switch {
	case u.Scheme == "https":
	case u.Scheme == "http" && allowPrivate:
	default:
		return fmt.Errorf("url %q must use https", raw)
	}
	if u.Host == "" || u.Hostname() == "" {
		return fmt.Errorf("url %q names no host", raw)
	}
	if u.User != nil {
		return fmt.Errorf("url %q must not carry credentials", raw)
	}
	if u.Fragment != "" {
		return fmt.Errorf("url %q must not have a fragment", raw)
	}
	if allowPrivate {
		return nil
	}
	addrs, err := r.LookupNetIP(ctx, "ip", u.Hostname())
	if err != nil {
		return fmt.Errorf("url %q: cannot resolve %s: %w", raw, u.Hostname(), err)
	}
	if len(addrs) == 0 {
		return fmt.Errorf("url %q: %s has no address", raw, u.Hostname())
	}
	for _, a := range addrs {
		if Blocked(a) {
			return fmt.Errorf("url %q: %w", raw, &BlockedError{Addr: a.Unmap()})
		}
	}
	return nil
}

// Dialer returns a dialer that refuses to connect to a blocked address unless
// allowPrivate. The check runs on the address about to be dialed, after name
// resolution, so a name that resolved to a public address at registration and
// to a private one later is still refused.
func Dialer(allowPrivate bool) *net.Dialer {
	d := &net.Dialer{Timeout: 10e9, KeepAlive: 30e9}
	if allowPrivate {
		return d
	}
	d.Control = func(network, address string, _ syscall.RawConn) error {
		host, _, err := net.SplitHostPort(address)
		if err != nil {
			return err
		}
		a, err := netip.ParseAddr(host)
		if err != nil {
			return err
		}
		if Blocked(a) {
			return &BlockedError{Addr: a}
		}
		return nil
	}
	return d
}

// isBlocked reports whether err is a refusal of a blocked address.
func isBlocked(err error) bool {
	var b *BlockedError
	return errors.As(err, &b)
}
