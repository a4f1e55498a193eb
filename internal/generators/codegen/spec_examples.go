package codegen

// Examples: every request and response body of the published description
// carries an example built from its schema, so none is written by hand and
// none can drift from the schema it illustrates. A value comes, in order of
// preference, from the schema's own `example` (set by the annotations), from
// its enum, from what its property name says it is, and from its type,
// format and bounds.

import (
	"encoding/json"
	"math/big"
	"strings"
	"unicode"
)

// exampleTime is the instant every example date and time shows.
const (
	exampleDateTime = "2026-01-15T09:30:00Z"
	exampleDate     = "2026-01-15"
)

// examples sets `example` on every media type of the paths, the webhooks and
// the shared responses that has none. A webhook's envelope shows its own
// event type.
func examples(doc *object) {
	x := &exampler{schemas: doc.obj("components").obj("schemas")}
	bodies := func(op *object, event string) {
		if rb := op.obj("requestBody"); rb != nil {
			x.media(rb.obj("content"), event)
		}
		if rs := op.obj("responses"); rs != nil {
			for _, code := range rs.keys {
				if r := rs.obj(code); r != nil {
					x.media(r.obj("content"), "")
				}
			}
		}
	}
	operations(doc, func(op *object) { bodies(op, "") })
	if whs := doc.obj("webhooks"); whs != nil {
		for _, event := range whs.keys {
			item := whs.obj(event)
			for _, m := range item.keys {
				if op := item.obj(m); op != nil {
					bodies(op, event)
				}
			}
		}
	}
	rs := doc.obj("components").obj("responses")
	for _, name := range rs.keys {
		x.media(rs.obj(name).obj("content"), "")
	}
}

type exampler struct{ schemas *object }

// media gives each media type of content an example of its schema; event,
// when set, is the envelope's type.
func (x *exampler) media(content *object, event string) {
	if content == nil {
		return
	}
	for _, mt := range content.keys {
		m := content.obj(mt)
		if _, ok := m.vals["example"]; ok || m.obj("schema") == nil {
			continue
		}
		v := x.value(m.obj("schema"), "", 0)
		if o, ok := v.(*object); ok && event != "" {
			o.set("type", event)
		}
		m.set("example", v)
	}
}

// maxDepth stops a schema that refers to itself.
const maxDepth = 16

// value is an example of schema s, the value of a property named name.
func (x *exampler) value(s *object, name string, depth int) any {
	if s == nil || depth > maxDepth {
		return newObject()
	}
	if ex, ok := s.vals["example"]; ok {
		return ex
	}
	if exs, ok := s.vals["examples"].([]any); ok && len(exs) > 0 {
		return exs[0]
	}
	if r, ok := s.vals["$ref"].(string); ok {
		return x.value(x.schemas.obj(strings.TrimPrefix(r, refSchemas)), name, depth+1)
	}
	for _, k := range []string{"allOf", "anyOf", "oneOf"} {
		if list, ok := s.vals[k].([]any); ok {
			return x.composed(k, list, name, depth)
		}
	}
	if enum, ok := s.vals["enum"].([]any); ok && len(enum) > 0 {
		return enum[0]
	}
	switch schemaType(s) {
	case "object":
		o := newObject()
		if props := s.obj("properties"); props != nil {
			for _, p := range props.keys {
				o.set(p, x.value(props.obj(p), p, depth+1))
			}
		}
		return o
	case "array":
		n := 1
		if mi, ok := s.vals["minItems"].(json.Number); ok {
			if v, err := mi.Int64(); err == nil && v > 1 {
				n = int(v)
			}
		}
		out := make([]any, n)
		for i := range out {
			out[i] = x.value(s.obj("items"), name, depth+1)
		}
		return out
	case "integer":
		return number(s, name, true)
	case "number":
		return number(s, name, false)
	case "boolean":
		return !strings.HasPrefix(name, "is_")
	case "string":
		return text(s, name)
	case "null":
		return nil
	}
	return newObject()
}

