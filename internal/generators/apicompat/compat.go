// Package apicompat holds version 1 to its promise: every released
// description is kept in openapi/releases, and Compare reads the difference
// between a release and a later description with oasdiff, sorting each change
// into a break (something a release promised is removed, renamed, retyped or
// narrowed) or an addition. The gate test, `larder api diff` and
// `larder api release` use it; nothing on the request path does (oasdiff is
// a large dependency, and the server needs none of it to answer).
package apicompat

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/oasdiff/oasdiff/checker"
	"github.com/oasdiff/oasdiff/diff"
	"github.com/oasdiff/oasdiff/load"
)

// Change is one difference between two descriptions, as an integrator reads
// it: where (the operations or webhook events it touches) and what.
type Change struct {
	// Rule is oasdiff's id of the check that found it.
	Rule string `json:"rule"`
	// Where are the operations ("GET /tags/{tag_id}") and webhook events
	// ("webhook tag.created") it touches, sorted.
	Where []string `json:"where"`
	// Text says what changed.
	Text string `json:"text"`
}

// Line is the change in one line.
func (c Change) Line() string {
	where := strings.Join(c.Where, ", ")
	if len(c.Where) > 3 {
		where = fmt.Sprintf("%s and %d more", strings.Join(c.Where[:3], ", "), len(c.Where)-3)
	}
	if where == "" {
		return c.Text
	}
	return where + ": " + c.Text
}

// Report is what a revision changes against a base.
type Report struct {
	Base     string   `json:"base"`
	Revision string   `json:"revision"`
	Breaks   []Change `json:"breaks"`
	// Additions are the other changes: what the revision adds, and what it
	// changes without narrowing a promise.
	Additions []Change `json:"additions"`
}

// Broken reports whether the revision breaks the base's promise.
func (r *Report) Broken() bool { return len(r.Breaks) > 0 }

// levels are where this project's promise differs from oasdiff's defaults.
// Version 1 answers open enumerations (a client tolerates a value added
// later) and promises every value, field, status and error code it lists: a
// value added to an answer is an addition; a value, an optional field or an
// error status removed from an answer is a break.
var levels = map[string]checker.Level{
	"response-property-enum-value-added":   checker.INFO,
	"response-property-enum-value-removed": checker.ERR,
	"response-optional-property-removed":   checker.ERR,
	"response-non-success-status-removed":  checker.ERR,
	"response-success-status-removed":      checker.ERR,
	"request-property-removed":             checker.ERR,
	"request-parameter-removed":            checker.ERR,
}

// webhookPrefix is where Load puts the webhook events among the paths.
const webhookPrefix = "/webhooks/"

// Load parses a description for Compare. A webhook is an answer to the
// integrator: the server sends its body and the receiver reads it, so a
// field removed from an event breaks receivers as a field removed from an
// answer breaks clients. oasdiff reads a webhook's body as a request (whose
// fields a client may stop sending), so Load moves each webhook event to a
// path of its own whose answer is the event's body; oasdiff's checks for
// answers then apply to the event types and the envelope.
func Load(doc []byte) (*openapi3.T, error) {
	l := openapi3.NewLoader()
	t, err := l.LoadFromData(doc)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(t.Webhooks))
	for name := range t.Webhooks {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		item := t.Webhooks[name]
		for _, op := range item.Operations() {
			if op.RequestBody == nil || op.RequestBody.Value == nil {
				continue
			}
			answer := openapi3.NewResponse().WithDescription("The event.")
			answer.Content = op.RequestBody.Value.Content
			op.RequestBody = nil
			op.Responses = openapi3.NewResponses(openapi3.WithStatus(200, &openapi3.ResponseRef{Value: answer}))
		}
		t.Paths.Set(webhookPrefix+name, item)
	}
	t.Webhooks = nil
	return t, nil
}

// Compare reports what revision changes against base, both loaded by Load
// and named by their versions.
func Compare(baseName string, base *openapi3.T, revName string, rev *openapi3.T) (*Report, error) {
	s1 := &load.SpecInfo{Source: load.NewSource(baseName), Spec: base, Version: base.Info.Version}
	s2 := &load.SpecInfo{Source: load.NewSource(revName), Spec: rev, Version: rev.Info.Version}
	d, sources, err := diff.GetWithOperationsSourcesMap(diff.NewConfig(), s1, s2)
	if err != nil {
		return nil, err
	}
	cfg := checker.NewConfig(checker.GetAllChecks(), checker.WithSeverityLevels(levels))
	l := checker.NewDefaultLocalizer()
	type key struct{ rule, text string }
	breaks, adds := map[key][]string{}, map[key][]string{}
	for _, c := range checker.CheckBackwardCompatibilityUntilLevel(cfg, d, sources, checker.INFO) {
		k := key{c.GetId(), c.GetUncolorizedText(l)}
		where := ""
		if p := c.GetPath(); p != "" {
			where = c.GetOperation() + " " + p
		}
		if name, ok := strings.CutPrefix(c.GetPath(), webhookPrefix); ok {
			where = "webhook " + name
			switch id := c.GetId(); {
			case strings.HasPrefix(id, "api-path-removed"), strings.HasPrefix(id, "api-removed"):
				k.text = "event type removed"
			case id == "endpoint-added", id == "api-path-added":
				k.text = "event type added"
			}
		}
		into := adds
		if c.GetLevel() >= checker.WARN {
			into = breaks
		}
		if _, ok := into[k]; !ok {
			into[k] = nil
		}
		if where != "" && !slices.Contains(into[k], where) {
			into[k] = append(into[k], where)
		}
	}
	changes := func(m map[key][]string) []Change {
		out := make([]Change, 0, len(m))
		for k, where := range m {
			sort.Strings(where)
			out = append(out, Change{Rule: k.rule, Where: where, Text: k.text})
		}
		sort.Slice(out, func(i, j int) bool { return out[i].Line() < out[j].Line() })
		return out
	}
	return &Report{Base: baseName, Revision: revName, Breaks: changes(breaks), Additions: changes(adds)}, nil
}
