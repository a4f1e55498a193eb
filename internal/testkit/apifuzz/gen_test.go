package apifuzz_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// This file turns the API description into requests: the operations with
// their parameters and body schemas, valid values derived from the schemas,
// and the hostile variations of each part of a request.

// apiSpec is what the fuzzer reads from the description.
type apiSpec struct {
	doc  map[string]any
	base string // path of the server URL, "/v1"
	ops  []*operation
	// problemRequired are the required properties of the Problem schema.
	problemRequired []string
}

// operation is one path and method of the description.
type operation struct {
	Method, Path string // Path as the description writes it: /tags/{tag_id}
	ID           string
	Params       []*param
	Body         map[string]any // schema of the application/json body, nil without one
	Secured      bool
	// collection is the list path whose ids fill the path parameter ("/tags").
	collection string
}

func (op *operation) String() string { return op.Method + " " + op.Path }

func (op *operation) pathParam() *param {
	for _, p := range op.Params {
		if p.In == "path" {
			return p
		}
	}
	return nil
}

func (op *operation) queryParams() []*param {
	var out []*param
	for _, p := range op.Params {
		if p.In == "query" {
			out = append(out, p)
		}
	}
	return out
}

// param is a path or query parameter.
type param struct {
	Name, In    string
	Required    bool
	Schema      map[string]any
	Description string
	// sorts are the fields a sort parameter accepts, as its description lists them.
	sorts []string
}

var sortFields = regexp.MustCompile(`Fields: ([a-z0-9_, ]+)\.`)

// loadSpec reads an OpenAPI 3.1 document.
func loadSpec(raw []byte) (*apiSpec, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil {
		return nil, err
	}
	s := &apiSpec{doc: doc}
	if servers, _ := doc["servers"].([]any); len(servers) > 0 {
		if u, err := url.Parse(str(obj(servers[0])["url"])); err == nil {
			s.base = strings.TrimSuffix(u.Path, "/")
		}
	}
	globalSecurity, _ := doc["security"].([]any)
	paths := obj(doc["paths"])
	for _, path := range sortedKeys(paths) {
		item := obj(paths[path])
		shared, _ := item["parameters"].([]any)
		for _, method := range []string{"get", "post", "put", "patch", "delete"} {
			o := obj(item[method])
			if o == nil {
				continue
			}
			op := &operation{Method: strings.ToUpper(method), Path: path, ID: str(o["operationId"])}
			list, _ := o["parameters"].([]any)
			for _, x := range append(append([]any{}, shared...), list...) {
				pm := s.resolve(x)
				p := &param{Name: str(pm["name"]), In: str(pm["in"]), Required: pm["required"] == true,
					Schema: s.resolve(pm["schema"]), Description: str(pm["description"])}
				if m := sortFields.FindStringSubmatch(p.Description); p.Name == "sort" && m != nil {
					for _, f := range strings.Split(m[1], ",") {
						p.sorts = append(p.sorts, strings.TrimSpace(f))
					}
				}
				op.Params = append(op.Params, p)
			}
			if rb := s.resolve(o["requestBody"]); rb != nil {
				if media := obj(obj(rb["content"])["application/json"]); media != nil {
					op.Body = s.resolve(media["schema"])
				}
			}
			security := globalSecurity
			if sec, ok := o["security"].([]any); ok {
				security = sec
			}
			op.Secured = len(security) > 0 && len(obj(security[0])) > 0
			if i := strings.Index(path, "/{"); i >= 0 {
				op.collection = path[:i]
			} else {
				op.collection = path
			}
			s.ops = append(s.ops, op)
		}
	}
	if p := s.resolve(obj(obj(doc["components"])["schemas"])["Problem"]); p != nil {
		for _, r := range list(p["required"]) {
			s.problemRequired = append(s.problemRequired, str(r))
		}
	}
	if len(s.ops) == 0 {
		return nil, fmt.Errorf("the description has no operations")
	}
	return s, nil
}

// resolve follows $ref within the document.
func (s *apiSpec) resolve(v any) map[string]any {
	m := obj(v)
	for i := 0; m != nil && i < 20; i++ {
		ref, ok := m["$ref"].(string)
		if !ok {
			return m
		}
		var cur any = s.doc
		for _, part := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
			cur = obj(cur)[strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")]
		}
		m = obj(cur)
	}
	return m
}

func obj(v any) map[string]any { m, _ := v.(map[string]any); return m }
func str(v any) string         { s, _ := v.(string); return s }
func list(v any) []any         { l, _ := v.([]any); return l }

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// schemaType is the first non-null type of a schema.
func schemaType(s map[string]any) string {
	switch t := s["type"].(type) {
	case string:
		return t
	case []any:
		for _, x := range t {
			if x != "null" {
				return str(x)
			}
		}
	}
	if s["properties"] != nil {
		return "object"
	}
	return ""
}

