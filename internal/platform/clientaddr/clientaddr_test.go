package clientaddr

import (
	"crypto/tls"
	"net/http/httptest"
	"net/netip"
	"testing"
)

// A request is TLS when it came over TLS, or through a trusted proxy that
// says so; the same header from an untrusted peer is not believed.
func TestTLSBelievesOnlyTrustedProxies(t *testing.T) {
	trusted := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}
	for _, tc := range []struct {
		name  string
		peer  string
		proto string
		tls   bool
		want  bool
	}{
		{"plain", "192.0.2.1:5000", "", false, false},
		{"direct TLS", "192.0.2.1:5000", "", true, true},
		{"trusted proxy says https", "10.1.2.3:5000", "https", false, true},
		{"trusted proxy says http", "10.1.2.3:5000", "http", false, false},
		{"untrusted peer says https", "192.0.2.1:5000", "https", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/console/", nil)
			r.RemoteAddr = tc.peer
			if tc.proto != "" {
				r.Header.Set("X-Forwarded-Proto", tc.proto)
			}
			if tc.tls {
				r.TLS = &tls.ConnectionState{}
			}
			if got := TLS(r, trusted); got != tc.want {
				t.Errorf("TLS = %v, want %v", got, tc.want)
			}
		})
	}
}

// The client behind a trusted proxy is the proxy's X-Forwarded-For entry;
// behind an untrusted peer, the peer itself.
func TestOfBelievesOnlyTrustedProxies(t *testing.T) {
	trusted := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}
	r := httptest.NewRequest("GET", "/", nil)
	r.RemoteAddr = "10.0.0.5:1234"
	r.Header.Set("X-Forwarded-For", "198.51.100.7")
	if got := Of(r, trusted); got != "198.51.100.7" {
		t.Errorf("behind a trusted proxy: %q", got)
	}
	r.RemoteAddr = "192.0.2.9:1234"
	if got := Of(r, trusted); got != "192.0.2.9" {
		t.Errorf("behind an untrusted peer: %q", got)
	}
}

// The origin is the request's own unless a trusted proxy names another;
// the same headers from an untrusted peer change nothing.
func TestOriginBelievesOnlyTrustedProxies(t *testing.T) {
	trusted := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}
	for _, tc := range []struct {
		name, peer, proto, host, want string
	}{
		{"plain", "192.0.2.1:5000", "", "", "http://larder.internal:8080"},
		{"trusted proxy", "10.1.2.3:5000", "https", "console.example.com", "https://console.example.com"},
		{"trusted proxy, chain", "10.1.2.3:5000", "https", "console.example.com, inner.example", "https://console.example.com"},
		{"trusted proxy, proto only", "10.1.2.3:5000", "https", "", "https://larder.internal:8080"},
		{"trusted proxy, host with a path", "10.1.2.3:5000", "", "evil.example/x", "http://larder.internal:8080"},
		{"untrusted peer", "192.0.2.1:5000", "https", "evil.example", "http://larder.internal:8080"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "http://larder.internal:8080/console/", nil)
			r.RemoteAddr = tc.peer
			if tc.proto != "" {
				r.Header.Set("X-Forwarded-Proto", tc.proto)
			}
			if tc.host != "" {
				r.Header.Set("X-Forwarded-Host", tc.host)
			}
			if got := Origin(r, trusted); got != tc.want {
				t.Errorf("Origin = %q, want %q", got, tc.want)
			}
		})
	}
}
