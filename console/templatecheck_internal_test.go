package console

import (
	"fmt"
	"html/template"
	"reflect"
	"slices"
	"strings"
	"testing"
	tparse "text/template/parse"
)

// Every page's template reads only fields and methods its data type has:
// each field reference of each template a page reaches (the layout, the
// page's content, the partials it calls) is followed through the types
// it passes, so that a misspelt field fails here rather than on a page.
func TestTemplatesReadTheirData(t *testing.T) {
	pages, err := parsePages()
	if err != nil {
		t.Fatal(err)
	}
	for name := range pages {
		if _, ok := pageTypes[name]; !ok {
			t.Errorf("template %s.html is declared with no data type (pages.go)", name)
		}
	}
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for n := range pageTypes {
			if !yield(n) {
				return
			}
		}
	}) {
		p, ok := pages[name]
		if !ok {
			t.Errorf("page %s has no template", name)
			continue
		}
		ck := &typeChecker{set: p.t, seen: map[string]bool{}}
		ck.template("layout", pageTypes[name])
		for _, e := range ck.errs {
			t.Errorf("%s.html: %s", name, e)
		}
		if ck.checked == 0 {
			t.Errorf("%s.html: no field was checked", name)
		}
	}
}

// The check finds a misspelt field, a field of a field, one inside range
// and with, one read through a variable, one in a partial's argument, a
// method's result and a function's result.
func TestTypeCheckerFindsMisspeltFields(t *testing.T) {
	type row struct {
		Name string
		When *navItem
	}
	type data struct {
		Rows []row
		Map  map[string]row
		Any  any
	}
	good := `{{define "layout"}}{{.Title}}{{range .Data.Rows}}{{.Name}}{{.When.Label}}{{end}}{{with .Data.Map}}{{range $k, $v := .}}{{$k}}{{$v.Name}}{{end}}{{end}}` +
		`{{$r := index .Data.Rows 0}}{{$r.Name}}{{.Form.Error "x"}}{{template "part" .Data}}{{(inc 1)}}{{.Data.Any.Whatever}}{{end}}` +
		`{{define "part"}}{{range .Rows}}{{.When.Path}}{{end}}{{end}}`
	for _, c := range []struct{ src, want string }{
		{good, ""},
		{strings.Replace(good, "{{.Title}}", "{{.Titel}}", 1), "can't evaluate field Titel"},
		{strings.Replace(good, "{{.Name}}{{.When.Label}}", "{{.Name}}{{.When.Lable}}", 1), "can't evaluate field Lable"},
		{strings.Replace(good, "{{$v.Name}}", "{{$v.Nam}}", 1), "can't evaluate field Nam"},
		{strings.Replace(good, "{{$r.Name}}", "{{$r.Nme}}", 1), "can't evaluate field Nme"},
		{strings.Replace(good, "{{.When.Path}}", "{{.When.Pat}}", 1), "can't evaluate field Pat"},
		{strings.Replace(good, `{{.Form.Error "x"}}`, `{{.Form.Eror "x"}}`, 1), "can't evaluate field Eror"},
		{strings.Replace(good, "{{(inc 1)}}", "{{(inc 1).X}}", 1), "field X of non-struct type int"},
		{strings.Replace(good, `{{template "part" .Data}}`, `{{template "parts" .Data}}`, 1), `no template "parts"`},
	} {
		set := template.Must(template.New("t").Funcs(funcs).Parse(c.src))
		ck := &typeChecker{set: set, seen: map[string]bool{}}
		ck.template("layout", reflect.TypeFor[view[data]]())
		got := strings.Join(ck.errs, "; ")
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("%q: errors %q, want %q", c.src, got, c.want)
		}
	}
}

// typeChecker walks templates of set with the type of their dot.
type typeChecker struct {
	set     *template.Template
	seen    map[string]bool
	errs    []string
	checked int
	// tree is the template being walked, for the errors' places.
	tree *tparse.Tree
}

// scope is the variables a template's code sees, by name.
type scope map[string]reflect.Type

