package codegen

// Writing the two descriptions from the built spec: the published one and
// ogen's input, each derived by passes over the JSON tree.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ogen-go/ogen"

	"larder.dev/larder/client/bounds"
	"larder.dev/larder/internal/generators/annotate"
	"larder.dev/larder/internal/platform/problem"
)

// writeSpecs writes both descriptions as OpenAPI 3.1. The spec is shaped above,
// in Go, from the annotations; what follows only spells it in 3.1 (type lists
// for nullable, numeric exclusive bounds), which ogen's builder types cannot
// express, and derives ogen's input by folding errors and headers.
func writeSpecs(spec *ogen.Spec, rs []*Resource, o SpecOptions) error {
	pub, err := tree(spec)
	if err != nil {
		return err
	}
	decimalBounds(pub)
	to31(pub, true)
	problemCodes(pub)
	if err := openEnums(pub); err != nil {
		return err
	}
	silenceWebhookSecurity(pub)
	pub.obj("paths").set("/openapi.json", openapiPath())
	httpSemantics(pub)
	dropUnreferenced(pub)
	if err := deprecate(pub, rs); err != nil {
		return err
	}
	examples(pub)
	if err := writeJSON(o.Public, pub); err != nil {
		return err
	}

	srv, err := tree(spec)
	if err != nil {
		return err
	}
	srv.del("webhooks")
	groupOperations(srv)
	foldErrors(srv)
	dropUnreferenced(srv)
	validators(srv)
	instants(srv)
	to31(srv, false)
	return writeJSON(o.Server, srv)
}

// tree is the spec as an ordered JSON tree.
func tree(spec *ogen.Spec) (*object, error) {
	b, err := json.Marshal(spec)
	if err != nil {
		return nil, err
	}
	v, err := parseTree(b)
	if err != nil {
		return nil, err
	}
	return v.(*object), nil
}

func writeJSON(p string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, append(b, '\n'), 0o644)
}

// to31 rewrites 3.0 `nullable` into 3.1 type lists and, for the published
// description, boolean exclusive bounds into JSON Schema 2020-12 numbers (ogen
// reads the boolean form).
func to31(doc *object, numericExclusive bool) {
	walk(doc, func(v *object) {
		if nb, ok := v.vals["nullable"].(bool); ok {
			v.del("nullable")
			if t, ok := v.vals["type"].(string); ok && nb {
				v.set("type", []any{t, "null"})
				if enum, ok := v.vals["enum"].([]any); ok {
					v.set("enum", append(enum, nil))
				}
			} else if all, ok := v.vals["allOf"].([]any); ok && nb && len(all) == 1 {
				v.del("allOf")
				v.set("anyOf", []any{all[0], newObject().set("type", "null")})
			}
		}
		for _, bound := range []string{"minimum", "maximum"} {
			ex := "exclusive" + strings.ToUpper(bound[:1]) + bound[1:]
			if b, ok := v.vals[ex].(bool); ok && numericExclusive {
				v.del(ex)
				if b {
					v.set(ex, v.vals[bound])
					v.del(bound)
				}
			}
		}
	})
}

// decimalType is the Go type of every decimal in the generated server.
const decimalType = "larder.dev/larder/client/bounds.Decimal"

// textFormats are the string formats ogen decodes as Go strings; the others
// (date, date-time) are parsed into values and refuse bad text themselves.
var textFormats = map[string]bool{"": true, "email": true, "uri": true, "hostname": true, "password": true}

// validators makes ogen's decoding itself refuse, for every operation there
// is and will be, text that is not valid UTF-8 or holds U+0000 (the text
// validator of package bounds on every string) and decimals past the bounds
// (bounds.Decimal as the Go type of every decimal).
func validators(doc *object) {
	walk(doc, func(v *object) {
		typ, _ := v.vals["type"].(string)
		format, _ := v.vals["format"].(string)
		_, enum := v.vals["enum"]
		switch {
		case typ == "string" && textFormats[format] && !enum:
			v.set("x-ogen-validate", newObject().set(bounds.TextValidator, true))
		case typ == "number" && format == annotate.FormatDecimal:
			// bounds.Decimal decodes the number from its text and refuses it
			// past the shared bounds before any arithmetic. ogen checks no
			// range on a type of ours: the generated appliers do.
			for _, k := range []string{"format", "minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum"} {
				v.del(k)
			}
			v.set("x-ogen-type", decimalType)
		}
	})
}

// instantType is the Go type of every timestamp a body writes in the
// generated server.
const instantType = "larder.dev/larder/client/bounds.Instant"

