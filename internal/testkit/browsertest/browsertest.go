// Package browsertest drives a real headless Chromium for the tests of the
// server's HTML pages: it opens a tab, navigates, fills and submits forms
// (also with JavaScript off), checks a page with axe-core and writes
// screenshots outside the repository. Only _test.go files import it.
//
// A tab makes no request to a host other than the loopback: the browser
// refuses any other, and the test fails at its end naming each one.
//
// Without Chromium (chromium or chromium-browser on PATH) a test skips,
// saying so, unless LARDER_TEST_CHROMIUM=1 (CI sets it), which makes it fail.
package browsertest

import (
	"context"
	"net"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// Timeout bounds the work of one test in its tab, so a page that never
// loads or a field that never appears fails the test instead of hanging
// until the test binary's own deadline. A single step waits findTimeout at
// most; the whole tour of every page, each checked at two window widths
// (overflow, accessibility, keyboard reach, screenshot), takes about 150 s
// alone on two cores (2026-12-05, `LARDER_TEST_CHROMIUM=1 go test
// ./internal/testkit/e2e -run TestEveryPage`) and past 180 s while other
// packages' tests run beside it, so the budget is eight minutes.
const Timeout = 8 * time.Minute

// shared is the browser process that every test of a package uses when the
// package's TestMain runs Main: starting Chromium costs about a second,
// opening a tab a few milliseconds.
var shared struct {
	sync.Mutex
	enabled bool               // Main runs the tests
	browser context.Context    // the first tab; nil until a test needs one
	stop    context.CancelFunc // ends the browser process
	dir     string             // its profile, removed when it ends
}

// Main runs the package's tests with one browser process that each test
// reaches through its own tab and its own browser context (cookies and
// storage are not shared between tests), and ends it afterwards. Use it as
//
//	func TestMain(m *testing.M) { os.Exit(browsertest.Main(m)) }
//
// Without it, every test starts and ends its own browser.
func Main(m *testing.M) int {
	shared.Lock()
	shared.enabled = true
	shared.Unlock()
	code := m.Run()
	shared.Lock()
	defer shared.Unlock()
	if shared.stop != nil {
		shared.stop()
		os.RemoveAll(shared.dir)
	}
	return code
}

// executable finds Chromium, or ends the test: skipped locally, failed
// when LARDER_TEST_CHROMIUM=1 says the environment must have it.
func executable(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if path, err := exec.LookPath(name); err == nil {
			return path
		}
	}
	if os.Getenv("LARDER_TEST_CHROMIUM") == "1" {
		t.Fatal("Chromium is not installed (apt-get install chromium) and LARDER_TEST_CHROMIUM=1")
	}
	t.Skip("SKIPPED: browser tests need Chromium (apt-get install chromium); CI sets LARDER_TEST_CHROMIUM=1 to require it")
	return ""
}

// start launches a headless browser with the profile dir and returns the
// context of its first tab, already open.
func start(t testing.TB, path, dir string) (context.Context, context.CancelFunc) {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.UserDataDir(dir),
		chromedp.WindowSize(1280, 800),
	)
	if os.Geteuid() == 0 {
		// Chromium refuses to run as root with its sandbox on; containers
		// and CI run tests as root.
		opts = append(opts, chromedp.NoSandbox)
	}
	alloc, stopAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	browser, stopBrowser := chromedp.NewContext(alloc)
	stop := func() { stopBrowser(); stopAlloc() }
	if err := chromedp.Do(browser); err != nil {
		stop()
		t.Fatalf("start Chromium %s: %v", path, err)
	}
	return browser, stop
}

// browser returns the context of a running browser that a new tab can be
// opened from: the shared one under Main, else one for this test alone,
// ended when the test ends.
func browser(t testing.TB) context.Context {
	t.Helper()
	path := executable(t)
	shared.Lock()
	defer shared.Unlock()
	if !shared.enabled {
		ctx, stop := start(t, path, t.TempDir())
		t.Cleanup(stop)
		return ctx
	}
	if shared.browser == nil {
		dir, err := os.MkdirTemp("", "larder-chromium-")
		if err != nil {
			t.Fatal(err)
		}
		shared.dir = dir
		shared.browser, shared.stop = start(t, path, dir)
	}
	return shared.browser
}

