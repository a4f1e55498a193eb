package handlers_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	gotypes "go/types"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
)

// exchangeLayers declares the one writer of each field of the request's
// exchange (requestid.go): the layer, by the file it lives in, that calls
// the field's writers, and the writers, the only functions that assign it.
var exchangeLayers = []struct {
	layer   string // the file of the layer that writes the fields
	writers []string
	fields  []string
}{
	{"requestid.go", []string{"newExchange"}, []string{"requestID", "responseHeader", "clientRequestID"}},
	{"gate.go", []string{"(*exchange).gatePresented"}, []string{"tokenPresented"}},
	{"gate.go", []string{"(*exchange).gateCaller", "(*exchange).gateForget"}, []string{"keyCaller"}},
	{"gate.go", []string{"(*exchange).gateAdmitted", "(*exchange).gateForget"}, []string{"keyViewer"}},
	{"gate.go", []string{"(*exchange).gateAdmitted"}, []string{"parsedQuery"}},
	{"gate.go", []string{"(*exchange).gateLimited", "(*exchange).gateForget"}, []string{"limitedBy"}},
	{"shedding.go", []string{"(*exchange).shedOverloaded"}, []string{"overloaded"}},
	{"health.go", []string{"(*exchange).readyRefused"}, []string{"notReady"}},
	{"limitbody.go", []string{"(*exchange).limitBodyCopying"}, []string{"bodyRead"}},
	{"deprecation.go", []string{"(*exchange).deprecationUsed"}, []string{"deprecated"}},
}

// Each field of the exchange is assigned by its declared writers alone, and
// each writer is called by its own layer alone: a second function writing a
// field, or a layer calling another's writer, turns this red. The check
// itself is shown to catch both, on the package with one more file.
func TestExchangeHasOneWriterPerField(t *testing.T) {
	if testing.Short() {
		t.Skip("type-checks package handlers")
	}
	cfg := &packages.Config{
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes | packages.NeedTypesInfo,
	}
	pkgs, err := packages.Load(cfg, ".")
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) != 1 || len(pkgs[0].Errors) > 0 {
		t.Fatalf("loading package handlers: %d packages, errors %v", len(pkgs), pkgs[0].Errors)
	}
	p := pkgs[0]
	if len(p.Syntax) < 10 {
		t.Fatalf("loaded %d files of package handlers, want all of them", len(p.Syntax))
	}
	if got := exchangeWriteViolations(t, p.Fset, p.Syntax, p.Types, p.TypesInfo); len(got) > 0 {
		t.Errorf("the exchange's fields are written outside their writers:\n%s", strings.Join(got, "\n"))
	}

	// The same package with one more file, type-checked against the
	// packages it imports.
	second, err := parser.ParseFile(p.Fset, "second_writer.go", `package handlers

func secondWriter(x *exchange) {
	x.keyViewer = nil
	x.shedOverloaded()
	_ = &exchange{notReady: true}
}
`, 0)
	if err != nil {
		t.Fatal(err)
	}
	files := append(slices.Clip(p.Syntax), second)
	info := &gotypes.Info{Types: map[ast.Expr]gotypes.TypeAndValue{}, Uses: map[*ast.Ident]gotypes.Object{}, Defs: map[*ast.Ident]gotypes.Object{}, Selections: map[*ast.SelectorExpr]*gotypes.Selection{}}
	imports := map[string]*gotypes.Package{}
	for _, imp := range p.Types.Imports() {
		imports[imp.Path()] = imp
	}
	conf := gotypes.Config{Importer: importerFunc(func(path string) (*gotypes.Package, error) {
		if imp, ok := imports[path]; ok {
			return imp, nil
		}
		return nil, fmt.Errorf("%s is not imported by package handlers", path)
	})}
	pkg, err := conf.Check(p.PkgPath, p.Fset, files, info)
	if err != nil {
		t.Fatal(err)
	}
	got := exchangeWriteViolations(t, p.Fset, files, pkg, info)
	for _, want := range []string{
		"secondWriter assigns keyViewer",
		"secondWriter (second_writer.go) calls (*exchange).shedOverloaded",
		"secondWriter assigns notReady",
	} {
		if !slices.ContainsFunc(got, func(s string) bool { return strings.Contains(s, want) }) {
			t.Errorf("with a second writer, no violation says %q; got:\n%s", want, strings.Join(got, "\n"))
		}
	}
	if len(got) != 3 {
		t.Errorf("with a second writer, %d violations, want 3:\n%s", len(got), strings.Join(got, "\n"))
	}
}

type importerFunc func(path string) (*gotypes.Package, error)

func (f importerFunc) Import(path string) (*gotypes.Package, error) { return f(path) }