func nullable(s map[string]any) bool {
	t, _ := s["type"].([]any)
	return slices.Contains(t, any("null"))
}

func number(v any) (float64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	f, err := n.Float64()
	return f, err == nil
}

func intOf(v any, def int) int {
	if f, ok := number(v); ok {
		return int(f)
	}
	return def
}

// ---- JSON values --------------------------------------------------------

// object is a JSON object that keeps its key order and may repeat a key.
// Keys and values are JSON values: nil, bool, json.Number, string, []any,
// *object, or rawJSON.
type object struct {
	keys []any // string or rawJSON
	vals []any
}

// rawJSON is written as it is: a hostile token that encoding/json would
// refuse or repair.
type rawJSON string

func (o *object) index(key string) int {
	for i, k := range o.keys {
		if k == key {
			return i
		}
	}
	return -1
}

func (o *object) set(key any, v any) {
	if k, ok := key.(string); ok {
		if i := o.index(k); i >= 0 {
			o.vals[i] = v
			return
		}
	}
	o.keys = append(o.keys, key)
	o.vals = append(o.vals, v)
}

func (o *object) del(key string) {
	if i := o.index(key); i >= 0 {
		o.keys = slices.Delete(o.keys, i, i+1)
		o.vals = slices.Delete(o.vals, i, i+1)
	}
}

// encode writes v as JSON text.
func encode(b *bytes.Buffer, v any) {
	switch v := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(v))
	case json.Number:
		b.WriteString(string(v))
	case rawJSON:
		b.WriteString(string(v))
	case string:
		quote(b, v)
	case []any:
		b.WriteByte('[')
		for i, x := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			encode(b, x)
		}
		b.WriteByte(']')
	case *object:
		b.WriteByte('{')
		for i := range v.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			encode(b, v.keys[i])
			b.WriteByte(':')
			encode(b, v.vals[i])
		}
		b.WriteByte('}')
	default:
		panic(fmt.Sprintf("encode %T", v))
	}
}

func quote(b *bytes.Buffer, s string) {
	var q bytes.Buffer
	e := json.NewEncoder(&q)
	e.SetEscapeHTML(false)
	_ = e.Encode(s)
	b.Write(bytes.TrimSuffix(q.Bytes(), []byte("\n")))
}

func encoded(v any) []byte {
	var b bytes.Buffer
	encode(&b, v)
	return b.Bytes()
}

// ---- id pools -----------------------------------------------------------

// pools are the record ids the setup found, per collection path. They are
// filled before the fuzzing starts and only read afterwards, so a request is
// a function of the seed, its index and the pools.
type pools struct {
	keep    map[string][]int64 // the main account's rows no request deletes
	victims map[string][]int64 // the main account's rows DELETE may take
	shared  map[string][]int64 // shared or read-only rows the main key sees
	foreign map[string][]int64 // another organization's rows
	all     []int64            // every id above, of any collection
	// values are the string values of existing rows by "collection field",
	// to send taken names and codes.
	values map[string][]string
}

func newPools() *pools {
	return &pools{keep: map[string][]int64{}, victims: map[string][]int64{}, shared: map[string][]int64{},
		foreign: map[string][]int64{}, values: map[string][]string{}}
}

func (p *pools) add(m map[string][]int64, collection string, id int64) {
	m[collection] = append(m[collection], id)
	p.all = append(p.all, id)
}

// row records the string fields of a row.
func (p *pools) row(collection string, row map[string]any) {
	for _, k := range sortedKeys(row) {
		if v, ok := row[k].(string); ok && v != "" {
			p.values[collection+" "+k] = append(p.values[collection+" "+k], v)
		}
	}
}

// collections lists every collection with rows, sorted.
func (p *pools) collections() []string {
	set := map[string]any{}
	for _, m := range []map[string][]int64{p.keep, p.victims, p.shared, p.foreign} {
		for c := range m {
			set[c] = true
		}
	}
	return sortedKeys(set)
}

// visible are the rows of collection the main key sees.
func (p *pools) visible(collection string) []int64 {
	return slices.Concat(p.keep[collection], p.victims[collection], p.shared[collection])
}

// lettersOnly keeps the letters of s without "s", so that "unit_of_measure"
// and "/units-of-measure" compare equal.
func lettersOnly(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 'a' || r > 'z' || r == 's' {
			return -1
		}
		return r
	}, strings.ToLower(s))
}

// collectionOf finds the collection a reference property ("unit_of_measure_id") names.
func (p *pools) collectionOf(prop string) string {
	want := lettersOnly(strings.TrimSuffix(prop, "_id"))
	for _, c := range p.collections() {
		if lettersOnly(c) == want {
			return c
		}
	}
	return ""
}