// tab is what a test's context knows about its tab.
type tab struct {
	noScript bool // JavaScript is off (NewNoScript)

	mu       sync.Mutex
	requests []string // every URL the tab requested, in order
	foreign  []string // those to a host other than the loopback (refused)
}

type tabKey struct{}

// New opens a tab for the test in a fresh browser context (no cookies, no
// storage) and returns its context, bounded by Timeout. The tab closes when
// the test ends; the test then fails if a page asked for anything from a
// host other than 127.0.0.1, localhost or ::1 (those requests are refused).
func New(t testing.TB) context.Context {
	t.Helper()
	return open(t, false)
}

// NewNoScript is New with JavaScript off in the tab, for every page it
// loads: forms submit and links work as they would for a person whose
// browser runs no script. axe-core still runs (Axe), as the protocol's
// evaluation is not the page's scripting.
func NewNoScript(t testing.TB) context.Context {
	t.Helper()
	return open(t, true)
}

func open(t testing.TB, noScript bool) context.Context {
	t.Helper()
	tabCtx, closeTab := chromedp.NewContext(browser(t), chromedp.WithNewBrowserContext())
	t.Cleanup(closeTab)
	if err := chromedp.Do(tabCtx); err != nil {
		t.Fatalf("open a tab: %v", err)
	}

	st := &tab{noScript: noScript}
	// Subscribe before enabling interception so no paused request is
	// missed; each one waits until it is continued or refused.
	paused := chromedp.Events(tabCtx, fetch.RequestPaused)
	if _, err := chromedp.Call(tabCtx, fetch.Enable, fetch.EnableParams{}); err != nil {
		t.Fatalf("intercept requests: %v", err)
	}
	go func() {
		for ev, err := range paused {
			if err != nil {
				return
			}
			// A reply fails only when the tab is closing, which ends the
			// loop anyway.
			if st.record(ev.Request.URL) {
				chromedp.Call(tabCtx, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: ev.RequestID})
			} else {
				chromedp.Call(tabCtx, fetch.FailRequest, fetch.FailRequestParams{RequestID: ev.RequestID, ErrorReason: network.ErrorReasonBlockedByClient})
			}
		}
	}()
	t.Cleanup(func() {
		if foreign := st.foreignRequests(); len(foreign) > 0 {
			t.Errorf("the pages requested %d URL(s) from another host (refused):\n  %s", len(foreign), strings.Join(foreign, "\n  "))
		}
	})

	if noScript {
		if err := scripts(tabCtx, true); err != nil {
			t.Fatalf("turn JavaScript off: %v", err)
		}
	}

	timeout := Timeout
	if d, ok := t.(interface{ Deadline() (time.Time, bool) }); ok {
		// End a little before the test binary would, so the failure
		// names the step that hung.
		if end, ok := d.Deadline(); ok && time.Until(end)-5*time.Second < timeout {
			timeout = max(time.Until(end)-5*time.Second, time.Second)
		}
	}
	ctx, cancel := context.WithTimeout(tabCtx, timeout)
	t.Cleanup(cancel)
	return context.WithValue(ctx, tabKey{}, st)
}

// record notes a requested URL and reports whether it may be fetched: only
// from the loopback, as the pages under test must work offline.
func (st *tab) record(rawURL string) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.requests = append(st.requests, rawURL)
	if local(rawURL) {
		return true
	}
	st.foreign = append(st.foreign, rawURL)
	return false
}

func (st *tab) foreignRequests() []string {
	st.mu.Lock()
	defer st.mu.Unlock()
	return append([]string(nil), st.foreign...)
}

// local reports whether the URL names the loopback host.
func local(rawURL string) bool {
	u, err := url.Parse(rawURL)
	if err != nil {
		return false
	}
	host := u.Hostname()
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Requests returns every URL the tab of ctx (from New) has requested so far,
// in order, including refused ones; nil for another context.
func Requests(ctx context.Context) []string {
	st, _ := ctx.Value(tabKey{}).(*tab)
	if st == nil {
		return nil
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	return append([]string(nil), st.requests...)
}