// instants spells each timestamp a body writes (a date or a date-time,
// instantSchema) as one string of type bounds.Instant for ogen, which decodes
// both forms into it and refuses anything else with the expected format in
// its message: ogen would not decode two formats of one string into one value.
func instants(doc *object) {
	walk(doc, func(v *object) {
		alts, ok := v.vals["anyOf"].([]any)
		if !ok {
			return
		}
		var formats []any
		nullable := false
		for _, a := range alts {
			o, ok := a.(*object)
			if !ok {
				return
			}
			if o.vals["type"] == "null" {
				nullable = true
				continue
			}
			formats = append(formats, o.vals["format"])
		}
		if len(formats) != 2 || formats[0] != "date" || formats[1] != "date-time" {
			return
		}
		v.del("anyOf")
		typ := any("string")
		if nullable {
			typ = []any{"string", "null"}
		}
		v.set("type", typ)
		v.set("x-ogen-type", instantType)
	})
}

// decimalBounds publishes the magnitude bound of every decimal as exclusive
// bounds where the schema has none of its own (the digit bounds are in the
// description; JSON Schema has no word for them).
func decimalBounds(doc *object) {
	limit := json.Number("1" + strings.Repeat("0", bounds.MagnitudeExp))
	walk(doc, func(v *object) {
		if v.vals["type"] != "number" || v.vals["format"] != annotate.FormatDecimal {
			return
		}
		if _, ok := v.vals["maximum"]; !ok {
			v.set("maximum", limit)
			v.set("exclusiveMaximum", true)
		}
		if _, ok := v.vals["minimum"]; !ok {
			v.set("minimum", "-"+limit)
			v.set("exclusiveMinimum", true)
		}
	})
}

// operations calls f on every operation of the paths.
func operations(doc *object, f func(*object)) {
	paths := doc.obj("paths")
	for _, p := range paths.keys {
		item := paths.obj(p)
		for _, m := range item.keys {
			if op := item.obj(m); op != nil {
				f(op)
			}
		}
	}
}

// silenceWebhookSecurity gives webhook operations `security: []`: receivers
// verify a signature, not a key.
func silenceWebhookSecurity(doc *object) {
	whs := doc.obj("webhooks")
	if whs == nil {
		return
	}
	for _, k := range whs.keys {
		item := whs.obj(k)
		for _, m := range item.keys {
			if op := item.obj(m); op != nil {
				op.set("security", []any{})
			}
		}
	}
}

// openapiPath documents GET /openapi.json, which the server answers outside
// the generated router.
func openapiPath() *object {
	resp := newObject().
		set("description", "The description.").
		set("content", newObject().set("application/json", newObject().set("schema", newObject().set("type", "object"))))
	op := newObject().
		set("operationId", "getOpenAPI").
		set("summary", "This API description").
		set("description", "The OpenAPI 3.1 description of the API. Needs no key.").
		set("tags", []any{"Organization"}).
		set("security", []any{}).
		set("responses", newObject().
			set("200", resp).
			set("503", newObject().set("$ref", refResponses+"ServiceUnavailable")))
	return newObject().set("get", op)
}

// httpSemantics declares what the middleware answers around every
// operation: 405 with Allow for another method on its path, 413 for a body
// over MaxBodyBytes, 415 for a body of another media type, the bearer
// challenge of a 401, and on reads the ETag of the body with If-None-Match
// answered 304 without one.
func httpSemantics(doc *object) {
	comps := doc.obj("components")
	comps.obj("headers").
		set("ETag", newObject().
			set("description", "Weak validator of the body; send it back in If-None-Match to get 304 while the body is unchanged.").
			set("schema", newObject().set("type", "string"))).
		set("Allow", newObject().
			set("description", "The methods the path accepts, HEAD (beside GET) and OPTIONS included.").
			set("schema", newObject().set("type", "string"))).
		set("WWW-Authenticate", newObject().
			set("description", `The bearer challenge (RFC 6750): Bearer realm="larder", with error="invalid_token" when the request presented a token.`).
			set("schema", newObject().set("type", "string"))).
		set("Accept-Post", newObject().
			set("description", "The media type POST takes: application/json.").
			set("schema", newObject().set("type", "string"))).
		set("Accept-Patch", newObject().
			set("description", "The media type PATCH takes: application/json.").
			set("schema", newObject().set("type", "string")))
	comps.obj("parameters").set("If-None-Match", newObject().
		set("name", "If-None-Match").
		set("in", "header").
		set("description", "ETag values of bodies the client holds; when one matches, the answer is 304 without a body.").
		set("schema", newObject().set("type", "string")))
	comps.obj("responses").set("NotModified", newObject().
		set("description", "Not modified: the body's ETag matches If-None-Match; no body.").
		set("headers", newObject().
			set("ETag", headerRef("ETag")).
			set("X-Request-Id", headerRef("X-Request-Id"))))
	resps := comps.obj("responses")
	resps.obj("MethodNotAllowed").obj("headers").set("Allow", headerRef("Allow"))
	resps.obj("Unauthorized").obj("headers").set("WWW-Authenticate", headerRef("WWW-Authenticate"))
	resps.obj("UnsupportedMediaType").obj("headers").
		set("Accept-Post", headerRef("Accept-Post")).
		set("Accept-Patch", headerRef("Accept-Patch"))
	paths := doc.obj("paths")
	for _, p := range paths.keys {
		item := paths.obj(p)
		for _, m := range item.keys {
			op := item.obj(m)
			if op == nil {
				continue
			}
			rs := op.obj("responses")
			rs.set("405", newObject().set("$ref", refResponses+"MethodNotAllowed"))
			if op.obj("requestBody") != nil {
				rs.set("413", newObject().set("$ref", refResponses+"PayloadTooLarge"))
				rs.set("415", newObject().set("$ref", refResponses+"UnsupportedMediaType"))
			}
			if m == "get" {
				params, _ := op.vals["parameters"].([]any)
				op.set("parameters", append(params, newObject().set("$ref", refParameters+"If-None-Match")))
				if ok := rs.obj("200"); ok != nil {
					if ok.obj("headers") == nil {
						ok.set("headers", newObject())
					}
					ok.obj("headers").set("ETag", headerRef("ETag"))
				}
				rs.set("304", newObject().set("$ref", refResponses+"NotModified"))
			}
			sortKeys(rs)
		}
	}
}

