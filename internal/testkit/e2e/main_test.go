// Package e2e_test drives the whole server, API and console on one address
// with the webhook dispatcher running, through a real headless Chromium, on
// SQLite and on PostgreSQL at once (dbtest.RunBoth): the flows a person
// follows in the console, each checked for what it changes (the API answers,
// the receiver gets posts) and each page checked with axe-core and kept as a
// screenshot.
package e2e_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"larder.dev/larder/console"
	"larder.dev/larder/handlers"
	"larder.dev/larder/internal/identity/people"
	"larder.dev/larder/internal/identity/ratelimit"
	"larder.dev/larder/internal/platform/config"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/browsertest"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/internal/webhooks"
)

// TestMain shares one Chromium between the tests (browsertest.Main) and,
// once it has ended, drops the package's PostgreSQL database (dbtest.Main,
// which exits with the tests' code, so it goes outside).
func TestMain(m *testing.M) {
	// The pictures the documentation keeps are encoded for size.
	browsertest.SmallScreenshots = os.Getenv("LARDER_UPDATE_DOCS") == "1"
	dbtest.Main(dbtest.RunFunc(func() int { return browsertest.Main(m) }))
}

// password is the password of every person the tests make.
const password = "correct horse battery staple"

// site is the server as `larder serve` assembles it, on one test's database:
// the API under /v1, the console under /console/, and a webhook dispatcher
// allowed to post to the loopback, where the tests' receivers listen.
type site struct {
	t      *testing.T
	people *people.Service
	hooks  *webhooks.Registry
	// URL is the server's origin, http://127.0.0.1:port.
	URL string
}