func (s scope) with() scope {
	out := make(scope, len(s))
	for k, v := range s {
		out[k] = v
	}
	return out
}

func (ck *typeChecker) fail(n tparse.Node, format string, args ...any) {
	loc, _ := ck.tree.ErrorContext(n)
	ck.errs = append(ck.errs, loc+": "+fmt.Sprintf(format, args...))
}

// template checks the template called name with dot of type dot (nil:
// unknown, not checked further); each template once per type.
func (ck *typeChecker) template(name string, dot reflect.Type) {
	key := name + "\x00" + fmt.Sprint(dot)
	if ck.seen[key] {
		return
	}
	ck.seen[key] = true
	t := ck.set.Lookup(name)
	if t == nil || t.Tree == nil {
		ck.errs = append(ck.errs, fmt.Sprintf("no template %q", name))
		return
	}
	outer := ck.tree
	ck.tree = t.Tree
	ck.list(t.Tree.Root, dot, scope{"$": dot})
	ck.tree = outer
}

func (ck *typeChecker) list(l *tparse.ListNode, dot reflect.Type, vars scope) {
	if l == nil {
		return
	}
	for _, n := range l.Nodes {
		ck.node(n, dot, vars)
	}
}

func (ck *typeChecker) node(n tparse.Node, dot reflect.Type, vars scope) {
	switch n := n.(type) {
	case *tparse.ActionNode:
		ck.pipe(n.Pipe, dot, vars)
	case *tparse.IfNode:
		inner := vars.with()
		ck.pipe(n.Pipe, dot, inner)
		ck.list(n.List, dot, inner)
		ck.list(n.ElseList, dot, vars.with())
	case *tparse.WithNode:
		inner := vars.with()
		t := ck.pipe(n.Pipe, dot, inner)
		ck.list(n.List, t, inner)
		ck.list(n.ElseList, dot, vars.with())
	case *tparse.RangeNode:
		inner := vars.with()
		decl := n.Pipe.Decl
		n.Pipe.Decl = nil
		t := ck.pipe(n.Pipe, dot, inner)
		n.Pipe.Decl = decl
		key, elem := rangeTypes(t)
		switch len(decl) {
		case 1:
			inner[decl[0].Ident[0]] = elem
		case 2:
			inner[decl[0].Ident[0]], inner[decl[1].Ident[0]] = key, elem
		}
		ck.list(n.List, elem, inner)
		ck.list(n.ElseList, dot, vars.with())
	case *tparse.TemplateNode:
		var arg reflect.Type
		if n.Pipe != nil {
			arg = ck.pipe(n.Pipe, dot, vars.with())
		}
		if ck.set.Lookup(n.Name) == nil {
			ck.fail(n, "no template %q", n.Name)
			return
		}
		ck.template(n.Name, arg)
	case *tparse.ListNode:
		ck.list(n, dot, vars)
	}
}

// rangeTypes are the key and element types of ranging over t (nil when
// unknown).
func rangeTypes(t reflect.Type) (key, elem reflect.Type) {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil {
		return nil, nil
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		return reflect.TypeFor[int](), t.Elem()
	case reflect.Map:
		return t.Key(), t.Elem()
	case reflect.Int:
		return t, t
	}
	return nil, nil
}

// pipe checks a pipeline and is its result's type; its variables are
// declared in vars.
func (ck *typeChecker) pipe(p *tparse.PipeNode, dot reflect.Type, vars scope) reflect.Type {
	var t reflect.Type
	for _, c := range p.Cmds {
		t = ck.command(c, dot, vars)
	}
	for _, d := range p.Decl {
		vars[d.Ident[0]] = t
	}
	return t
}

var (
	boolType   = reflect.TypeFor[bool]()
	stringType = reflect.TypeFor[string]()
	intType    = reflect.TypeFor[int]()
)

