package webhooks_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"

	"larder.dev/larder/ent/webhookendpoint"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/internal/webhooks"
	"larder.dev/larder/policy"
)

// resolver answers every name with the same addresses.
type resolver []netip.Addr

func (r resolver) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) { return r, nil }

// carrying are IPv6 addresses that stand for an IPv4 address a gateway or
// relay on the way reaches, one or more per range, with the instance
// metadata address among them wherever the range can carry it.
var carrying = []struct{ rng, addr string }{
	{"NAT64 64:ff9b::/96", "64:ff9b::a9fe:a9fe"}, // 169.254.169.254
	{"NAT64 64:ff9b::/96", "64:ff9b::7f00:1"},    // 127.0.0.1
	{"NAT64 64:ff9b::/96", "64:ff9b::808:808"},   // 8.8.8.8: the range is refused whole
	{"local NAT64 64:ff9b:1::/48", "64:ff9b:1::a9fe:a9fe"},
	{"local NAT64 64:ff9b:1::/48", "64:ff9b:1:ffff:ffff:ffff:ffff:ffff"},
	{"6to4 2002::/16", "2002:a9fe:a9fe::1"}, // 169.254.169.254
	{"6to4 2002::/16", "2002:a00:1::1"},     // 10.0.0.1
	{"6to4 2002::/16", "2002:808:808::1"},
	{"Teredo 2001::/32", "2001:0:4136:e378:8000:63bf:3fff:fdd2"},
	{"Teredo 2001::/32", "2001::a9fe:a9fe"},
	{"IPv4-compatible ::/96", "::a9fe:a9fe"},
	{"IPv4-mapped ::ffff:0:0/96", "::ffff:169.254.169.254"},
	{"IPv4-mapped ::ffff:0:0/96", "::ffff:10.0.0.1"},
	{"IPv4-translated ::ffff:0:0:0/96", "::ffff:0:a9fe:a9fe"},
}

// public are addresses next to those ranges that stay reachable.
var public = []string{"2001:4860:4860::8888", "2606:4700:4700::1111", "2003::1", "64:ff9a::1", "93.184.215.14"}

// IPv6 addresses standing for an IPv4 address are refused at registration,
// whether the URL names them or its host resolves to them, unless private
// addresses are allowed; public IPv6 and IPv4 addresses beside them are not.
func TestRegistrationRefusesIPv6CarryingIPv4(t *testing.T) {
	ctx := context.Background()
	for _, c := range carrying {
		t.Run(c.rng+" "+c.addr, func(t *testing.T) {
			a := netip.MustParseAddr(c.addr)
			if !webhooks.Blocked(a) {
				t.Fatalf("Blocked(%s) = false", a)
			}
			literal := "https://" + netip.AddrPortFrom(a, 443).String() + "/hook"
			for _, u := range []string{literal, "https://hook.example.com/"} {
				err := webhooks.CheckURL(ctx, u, false, resolver{a})
				var b *webhooks.BlockedError
				if !errors.As(err, &b) {
					t.Errorf("CheckURL(%s resolving to %s) = %v, want a refused address", u, a, err)
				}
				if err := webhooks.CheckURL(ctx, u, true, resolver{a}); err != nil {
					t.Errorf("with private addresses allowed, CheckURL(%s) = %v", u, err)
				}
			}
		})
	}
	for _, p := range public {
		a := netip.MustParseAddr(p)
		if err := webhooks.CheckURL(ctx, "https://hook.example.com/", false, resolver{a}); err != nil {
			t.Errorf("public %s refused: %v", a, err)
		}
	}
	// One carrying address among public ones refuses the name.
	mixed := resolver{netip.MustParseAddr("2606:4700:4700::1111"), netip.MustParseAddr("64:ff9b::a9fe:a9fe")}
	if err := webhooks.CheckURL(ctx, "https://hook.example.com/", false, mixed); err == nil {
		t.Error("a name resolving to a NAT64 address among public ones was admitted")
	}
}

// The dialer refuses those addresses at connect time, after resolution, so a
// name that resolved to a public address at registration is still refused
// when it points at one of them later.
func TestDialerRefusesIPv6CarryingIPv4(t *testing.T) {
	strict := webhooks.Dialer(false)
	for _, c := range carrying {
		addr := net.JoinHostPort(c.addr, "443")
		err := strict.Control("tcp6", addr, nil)
		var b *webhooks.BlockedError
		if !errors.As(err, &b) {
			t.Errorf("%s: dial check of %s = %v, want a refused address", c.rng, addr, err)
		}
	}
	for _, p := range public {
		if err := strict.Control("tcp", net.JoinHostPort(p, "443"), nil); err != nil {
			t.Errorf("dial check of public %s: %v", p, err)
		}
	}
	if webhooks.Dialer(true).Control != nil {
		t.Error("a dialer allowing private addresses checks them")
	}
}

// Through a real dial: the check runs before the connection is made.
func TestDialRefusesNAT64Address(t *testing.T) {
	if l, err := net.Listen("tcp6", "[::1]:0"); err != nil {
		t.Skipf("no IPv6 sockets here: %v", err)
	} else {
		l.Close()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, a := range []string{"64:ff9b::a9fe:a9fe", "2002:a9fe:a9fe::1", "2001::a9fe:a9fe"} {
		_, err := webhooks.Dialer(false).DialContext(ctx, "tcp", net.JoinHostPort(a, "443"))
		var b *webhooks.BlockedError
		if !errors.As(err, &b) {
			t.Errorf("dial %s: %v, want a refused address", a, err)
		}
	}
}

// passThrough is a transport that checks no address: what it posts shows
// what the dispatcher itself let through.
type passThrough struct{ to string }

func (p passThrough) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.URL.Scheme, r.URL.Host = "http", strings.TrimPrefix(p.to, "http://")
	return http.DefaultTransport.RoundTrip(r)
}

