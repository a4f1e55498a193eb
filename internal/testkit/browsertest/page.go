package browsertest

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// findTimeout is how long a lookup waits for its element: pages are
// loaded when tests act on them, so a missing element fails fast.
const findTimeout = 5 * time.Second

// Open navigates the tab to the URL, waits for the page to load and
// returns the HTTP status of its document (after redirects).
func Open(t testing.TB, ctx context.Context, rawURL string) int {
	t.Helper()
	resp, err := chromedp.Run(ctx, chromedp.NavigateResponse(rawURL))
	if err != nil {
		t.Fatalf("open %s: %v", rawURL, err)
	}
	return int(resp.Status)
}

// xpathString quotes s as an XPath 1.0 string literal, which has no escape:
// a string with both quote kinds is spliced with concat().
func xpathString(s string) string {
	if !strings.Contains(s, `'`) {
		return `'` + s + `'`
	}
	if !strings.Contains(s, `"`) {
		return `"` + s + `"`
	}
	parts := strings.Split(s, `'`)
	return `concat('` + strings.Join(parts, `', "'", '`) + `')`
}

// fieldXPath finds a form field by the text of its label (for= or around
// it), its aria-label or its name.
func fieldXPath(field string) string {
	f := xpathString(field)
	control := `(self::input or self::textarea or self::select)`
	return `//*[` + control + ` and (@name=` + f + ` or @aria-label=` + f +
		` or @id=//label[normalize-space(.)=` + f + `]/@for)]` +
		` | //label[normalize-space(.)=` + f + `]//*[` + control + `]`
}

// buttonXPath finds a button by its text, or a submit/button input by its
// value.
func buttonXPath(text string) string {
	s := xpathString(text)
	return `//button[normalize-space(.)=` + s + `]` +
		` | //input[(@type='submit' or @type='button') and normalize-space(@value)=` + s + `]`
}

// one finds the single element the XPath matches, failing the test when
// none or several do: a test acting on an ambiguous label would pass or
// fail by document order.
func one(t testing.TB, ctx context.Context, what, xpath string) *chromedp.Node {
	t.Helper()
	fctx, cancel := context.WithTimeout(ctx, findTimeout)
	defer cancel()
	nodes, err := chromedp.Run(fctx, chromedp.Nodes(chromedp.Search(xpath)))
	if err != nil {
		t.Fatalf("find %s: %v", what, err)
	}
	if len(nodes) > 1 {
		// A page may hold a control twice, one copy for each window
		// size (a menu at narrow widths, a sidebar at wide ones), only
		// one of them shown: a person acts on the one they see.
		nodes = Shown(ctx, nodes)
	}
	if len(nodes) != 1 {
		t.Fatalf("find %s: %d elements match", what, len(nodes))
	}
	return nodes[0]
}

// Shown keeps the nodes the page renders (a box on screen or below it),
// dropping those hidden (display: none, or in a closed details element).
func Shown(ctx context.Context, nodes []*chromedp.Node) []*chromedp.Node {
	var out []*chromedp.Node
	for _, n := range nodes {
		m, err := chromedp.Call(ctx, dom.GetBoxModel, dom.GetBoxModelParams{NodeID: n.NodeID})
		if err == nil && m.Model != nil && m.Model.Width > 0 && m.Model.Height > 0 {
			out = append(out, n)
		}
	}
	return out
}

// Fill replaces the value of the form field whose label, aria-label or
// name is field by typing value into it, as a person would (so it works
// with JavaScript off). A select gets the option whose value is value.
func Fill(t testing.TB, ctx context.Context, field, value string) {
	t.Helper()
	n := one(t, ctx, "field "+field, fieldXPath(field))
	ids := chromedp.NodeIDs{n.NodeID}
	if n.NodeName == "SELECT" {
		if err := chromedp.Do(ctx, chromedp.SetValue(ids, value)); err != nil {
			t.Fatalf("choose %s in %s: %v", value, field, err)
		}
		return
	}
	err := chromedp.Do(ctx,
		chromedp.Focus(ids),
		// Select what is there and delete it, then type.
		chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
			_, err := chromedp.Call(ctx, input.DispatchKeyEvent, input.DispatchKeyEventParams{
				Type: input.DispatchKeyEventTypeRawKeyDown, Commands: []string{"selectAll"},
			})
			return err
		}),
		chromedp.KeyEvent(kb.Delete),
	)
	if err == nil && value != "" {
		err = chromedp.Do(ctx, chromedp.SendKeys(ids, value))
	}
	if err != nil {
		t.Fatalf("fill %s: %v", field, err)
	}
}

