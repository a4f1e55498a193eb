package browsertest

import (
	"bytes"
	"fmt"
	"go/parser"
	"go/token"
	"image/png"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"
)

func TestMain(m *testing.M) { os.Exit(Main(m)) }

// strictCSP is the policy the console's pages send: no inline script, no
// other host.
const strictCSP = "default-src 'self'; script-src 'self'"

const goodPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Good</title>
<script src="/app.js"></script>
<link rel="stylesheet" href="/style.css">
<script>document.title = 'inline script ran';</script>
</head><body><main>
<h1>A page</h1>
<p id="js">off</p>
<form method="post" action="/submit">
<label for="name">Name</label> <input id="name" name="name" value="old">
<label>Note <textarea name="note"></textarea></label>
<label for="size">Size</label> <select id="size" name="size"><option value="s">Small</option><option value="l">Large</option></select>
<button type="button" id="show">Show</button>
<button type="submit">Send</button>
</form>
<div class="tall">tall</div>
<p>end</p>
</main></body></html>`

// appJS marks the page when scripts run.
const appJS = `document.addEventListener('DOMContentLoaded', () => {
	const js = document.getElementById('js');
	js.textContent = 'on';
	document.getElementById('show').addEventListener('click', () => { js.textContent = 'clicked'; });
});`

const badPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Bad</title></head><body><main>
<h1>A page</h1>
<input id="nolabel" type="text">
<img id="noalt" src="/pixel.png">
</main></body></html>`

const foreignPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Foreign</title></head><body><main>
<h1>A page</h1><img src="http://192.0.2.7/tracker.png" alt="tracker">
</main></body></html>`

// site serves the test pages, all but /foreign with the strict policy,
// and records what /submit receives.
type site struct {
	*httptest.Server
	mu     sync.Mutex
	posted []string
}

func newSite(t *testing.T) *site {
	s := &site{}
	mux := http.NewServeMux()
	page := func(body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Security-Policy", strictCSP)
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, body)
		}
	}
	mux.HandleFunc("GET /good", page(goodPage))
	mux.HandleFunc("GET /bad", page(badPage))
	mux.HandleFunc("GET /foreign", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, foreignPage)
	})
	mux.HandleFunc("GET /app.js", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript")
		fmt.Fprint(w, appJS)
	})
	mux.HandleFunc("GET /style.css", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/css")
		fmt.Fprint(w, ".tall { height: 2400px; }")
	})
	mux.HandleFunc("GET /pixel.png", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNotFound)
	})
	mux.HandleFunc("POST /submit", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.posted = append(s.posted, r.PostFormValue("name"), r.PostFormValue("note"), r.PostFormValue("size"))
		s.mu.Unlock()
		http.SetCookie(w, &http.Cookie{Name: "seen", Value: "yes", Path: "/", HttpOnly: true, SameSite: http.SameSiteLaxMode})
		http.Redirect(w, r, "/done", http.StatusSeeOther)
	})
	mux.HandleFunc("GET /done", page(`<!doctype html><html lang="en"><head><title>Done</title></head>
<body><main><h1>Done</h1><p id="result">Thanks</p></main></body></html>`))
	s.Server = httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

// recorder keeps the errors a helper reports instead of failing the test,
// so a test can show that the helper does fail.
type recorder struct {
	*testing.T
	mu   sync.Mutex
	errs []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func (r *recorder) errors() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.errs, "\n")
}

// An accessible page passes axe-core although its policy forbids inline
// script (the page's own inline script did not run, so the policy held)
// and the page's own script file ran.
func TestAxePassesAccessiblePageUnderStrictCSP(t *testing.T) {
	s := newSite(t)
	ctx := New(t)
	if status := Open(t, ctx, s.URL+"/good"); status != http.StatusOK {
		t.Fatalf("status %d", status)
	}
	if got := Text(t, ctx, "#js"); got != "on" {
		t.Errorf("the page's script file did not run: #js is %q", got)
	}
	Click(t, ctx, "Show")
	if got := Text(t, ctx, "#js"); got != "clicked" {
		t.Errorf("after the click #js is %q", got)
	}
	vs, err := axeViolations(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vs {
		t.Errorf("violation %s (%s): %s", v.ID, v.Impact, v.Help)
	}
	Axe(t, ctx)
	title, err := chromedp.Run(ctx, chromedp.Title())
	if err != nil {
		t.Fatal(err)
	}
	if title != "Good" {
		t.Errorf("title %q: the inline script ran, so the policy was not in force", title)
	}
}

// An unlabelled input and an image without alt text are critical: axe-core
// names both rules and both elements, and Axe fails the test with them.
func TestAxeReportsViolations(t *testing.T) {
	s := newSite(t)
	ctx := New(t)
	Open(t, ctx, s.URL+"/bad")
	vs, err := axeViolations(ctx)
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]Violation{}
	for _, v := range vs {
		found[v.ID] = v
	}
	for id, target := range map[string]string{"label": "#nolabel", "image-alt": "#noalt"} {
		v, ok := found[id]
		if !ok {
			t.Errorf("no %s violation in %+v", id, vs)
			continue
		}
		if v.Impact != "critical" {
			t.Errorf("%s impact %q, want critical", id, v.Impact)
		}
		if len(v.Nodes) != 1 || !slices.Equal(v.Nodes[0].Target, []string{target}) {
			t.Errorf("%s elements %+v, want %s", id, v.Nodes, target)
		}
	}

	rec := &recorder{T: t}
	Axe(rec, ctx)
	got := rec.errors()
	for _, want := range []string{"2 serious or critical", "label (critical)", "#nolabel", "image-alt (critical)", "#noalt", "/bad"} {
		if !strings.Contains(got, want) {
			t.Errorf("Axe's failure lacks %q:\n%s", want, got)
		}
	}
}

// With JavaScript off the page's script does not run, the form still
// submits what was typed (replacing the value that was there) through a
// redirect, and the helpers read the new page, its URL and its cookie. Axe
// works with scripts off.
func TestFormWithoutJavaScript(t *testing.T) {
	s := newSite(t)
	ctx := NewNoScript(t)
	Open(t, ctx, s.URL+"/good")
	if got := Text(t, ctx, "#js"); got != "off" {
		t.Errorf("#js is %q: the page's script ran with JavaScript off", got)
	}
	Axe(t, ctx)
	Fill(t, ctx, "Name", `Ada "Countess" O'Brien`)
	Fill(t, ctx, "note", "line")
	Fill(t, ctx, "Size", "l")
	if status := Submit(t, ctx, "Send"); status != http.StatusOK {
		t.Errorf("status %d after submit", status)
	}
	s.mu.Lock()
	posted := s.posted
	s.mu.Unlock()
	if want := []string{`Ada "Countess" O'Brien`, "line", "l"}; !slices.Equal(posted, want) {
		t.Errorf("posted %q, want %q", posted, want)
	}
	if got, want := URL(t, ctx), s.URL+"/done"; got != want {
		t.Errorf("URL %s, want %s", got, want)
	}
	if got := Text(t, ctx, "#result"); got != "Thanks" {
		t.Errorf("result %q", got)
	}
	cookies := Cookies(t, ctx)
	if len(cookies) != 1 || cookies[0].Name != "seen" || cookies[0].Value != "yes" || !cookies[0].HTTPOnly {
		t.Errorf("cookies %+v, want seen=yes HttpOnly", cookies)
	}
}

