package codegen

// Open enums: version 1 adds enumerated values, so what the API answers (the
// responses, and the webhook payloads it sends) may hold a value a client
// generated today does not know. The published description keeps each enum
// as one closed component, the values known today, which request bodies,
// query parameters and status changes use (the server refuses any other
// value with 400); where an answer holds one, it reads "one of them, or any
// other string", a shape generators turn into the known values plus any
// string.

import (
	"fmt"
	"sort"
	"strings"
)

// openEnumDoc describes the string that opens an enum in an answer.
const openEnumDoc = "A value added after this description was published; clients must tolerate it."

// openEnums opens, in every component schema that only answers hold, each
// reference to an enum component: {"$ref": E} becomes
// {"anyOf": [{"$ref": E}, {"type": "string"}]}, and a nullable reference
// (anyOf E or null) gains the string next to E. A component both sent and
// answered that holds an enum is refused: it cannot be open and closed.
func openEnums(doc *object) error {
	schemas := doc.obj("components").obj("schemas")
	enums := map[string]bool{}
	for _, name := range schemas.keys {
		if s := schemas.obj(name); s != nil && s.vals["type"] == "string" && s.vals["enum"] != nil {
			enums[name] = true
		}
	}
	answers, sent := newReach(doc), newReach(doc)
	operations(doc, func(op *object) {
		answers.from(op.vals["responses"])
		sent.from(op.vals["parameters"])
		sent.from(op.vals["requestBody"])
	})
	if whs := doc.obj("webhooks"); whs != nil {
		for _, event := range whs.keys {
			item := whs.obj(event)
			for _, m := range item.keys {
				if op := item.obj(m); op != nil {
					answers.from(op.vals["requestBody"]) // what the API sends to receivers
				}
			}
		}
	}
	var both []string
	for name := range answers.schemas {
		if enums[name] {
			continue
		}
		if sent.schemas[name] {
			if holdsEnum(schemas.vals[name], enums) {
				both = append(both, name)
			}
			continue
		}
		openIn(schemas.vals[name], enums)
	}
	if len(both) > 0 {
		sort.Strings(both)
		return fmt.Errorf("codegen: %s both sent and answered, with an enum that cannot be open in answers and closed in bodies", strings.Join(both, ", "))
	}
	return nil
}

// reach collects the component schemas reachable from some parts of a description.
type reach struct {
	doc     *object
	schemas map[string]bool
	seen    map[string]bool // other components followed
}

func newReach(doc *object) *reach {
	return &reach{doc: doc, schemas: map[string]bool{}, seen: map[string]bool{}}
}

// from adds what v refers to, transitively.
func (r *reach) from(v any) {
	if v == nil {
		return
	}
	walk(v, func(o *object) {
		ref, ok := o.vals["$ref"].(string)
		if !ok || r.seen[ref] || r.schemas[strings.TrimPrefix(ref, refSchemas)] {
			return
		}
		parts := strings.Split(strings.TrimPrefix(ref, "#/components/"), "/")
		if len(parts) != 2 {
			return
		}
		target := r.doc.obj("components").obj(parts[0])
		if target == nil {
			return
		}
		if parts[0] == "schemas" {
			r.schemas[parts[1]] = true
		} else {
			r.seen[ref] = true
		}
		r.from(target.vals[parts[1]])
	})
}

// isEnumRef reports whether v is a bare reference to an enum component.
func isEnumRef(v any, enums map[string]bool) bool {
	o, ok := v.(*object)
	if !ok {
		return false
	}
	ref, _ := o.vals["$ref"].(string)
	return strings.HasPrefix(ref, refSchemas) && enums[strings.TrimPrefix(ref, refSchemas)]
}

// holdsEnum reports whether schema v refers to an enum component itself
// (not through another component).
func holdsEnum(v any, enums map[string]bool) bool {
	found := false
	walk(v, func(o *object) { found = found || isEnumRef(o, enums) })
	return found
}

// openIn opens the enum references inside schema v.
func openIn(v any, enums map[string]bool) {
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			openIn(e, enums)
		}
	case *object:
		if isEnumRef(x, enums) {
			ref := x.vals["$ref"]
			x.del("$ref")
			x.set("anyOf", []any{newObject().set("$ref", ref), openString()})
			return
		}
		for _, k := range x.keys {
			list, ok := x.vals[k].([]any)
			if k != "anyOf" || !ok {
				openIn(x.vals[k], enums)
				continue
			}
			var out []any
			for _, e := range list {
				out = append(out, e)
				if isEnumRef(e, enums) {
					out = append(out, openString())
				} else {
					openIn(e, enums)
				}
			}
			x.set(k, out)
		}
	}
}

func openString() *object {
	return newObject().set("type", "string").set("description", openEnumDoc)
}