// ---- the generator ------------------------------------------------------

// gen makes one request; it owns the random source of that request.
type gen struct {
	spec  *apiSpec
	pools *pools
	r     *rand.Rand
	notes []string // what was done to the request, for the report
	// collection is the one the request is about, whose taken values a body may reuse.
	collection string
}

func (g *gen) pick(n int) int { return g.r.IntN(n) }

func (g *gen) chance(p float64) bool { return g.r.Float64() < p }

func pickOf[T any](g *gen, xs []T) T { return xs[g.r.IntN(len(xs))] }

func (g *gen) note(format string, args ...any) {
	g.notes = append(g.notes, fmt.Sprintf(format, args...))
}

// safeRunes build the generated text. They hold no vowel and no "q", so no
// generated text can spell a word the leak check looks for, and none of them
// is a space, so that names are never blank or padded.
var safeRunes = []rune("bcdfghjkmnprtvwxzBCDFGHJKMNPRTVWXZ0123456789-_é漢ß")

func (g *gen) text(min, max int) string {
	if max <= 0 {
		max = 24
	}
	n := min
	switch {
	case g.chance(0.1):
		n = max // at the bound, sometimes in two-byte characters
	case max > min:
		n = min + g.pick(minInt(max, 24)-min+1)
	}
	if n < 1 && min > 0 {
		n = 1
	}
	rs := make([]rune, n)
	for i := range rs {
		rs[i] = pickOf(g, safeRunes)
	}
	return string(rs)
}

func minInt(a, b int) int {
	if a < b {
		return a
	}
	return b
}

var decimals = []string{"0", "1", "1.5", "2.25", "7", "12.345678", "99.5", "100", "0.000001", "250", "12345678.123456", "99999999999999"}

// decimal is a number within the schema's bounds.
func (g *gen) decimal(s map[string]any) json.Number {
	var ok []string
	for _, d := range decimals {
		f, _ := strconv.ParseFloat(d, 64)
		if lo, has := number(s["minimum"]); has && f < lo {
			continue
		}
		if hi, has := number(s["maximum"]); has && f > hi {
			continue
		}
		if hi, has := number(s["exclusiveMaximum"]); has && f >= hi {
			continue
		}
		if lo, has := number(s["exclusiveMinimum"]); has && f <= lo {
			continue
		}
		ok = append(ok, d)
	}
	if len(ok) == 0 {
		return "0"
	}
	return json.Number(pickOf(g, ok))
}

// refID is an id for a reference property: mostly a row of the named
// collection, sometimes any row.
func (g *gen) refID(prop string) int64 {
	if c := g.pools.collectionOf(prop); c != "" && len(g.pools.visible(c)) > 0 && g.chance(0.9) {
		return pickOf(g, g.pools.visible(c))
	}
	if len(g.pools.all) == 0 {
		return 1
	}
	return pickOf(g, g.pools.all)
}

// valid is a value the schema accepts (as far as the schema can say: unique
// values and references may still be refused).
func (g *gen) valid(s map[string]any, name string, depth int) any {
	s = g.spec.resolve(s)
	if s == nil {
		return nil
	}
	if e := list(s["enum"]); len(e) > 0 {
		return e[g.pick(len(e))]
	}
	switch schemaType(s) {
	case "string":
		if s["format"] == "date-time" {
			return "2026-01-31T12:00:00Z"
		}
		if s["format"] == "date" {
			return "2026-01-31"
		}
		if taken := g.pools.values[g.collection+" "+name]; len(taken) > 0 && g.chance(0.1) {
			return pickOf(g, taken) // a value a row already has: unique ones are a 409
		}
		return g.text(intOf(s["minLength"], 0), intOf(s["maxLength"], 40))
	case "number":
		return g.decimal(s)
	case "integer":
		if strings.HasSuffix(name, "_id") {
			return json.Number(strconv.FormatInt(g.refID(name), 10))
		}
		lo := intOf(s["minimum"], 0)
		return json.Number(strconv.Itoa(lo + g.pick(100)))
	case "boolean":
		return g.chance(0.5)
	case "array":
		if depth > 4 {
			return []any{}
		}
		out := []any{}
		for range g.pick(3) {
			out = append(out, g.valid(obj(s["items"]), name, depth+1))
		}
		return out
	case "object":
		if depth > 4 {
			return &object{}
		}
		o := &object{}
		props := obj(s["properties"])
		required := list(s["required"])
		for _, k := range sortedKeys(props) {
			if slices.Contains(required, any(k)) || g.chance(0.6) {
				o.set(k, g.valid(obj(props[k]), k, depth+1))
			}
		}
		return o
	}
	return nil
}