// Each test's tab has its own cookies: the cookie the form set in one tab
// is not in another.
func TestTabsDoNotShareCookies(t *testing.T) {
	s := newSite(t)
	first := New(t)
	Open(t, first, s.URL+"/good")
	Submit(t, first, "Send")
	if n := len(Cookies(t, first)); n != 1 {
		t.Fatalf("%d cookies after the form, want 1", n)
	}
	second := New(t)
	Open(t, second, s.URL+"/done")
	if c := Cookies(t, second); len(c) != 0 {
		t.Errorf("a new tab has cookies %+v", c)
	}
}

// A request to another host is refused, listed by Requests, and fails the
// test when it ends.
func TestForeignRequestFailsTheTest(t *testing.T) {
	executable(t) // skipped here, not only in the page's subtest, without Chromium
	s := newSite(t)
	rec := &recorder{}
	t.Run("page", func(t *testing.T) {
		rec.T = t
		ctx := New(rec)
		Open(t, ctx, s.URL+"/foreign")
		reqs := Requests(ctx)
		if !slices.Contains(reqs, s.URL+"/foreign") || !slices.Contains(reqs, "http://192.0.2.7/tracker.png") {
			t.Errorf("requests %q", reqs)
		}
	})
	got := rec.errors()
	if !strings.Contains(got, "another host") || !strings.Contains(got, "http://192.0.2.7/tracker.png") || strings.Contains(got, s.URL) {
		t.Errorf("failure at the end of the test: %q", got)
	}
}

// A screenshot is a PNG of the whole page, taller than the window, in the
// artifacts directory, with a name safe for a file.
func TestScreenshot(t *testing.T) {
	t.Setenv("LARDER_TEST_ARTIFACTS", t.TempDir())
	s := newSite(t)
	ctx := New(t)
	Open(t, ctx, s.URL+"/good")
	path := Screenshot(t, ctx, "browsertest/good page")
	if want := os.Getenv("LARDER_TEST_ARTIFACTS") + "/screenshots/browsertest_good_page.png"; path != want {
		t.Errorf("path %s, want %s", path, want)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("not a PNG: %v", err)
	}
	if size := img.Bounds().Size(); size.X != 1280 || size.Y < 2400 {
		t.Errorf("screenshot %v, want 1280 wide and the whole page (over 2400 high)", size)
	}
}

// Without LARDER_TEST_ARTIFACTS, screenshots go to the temporary directory.
func TestArtifactsDirDefault(t *testing.T) {
	t.Setenv("LARDER_TEST_ARTIFACTS", "")
	if got, want := ArtifactsDir(), os.TempDir()+"/larder-artifacts"; got != want {
		t.Errorf("ArtifactsDir() = %s, want %s", got, want)
	}
}

func TestXPathString(t *testing.T) {
	for in, want := range map[string]string{
		`Name`:     `'Name'`,
		`O'Brien`:  `"O'Brien"`,
		`a"b'c'd`:  `concat('a"b', "'", 'c', "'", 'd')`,
		`say "hi"`: `'say "hi"'`,
	} {
		if got := xpathString(in); got != want {
			t.Errorf("xpathString(%s) = %s, want %s", in, got, want)
		}
	}
}

// Only tests import this package: the server binary must not carry a
// browser driver and axe-core.
func TestImportedOnlyByTests(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		checked++
		for _, imp := range f.Imports {
			if imp.Path.Value == `"larder.dev/larder/internal/testkit/browsertest"` {
				t.Errorf("%s imports browsertest outside a test", path)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 100 {
		t.Fatalf("checked only %d files under %s", checked, root)
	}
}
