package webhooks_test

import (
	"context"
	"errors"
	"net/netip"
	"slices"
	"testing"

	"larder.dev/larder/internal/webhooks"
)

// fixedResolver resolves every host to its addresses.
type fixedResolver []netip.Addr

func (r fixedResolver) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	return r, nil
}

// The checks a form runs before Create are Create's own: the catalogue is
// what EventTypes accepts (ping excluded), a private address is refused as a
// BlockedError unless private addresses are allowed, and an e-mail address
// must parse (empty is allowed).
func TestFieldChecks(t *testing.T) {
	cat := webhooks.Catalogue()
	if len(cat) == 0 || !slices.IsSorted(cat) || slices.Contains(cat, webhooks.PingType) {
		t.Fatalf("catalogue %v: want sorted, non-empty, without ping", cat)
	}
	if got, err := webhooks.EventTypes(cat); err != nil || !slices.Equal(got, cat) {
		t.Fatalf("EventTypes(catalogue) = %v, %v", got, err)
	}
	ctx := context.Background()
	private := &webhooks.Registry{Resolver: fixedResolver{netip.MustParseAddr("10.0.0.7")}}
	var blocked *webhooks.BlockedError
	if err := private.CheckURL(ctx, "https://hooks.example.com/in"); !errors.As(err, &blocked) || blocked.Addr.String() != "10.0.0.7" {
		t.Errorf("a private address: %v, want a BlockedError for 10.0.0.7", err)
	}
	public := &webhooks.Registry{Resolver: fixedResolver{netip.MustParseAddr("93.184.216.34")}}
	if err := public.CheckURL(ctx, "https://hooks.example.com/in"); err != nil {
		t.Errorf("a public address: %v", err)
	}
	for _, bad := range []string{"http://hooks.example.com/in", "ftp://x", "https://", "https://u:p@hooks.example.com/"} {
		if err := public.CheckURL(ctx, bad); err == nil {
			t.Errorf("%q was accepted", bad)
		}
	}
	local := &webhooks.Registry{AllowPrivate: true}
	if err := local.CheckURL(ctx, "http://127.0.0.1:9/in"); err != nil {
		t.Errorf("with private addresses allowed: %v", err)
	}
	if err := webhooks.CheckEmail(""); err != nil {
		t.Errorf("empty e-mail: %v", err)
	}
	if err := webhooks.CheckEmail("ops@example.com"); err != nil {
		t.Errorf("ops@example.com: %v", err)
	}
	if err := webhooks.CheckEmail("not an address"); err == nil {
		t.Error("a malformed e-mail address was accepted")
	}
}