// ---- hostile values -----------------------------------------------------

// Hostile string tokens, as they go on the wire. Some are not valid JSON (a
// raw NUL or tab in a string); the server must refuse those with a 400.
var nastyStrings = []string{
	`"a\u0000b"`, `"\u0000"`, "\"a\x00b\"", "\"\xff\"", "\"a\xc3\x28b\"", `"\ud800"`, `"x\udc00"`,
	`"\ud800\u0000"`, `"\udbff\udfff"`, `"\ud83d\ude00"`, "\"\xf0\x9f\x98\x80\"", "\"\xc0\x80\"",
	"\"\xed\xa0\x80\"", "\"\xf4\x90\x80\x80\"", "\"\xe2\x82\"", "\"\xfe\xff\"", `"\u00e9"`, "\"\u200b\"",
	`"\uffff"`, `"\ufeff"`, `"\ufffd"`, "\"\x7f\"", `"\t\n\r"`, "\"a\tb\"", "\"a\nb\"", `"a\\b"`, `"\/"`,
	`"%00"`, `"%s%d%n"`, `"'; drop table tags; --"`, `"' or 1=1 --"`, `"\" or \"\"=\""`, `"${jndi:x}"`,
	`"<b>x</b>"`, `" "`, `"  x  "`, `""`, `"\u202e"`, `"\u0085"`, `"\\u0000"`, `"null"`, `"true"`, `"0"`,
	`"-1"`, `"1e999"`, `"NaN"`, `"[]"`, `"{}"`, `"\x"`, `"\u12"`, `"\uZZZZ"`, `"unterminated`,
}

// Hostile number tokens. The last group is not valid JSON.
var nastyNumbers = []string{
	"1e308", "-1e308", "1e-308", "1e999999999", "-1e999999999", "1e-999999999", "-0", "-0.0", "0e0",
	"1e15", "1.23456789", "9223372036854775808", "18446744073709551616", "9223372036854775807",
	"-9223372036854775808", "-9223372036854775809", "2147483648", "4294967296", "99999999999999.999999",
	"99999999999999", "100000000000000", "0.0000001", "0.000001", "1E2", "1e+2", "1.0", "100.000001",
	"4.9e-324", "2.2250738585072014e-308", "1.7976931348623157e308", "123456789012345678901234567890",
	strings.Repeat("9", 1000), "0." + strings.Repeat("0", 1000) + "1", "-1", "-0.000001", "1.5", "0.1e1",
	"1e-7", "12345678901234.5", "1234567890.123456", "1e14", "0e1000", "-0e-1000", "0.000000000", "0E+99", "0e-7",
	"NaN", "Infinity", "-Infinity", "01", ".5", "1.", "+1", "0x10", "1e", "--1", "1_000", "1e+", "- 1",
}

// wrongTypes replace a value with one of another JSON type.
var wrongTypes = []string{`"1"`, `"true"`, `1`, `1.5`, `0`, `true`, `false`, `[]`, `{}`, `[1]`, `{"a":1}`, `["x"]`, `""`, `[null]`}

// unknownKeys are properties no body defines, or ones it may not set.
var unknownKeys = []string{`"id"`, `"is_global"`, `"account_id"`, `"organization_id"`, `"created_at"`,
	`"updated_at"`, `"is_deleted"`, `"read_only"`, `"unknown"`, `""`, `" "`, `"Name"`, `"name "`,
	`"__proto__"`, `"constructor"`, `"\u0000"`, "\"\xff\"", `"\ud800"`, `"a.b"`, `"$ref"`, `"ref_type"`,
	`"code"`, `"nutrients"`, `"data"`, `"errors"`, `"product_code"`}

// wholeBody is a body that is not an object of the schema at all.
func (g *gen) wholeBody(valid []byte) []byte {
	bodies := [][]byte{
		nil, []byte(" "), []byte("null"), []byte("true"), []byte("0"), []byte(`"x"`), []byte("[]"),
		[]byte("[{}]"), append(append([]byte("["), valid...), ']'), []byte("{"), []byte("}"), []byte("{}"),
		[]byte("{}{}"), append(append([]byte{}, valid...), " x"...), append(append([]byte{}, valid...), ','),
		append(append([]byte{}, valid...), valid...), append([]byte("\xef\xbb\xbf"), valid...),
		[]byte(`{"a"}`), []byte(`{"a":}`), []byte(`{,}`), []byte(`{"name":"x",}`), []byte(`{'name':'x'}`),
		[]byte(`name=x&code=y`), []byte(`<tag><name>x</name></tag>`), []byte("\x00"), []byte("\xff\xfe{\x00}\x00"),
		[]byte("{\"name\"\x00:\"x\"}"), []byte(strings.Repeat("[", 100000)), []byte(strings.Repeat(`{"a":`, 10000)),
		[]byte(strings.Repeat("[", 10000) + strings.Repeat("]", 10000)), []byte(`{"a":` + strings.Repeat(`{"a":`, 1000) + "1" + strings.Repeat("}", 1001)),
		[]byte("\t\r\n {} \t\r\n"), []byte(`{"":""}`), []byte(`{"\u0000":0}`), []byte("{\"\xff\":0}"),
	}
	// Random bytes.
	junk := make([]byte, 1+g.pick(64))
	for i := range junk {
		junk[i] = byte(g.pick(256))
	}
	bodies = append(bodies, junk)
	i := g.pick(len(bodies))
	g.note("whole body #%d", i)
	return bodies[i]
}