// command checks a command and is its result's type.
func (ck *typeChecker) command(c *tparse.CommandNode, dot reflect.Type, vars scope) reflect.Type {
	for _, a := range c.Args[1:] {
		ck.arg(a, dot, vars)
	}
	first := c.Args[0]
	if id, ok := first.(*tparse.IdentifierNode); ok {
		return ck.function(id, c.Args[1:], dot, vars)
	}
	return ck.arg(first, dot, vars)
}

// function is the result type of calling function id.
func (ck *typeChecker) function(id *tparse.IdentifierNode, args []tparse.Node, dot reflect.Type, vars scope) reflect.Type {
	switch id.Ident {
	case "not", "eq", "ne", "lt", "le", "gt", "ge":
		return boolType
	case "len":
		return intType
	case "print", "printf", "println", "html", "js", "urlquery":
		return stringType
	case "index":
		t := ck.arg(args[0], dot, vars)
		for range args[1:] {
			_, t = rangeTypes(t)
		}
		return t
	case "slice":
		return ck.arg(args[0], dot, vars)
	case "and", "or", "call":
		return nil
	}
	f, ok := funcs[id.Ident]
	if !ok {
		ck.fail(id, "no function %q", id.Ident)
		return nil
	}
	ft := reflect.TypeOf(f)
	if ft.NumOut() == 0 || ft.Out(0).Kind() == reflect.Interface {
		return nil
	}
	return ft.Out(0)
}

// arg checks one operand and is its type.
func (ck *typeChecker) arg(n tparse.Node, dot reflect.Type, vars scope) reflect.Type {
	switch n := n.(type) {
	case *tparse.DotNode:
		return dot
	case *tparse.FieldNode:
		return ck.fields(n, dot, n.Ident)
	case *tparse.VariableNode:
		t, ok := vars[n.Ident[0]]
		if !ok {
			ck.fail(n, "undefined variable %s", n.Ident[0])
			return nil
		}
		return ck.fields(n, t, n.Ident[1:])
	case *tparse.ChainNode:
		return ck.fields(n, ck.arg(n.Node, dot, vars), n.Field)
	case *tparse.PipeNode:
		return ck.pipe(n, dot, vars.with())
	case *tparse.IdentifierNode:
		return ck.function(n, nil, dot, vars)
	case *tparse.StringNode:
		return stringType
	case *tparse.BoolNode:
		return boolType
	case *tparse.NumberNode:
		if n.IsInt {
			return intType
		}
		return nil
	}
	return nil
}

// fields follows names from t: a method (on the value or its pointer) or
// an exported field at each step; nil (unknown) past an interface or a
// map's element.
func (ck *typeChecker) fields(n tparse.Node, t reflect.Type, names []string) reflect.Type {
	for _, name := range names {
		if t == nil {
			return nil
		}
		ck.checked++
		if m, ok := method(t, name); ok {
			if m.Type.NumOut() == 0 {
				ck.fail(n, "method %s of %s returns nothing", name, t)
				return nil
			}
			t = m.Type.Out(0)
			if t.Kind() == reflect.Interface {
				return nil
			}
			continue
		}
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		switch t.Kind() {
		case reflect.Struct:
			f, ok := t.FieldByName(name)
			if !ok || !f.IsExported() {
				ck.fail(n, "can't evaluate field %s in type %s", name, t)
				return nil
			}
			t = f.Type
			if t.Kind() == reflect.Interface {
				return nil
			}
		case reflect.Map:
			t = t.Elem()
			if t.Kind() == reflect.Interface {
				return nil
			}
		case reflect.Interface:
			return nil
		default:
			ck.fail(n, "can't evaluate field %s of non-struct type %s", name, t)
			return nil
		}
	}
	return t
}

// method finds an exported method name of t or of a pointer to it.
func method(t reflect.Type, name string) (reflect.Method, bool) {
	if m, ok := t.MethodByName(name); ok {
		return m, true
	}
	if t.Kind() != reflect.Pointer && t.Kind() != reflect.Interface {
		return reflect.PointerTo(t).MethodByName(name)
	}
	return reflect.Method{}, false
}