// Click clicks the button with the text (or the submit input with the
// value) and returns without waiting for what follows.
func Click(t testing.TB, ctx context.Context, text string) {
	t.Helper()
	n := one(t, ctx, "button "+text, buttonXPath(text))
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.NodeIDs{n.NodeID})); err != nil {
		t.Fatalf("click %s: %v", text, err)
	}
}

// Submit clicks the button with the text, waits for the page it leads to
// (after redirects) to load and returns the HTTP status of that page.
func Submit(t testing.TB, ctx context.Context, text string) int {
	t.Helper()
	n := one(t, ctx, "button "+text, buttonXPath(text))
	resp, err := chromedp.RunResponse(ctx, chromedp.Click(chromedp.NodeIDs{n.NodeID}))
	if err != nil {
		t.Fatalf("submit with %s: %v", text, err)
	}
	return int(resp.Status)
}

// Text returns the visible text of the single element the CSS selector
// matches.
func Text(t testing.TB, ctx context.Context, css string) string {
	t.Helper()
	fctx, cancel := context.WithTimeout(ctx, findTimeout)
	defer cancel()
	s, err := chromedp.Run(fctx, chromedp.Text(chromedp.CSS(css)))
	if err != nil {
		t.Fatalf("text of %s: %v", css, err)
	}
	return s
}

// URL returns the address of the page the tab shows.
func URL(t testing.TB, ctx context.Context) string {
	t.Helper()
	h, err := chromedp.Call(ctx, page.GetNavigationHistory, struct{}{})
	if err != nil {
		t.Fatalf("read the URL: %v", err)
	}
	return h.Entries[h.CurrentIndex].URL
}

// Cookies returns the cookies the browser would send to the page the tab
// shows, HttpOnly ones included.
func Cookies(t testing.TB, ctx context.Context) []*network.Cookie {
	t.Helper()
	r, err := chromedp.Call(ctx, network.GetCookies, network.GetCookiesParams{URLs: []string{URL(t, ctx)}})
	if err != nil {
		t.Fatalf("read cookies: %v", err)
	}
	return r.Cookies
}

// unsafeName is what a screenshot's name may not hold: subtest names have
// slashes.
var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// ArtifactsDir is where tests leave files for people to look at:
// $LARDER_TEST_ARTIFACTS, else larder-artifacts in the temporary directory,
// never the repository.
func ArtifactsDir() string {
	if dir := os.Getenv("LARDER_TEST_ARTIFACTS"); dir != "" {
		return dir
	}
	return filepath.Join(os.TempDir(), "larder-artifacts")
}

// Screenshot writes a PNG of the whole page (beyond the window) to
// ArtifactsDir()/screenshots/<name>.png, logs its path and returns it.
func Screenshot(t testing.TB, ctx context.Context, name string) string {
	t.Helper()
	png, err := fullPage(ctx)
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	dir := filepath.Join(ArtifactsDir(), "screenshots")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, unsafeName.ReplaceAllString(name, "_")+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
	return path
}

// SmallScreenshots makes Screenshot encode its PNGs for size, as pictures
// kept in the repository should be. Otherwise they are encoded for speed:
// the same pixels in files about 30% larger, in a fifth less of the time
// the console's page checks spend on screenshots.
var SmallScreenshots bool

// fullPage captures the page's whole scrollable area as PNG: a capture
// beyond the viewport without a clip stops at the window's height.
func fullPage(ctx context.Context) ([]byte, error) {
	m, err := chromedp.Call(ctx, page.GetLayoutMetrics, struct{}{})
	if err != nil {
		return nil, err
	}
	size := m.CSSContentSize
	r, err := chromedp.Call(ctx, page.CaptureScreenshot, page.CaptureScreenshotParams{
		Format:                page.CaptureScreenshotFormatPng,
		Clip:                  &page.Viewport{Width: size.Width, Height: size.Height, Scale: 1},
		CaptureBeyondViewport: &[]bool{true}[0],
		OptimizeForSpeed:      &[]bool{!SmallScreenshots}[0],
	})
	if err != nil {
		return nil, err
	}
	return r.Data, nil
}