// bodyProps are the property names a mutation may aim at: those of the
// schema and those present.
func bodyProps(schema map[string]any, o *object) []string {
	props := sortedKeys(obj(schema["properties"]))
	for _, k := range o.keys {
		if s, ok := k.(string); ok && !slices.Contains(props, s) {
			props = append(props, s)
		}
	}
	return props
}

// longString is a string token of n runes of r.
func longString(r string, n int) rawJSON {
	return rawJSON(`"` + strings.Repeat(r, n) + `"`)
}

// mutateBody applies one or two hostile changes to a valid body.
func (g *gen) mutateBody(op *operation, o *object) []byte {
	schema := g.spec.resolve(op.Body)
	props := bodyProps(schema, o)
	required := list(schema["required"])
	rounds := 1
	if g.chance(0.2) {
		rounds = 2
	}
	for range rounds {
		var field string
		if len(props) > 0 {
			field = pickOf(g, props)
		}
		ps := g.spec.resolve(obj(schema["properties"])[field])
		switch k := g.pick(14); {
		case k == 0 && field != "":
			v := pickOf(g, wrongTypes)
			o.set(field, rawJSON(v))
			g.note("%s: wrong type %s", field, v)
		case k == 1 && field != "":
			o.set(field, nil)
			g.note("%s: null (nullable %v)", field, nullable(ps))
		case k == 2:
			if len(required) > 0 {
				f := str(pickOf(g, required))
				o.del(f)
				g.note("missing required %s", f)
			} else if field != "" {
				o.del(field)
				g.note("missing %s", field)
			}
		case k == 3:
			key := pickOf(g, unknownKeys)
			o.set(rawJSON(key), g.valid(ps, field, 0))
			g.note("unknown property %s", key)
		case k == 4 && field != "":
			v := pickOf(g, nastyStrings)
			o.set(field, rawJSON(v))
			g.note("%s: string %q", field, v)
		case k == 5 && field != "":
			v := pickOf(g, nastyNumbers)
			o.set(field, rawJSON(v))
			g.note("%s: number %.40s", field, v)
		case k == 6 && field != "":
			max := intOf(ps["maxLength"], 100)
			choices := []rawJSON{longString("b", 10000), longString("é", 10001), longString("b", max+1),
				longString("é", max), longString("é", max+1), longString("\xf0\x9f\x98\x80", max),
				longString(`\ud83d\ude00`, max), longString(`\u0000`, max), longString("b", 100001)}
			i := g.pick(len(choices))
			o.set(field, choices[i])
			g.note("%s: long string #%d (maxLength %d)", field, i, max)
		case k == 7 && field != "":
			v := pickOf(g, []string{`""`, `" "`, `"\t"`, `"\u00a0"`, `"\u3000"`})
			o.set(field, rawJSON(v))
			g.note("%s: empty %s", field, v)
		case k == 8 && field != "":
			depth := pickOf(g, []int{64, 1000, 10000, 100000})
			if g.chance(0.5) {
				o.set(field, rawJSON(strings.Repeat("[", depth)+strings.Repeat("]", depth)))
			} else {
				o.set(field, rawJSON(strings.Repeat(`{"a":`, depth)+"1"+strings.Repeat("}", depth)))
			}
			g.note("%s: nested %d deep", field, depth)
		case k == 9 && field != "":
			o.keys = append(o.keys, field)
			o.vals = append(o.vals, g.valid(ps, field, 0))
			if g.chance(0.5) {
				o.vals[len(o.vals)-1] = nil
			}
			g.note("%s: duplicate key", field)
		case k == 10 && field != "":
			// Raw invalid bytes inside the string of a valid value.
			bad := pickOf(g, []string{"\xff", "\xc3\x28", "\x00", "\xed\xa0\x80", "\xc0\xaf", "\xf8\x88\x80\x80\x80"})
			o.set(field, rawJSON(`"ab`+bad+`cd"`))
			g.note("%s: raw bytes %q", field, bad)
		case k == 11 && field != "":
			if g.chance(0.5) {
				o.set(field, []any{g.valid(ps, field, 0)})
			} else {
				inner := &object{}
				inner.set(field, g.valid(ps, field, 0))
				o.set(field, inner)
			}
			g.note("%s: wrapped in an array or object", field)
		case k == 12:
			// A reference to the wrong kind of row, or another account's.
			ref := ""
			for _, p := range props {
				if strings.HasSuffix(p, "_id") {
					ref = p
				}
			}
			if ref == "" {
				ref = field
			}
			o.set(ref, json.Number(strconv.FormatInt(g.oddID(), 10)))
			g.note("%s: odd id", ref)
		default:
			// An odd value of any kind in a property of another name.
			key := pickOf(g, unknownKeys)
			o.set(rawJSON(key), rawJSON(pickOf(g, nastyNumbers)))
			g.note("unknown property %s with a number", key)
		}
	}
	return encoded(o)
}

