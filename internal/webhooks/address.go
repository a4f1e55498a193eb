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
type BlockedError struct {
	Addr netip.Addr
	// Resolved is set when Addr is what a host name resolved to, which the
	// message then keeps to itself: what the server's resolver answers
	// (a name inside its network) is nobody else's to learn.
	Resolved bool
}

func (e *BlockedError) Error() string {
	const why = "private, loopback or link-local (set LARDER_WEBHOOK_ALLOW_PRIVATE=1 for local development)"
	if e.Resolved {
		return "the host resolves to an address that is " + why
	}
	return fmt.Sprintf("address %s is %s", e.Addr, why)
}

// nonPublic are ranges no endpoint may resolve to, beyond what netip names:
// "this network", carrier-grade NAT, benchmarking, reserved and the IPv6
// documentation range are never a customer's server.
var nonPublic = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("240.0.0.0/4"),
	netip.MustParsePrefix("2001:db8::/32"),
	// Site-local IPv6, deprecated (RFC 3879) but still routed inside
	// some networks, as private as fc00::/7.
	netip.MustParsePrefix("fec0::/10"),
}

// carriesIPv4 are the IPv6 ranges whose addresses stand for an IPv4 address
// that a gateway or relay on the way reaches: NAT64 (64:ff9b::a9fe:a9fe is
// 169.254.169.254 behind a NAT64 gateway) and its local-use range, 6to4,
// Teredo, IPv4-compatible and IPv4-translated addresses. The IPv4 address
// they stand for is not always readable from them (Teredo obfuscates it, a
// local NAT64 prefix may place it anywhere), and no customer's server needs
// them, so they are refused whole.
var carriesIPv4 = []netip.Prefix{
	netip.MustParsePrefix("64:ff9b::/96"),
	netip.MustParsePrefix("64:ff9b:1::/48"),
	netip.MustParsePrefix("2002::/16"),
	netip.MustParsePrefix("2001::/32"),
	netip.MustParsePrefix("::/96"),
	netip.MustParsePrefix("::ffff:0:0:0/96"),
}

// Blocked reports whether an endpoint may not be reached at a.
func Blocked(a netip.Addr) bool {
	a = a.Unmap() // ::ffff:a.b.c.d is a.b.c.d
	if !a.IsValid() || a.IsPrivate() || a.IsLoopback() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsInterfaceLocalMulticast() || a.IsMulticast() || a.IsUnspecified() {
		return true
	}
	for _, p := range nonPublic {
		if p.Contains(a) {
			return true
		}
	}
	for _, p := range carriesIPv4 {
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
	u, err := parseURL(raw, allowPrivate)
	if err != nil {
		return err
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
	if a, err := netip.ParseAddr(u.Hostname()); err == nil {
		if Blocked(a) {
			return fmt.Errorf("url %q: %w", raw, &BlockedError{Addr: a.Unmap()})
		}
		return nil
	}
	addrs, err := r.LookupNetIP(ctx, "ip", u.Hostname())
	if err != nil {
		// Not the resolver's own words, which name its address.
		return fmt.Errorf("url %q: cannot resolve %s", raw, u.Hostname())
	}
	if len(addrs) == 0 {
		return fmt.Errorf("url %q: %s has no address", raw, u.Hostname())
	}
	for _, a := range addrs {
		if Blocked(a) {
			return fmt.Errorf("url %q: %w", raw, &BlockedError{Addr: a.Unmap(), Resolved: true})
		}
	}
	return nil
}

// parseURL parses an endpoint URL and checks its scheme, https (plain http
// too when allowPrivate), and that it names a host. Registration and every
// send check it: a URL stored before a rule, or by hand, is refused all the same.
func parseURL(raw string, allowPrivate bool) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("url %q: %w", raw, err)
	}
	switch {
	case u.Scheme == "https":
	case u.Scheme == "http" && allowPrivate:
	default:
		return nil, fmt.Errorf("url %q must use https", raw)
	}
	if u.Host == "" || u.Hostname() == "" {
		return nil, fmt.Errorf("url %q names no host", raw)
	}
	return u, nil
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
			// Dialed after resolution: the address may be a name's.
			return &BlockedError{Addr: a, Resolved: true}
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