// newSite starts the server on st until the test ends.
func newSite(t *testing.T, st *store.Store) *site {
	t.Helper()
	log := slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn}))
	cfg := config.Defaults()
	// The package's tests share PostgreSQL's counters of 127.0.0.1, where
	// every request of every test comes from.
	cfg.AuthFailLimit = 1 << 20
	api, err := handlers.New(st, handlers.Options{Config: cfg, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	// The sign-in throttle counts per test, for the same reason; serve
	// passes the API's limiter, which holds on PostgreSQL for the package.
	// argon2id runs at its lowest costs: every test signs people in on
	// shared cores (people's own tests check the real costs).
	ppl := people.New(st.Client, people.Options{Limiter: ratelimit.NewMemory(), Hash: people.HashParams{Memory: 256, Time: 1, Threads: 1}})
	// A short poll: a queued ping is posted within a fraction of a second
	// rather than serve's two. serve runs one dispatcher and gives the
	// console another for single resends; one does both here.
	d := webhooks.New(st, webhooks.Options{AllowPrivate: true, PollInterval: 100 * time.Millisecond, Log: log})
	hooks := &webhooks.Registry{Client: st.Client, AllowPrivate: true}
	// The test server's address is the console's: its links use it.
	srv := httptest.NewUnstartedServer(nil)
	con, err := console.New(console.Options{
		BaseURL:    "http://" + srv.Listener.Addr().String(),
		Client:     st.Client,
		People:     ppl,
		Webhooks:   hooks,
		Dispatcher: d,
		Log:        log,
		Snapshot:   st.Snapshot,
	})
	if err != nil {
		t.Fatal(err)
	}
	// As serve's withConsole: the console under /console/, the API
	// everywhere else.
	mux := http.NewServeMux()
	mux.Handle("/console/", con)
	mux.Handle("/console", con)
	mux.Handle("/", api)
	srv.Config.Handler = mux
	srv.Start()
	t.Cleanup(srv.Close)

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		d.Run(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return &site{t: t, people: ppl, hooks: hooks, URL: srv.URL}
}

// emails makes addresses unique in the database the package's tests share
// on PostgreSQL.
var emails atomic.Int64

// email is a new address for a person of the test.
func email(name string) string {
	return fmt.Sprintf("%s-%d-%d@example.com", name, time.Now().UnixNano(), emails.Add(1))
}

// invite invites a person of role into org and returns them with the path
// of their one-time link.
func (s *site) invite(orgID int, role people.Role) (people.Person, string) {
	s.t.Helper()
	p, l, err := s.people.Invite(context.Background(), orgID, email(string(role)), role)
	if err != nil {
		s.t.Fatal(err)
	}
	return p, people.LinkPath(l.Token)
}

// person makes a person of role in org whose password is set.
func (s *site) person(orgID int, role people.Role) people.Person {
	s.t.Helper()
	p, link := s.invite(orgID, role)
	token := strings.TrimPrefix(link, "/console/welcome/")
	if _, err := s.people.UseLink(context.Background(), token, password, people.Client{Address: "192.0.2.1"}); err != nil {
		s.t.Fatal(err)
	}
	return p
}

// tab opens a browser tab for the test (browsertest.New, or NewNoScript
// when noScript) that also fails the test at its end for every message the
// pages wrote to the console: an error of a script, a resource that did not
// load, a breach of the Content-Security-Policy (an inline script or
// style). A page answered with an error status on purpose (404, 403) is
// expected to log that status, and only that.
func tab(t *testing.T, noScript bool) context.Context {
	t.Helper()
	var ctx context.Context
	if noScript {
		ctx = browsertest.NewNoScript(t)
	} else {
		ctx = browsertest.New(t)
	}
	var mu sync.Mutex
	var logged []string
	msgs := chromedp.Console(ctx)
	go func() {
		for m, err := range msgs {
			if err != nil {
				return
			}
			if expected(m) {
				continue
			}
			mu.Lock()
			logged = append(logged, fmt.Sprintf("%s (%s) %s", m, m.Source, m.URL))
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		if len(logged) > 0 {
			t.Errorf("the pages wrote %d console message(s):\n  %s", len(logged), strings.Join(logged, "\n  "))
		}
	})
	return ctx
}

// expected reports whether a console message is one the tests cause on
// purpose: a page answered 4xx (a form with errors, a refusal) logs its
// status, and the browser asks the root for /favicon.ico, which the API
// answers 404; a console asset that does not load is never expected.
func expected(m chromedp.ConsoleMessage) bool {
	// A form's autofocus meets the focus the test already put on a field
	// when the test types before the page's autofocus step runs: the
	// browser says so as information, and the field the test chose keeps
	// the focus.
	if m.Source == "rendering" && strings.HasPrefix(m.Text, "Autofocus processing was blocked") {
		return true
	}
	if m.Source != "network" || !strings.HasPrefix(m.Text, "Failed to load resource: the server responded with a status of 4") {
		return false
	}
	u, err := url.Parse(m.URL)
	if err != nil {
		return false
	}
	return u.Path == "/favicon.ico" || strings.HasPrefix(u.Path, "/console/") && !strings.HasPrefix(u.Path, "/console/assets/")
}

// widths are the windows every page is checked in: a phone's 390 px and
// a laptop's 1,366 px.
var widths = []int64{390, 1366}

// axeWidth is the width axe-core checks a page at: its rules read the
// document, its names, roles and colours, which a window's width does not
// change (the navigation folded at a phone's width is the same list,
// hidden); what the width does change, the page's own width and the
// keyboard's way to the primary action, is checked at both.
const axeWidth = 1366

// pageRun is the part of a test's name ("/sqlite") that marks the run on
// the first of the databases under test, which checks the pages and keeps
// their screenshots. Both runs show the same pages (the markup, styles and
// scripts do not depend on the database), and each run checks what the
// flow changed; the pages' checks are done once.
func pageRun(t *testing.T) string { return "/" + string(dbtest.Backends(t)[0]) }

// check checks the page the tab shows in a window of each of widths: the
// page is no wider than the window (the document does not scroll
// sideways; a wide table scrolls inside its own box), a keyboard reaches
// the page's primary action within 10 Tab presses, and, at axeWidth,
// axe-core finds no serious or critical violation; and it keeps a
// screenshot at each width named after the test and the page. It does so
// in the first database's run (pageRun); the other run only leaves the
// window as the first leaves it, 1,366 px wide.
func check(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	run := pageRun(t)
	if !strings.Contains(t.Name(), run) {
		resize(t, ctx, widths[len(widths)-1])
		return
	}
	for _, w := range widths {
		resize(t, ctx, w)
		if over, err := chromedp.Run(ctx, chromedp.Evaluate[[]int64](`[document.documentElement.scrollWidth, document.documentElement.clientWidth]`)); err != nil {
			t.Fatalf("measure %s: %v", name, err)
		} else if over[0] > over[1] {
			t.Errorf("%s at %d px: the page is %d px wide in a window of %d px", name, w, over[0], over[1])
		}
		if w == axeWidth {
			browsertest.Axe(t, ctx)
		}
		reach(t, ctx, name, w)
		if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`document.activeElement && document.activeElement.blur()`)); err != nil {
			t.Fatal(err)
		}
		shot := fmt.Sprintf("%s/%s-%d", t.Name(), name, w)
		path := browsertest.Screenshot(t, ctx, shot)
		keepForDocs(t, strings.Replace(shot, run, "", 1), path)
	}
}

