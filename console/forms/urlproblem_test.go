package forms

import (
	"fmt"
	"net/netip"
	"strings"
	"testing"

	"larder.dev/larder/internal/webhooks"
)

// The webhook form says why a URL is refused: a literal private address by
// name, and never what a host name resolved to (the server's resolver may
// answer names inside its own network).
func TestURLProblemHidesTheResolvedAddress(t *testing.T) {
	a := netip.MustParseAddr("10.20.30.40")
	resolved := URLProblem(fmt.Errorf("url %q: %w", "https://db.internal.example/", &webhooks.BlockedError{Addr: a, Resolved: true}))
	if strings.Contains(resolved, "10.20.30.40") || !strings.Contains(resolved, "not public") {
		t.Errorf("a name resolving to %s: %q", a, resolved)
	}
	literal := URLProblem(fmt.Errorf("url %q: %w", "https://10.20.30.40/", &webhooks.BlockedError{Addr: a}))
	if !strings.Contains(literal, "10.20.30.40") || !strings.Contains(literal, "not public") {
		t.Errorf("a literal address: %q, want it named", literal)
	}
}
