package deploy

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The HAProxy configuration checks /readyz, balances over the three
// instances larder@8081..8083 listen on, forwards the client's address and
// retries a request that may have reached a server only when that is safe
// (a create that takes an Idempotency-Key, each one the description has);
// and HAProxy accepts it.
func TestHAProxyConfig(t *testing.T) {
	b, err := os.ReadFile("haproxy.cfg")
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" && l[0] != '#' {
			lines = append(lines, strings.Join(strings.Fields(l), " "))
		}
	}
	has := func(want string) bool {
		for _, l := range lines {
			if l == want {
				return true
			}
		}
		return false
	}
	for _, want := range []string{
		"option httpchk GET /readyz",
		"http-check expect status 200",
		"option forwardfor",
		"balance leastconn",
		"retry-on conn-failure empty-response junk-response",
		"http-request disable-l7-retry unless safe_method || METH_POST idempotent_create has_idempotency_key",
		"acl safe_method method GET HEAD OPTIONS",
	} {
		if !has(want) {
			t.Errorf("haproxy.cfg: no %q", want)
		}
	}
	// The creates retried with their key are those that take one, in any
	// order.
	var acl []string
	for _, l := range lines {
		if rest, ok := strings.CutPrefix(l, "acl idempotent_create path "); ok {
			acl = strings.Fields(rest)
		}
	}
	slices.Sort(acl)
	if want := idempotentCreates(t); !slices.Equal(acl, want) {
		t.Errorf("haproxy.cfg: acl idempotent_create matches %q; the creates that take an Idempotency-Key are %q", acl, want)
	}
	server := regexp.MustCompile(`^server (\S+) "\$\{(LB_SERVER\d)-([^}]+)\}"`)
	var addrs []string
	for _, l := range lines {
		if m := server.FindStringSubmatch(l); m != nil {
			addrs = append(addrs, m[3])
		}
	}
	if want := []string{"127.0.0.1:8081", "127.0.0.1:8082", "127.0.0.1:8083"}; strings.Join(addrs, " ") != strings.Join(want, " ") {
		t.Errorf("servers %q, want the instances larder@8081..8083 at %q", addrs, want)
	}

	hp, err := exec.LookPath("haproxy")
	if err != nil {
		t.Skip("haproxy is not installed: haproxy -c not run (apt-get install haproxy)")
	}
	cmd := exec.Command(hp, "-c", "-f", "haproxy.cfg")
	cmd.Env = append(os.Environ(), "LB_SOCKET="+filepath.Join(t.TempDir(), "admin.sock"))
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "Configuration file is valid") || strings.Contains(string(out), "WARNING") {
		t.Fatalf("haproxy -c: %v\n%s", err, out)
	}
}

// idempotentCreates are the paths, under /v1, whose POST takes an
// Idempotency-Key in the published description, sorted.
func idempotentCreates(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("../openapi/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Paths map[string]map[string]struct {
			Parameters []struct {
				Name string `json:"name"`
				In   string `json:"in"`
			} `json:"parameters"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	var out []string
	for p, ops := range d.Paths {
		for _, prm := range ops["post"].Parameters {
			if prm.In == "header" && prm.Name == "Idempotency-Key" {
				out = append(out, "/v1"+p)
			}
		}
	}
	if len(out) == 0 {
		t.Fatal("the description has no create that takes an Idempotency-Key; the read is broken")
	}
	slices.Sort(out)
	return out
}
