package deploy

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The HAProxy configuration checks /readyz, balances over the three
// instances larder@8081..8083 listen on, forwards the client's address and
// retries a request that may have reached a server only when that is safe;
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
		"acl idempotent_create path /v1/purchase-orders /v1/bills",
		"http-request disable-l7-retry unless safe_method || METH_POST idempotent_create has_idempotency_key",
		"acl safe_method method GET HEAD OPTIONS",
	} {
		if !has(want) {
			t.Errorf("haproxy.cfg: no %q", want)
		}
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