// docShots are the screenshots the documentation shows, by the test and
// page (and width) that take them: docs/<file>. With LARDER_UPDATE_DOCS=1
// the SQLite run copies each over its file, so the pictures show the
// console as it is; TestDocShots checks every picture is among them.
var docShots = map[string]string{
	"TestWebhookEndpoint/webhooks-1366":             "console-webhooks.png",
	"TestRequestCharts/requests-charts-1366":        "console-requests.png",
	"TestPlanFromTheRecipe/plan-recipe-1366":        "console-plan.png",
	"TestLotTrace/lot-1366":                         "console-lot-trace.png",
	"TestSignInWithSecondFactor/recovery-codes-390": "console-recovery-codes.png",
}

// docsDir is the documentation's folder, from the package's.
const docsDir = "../../../docs"

// keepForDocs copies the screenshot at path, taken as shot, into the
// documentation when it shows it and LARDER_UPDATE_DOCS=1.
func keepForDocs(t *testing.T, shot, path string) {
	t.Helper()
	file, ok := docShots[shot]
	if !ok || os.Getenv("LARDER_UPDATE_DOCS") != "1" {
		return
	}
	png, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(docsDir, file), png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("docs/%s updated from %s", file, shot)
}

// resize makes the tab's window width px wide (and 800 px high), as a
// phone or a laptop would show the page.
func resize(t *testing.T, ctx context.Context, width int64) {
	t.Helper()
	if _, err := chromedp.Call(ctx, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{Width: width, Height: 800, DeviceScaleFactor: 1, Mobile: width < 600}); err != nil {
		t.Fatalf("resize to %d px: %v", width, err)
	}
}

// primaryAction marks the page's primary action: the element with class
// primary in its main content, else its first submit button or button
// link, else its first link; none on a page without one. It returns what
// the element says.
const primaryAction = `(() => {
	for (const e of document.querySelectorAll('[data-e2e-primary]')) e.removeAttribute('data-e2e-primary');
	const m = document.querySelector('main');
	const p = m && (m.querySelector('.primary') || m.querySelector('button[type=submit], a.button') || m.querySelector('a[href]'));
	if (!p) return '';
	p.setAttribute('data-e2e-primary', '');
	return (p.textContent || p.value || '').trim().replace(/\s+/g, ' ');
})()`

// reached reports whether the focus is on the primary action, or on a
// field of its form where Enter sends the form (a submit button is then
// one key away: the browser's implicit submission).
const reached = `(() => {
	const a = document.activeElement, p = document.querySelector('[data-e2e-primary]');
	if (!a || !p) return false;
	if (a === p) return true;
	return p.type === 'submit' && !!p.form && a.form === p.form &&
		a.matches('input:not([type=checkbox]):not([type=radio]):not([type=button]):not([type=submit]):not([type=reset]):not([type=hidden]):not([type=file])');
})()`

