package browsertest

import (
	"context"
	_ "embed" // axe-core's source
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// axeSource is axe-core (axe/README.md says which and from where).
//
//go:embed axe/axe.min.js
var axeSource string

// Violation is one axe-core rule a page breaks, with the elements that
// break it.
type Violation struct {
	ID      string          `json:"id"`
	Impact  string          `json:"impact"` // minor, moderate, serious or critical
	Help    string          `json:"help"`
	HelpURL string          `json:"helpUrl"`
	Nodes   []ViolationNode `json:"nodes"`
}

// ViolationNode is an element that breaks a rule.
type ViolationNode struct {
	// Target is the CSS selector path to the element, one entry per
	// frame or shadow root it is inside.
	Target []string `json:"target"`
	HTML   string   `json:"html"`
}

// axeRun runs every rule on the document and keeps what the report
// needs; selectors inside shadow roots are arrays and joined.
const axeRun = `axe.run(document, {resultTypes: ['violations']}).then(r => r.violations.map(v => ({
	id: v.id, impact: v.impact || '', help: v.help, helpUrl: v.helpUrl,
	nodes: v.nodes.map(n => ({
		target: n.target.map(s => Array.isArray(s) ? s.join(' >>> ') : String(s)),
		html: n.html,
	})),
})))`

// axeViolations runs axe-core on the page the tab shows and returns every
// violation. The script goes in over the protocol (Runtime.evaluate),
// which the page's Content-Security-Policy does not govern, so pages keep
// their strict policy under test; it also runs with JavaScript off.
func axeViolations(ctx context.Context) ([]Violation, error) {
	loaded, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`typeof window.axe === 'object'`))
	if err != nil {
		return nil, fmt.Errorf("look for axe-core: %w", err)
	}
	if !loaded {
		if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](axeSource)); err != nil {
			return nil, fmt.Errorf("inject axe-core: %w", err)
		}
	}
	if st, _ := ctx.Value(tabKey{}).(*tab); st != nil && st.noScript {
		// axe-core waits on timers, which do not fire while scripts are
		// off; the page's own scripts were skipped when it loaded and do
		// not run now.
		if err := scripts(ctx, false); err != nil {
			return nil, err
		}
		defer scripts(ctx, true)
	}
	vs, err := chromedp.Run(ctx, chromedp.Evaluate[[]Violation](axeRun, chromedp.EvalAwaitPromise))
	if err != nil {
		return nil, fmt.Errorf("run axe-core: %w", err)
	}
	return vs, nil
}

// Axe checks the page the tab shows with axe-core and fails the test with
// every serious or critical violation (rule, help, elements); minor and
// moderate ones are logged.
func Axe(t testing.TB, ctx context.Context) {
	t.Helper()
	vs, err := axeViolations(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var failing, other []string
	for _, v := range vs {
		var targets []string
		for _, n := range v.Nodes {
			targets = append(targets, strings.Join(n.Target, " "))
		}
		line := fmt.Sprintf("%s (%s): %s [%s] %s", v.ID, v.Impact, v.Help, strings.Join(targets, ", "), v.HelpURL)
		if v.Impact == "serious" || v.Impact == "critical" {
			failing = append(failing, line)
		} else {
			other = append(other, line)
		}
	}
	if len(other) > 0 {
		t.Logf("axe-core, minor and moderate:\n  %s", strings.Join(other, "\n  "))
	}
	if len(failing) > 0 {
		t.Errorf("axe-core: %d serious or critical violation(s) on %s:\n  %s", len(failing), URL(t, ctx), strings.Join(failing, "\n  "))
	}
}

// scripts turns the page's scripting on or off (off is disabled true).
func scripts(ctx context.Context, disabled bool) error {
	_, err := chromedp.Call(ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: disabled})
	return err
}
