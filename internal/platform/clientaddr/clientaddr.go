// Package clientaddr finds where an HTTP request comes from behind the
// reverse proxies the server is told to trust: the client's address (for
// throttling, the access log and the audit) and whether the client's
// connection is TLS (for the console's cookies).
package clientaddr

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// Of is the address (without port) of the client of r: the socket peer,
// unless the peer is a trusted proxy; then X-Forwarded-For is read from the
// right, each trusted proxy having appended the address it received from, and
// the first address that is not itself a trusted proxy is the client. Entries
// left of it were written by the client and are never believed. When every
// entry is a trusted proxy the left-most is the client; an entry that is not
// an address stops the walk at the last trusted hop, so a forged header can
// never pick the bucket.
func Of(r *http.Request, trusted []netip.Prefix) string {
	return From(r.RemoteAddr, r.Header.Values("X-Forwarded-For"), trusted)
}

// From is Of for a request's peer address (RemoteAddr) and its
// X-Forwarded-For values, read later than the request.
func From(remote string, forwardedFor []string, trusted []netip.Prefix) string {
	peer, ok := parseAddr(remote)
	if !ok {
		return remote
	}
	if !isTrusted(peer, trusted) {
		return peer.String()
	}
	hops := strings.Split(strings.Join(forwardedFor, ","), ",")
	client := peer
	for i := len(hops) - 1; i >= 0; i-- {
		a, ok := parseAddr(strings.TrimSpace(hops[i]))
		if !ok {
			break
		}
		client = a
		if !isTrusted(a, trusted) {
			break
		}
	}
	return client.String()
}

// parseAddr reads an address as a socket or a proxy writes it: 192.0.2.1,
// 192.0.2.1:443, 2001:db8::1, [2001:db8::1]:443; IPv4-mapped IPv6 counts as
// IPv4 and a zone is dropped.
func parseAddr(s string) (netip.Addr, bool) {
	if host, _, err := net.SplitHostPort(s); err == nil {
		s = host
	}
	a, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(s, "["), "]"))
	if err != nil {
		return netip.Addr{}, false
	}
	return a.Unmap().WithZone(""), true
}

// isTrusted reports whether a is one of the trusted proxies.
func isTrusted(a netip.Addr, trusted []netip.Prefix) bool {
	for _, p := range trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// TLS reports whether the client reached the server over TLS: directly, or
// through a trusted proxy that says so in X-Forwarded-Proto (a header from
// anyone else is not believed).
func TLS(r *http.Request, trusted []netip.Prefix) bool {
	if r.TLS != nil {
		return true
	}
	peer, ok := parseAddr(r.RemoteAddr)
	if !ok || !isTrusted(peer, trusted) {
		return false
	}
	return strings.EqualFold(strings.TrimSpace(r.Header.Get("X-Forwarded-Proto")), "https")
}

// Origin is the scheme and host (https://console.example.com) the client
// used to reach the server: the request's own, or those a trusted proxy
// names in X-Forwarded-Proto and X-Forwarded-Host. The headers of any other
// peer are not believed, so a client cannot make the server write links to a
// host of its choosing.
func Origin(r *http.Request, trusted []netip.Prefix) string {
	scheme := "http"
	if TLS(r, trusted) {
		scheme = "https"
	}
	host := r.Host
	if peer, ok := parseAddr(r.RemoteAddr); ok && isTrusted(peer, trusted) {
		// A proxy chain appends: the first entry is what the client asked for.
		fwd, _, _ := strings.Cut(r.Header.Get("X-Forwarded-Host"), ",")
		if fwd = strings.TrimSpace(fwd); fwd != "" && !strings.ContainsAny(fwd, "/\\@ \t\r\n") {
			host = fwd
		}
	}
	return scheme + "://" + host
}