// reach presses Tab as a keyboard user would from the top of the page: the
// first press reaches the skip link, which moves the focus to the main
// content; each further press moves on, until the primary action has the
// focus. More than 10 presses in all fail the test.
func reach(t *testing.T, ctx context.Context, name string, width int64) {
	t.Helper()
	label, err := chromedp.Run(ctx, chromedp.Evaluate[string](primaryAction))
	if err != nil {
		t.Fatalf("find the primary action of %s: %v", name, err)
	}
	if label == "" {
		return
	}
	// The first press: the skip link, the page's first stop.
	first, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => { const s = document.querySelector('a.skip'); if (!s) return false; s.focus(); return document.activeElement === s; })()`))
	if err != nil || !first {
		t.Fatalf("%s at %d px: the skip link does not take the focus (%v)", name, width, err)
	}
	// Following it moves the focus to the main content.
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`document.getElementById('main').focus()`)); err != nil {
		t.Fatal(err)
	}
	for presses := 2; presses <= 10; presses++ {
		if err := chromedp.Do(ctx, chromedp.KeyEvent(kb.Tab)); err != nil {
			t.Fatalf("press Tab: %v", err)
		}
		on, err := chromedp.Run(ctx, chromedp.Evaluate[bool](reached))
		if err != nil {
			t.Fatal(err)
		}
		if on {
			return
		}
	}
	t.Errorf("%s at %d px: the primary action %q is not reached within 10 Tab presses", name, width, label)
}

// open opens a console path in the tab and fails the test unless the page
// answers want.
func (s *site) open(t *testing.T, ctx context.Context, path string, want int) {
	t.Helper()
	if got := browsertest.Open(t, ctx, s.URL+path); got != want {
		t.Fatalf("GET %s: %d, want %d\n%s", path, got, want, mainText(t, ctx))
	}
}

// submit clicks the button and fails the test unless the page it leads to
// answers want.
func submit(t *testing.T, ctx context.Context, button string, want int) {
	t.Helper()
	if got := browsertest.Submit(t, ctx, button); got != want {
		t.Fatalf("submit %q: %d, want %d\n%s", button, got, want, mainText(t, ctx))
	}
}

// signIn signs in with the sign-in form and lands where it leads.
func (s *site) signIn(t *testing.T, ctx context.Context, email string) {
	t.Helper()
	s.open(t, ctx, "/console/sign-in", http.StatusOK)
	browsertest.Fill(t, ctx, "E-mail address", email)
	browsertest.Fill(t, ctx, "Password", password)
	submit(t, ctx, "Sign in", http.StatusOK)
}

// path is the path and query of the page the tab shows.
func (s *site) path(t *testing.T, ctx context.Context) string {
	t.Helper()
	return strings.TrimPrefix(browsertest.URL(t, ctx), s.URL)
}

// mainText is the visible text of the page's main element, for failures
// and assertions about what a page says.
func mainText(t *testing.T, ctx context.Context) string {
	t.Helper()
	return browsertest.Text(t, ctx, "main")
}

// value is the value of the single input the CSS selector matches (a key
// or secret shown in a read-only field).
func value(t *testing.T, ctx context.Context, css string) string {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Value(chromedp.CSS(css)))
	if err != nil {
		t.Fatalf("value of %s: %v", css, err)
	}
	return v
}

// confirmations accepts every JavaScript dialog the tab opens (the
// console's data-confirm forms ask with window.confirm) and returns what
// they asked so far.
func confirmations(t *testing.T, ctx context.Context) func() []string {
	t.Helper()
	var mu sync.Mutex
	var asked []string
	dialogs := chromedp.Events(ctx, page.JavascriptDialogOpening)
	go func() {
		for ev, err := range dialogs {
			if err != nil {
				return
			}
			mu.Lock()
			asked = append(asked, ev.Message)
			mu.Unlock()
			// Fails only when the tab is closing.
			chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: true})
		}
	}()
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), asked...)
	}
}

// xpathString quotes s as an XPath 1.0 literal (no string here has both
// quote kinds).
func xpathString(s string) string {
	if strings.Contains(s, "'") {
		return `"` + s + `"`
	}
	return "'" + s + "'"
}

// choose clicks the single radio button or checkbox inside the elements
// the XPath within matches ("" for the whole page) whose label starts with
// text, as a person would (so it works with JavaScript off), and fails the
// test unless it is checked afterwards.
func choose(t *testing.T, ctx context.Context, within, text string) {
	t.Helper()
	q := xpathString(text)
	box := `(@type='radio' or @type='checkbox')`
	tickXPath(t, ctx, "the choice "+text,
		within+`//label[starts-with(normalize-space(.), `+q+`)]//input[`+box+`]`+
			` | `+within+`//input[`+box+` and @id=//label[starts-with(normalize-space(.), `+q+`)]/@for]`)
}

