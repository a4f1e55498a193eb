package deploy

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"larder.dev/larder/console"
	"larder.dev/larder/internal/platform/problem"
)

// startHAProxy runs HAProxy with the kit's configuration on a free loopback
// port in front of the given server addresses (one for every server line,
// round the list), with the timeouts named in timeouts set instead of the
// kit's, and returns its address. The lines that need the Debian service's
// directories and user are left out.
func startHAProxy(t *testing.T, servers []string, timeouts map[string]string) string {
	t.Helper()
	hp, err := exec.LookPath("haproxy")
	if err != nil {
		t.Skip("haproxy is not installed: its answers not checked (apt-get install haproxy)")
	}
	b, err := os.ReadFile("haproxy.cfg")
	if err != nil {
		t.Fatal(err)
	}
	cfg := regexp.MustCompile(`(?m)^\s*(chroot|user|group|daemon|stats socket|log )\b.*$`).ReplaceAllString(string(b), "")
	addr := "127.0.0.1:" + strconv.Itoa(freePort(t))
	cfg = regexp.MustCompile(`(?m)^(\s*bind\s+)\S+`).ReplaceAllString(cfg, "${1}"+addr)
	n := 0
	cfg = regexp.MustCompile(`(?m)^(\s*server\s+\S+\s+)\S+`).ReplaceAllStringFunc(cfg, func(line string) string {
		i := strings.LastIndex(strings.TrimRight(line, " "), " ")
		s := servers[n%len(servers)]
		n++
		return line[:i+1] + s
	})
	if n == 0 {
		t.Fatal("haproxy.cfg has no server lines")
	}
	for name, v := range timeouts {
		re := regexp.MustCompile(`(?m)^(\s*timeout\s+` + regexp.QuoteMeta(name) + `\s+)\S+`)
		if !re.MatchString(cfg) {
			t.Fatalf("haproxy.cfg has no timeout %s", name)
		}
		cfg = re.ReplaceAllString(cfg, "${1}"+v)
	}
	file := filepath.Join(t.TempDir(), "haproxy.cfg")
	if err := os.WriteFile(file, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	startListening(t, addr, hp, "-db", "-f", file)
	return addr
}

// fakeServer listens on loopback and, for every connection, reads the
// request and answers with answer (nothing, when answer is empty: the
// connection stays open until the test ends).
func fakeServer(t *testing.T, answer string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				r := bufio.NewReader(c)
				for {
					line, err := r.ReadString('\n')
					if err != nil || line == "\r\n" {
						break
					}
				}
				if answer == "" {
					_, _ = io.Copy(io.Discard, c)
					return
				}
				_, _ = c.Write([]byte(answer))
				c.Close()
			}()
		}
	}()
	return l.Addr().String()
}

// HAProxy's own answers carry the API's problem+json body, with the code,
// the type and the title the API gives that code, and a request id starting
// req_ that the X-Request-Id header repeats; 503 says when to retry.
func TestHAProxyAnswersInTheAPIsErrorFormat(t *testing.T) {
	closed := "127.0.0.1:" + strconv.Itoa(freePort(t)) // nothing listens there
	type answer struct {
		status int
		code   problem.Code
	}
	check := func(t *testing.T, res *http.Response, want answer) {
		t.Helper()
		defer res.Body.Close()
		if res.StatusCode != want.status {
			t.Fatalf("status %d, want %d", res.StatusCode, want.status)
		}
		if ct := res.Header.Get("Content-Type"); ct != "application/problem+json" {
			t.Errorf("Content-Type %q, want application/problem+json", ct)
		}
		var body struct {
			Type, Title, Detail, Code string
			Status                    int
			RequestID                 string `json:"request_id"`
		}
		if err := json.NewDecoder(res.Body).Decode(&body); err != nil {
			t.Fatalf("the body is not JSON: %v", err)
		}
		p := &problem.Error{Code: want.code}
		if body.Code != string(want.code) || body.Type != p.Type() || body.Title != p.Title() || body.Status != want.status || body.Detail == "" {
			t.Errorf("body %+v, want code %s, type %s, title %q, status %d and a detail", body, want.code, p.Type(), p.Title(), want.status)
		}
		id := res.Header.Get("X-Request-Id")
		if !strings.HasPrefix(id, "req_") || body.RequestID != id {
			t.Errorf("X-Request-Id %q and request_id %q: want the same id, starting req_", id, body.RequestID)
		}
		retry := res.Header.Get("Retry-After")
		if (want.status == http.StatusServiceUnavailable) != (retry == "1") {
			t.Errorf("Retry-After %q for %d: want 1 on 503 only", retry, want.status)
		}
	}
	client := &http.Client{Timeout: 20 * time.Second}
	get := func(t *testing.T, addr string) *http.Response {
		t.Helper()
		res, err := client.Get("http://" + addr + "/v1/tags")
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	t.Run("no server takes the request: 503", func(t *testing.T) {
		check(t, get(t, startHAProxy(t, []string{closed}, nil)), answer{503, problem.ServiceUnavailable})
	})
	t.Run("a server answers what is not HTTP: 502", func(t *testing.T) {
		junk := fakeServer(t, "NOT HTTP AT ALL\r\n\r\n")
		check(t, get(t, startHAProxy(t, []string{junk}, nil)), answer{502, problem.ServiceUnavailable})
	})
	t.Run("a server does not answer in time: 504", func(t *testing.T) {
		silent := fakeServer(t, "")
		check(t, get(t, startHAProxy(t, []string{silent}, map[string]string{"server": "1s"})), answer{504, problem.ServiceUnavailable})
	})
}

// A person's console requests, which carry the session cookie, go to one
// server, by either of the cookie's names; API requests, which carry none, are spread
// over the servers.
func TestHAProxyKeepsAPersonOnOneServer(t *testing.T) {
	var servers []string
	for _, name := range []string{"a", "b", "c"} {
		servers = append(servers, fakeServer(t, "HTTP/1.1 200 OK\r\nX-Server: "+name+"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"))
	}
	addr := startHAProxy(t, servers, nil)
	// Until the health checks have seen every server up.
	time.Sleep(500 * time.Millisecond)
	client := &http.Client{Timeout: 10 * time.Second}
	seen := func(cookie string) map[string]int {
		t.Helper()
		got := map[string]int{}
		for range 12 {
			req, err := http.NewRequest(http.MethodGet, "http://"+addr+"/console/imports?env=live", nil)
			if err != nil {
				t.Fatal(err)
			}
			if cookie != "" {
				req.Header.Set("Cookie", cookie)
			}
			res, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			got[res.Header.Get("X-Server")]++
		}
		return got
	}
	if got := seen(""); len(got) < 2 {
		t.Errorf("requests without a session went to %v: want them spread over the servers", got)
	}
	for _, name := range []string{console.SessionCookie, console.SessionCookieSecure} {
		for _, token := range []string{"first-person-token", "second-person-token"} {
			if got := seen(name + "=" + token + "; other=1"); len(got) != 1 {
				t.Errorf("requests with %s=%s went to %v: want one server", name, token, got)
			}
		}
	}
}
