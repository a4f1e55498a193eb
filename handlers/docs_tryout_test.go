package handlers_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"larder.dev/larder/internal/platform/apidocs"
	"larder.dev/larder/internal/testkit/dbtest"
)

// tryItOut drives the docs page as a person would: once the description is
// rendered it authorizes with the key, opens the Organization group and its
// operation,
// presses "Try it out" then "Execute", and writes the request URL and the
// answer's status the page shows into #tryit-result.
const tryItOut = `
(function () {
  var step = 0, authorized = false, opened = false;
  var timer = setInterval(function () {
    var op = document.getElementById("operations-Organization-getOrganization");
    var tag = document.getElementById("operations-tag-Organization");
    if (!op && tag && !opened) { tag.click(); opened = true; }
    if (!op) { return; }
    if (!authorized && window.ui) { window.ui.preauthorizeApiKey("bearerAuth", KEY); authorized = true; }
    var click = function (sel) { var b = op.querySelector(sel); if (b) { b.click(); step++; } };
    if (step === 0) { click(".opblock-summary-control"); return; }
    if (step === 1) { click(".try-out__btn"); return; }
    if (step === 2) { click(".execute"); return; }
    // The answer's status, or after twenty seconds whatever the page shows.
    var url = op.querySelector(".request-url pre");
    var status = op.querySelector(".live-responses-table tr.response .response-col_status");
    if (step++ > 203 || (url && status)) {
      clearInterval(timer);
      var out = document.createElement("pre");
      out.id = "tryit-result";
      out.textContent = JSON.stringify({
        url: url ? url.textContent.trim() : "",
        status: status ? status.textContent.trim() : op.querySelector(".responses-wrapper").textContent.slice(0, 600)
      });
      document.body.appendChild(out);
    }
  }, 100);
})();
`

// The docs page's "Try it out" calls the server the page is served from,
// whatever address it listens on (here a port chosen at random): the
// description's server is relative. The page is the served one, with one
// script added that presses its buttons; the server records the request.
// SQLite only, as the page depends on no database.
func TestDocsPageTriesItOutOnItsOwnServer(t *testing.T) {
	browser := chromium(t)
	t.Parallel()
	a := newAPI(t, dbtest.Open(t, dbtest.SQLite))
	page := a.do("GET", apidocs.Path, "", nil).want(200).Body
	if !bytes.Contains(page, []byte("</body>")) {
		t.Fatalf("the page has no </body>:\n%s", page)
	}
	page = bytes.Replace(page, []byte("</body>"), []byte(`<script src="/tryit.js"></script></body>`), 1)
	key, _ := json.Marshal(a.key)

	var mu sync.Mutex
	var seen []string
	mux := http.NewServeMux()
	mux.HandleFunc("GET /tryit", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write(page)
	})
	mux.HandleFunc("GET /tryit.js", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
		_, _ = w.Write([]byte(strings.Replace(tryItOut, "KEY", string(key), 1)))
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Method+" "+r.URL.Path)
		mu.Unlock()
		a.srv.ServeHTTP(w, r)
	})
	hs := httptest.NewServer(mux)
	t.Cleanup(hs.Close)

	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, browser,
		"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+t.TempDir(), "--virtual-time-budget=30000", "--dump-dom", hs.URL+"/tryit")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, errb.Bytes())
	}
	m := regexp.MustCompile(`<pre id="tryit-result">([^<]*)</pre>`).FindSubmatch(out.Bytes())
	mu.Lock()
	defer mu.Unlock()
	if m == nil {
		// The operation's block, if the page rendered it, shows where it stopped.
		dom := out.Bytes()
		if i := bytes.Index(dom, []byte(`id="operations-Organization-getOrganization"`)); i >= 0 {
			dom = dom[i:]
		}
		t.Fatalf("the page never showed an answer to Execute; the server saw %v\n%.4000s", seen, dom)
	}
	var got struct{ URL, Status string }
	if err := json.Unmarshal(bytes.ReplaceAll(m[1], []byte("&quot;"), []byte(`"`)), &got); err != nil {
		t.Fatalf("%v: %s", err, m[1])
	}
	if want := hs.URL + "/v1/organization"; got.URL != want || got.Status != "200" {
		t.Errorf("Try it out called %s and shows %s, want %s answering 200", got.URL, got.Status, want)
	}
	called := false
	for _, s := range seen {
		called = called || s == "GET /v1/organization"
	}
	if !called {
		t.Errorf("the server never received GET /v1/organization; it saw %v", seen)
	}
}