// exchangeWriteViolations lists, in files of package handlers, every write
// of an exchange field outside the field's writers, every use of a writer
// outside its layer's file, and every field undeclared in exchangeLayers.
func exchangeWriteViolations(t *testing.T, fset *token.FileSet, files []*ast.File, pkg *gotypes.Package, info *gotypes.Info) []string {
	t.Helper()
	obj := pkg.Scope().Lookup("exchange")
	if obj == nil {
		t.Fatal("package handlers declares no type exchange")
	}
	st := obj.Type().Underlying().(*gotypes.Struct)

	writersOf := map[*gotypes.Var][]string{}
	layerOf := map[string]string{} // writer -> layer file
	declared := map[string]bool{}
	for _, l := range exchangeLayers {
		for _, f := range l.fields {
			declared[f] = true
		}
		for _, w := range l.writers {
			if prev, ok := layerOf[w]; ok && prev != l.layer {
				t.Fatalf("writer %s declared for two layers, %s and %s", w, prev, l.layer)
			}
			layerOf[w] = l.layer
		}
	}
	var out []string
	for i := range st.NumFields() {
		f := st.Field(i)
		if !declared[f.Name()] {
			out = append(out, fmt.Sprintf("field %s has no writer declared in exchangeLayers", f.Name()))
		}
		for _, l := range exchangeLayers {
			if slices.Contains(l.fields, f.Name()) {
				writersOf[f] = append(writersOf[f], l.writers...)
			}
		}
		delete(declared, f.Name())
	}
	for f := range declared {
		out = append(out, fmt.Sprintf("exchangeLayers declares %s, which exchange no longer has", f))
	}

	exchangeType := obj.Type()
	for _, file := range files {
		name := filepath.Base(fset.Position(file.Pos()).Filename)
		for _, decl := range file.Decls {
			fn := "package level"
			if d, ok := decl.(*ast.FuncDecl); ok {
				fn = funcName(d)
			}
			wrote := func(f *gotypes.Var, at token.Pos) {
				if ws, ok := writersOf[f]; ok && !slices.Contains(ws, fn) {
					out = append(out, fmt.Sprintf("%s: %s assigns %s, whose writers are %s", fset.Position(at), fn, f.Name(), strings.Join(ws, ", ")))
				}
			}
			field := func(e ast.Expr) {
				if sel, ok := ast.Unparen(e).(*ast.SelectorExpr); ok {
					if s, ok := info.Selections[sel]; ok && s.Kind() == gotypes.FieldVal {
						if v, ok := s.Obj().(*gotypes.Var); ok {
							wrote(v, sel.Pos())
						}
					}
				}
			}
			ast.Inspect(decl, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.AssignStmt:
					for _, e := range n.Lhs {
						field(e)
					}
				case *ast.IncDecStmt:
					field(n.X)
				case *ast.RangeStmt:
					if n.Tok == token.ASSIGN {
						field(n.Key)
						field(n.Value)
					}
				case *ast.UnaryExpr:
					if n.Op == token.AND {
						field(n.X)
					}
				case *ast.CompositeLit:
					if tv, ok := info.Types[n]; ok && gotypes.Identical(tv.Type, exchangeType) {
						for j, el := range n.Elts {
							if kv, ok := el.(*ast.KeyValueExpr); ok {
								if v, ok := info.Uses[kv.Key.(*ast.Ident)].(*gotypes.Var); ok {
									wrote(v, kv.Pos())
								}
							} else {
								wrote(st.Field(j), el.Pos())
							}
						}
					}
				case *ast.Ident:
					if f, ok := info.Uses[n].(*gotypes.Func); ok {
						w := objName(f)
						if layer, ok := layerOf[w]; ok && layer != name && w != fn {
							out = append(out, fmt.Sprintf("%s: %s (%s) calls %s, the writer of the layer in %s", fset.Position(n.Pos()), fn, name, w, layer))
						}
					}
				}
				return true
			})
		}
	}
	sort.Strings(out)
	return out
}

// funcName is d's name as exchangeLayers spells it: "f" or "(*T).m".
func funcName(d *ast.FuncDecl) string {
	if d.Recv == nil || len(d.Recv.List) == 0 {
		return d.Name.Name
	}
	return "(" + gotypes.ExprString(d.Recv.List[0].Type) + ")." + d.Name.Name
}

// objName is f's name as exchangeLayers spells it.
func objName(f *gotypes.Func) string {
	sig, _ := f.Type().(*gotypes.Signature)
	if sig == nil || sig.Recv() == nil {
		return f.Name()
	}
	recv := sig.Recv().Type()
	star := ""
	if ptr, ok := recv.(*gotypes.Pointer); ok {
		recv, star = ptr.Elem(), "*"
	}
	if named, ok := recv.(*gotypes.Named); ok {
		return "(" + star + named.Obj().Name() + ")." + f.Name()
	}
	return f.Name()
}