// composed is an example of allOf (every part's properties), anyOf or oneOf
// (the first part that is not null).
func (x *exampler) composed(k string, list []any, name string, depth int) any {
	if k != "allOf" {
		for _, part := range list {
			if p, ok := part.(*object); ok && schemaType(p) != "null" {
				return x.value(p, name, depth+1)
			}
		}
		return nil
	}
	var out any
	for _, part := range list {
		v := x.value(part.(*object), name, depth+1)
		o, isObj := v.(*object)
		acc, accObj := out.(*object)
		if !isObj || !accObj {
			out = v
			continue
		}
		for _, k := range o.keys {
			acc.set(k, o.vals[k])
		}
	}
	return out
}

// schemaType is the type of s, the first that is not null of a type list.
func schemaType(s *object) string {
	switch t := s.vals["type"].(type) {
	case string:
		return t
	case []any:
		for _, v := range t {
			if v != "null" {
				return v.(string)
			}
		}
		return "null"
	}
	if s.obj("properties") != nil {
		return "object"
	}
	return ""
}

// number is an example within the bounds of s: ids and counts are 1,
// amounts 12.5.
func number(s *object, name string, integer bool) json.Number {
	v := big.NewRat(25, 2)
	if integer || name == "id" || strings.HasSuffix(name, "_id") {
		v = big.NewRat(1, 1)
	}
	bound := func(k string) *big.Rat {
		n, ok := s.vals[k].(json.Number)
		if !ok {
			if str, ok := s.vals[k].(string); ok { // decimal bounds are written as text
				n = json.Number(str)
			} else {
				return nil
			}
		}
		r, ok := new(big.Rat).SetString(n.String())
		if !ok {
			return nil
		}
		return r
	}
	lo, loEx := bound("minimum"), false
	if e := bound("exclusiveMinimum"); e != nil {
		lo, loEx = e, true
	}
	hi, hiEx := bound("maximum"), false
	if e := bound("exclusiveMaximum"); e != nil {
		hi, hiEx = e, true
	}
	below := lo != nil && (v.Cmp(lo) < 0 || loEx && v.Cmp(lo) == 0)
	above := hi != nil && (v.Cmp(hi) > 0 || hiEx && v.Cmp(hi) == 0)
	switch {
	case below && hi != nil || above && lo != nil:
		v = new(big.Rat).Add(lo, hi)
		v.Quo(v, big.NewRat(2, 1))
	case below:
		v = new(big.Rat).Add(lo, big.NewRat(1, 1))
	case above:
		v = new(big.Rat).Sub(hi, big.NewRat(1, 1))
	}
	if integer {
		q := new(big.Int).Quo(v.Num(), v.Denom())
		if lo != nil && (new(big.Rat).SetInt(q).Cmp(lo) < 0 || loEx && new(big.Rat).SetInt(q).Cmp(lo) == 0) {
			q.Add(q, big.NewInt(1))
		}
		return json.Number(q.String())
	}
	return json.Number(strings.TrimRight(strings.TrimRight(v.FloatString(6), "0"), "."))
}

// text is an example string of s: a date or time for those formats, an
// address for an email or a web site, else the property's name in words,
// within the length bounds.
func text(s *object, name string) string {
	switch s.vals["format"] {
	case "date-time":
		return exampleDateTime
	case "date":
		return exampleDate
	}
	var v string
	switch {
	case name == "email" || strings.HasSuffix(name, "_email"):
		v = "orders@example.com"
	case name == "website" || name == "url" || strings.HasSuffix(name, "_url"):
		v = "https://example.com"
	case name == "phone" || strings.HasSuffix(name, "_phone"):
		v = "+1 555 0100"
	case name == "currency":
		v = "USD"
	case name == "":
		v = "text"
	default:
		words := []rune(strings.ReplaceAll(name, "_", " "))
		words[0] = unicode.ToUpper(words[0])
		v = string(words)
	}
	if n, ok := s.vals["maxLength"].(json.Number); ok {
		if max, err := n.Int64(); err == nil && int64(len(v)) > max {
			v = v[:max]
		}
	}
	if n, ok := s.vals["minLength"].(json.Number); ok {
		if min, err := n.Int64(); err == nil && int64(len(v)) < min {
			v += strings.Repeat("x", int(min)-len(v))
		}
	}
	return v
}
