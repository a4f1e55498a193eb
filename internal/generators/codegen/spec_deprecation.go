package codegen

// Deprecation in the published description: what the schemas announce as
// ending (annotate.Deprecate) is marked `deprecated: true`, its description
// says since when, until when and what replaces it, and `x-deprecation`
// holds the same for programs (package deprecation reads it to answer the
// Deprecation and Sunset headers).

import (
	"fmt"
	"strings"

	"larder.dev/larder/internal/generators/annotate"
)

// deprecationKey is the extension that holds a deprecation's dates and
// replacement, on an operation, a parameter or a property.
const deprecationKey = "x-deprecation"

// deprecate marks what rs announce as deprecated in the published doc.
func deprecate(doc *object, rs []*Resource) error {
	ops := map[string]annotate.Deprecation{}
	for _, r := range rs {
		for o, d := range r.Ann.Deprecated {
			ops[r.OperationID(o)] = d
		}
	}
	marked := map[string]bool{}
	paths := doc.obj("paths")
	for _, p := range paths.keys {
		item := paths.obj(p)
		for _, m := range item.keys {
			op := item.obj(m)
			if op == nil {
				continue
			}
			id, _ := op.vals["operationId"].(string)
			if d, ok := ops[id]; ok {
				markDeprecated(op, d)
				marked[id] = true
			}
		}
	}
	for id := range ops {
		if !marked[id] {
			return fmt.Errorf("codegen: deprecated operation %s is not in the description", id)
		}
	}
	schemas := doc.obj("components").obj("schemas")
	for _, r := range rs {
		for _, f := range r.Fields {
			d := f.Ann.Deprecated
			if d == nil {
				continue
			}
			found := false
			for _, suffix := range []string{"", "Create", "Update", "Snapshot"} {
				s := schemas.obj(r.Schema + suffix)
				if s == nil || s.obj("properties") == nil || s.obj("properties").obj(f.Name) == nil {
					continue
				}
				markDeprecated(s.obj("properties").obj(f.Name), *d)
				found = true
			}
			if !found {
				return fmt.Errorf("codegen: %s.%s is deprecated but the description shows no such field", r.Schema, f.Name)
			}
			// The list's filter of the field goes with it.
			param := f.Name
			if f.Ann.FilterParam != "" {
				param = f.Ann.FilterParam
			}
			for _, p := range paths.keys {
				item := paths.obj(p)
				get := item.obj("get")
				if get == nil || get.vals["operationId"] != r.OperationID(annotate.List) {
					continue
				}
				params, _ := get.vals["parameters"].([]any)
				for _, x := range params {
					if o, ok := x.(*object); ok && o.vals["name"] == param {
						markDeprecated(o, *d)
					}
				}
			}
		}
	}
	return nil
}

// markDeprecated marks v, an operation, a parameter or a property.
func markDeprecated(v *object, d annotate.Deprecation) {
	v.set("deprecated", true)
	var say []string
	say = append(say, "Deprecated since "+d.Since)
	if d.Sunset != "" {
		say = append(say, "it may be removed after "+d.Sunset+" in a next major version, never from version 1")
	}
	if d.Use != "" {
		say = append(say, "use "+d.Use+" instead")
	}
	text := strings.Join(say, "; ") + "."
	if desc, _ := v.vals["description"].(string); desc != "" {
		text = desc + " " + text
	}
	v.set("description", text)
	x := newObject().set("since", d.Since)
	if d.Sunset != "" {
		x.set("sunset", d.Sunset)
	}
	if d.Use != "" {
		x.set("replacement", d.Use)
	}
	v.set(deprecationKey, x)
}