// oddID is an id that is not the main account's: another account's, another
// collection's, or out of range.
func (g *gen) oddID() int64 {
	switch g.pick(4) {
	case 0:
		var all []int64
		for _, c := range sortedKeys(anyMap(g.pools.foreign)) {
			all = append(all, g.pools.foreign[c]...)
		}
		if len(all) > 0 {
			return pickOf(g, all)
		}
	case 1:
		if len(g.pools.all) > 0 {
			return pickOf(g, g.pools.all)
		}
	case 2:
		return pickOf(g, []int64{0, -1, 1 << 31, 1<<63 - 1, -1 << 63})
	}
	return int64(1000000 + g.pick(1000000))
}

func anyMap[T any](m map[string]T) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// ---- paths --------------------------------------------------------------

// oddPathValues are escaped path segments that are not ids of rows.
var oddPathValues = []string{"0", "-1", "-0", "00", "01", "%2B1", "1.0", "1e3", "1.5", "9223372036854775807",
	"9223372036854775808", "-9223372036854775808", "-9223372036854775809", "18446744073709551616",
	strings.Repeat("9", 1000), "2147483648", "4294967296", "abc", "%00", "1%00", "%FF", "%C3%28", "%20",
	"%201", "1%20", "0x10", "1,2", "1;2", "%D9%A1", "%EF%BC%91", "null", "true", "%5B%5D", "..", ".", "",
	"%2e%2e", "%2F", "1%2F2", "%25", "%7Bid%7D", strings.Repeat("b", 10000), "1%0A", "1%09", "%ED%A0%80",
	"%C0%80", "1e999999999", "NaN", "-", "1-", "%E2%80%AE1",
}

// pathValue fills the path parameter: a row the main key sees (one DELETE
// may take, for a DELETE), or when hostile anything else.
func (g *gen) pathValue(op *operation, hostile bool) string {
	if !hostile {
		var from [][]int64
		if op.Method == "DELETE" {
			from = [][]int64{g.pools.victims[op.collection], g.pools.victims[op.collection], g.pools.shared[op.collection]}
		} else {
			from = [][]int64{g.pools.keep[op.collection], g.pools.keep[op.collection], g.pools.victims[op.collection], g.pools.shared[op.collection]}
		}
		from = slices.DeleteFunc(from, func(ids []int64) bool { return len(ids) == 0 })
		if len(from) > 0 {
			return strconv.FormatInt(pickOf(g, pickOf(g, from)), 10)
		}
		return strconv.FormatInt(g.oddID(), 10)
	}
	if g.chance(0.35) {
		id := g.oddID()
		g.note("path: odd id %d", id)
		return strconv.FormatInt(id, 10)
	}
	v := pickOf(g, oddPathValues)
	g.note("path: %.40q", v)
	return v
}

// ---- queries ------------------------------------------------------------

var validTimes = []string{"2026-01-31T12:00:00Z", "2020-01-01", "2020-01-01T00:00:00", "2020-01-01 10:00",
	"2020-01-01T10:00:00%2B02:00", "2020-01-01T10:00", "1970-01-01"}

