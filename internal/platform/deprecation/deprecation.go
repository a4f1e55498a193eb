// Package deprecation reads what the published description marks deprecated
// (`deprecated: true` with its `x-deprecation`: since, sunset, replacement)
// into a table the server consults per request: which operations, query
// parameters and top-level body fields are on their way out. A request that
// uses one is answered with a Deprecation header (RFC 9745) and, where a date
// is set, a Sunset header (RFC 8594), and the request log records the use
// against its key.
package deprecation

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"larder.dev/larder/internal/platform/apidesc"
)

// Notice is one deprecation: since when, until when (zero: no date set) and
// what replaces it.
type Notice struct {
	Since, Sunset time.Time
	Replacement   string
}

// watch is what of one operation is deprecated.
type watch struct {
	op     *Notice
	params map[string]Notice
	fields map[string]Notice
}

// Table is what a description deprecates, by operation id. The zero Table,
// and a nil one, deprecate nothing.
type Table struct{ ops map[string]*watch }

type ext struct {
	Since       string `json:"since"`
	Sunset      string `json:"sunset"`
	Replacement string `json:"replacement"`
}

func (x *ext) notice(at string) (Notice, error) {
	since, err := time.Parse(time.DateOnly, x.Since)
	if err != nil {
		return Notice{}, fmt.Errorf("%s: x-deprecation.since %q is not a date", at, x.Since)
	}
	n := Notice{Since: since, Replacement: x.Replacement}
	if x.Sunset != "" {
		if n.Sunset, err = time.Parse(time.DateOnly, x.Sunset); err != nil {
			return Notice{}, fmt.Errorf("%s: x-deprecation.sunset %q is not a date", at, x.Sunset)
		}
	}
	return n, nil
}

type ref struct {
	Ref         string          `json:"$ref"`
	Name        string          `json:"name"`
	In          string          `json:"in"`
	Deprecation *ext            `json:"x-deprecation"`
	Properties  map[string]*ref `json:"properties"`
	Content     map[string]struct {
		Schema *ref `json:"schema"`
	} `json:"content"`
}

// FromDescription reads the table of an OpenAPI description.
func FromDescription(doc []byte) (*Table, error) {
	ops, err := apidesc.Operations(doc)
	if err != nil {
		return nil, err
	}
	var d struct {
		Components struct {
			Schemas    map[string]*ref `json:"schemas"`
			Parameters map[string]*ref `json:"parameters"`
		} `json:"components"`
	}
	if err := json.Unmarshal(doc, &d); err != nil {
		return nil, err
	}
	t := &Table{ops: map[string]*watch{}}
	for _, o := range ops {
		var op struct {
			Deprecation *ext   `json:"x-deprecation"`
			Parameters  []*ref `json:"parameters"`
			RequestBody *ref   `json:"requestBody"`
		}
		if err := json.Unmarshal(o.JSON, &op); err != nil {
			return nil, fmt.Errorf("%s %s: %w", o.Method, o.Path, err)
		}
		at := o.Method + " " + o.Path
		w := &watch{params: map[string]Notice{}, fields: map[string]Notice{}}
		if op.Deprecation != nil {
			n, err := op.Deprecation.notice(at)
			if err != nil {
				return nil, err
			}
			w.op = &n
		}
		for _, p := range op.Parameters {
			if p.Ref != "" {
				p = d.Components.Parameters[strings.TrimPrefix(p.Ref, "#/components/parameters/")]
			}
			if p == nil || p.Deprecation == nil {
				continue
			}
			n, err := p.Deprecation.notice(at + " " + p.Name)
			if err != nil {
				return nil, err
			}
			w.params[p.Name] = n
		}
		if op.RequestBody != nil {
			for _, media := range op.RequestBody.Content {
				s := media.Schema
				if s != nil && s.Ref != "" {
					s = d.Components.Schemas[strings.TrimPrefix(s.Ref, "#/components/schemas/")]
				}
				if s == nil {
					continue
				}
				for name, p := range s.Properties {
					if p == nil || p.Deprecation == nil {
						continue
					}
					n, err := p.Deprecation.notice(at + " " + name)
					if err != nil {
						return nil, err
					}
					w.fields[name] = n
				}
			}
		}
		if w.op != nil || len(w.params) > 0 || len(w.fields) > 0 {
			t.ops[o.ID] = w
		}
	}
	return t, nil
}

// Empty reports whether t deprecates nothing.
func (t *Table) Empty() bool { return t == nil || len(t.ops) == 0 }

// Watches reports whether operation op uses anything deprecated, and whether
// telling needs its body.
func (t *Table) Watches(op string) (watched, body bool) {
	if t == nil {
		return false, false
	}
	w := t.ops[op]
	return w != nil, w != nil && len(w.fields) > 0
}

// Uses are what a request of operation op with query q and JSON body uses
// that is deprecated ("listTags" for the operation, "listTags?name" for a
// query parameter, "createTag:description" for a body field), sorted, and
// the notice the answer carries: the earliest date deprecated, and the
// earliest sunset set.
func (t *Table) Uses(op string, q url.Values, body []byte) ([]string, Notice) {
	var uses []string
	var all []Notice
	w := t.ops[op]
	if w == nil {
		return nil, Notice{}
	}
	if w.op != nil {
		uses, all = append(uses, op), append(all, *w.op)
	}
	for name, n := range w.params {
		if q.Has(name) {
			uses, all = append(uses, op+"?"+name), append(all, n)
		}
	}
	if len(w.fields) > 0 && len(body) > 0 {
		var members map[string]json.RawMessage
		if json.Unmarshal(body, &members) == nil {
			for name, n := range w.fields {
				if _, ok := members[name]; ok {
					uses, all = append(uses, op+":"+name), append(all, n)
				}
			}
		}
	}
	slices.Sort(uses)
	var out Notice
	for i, n := range all {
		if i == 0 || n.Since.Before(out.Since) {
			out.Since = n.Since
		}
		if !n.Sunset.IsZero() && (out.Sunset.IsZero() || n.Sunset.Before(out.Sunset)) {
			out.Sunset = n.Sunset
		}
		if out.Replacement == "" {
			out.Replacement = n.Replacement
		}
	}
	return uses, out
}

// Set writes n's headers: Deprecation as RFC 9745 has it (@ and the Unix
// seconds of the date), and Sunset as an HTTP date where a sunset is set
// and no earlier one is there (a rotated key's).
func (n Notice) Set(h http.Header) {
	h.Set("Deprecation", fmt.Sprintf("@%d", n.Since.Unix()))
	if n.Sunset.IsZero() {
		return
	}
	if old, err := http.ParseTime(h.Get("Sunset")); err == nil && old.Before(n.Sunset) {
		return
	}
	h.Set("Sunset", n.Sunset.UTC().Format(http.TimeFormat))
}