// A delivery to a URL that is not https is refused when it is sent, however
// the URL came to be stored, unless private addresses (and plain HTTP) are
// allowed.
func TestSendRefusesPlainHTTP(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		f := setup(t, st)
		r := newReceiver(t)
		ep := f.endpoint(t, f.org, policy.Live, "https://hook.example.com/")
		sys := policy.System(context.Background())
		st.Client.WebhookEndpoint.Update().Where(webhookendpoint.ID(ep.ID)).SetURL("http://hook.example.com/").ExecX(sys)
		change(t, st, f.org, policy.Live, "a")
		strict := f.dispatcher(webhooks.Options{AllowPrivate: true, Transport: passThrough{r.URL}}) // flipped: strict
		drain(t, strict)
		if len(r.requests()) != 0 {
			t.Fatal("a strict dispatcher posted to an http:// URL")
		}
		log, err := f.reg.Deliveries(context.Background(), f.org.Org.ID, ep.ID, webhooks.DeliveryFilter{Limit: 1})
		if err != nil || len(log) != 1 || len(log[0].Attempts) != 1 {
			t.Fatalf("log: %v", err)
		}
		if a := log[0].Attempts[0]; a.Success || a.Error == nil || !strings.Contains(*a.Error, "must use https") {
			t.Fatalf("attempt %+v", a)
		}
		// In development mode the same delivery goes out.
		change(t, st, f.org, policy.Live, "b")
		drain(t, f.dispatcher(webhooks.Options{Transport: passThrough{r.URL}}))
		if len(r.requests()) != 1 {
			t.Fatalf("%d posts in development mode, want 1", len(r.requests()))
		}
	})
}

// Site-local IPv6 (fec0::/10), deprecated but still routed inside some
// networks, is refused like the unique local range beside it, whether the
// URL names it or its host resolves to it, and when it is dialed.
func TestSiteLocalIPv6Refused(t *testing.T) {
	ctx := context.Background()
	for _, s := range []string{"fec0::1", "fec0:0:0:ffff::1", "feff:ffff::1", "fd00::1"} {
		a := netip.MustParseAddr(s)
		if !webhooks.Blocked(a) {
			t.Errorf("Blocked(%s) = false", a)
		}
		for _, u := range []string{"https://[" + s + "]/hook", "https://hook.example.com/"} {
			var b *webhooks.BlockedError
			if err := webhooks.CheckURL(ctx, u, false, resolver{a}); !errors.As(err, &b) {
				t.Errorf("CheckURL(%s resolving to %s) = %v, want a refused address", u, a, err)
			}
		}
		var b *webhooks.BlockedError
		if err := webhooks.Dialer(false).Control("tcp6", net.JoinHostPort(s, "443"), nil); !errors.As(err, &b) {
			t.Errorf("dial check of %s = %v", s, err)
		}
	}
	// Beside it, fe80::/10 is link-local (refused) and ff00::/8 multicast;
	// 2001:4860:: stays public.
	if webhooks.Blocked(netip.MustParseAddr("2001:4860:4860::8888")) {
		t.Error("a public address is refused")
	}
}

// A refusal says what a URL's literal address is, and never what its host
// name resolved to: the server's resolver may answer names inside its own
// network, which is nobody's to learn from a registration form. A name that
// does not resolve is refused without the resolver's own words.
func TestRefusalShowsNoResolvedAddress(t *testing.T) {
	ctx := context.Background()
	resolved := []netip.Addr{netip.MustParseAddr("10.20.30.40"), netip.MustParseAddr("fec0::abcd"), netip.MustParseAddr("64:ff9b::a9fe:a9fe")}
	for _, a := range resolved {
		err := webhooks.CheckURL(ctx, "https://db.internal.example/", false, resolver{a})
		if err == nil {
			t.Fatalf("%s admitted", a)
		}
		for _, shown := range []string{a.String(), a.Unmap().String(), "10.20.30", "abcd", "a9fe"} {
			if strings.Contains(err.Error(), shown) {
				t.Errorf("refusal of a name resolving to %s shows %q: %v", a, shown, err)
			}
		}
		if !strings.Contains(err.Error(), "db.internal.example") || !strings.Contains(err.Error(), "private, loopback or link-local") {
			t.Errorf("refusal %q names neither the URL nor why", err)
		}
	}
	if err := webhooks.CheckURL(ctx, "https://10.20.30.40/", false, resolver{}); err == nil || !strings.Contains(err.Error(), "address 10.20.30.40 is private") {
		t.Errorf("a literal address: %v, want it named", err)
	}
	if err := webhooks.Dialer(false).Control("tcp", "10.20.30.40:443", nil); err == nil || strings.Contains(err.Error(), "10.20.30.40") {
		t.Errorf("dial check: %v, want a refusal without the address dialed", err)
	}
	failing := failingResolver{&net.DNSError{Err: "no such host", Name: "db.internal.example", Server: "192.0.2.53:53", IsNotFound: true}}
	if err := webhooks.CheckURL(ctx, "https://db.internal.example/", false, failing); err == nil || strings.Contains(err.Error(), "192.0.2.53") {
		t.Errorf("an unresolvable name: %v, want a refusal without the resolver's address", err)
	}
}

// failingResolver fails every lookup with its error.
type failingResolver struct{ err error }

func (r failingResolver) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	return nil, r.err
}