// validQuery is one accepted value of p, escaped.
func (g *gen) validQuery(op *operation, p *param) []string {
	s := p.Schema
	switch {
	case p.Name == "sort" && len(p.sorts) > 0:
		n := 1 + g.pick(2)
		var terms []string
		for _, f := range p.sorts {
			if len(terms) < n && g.chance(0.5) {
				terms = append(terms, f+pickOf(g, []string{"", ":asc", ":desc", ":DESC"}))
			}
		}
		if len(terms) == 0 {
			terms = []string{pickOf(g, p.sorts)}
		}
		return []string{url.QueryEscape(strings.Join(terms, ","))}
	case schemaType(s) == "array":
		var out []string
		for range 1 + g.pick(2) {
			out = append(out, url.QueryEscape(fmt.Sprint(g.valid(obj(s["items"]), p.Name, 1))))
		}
		return out
	case schemaType(s) == "integer":
		lo, hi := intOf(s["minimum"], 0), intOf(s["maximum"], 100)
		return []string{strconv.Itoa(lo + g.pick(hi-lo+1))}
	case schemaType(s) == "boolean":
		return []string{strconv.FormatBool(g.chance(0.5))}
	case p.Name == "updated_since" || s["format"] == "date-time":
		return []string{pickOf(g, validTimes)}
	}
	v := g.valid(s, p.Name, 0)
	if _, ok := v.(string); ok && len(list(s["enum"])) == 0 {
		v = g.text(0, 6)
	}
	return []string{url.QueryEscape(fmt.Sprint(v))}
}

// oddQueryValues are escaped values for any parameter.
var oddQueryValues = []string{"", "%00", "a%00b", "%FF", "%C3%28", "%ED%A0%80", "%C0%80", "%EF%BF%BF",
	strings.Repeat("b", 201), strings.Repeat("b", 10000), strings.Repeat("%C3%A9", 201), strings.Repeat("%C3%A9", 200),
	strings.Repeat("%F0%9F%98%80", 201), "+", "%20", "%2B", "%25", "%26", "%3D", ",", ";", "%5B%5D", "%7B%7D",
	"null", "true", "-1", "0", "-0", "1.5", "1e3", "9223372036854775807", "9223372036854775808",
	"18446744073709551616", "-9223372036854775809", strings.Repeat("9", 400), "0x10", "1_000", "NaN", "Infinity",
	"%D9%A1%D9%A2", "%EF%BC%91", "'", "%22", "%5C", "*", "%25%25", "_", "%25_", "%0A", "%09", "%E2%80%AE"}

var oddSorts = []string{"nope", "id:sideways", "id:", ":asc", "id:asc:desc", "id,id", ",", "name,", "%20name",
	"ID", "Name:ASC", "name:asc,id:desc,name", "-id", "%2Bid", "id%00", "id:%FF", "name:" + strings.Repeat("b", 10000),
	"password", "account_id", "deleted_at", "is_global", "1", "id;drop", "cost", "organization_id",
	strings.Repeat("id,", 500) + "id", "id:asc%20", "id%20:asc", "id:%20asc", "%E2%80%AEid", "name:a%CC%8Asc"}

var oddInts = []string{"-1", "0", "1", "200", "201", "10000", "10001", "2147483648", "9223372036854775807",
	"9223372036854775808", "-9223372036854775809", "1e2", "1.0", "%205", "5%20", "05", "%2B5", "0x5", "abc", ""}

var oddTimes = []string{"2026-13-45", "2026-02-30", "2026-01-31T25:61:61Z", "0000-00-00", "0001-01-01",
	"9999-12-31T23:59:59Z", "10000-01-01", "275760-09-13", "-0001-01-01", "2026-01-31T12:00:00%2B99:00",
	"2026-01-31T12:00:00.9999999999Z", "2026-01-31T12:00:00%20Z", "yesterday", "1706702400", "1e9",
	"2026-01-31T12:00:00+01:00", "2026-W05", "2026-031", "Sat,%2031%20Jan%202026%2012:00:00%20GMT",
	"2026-01-31T12:00Z", "2026-1-1", "2026-01-31T12:00:00-23:59", "2026-01-31T12:00:00%2B24:00", "0000-01-01T00:00:00Z",
	"1969-12-31T23:59:59Z", "2026-01-31T12:00:00.000000001Z", "2026-01-31T12%3A00%3A00Z", "2026-01-31T12:00:60Z",
	"0000-01-01T00:30:00%2B01:00", "0001-01-01T00:00:00%2B23:59", "9999-12-31T23:59:59-23:59", "0000-01-01"}

// costlyZero is a zero whose exponent makes arbitrary-precision arithmetic
// expensive (10^40000000 has 40 million digits); see fuzzer.costly.
const costlyZero = "0e40000000"

var oddBools = []string{"TRUE", "True", "1", "0", "yes", "t", "tru", "null", ""}

var oddParamNames = []string{"%00", "%FF", "api_key", "limit%5B%5D", "sort%5B0%5D", "a", strings.Repeat("b", 1000),
	"LIMIT", "Search", "search%00", "%20search", "updated_since", "cost", "id", "include", "fields", "expand", "page", "per_page"}

