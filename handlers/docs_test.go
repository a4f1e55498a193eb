package handlers_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"larder.dev/larder/internal/platform/apidocs"
	"larder.dev/larder/internal/testkit/dbtest"
)

// The docs page, its renderer and the redirects to it are served without a
// key, on both databases.
func TestDocsRoutes(t *testing.T) {
	run(t, func(t *testing.T, a *api) {
		for _, p := range []string{"/", "/v1"} {
			r := a.do("GET", p, "", nil).want(302)
			if loc := r.Header.Get("Location"); loc != apidocs.Path {
				t.Errorf("GET %s → %q", p, loc)
			}
		}
		a.do("POST", "/v1", "", "{}").want(404)
		a.do("GET", "/v1/", a.key, nil).want(404)
		page := a.do("GET", apidocs.Path, "", nil).want(200)
		if ct := page.Header.Get("Content-Type"); ct != "text/html; charset=utf-8" {
			t.Errorf("page Content-Type %q", ct)
		}
		for _, asset := range []struct{ name, typ string }{
			{"swagger-ui-bundle.js", "text/javascript; charset=utf-8"},
			{"swagger-ui.css", "text/css; charset=utf-8"},
			{"docs.js", "text/javascript; charset=utf-8"},
			{"LICENSE", "text/plain; charset=utf-8"},
		} {
			if !bytes.Contains(page.Body, []byte(apidocs.Assets+asset.name)) && asset.name != "LICENSE" {
				t.Errorf("page does not load %s", asset.name)
			}
			r := a.do("GET", apidocs.Assets+asset.name, "", nil).want(200)
			if ct := r.Header.Get("Content-Type"); ct != asset.typ {
				t.Errorf("%s: Content-Type %q", asset.name, ct)
			}
			if cc := r.Header.Get("Cache-Control"); !strings.Contains(cc, "immutable") {
				t.Errorf("%s: Cache-Control %q", asset.name, cc)
			}
		}
		if js := a.do("GET", apidocs.Assets+"docs.js", "", nil).Body; !bytes.Contains(js, []byte(`url: "/v1/openapi.json"`)) || !bytes.Contains(js, []byte("validatorUrl: null")) {
			t.Errorf("docs.js does not point the renderer at the description, offline:\n%s", js)
		}
		a.do("GET", apidocs.Assets+"other.js", "", nil).problem(404, "NOT_FOUND")
	})
}

// chromium is the browser of the page test: LARDER_TEST_CHROMIUM=1 (CI) makes
// a missing browser a failure rather than a skip.
func chromium(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("LARDER_TEST_CHROMIUM") == "1" {
		t.Fatal("Chromium is not installed (apt-get install chromium) and LARDER_TEST_CHROMIUM=1")
	}
	t.Skip("SKIPPED: the docs page needs Chromium (apt-get install chromium); CI sets LARDER_TEST_CHROMIUM=1 to require it")
	return ""
}

// browserServices are the hosts Chromium itself calls (time, updates,
// sign-in, autofill) whatever page it shows; a page's own request to any
// other host fails the test.
var browserServices = map[string]bool{
	"clients2.google.com":                 true,
	"update.googleapis.com":               true,
	"accounts.google.com":                 true,
	"content-autofill.googleapis.com":     true,
	"optimizationguide-pa.googleapis.com": true,
}

// The docs page renders the served description in a real headless Chromium:
// no console message (error, warning or other), no request to another host
// (a recording proxy sees every one that is not to the server), every
// resource group of the description and every webhook in the page. A
// screenshot is left outside the repository. The page depends on no
// database, so it runs on SQLite only.
func TestDocsPageInChromium(t *testing.T) {
	browser := chromium(t)
	t.Parallel()
	a := newAPI(t, dbtest.Open(t, dbtest.SQLite))

	// Every request the browser does not send straight to the server (the
	// proxy bypasses loopback) reaches this proxy, which refuses it.
	var mu sync.Mutex
	var foreign []string
	proxy := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host, _, _ := net.SplitHostPort(r.Host)
		if host == "" {
			host = r.Host
		}
		mu.Lock()
		if !browserServices[host] {
			foreign = append(foreign, r.Method+" "+r.Host+r.URL.Path)
		}
		mu.Unlock()
		http.Error(w, "offline", http.StatusForbidden)
	})}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = proxy.Serve(ln) }()
	t.Cleanup(func() { proxy.Close() })

	browse := func(args ...string) (stdout, stderr []byte) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, browser, append([]string{
			"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
			"--disable-background-networking", "--disable-component-update", "--disable-sync",
			"--user-data-dir=" + t.TempDir(), "--proxy-server=http://" + ln.Addr().String(),
			"--enable-logging=stderr", "--v=0", "--virtual-time-budget=30000", "--window-size=1400,1000",
		}, args...)...)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("chromium: %v\n%s", err, errb.Bytes())
		}
		return out.Bytes(), errb.Bytes()
	}
	dom, log := browse("--dump-dom", a.url+"/")

	for _, line := range strings.Split(string(log), "\n") {
		if strings.Contains(line, ":CONSOLE") {
			t.Errorf("console: %s", line)
		}
	}
	mu.Lock()
	if len(foreign) > 0 {
		t.Errorf("requests to other hosts: %v", foreign)
	}
	mu.Unlock()

	var doc struct {
		Tags []struct {
			Name string `json:"name"`
		} `json:"tags"`
		Webhooks map[string]struct {
			Post struct {
				OperationID string `json:"operationId"`
			} `json:"post"`
		} `json:"webhooks"`
	}
	if err := json.Unmarshal(a.do("GET", "/v1/openapi.json", "", nil).want(200).Body, &doc); err != nil {
		t.Fatal(err)
	}
	shown := map[string]bool{}
	for _, m := range regexp.MustCompile(` id="([^"]+)"`).FindAllSubmatch(dom, -1) {
		shown[string(m[1])] = true
	}
	if len(doc.Tags) < 30 || len(doc.Webhooks) != 61 {
		t.Fatalf("%d tags, %d webhooks in the description", len(doc.Tags), len(doc.Webhooks))
	}
	for _, tag := range doc.Tags {
		if !shown["operations-tag-"+tag.Name] {
			t.Errorf("resource group %s not on the page", tag.Name)
		}
	}
	for name, wh := range doc.Webhooks {
		if !shown["operations-webhooks-"+wh.Post.OperationID] {
			t.Errorf("webhook %s not on the page", name)
		}
	}

	dir := os.Getenv("LARDER_TEST_ARTIFACTS")
	if dir == "" {
		dir = os.TempDir()
	}
	shot := filepath.Join(dir, "larder-docs.png")
	browse("--screenshot="+shot, a.url+apidocs.Path)
	if st, err := os.Stat(shot); err != nil || st.Size() < 50_000 {
		t.Fatalf("screenshot %s: %v", shot, err)
	}
	t.Logf("screenshot: %s", shot)
}