// tick is choose for the checkbox or radio button named name with value.
func tick(t *testing.T, ctx context.Context, within, name, value string) {
	t.Helper()
	tickXPath(t, ctx, name+"="+value, within+`//input[@name=`+xpathString(name)+` and @value=`+xpathString(value)+`]`)
}

// tickXPath clicks the single input the XPath matches and fails the test
// unless it is checked afterwards.
func tickXPath(t *testing.T, ctx context.Context, what, xpath string) {
	t.Helper()
	fctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	nodes, err := chromedp.Run(fctx, chromedp.Nodes(chromedp.Search(xpath)))
	if err != nil || len(nodes) != 1 {
		t.Fatalf("find %s: %d found, %v", what, len(nodes), err)
	}
	ids := chromedp.NodeIDs{nodes[0].NodeID}
	if err := chromedp.Do(ctx, chromedp.Click(ids)); err != nil {
		t.Fatalf("choose %s: %v", what, err)
	}
	checked, err := chromedp.Run(ctx, chromedp.JavascriptAttribute[bool](ids, "checked"))
	if err != nil || !checked {
		t.Fatalf("%s is not checked after the click (%v)", what, err)
	}
}

// typeInto replaces the value of the single input the CSS selector matches by
// typing, for fields a label does not tell apart (two forms on one page).
func typeInto(t *testing.T, ctx context.Context, css, value string) {
	t.Helper()
	fctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := chromedp.Do(fctx, chromedp.Clear(chromedp.CSS(css)), chromedp.SendKeys(chromedp.CSS(css), value)); err != nil {
		t.Fatalf("type into %s: %v", css, err)
	}
}

// follow clicks the single shown link whose text is text (spaces normalized) and
// fails the test unless the page it leads to answers want.
func follow(t *testing.T, ctx context.Context, text string, want int) {
	t.Helper()
	fctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	nodes, err := chromedp.Run(fctx, chromedp.Nodes(chromedp.Search(`//a[normalize-space(.)=`+xpathString(text)+`]`)))
	cancel()
	if len(nodes) > 1 {
		// The navigation is in the sidebar and in the menu; one shows.
		nodes = browsertest.Shown(ctx, nodes)
	}
	if err != nil || len(nodes) != 1 {
		t.Fatalf("find the link %q: %d found, %v", text, len(nodes), err)
	}
	resp, err := chromedp.RunResponse(ctx, chromedp.Click(chromedp.NodeIDs{nodes[0].NodeID}))
	if err != nil {
		t.Fatalf("follow %q: %v", text, err)
	}
	if int(resp.Status) != want {
		t.Fatalf("follow %q: %d, want %d\n%s", text, resp.Status, want, mainText(t, ctx))
	}
}

// reply is an API answer read whole.
type reply struct {
	status int
	header http.Header
	body   []byte
}

// decode reads the answer's JSON into v.
func (r reply) decode(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(r.body, v); err != nil {
		t.Fatalf("answer %d %s: %v", r.status, r.body, err)
	}
}

// call makes an API request with a key; body, when not nil, is sent as JSON.
func (s *site) call(t *testing.T, method, path, key string, body any) reply {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, s.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return reply{status: res.StatusCode, header: res.Header, body: b}
}

// waitFor fails the test unless cond holds within 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not within 10 s: %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// unfold opens the form folded behind the button (a disclosure's summary)
// whose text is text.
func unfold(t *testing.T, ctx context.Context, text string) {
	t.Helper()
	fctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := chromedp.Do(fctx, chromedp.Click(chromedp.Search(`//details[not(@open)]/summary[normalize-space(.)=`+xpathString(text)+`]`))); err != nil {
		t.Fatalf("unfold %q: %v", text, err)
	}
}