// oddValue is a hostile value for p.
func (g *gen) oddValue(p *param) string {
	if g.chance(0.5) {
		switch {
		case p.Name == "sort":
			return pickOf(g, oddSorts)
		case schemaType(p.Schema) == "integer":
			return pickOf(g, oddInts)
		case p.Name == "updated_since" || p.Schema["format"] == "date-time":
			return pickOf(g, oddTimes)
		case schemaType(p.Schema) == "boolean":
			return pickOf(g, oddBools)
		case len(list(p.Schema["enum"])) > 0 || len(list(obj(p.Schema["items"])["enum"])) > 0:
			e := list(p.Schema["enum"])
			if len(e) == 0 {
				e = list(g.spec.resolve(p.Schema["items"])["enum"])
			}
			v := str(pickOf(g, e))
			return pickOf(g, []string{strings.ToLower(v), v + "," + v, v + "%00", "%20" + v, "UNKNOWN", v + "x"})
		}
	}
	return pickOf(g, oddQueryValues)
}

// query builds the query string of op: the required parameters and some
// optional ones with valid values, then, when hostile, one or two odd changes.
func (g *gen) query(op *operation, hostile bool) string {
	params := op.queryParams()
	type pair struct{ name, value string }
	var pairs []pair
	for _, p := range params {
		if p.Required || g.chance(0.3) {
			for _, v := range g.validQuery(op, p) {
				pairs = append(pairs, pair{p.Name, v})
			}
		}
	}
	if hostile {
		for range 1 + g.pick(2) {
			switch k := g.pick(10); {
			case k < 5 && len(params) > 0:
				p := pickOf(g, params)
				v := g.oddValue(p)
				pairs = slices.DeleteFunc(pairs, func(x pair) bool { return x.name == p.Name })
				pairs = append(pairs, pair{p.Name, v})
				g.note("query %s=%.40s", p.Name, v)
			case k == 5 && len(params) > 0:
				p := pickOf(g, params)
				vs := g.validQuery(op, p)
				pairs = append(pairs, pair{p.Name, vs[0]}, pair{p.Name, g.oddValue(p)})
				g.note("query %s repeated", p.Name)
			case k == 6 && len(params) > 0:
				p := pickOf(g, params)
				pairs = slices.DeleteFunc(pairs, func(x pair) bool { return x.name == p.Name })
				pairs = append(pairs, pair{p.Name + "\x00noeq", ""})
				g.note("query %s without =", p.Name)
			case k == 7:
				name := pickOf(g, oddParamNames)
				pairs = append(pairs, pair{name, pickOf(g, oddQueryValues)})
				g.note("query: unknown parameter %.20s", name)
			case k == 8 && len(pairs) > 0:
				i := g.pick(len(pairs))
				g.note("query: dropped %s", pairs[i].name)
				pairs = slices.Delete(pairs, i, i+1)
			default:
				sep := pickOf(g, []string{"&&", "&=x&", ";", "&%26&", "&=&"})
				pairs = append(pairs, pair{"\x00raw", sep})
				g.note("query: separator %q", sep)
			}
		}
	}
	var b strings.Builder
	for _, p := range pairs {
		if b.Len() > 0 {
			b.WriteByte('&')
		}
		switch {
		case p.name == "\x00raw":
			b.WriteString(p.value)
		case strings.HasSuffix(p.name, "\x00noeq"):
			b.WriteString(strings.TrimSuffix(p.name, "\x00noeq"))
		default:
			b.WriteString(p.name + "=" + p.value)
		}
	}
	return b.String()
}

// ---- headers ------------------------------------------------------------

var contentTypes = []string{"", "text/plain", "application/json; charset=utf-8", "application/json;charset=UTF-8",
	"application/json; charset=iso-8859-1", "application/json; charset=utf-16", "APPLICATION/JSON", "application/json ",
	"application/json;", "application/json; foo", "application/json; =x", `application/json; a="unterminated`,
	"application/problem+json", "application/merge-patch+json", "application/vnd.api+json", "application/*", "*/*",
	"application", "/", ";", "multipart/form-data; boundary=xyz", "application/x-www-form-urlencoded", "text/json",
	"application/json, text/plain", "application/json\xff", "application/json; charset=\xff",
	"application/json; " + strings.Repeat("a=b; ", 2000), "\u00e9/\u00e9", "application/jsonx", " application/json"}

var accepts = []string{"text/html", "application/xml", "*/*", "application/json;q=0", "", "application/problem+json",
	"\xff", strings.Repeat("text/html,", 1000), "application/json; charset=latin1", "image/png"}

var requestIDs = []string{"\xff\xfe", "req_01", "a\tb", "\u65e5\u672c", strings.Repeat("r", 10000), "%00", "\x80",
	"req_" + strings.Repeat("0", 1000), " ", "\"}{\"", "<script>", "\u202e"}