func headerRef(name string) *object { return newObject().set("$ref", refHeaders+name) }

// sortKeys orders an object's keys (response codes sort as numbers do:
// they are all three digits).
func sortKeys(o *object) { sort.Strings(o.keys) }

// groupOperations gives every operation its first tag as ogen operation group,
// so ogen generates one handler interface per resource.
func groupOperations(doc *object) {
	operations(doc, func(op *object) {
		op.set("x-ogen-operation-group", op.vals["tags"].([]any)[0])
	})
}

// foldErrors replaces the error responses of every operation with one default
// response, drops response headers (middleware sets them) and keeps one
// "Problem" response component.
func foldErrors(doc *object) {
	operations(doc, func(op *object) {
		rs := op.obj("responses")
		for _, code := range append([]string(nil), rs.keys...) {
			if strings.HasPrefix(code, "2") {
				rs.obj(code).del("headers")
				continue
			}
			rs.del(code)
		}
		rs.set("default", newObject().set("$ref", refResponses+"Problem"))
	})
	comps := doc.obj("components")
	comps.del("headers")
	comps.set("responses", newObject().set("Problem", newObject().
		set("description", "An error (RFC 9457 problem detail).").
		set("content", newObject().set(problemJSON, newObject().set("schema", newObject().set("$ref", refSchemas+"Problem"))))))
}

// dropUnreferenced removes component schemas nothing refers to (webhook
// envelopes and snapshots once webhooks are gone).
func dropUnreferenced(doc *object) {
	schemas := doc.obj("components").obj("schemas")
	for {
		used := map[string]bool{}
		mark := func(o *object) {
			if r, ok := o.vals["$ref"].(string); ok && strings.HasPrefix(r, refSchemas) {
				used[strings.TrimPrefix(r, refSchemas)] = true
			}
		}
		for _, k := range doc.keys {
			if k != "components" {
				walk(doc.vals[k], mark)
			}
		}
		comps := doc.obj("components")
		for _, k := range comps.keys {
			if k != "schemas" {
				walk(comps.vals[k], mark)
			}
		}
		for _, k := range schemas.keys {
			walk(schemas.vals[k], mark)
		}
		removed := false
		for _, name := range append([]string(nil), schemas.keys...) {
			if !used[name] {
				schemas.del(name)
				removed = true
			}
		}
		if !removed {
			return
		}
	}
}

// problemCodes lists the error codes in the published description: a
// problem's code is one of ProblemCode's values, open in answers like every
// enumeration, so a code is part of what version 1 promises (the gate fails
// when one goes). ogen's input keeps a plain string: the server writes codes
// from package problem.
func problemCodes(doc *object) {
	schemas := doc.obj("components").obj("schemas")
	var codes []any
	for _, c := range problem.Codes() {
		codes = append(codes, string(c))
	}
	schemas.set("ProblemCode", newObject().
		set("description", "A machine-readable error code; each status's codes are in its response's description.").
		set("type", "string").
		set("enum", codes))
	code := schemas.obj("Problem").obj("properties").obj("code")
	desc := code.vals["description"]
	for _, k := range append([]string(nil), code.keys...) {
		code.del(k)
	}
	code.set("description", desc).set("$ref", refSchemas+"ProblemCode")
}
