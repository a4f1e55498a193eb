// Package flows finds the workflows the business modules declare for the
// generated handlers. For each resource whose schema declares workflow steps
// (a document's Prepared and Recorded lines, its actions), the generator
// writes a flow type into package ent, a struct with one typed function
// field per step, and the module that implements the steps declares the one
// value of it as a package-level variable:
//
//	var BillFlow = ent.BillFlow{Prepare: PrepareBill, Record: ReceiveBill}
//
// The compiler checks every function against its field's type, which is what
// the generated handlers call it with; the generator checks, from what Find
// reads, that each resource's steps are set by exactly one flow, and calls
// them through it (purchasing.BillFlow.Prepare(…)).
//
// The schema cannot name the functions itself: they take the types package
// ent generates from it, so a schema that imported them could not be loaded
// to generate those types, and ent/runtime, which every client needs,
// imports the schema. So the reference goes the other way, and Find reads the
// modules' source (go/parser, no types): it runs before the flow types exist.
package flows

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Dir is where flows are declared, from the module root: the business
// modules.
const Dir = "internal/modules"

// Suffix ends the name of every flow type: ent.<Type>Flow.
const Suffix = "Flow"

// Flow is one declaration of a resource's workflow.
type Flow struct {
	// Type is the ent type whose flow it is ("Bill").
	Type string
	// Package is the import path of the declaring package; Name its name.
	Package, Name string
	// Var is the variable ("BillFlow").
	Var string
	// Steps are the fields the value sets, in source order.
	Steps []string
	// Pos is where it is declared (file:line from the module root).
	Pos string
}

// Ref is the Go expression of the flow's step, from another package.
func (f Flow) Ref(step string) string { return f.Name + "." + f.Var + "." + step }

// String is the flow as its declaration reads, for digests and messages.
func (f Flow) String() string {
	return fmt.Sprintf("%s: %s.%s = ent.%s%s{%s}", f.Pos, f.Package, f.Var, f.Type, Suffix, strings.Join(f.Steps, ", "))
}

// Find reads the flows declared under Dir of the module at root, whose path
// is module, sorted by type. A value of a flow type written any other way
// than as a package-level variable set by keyed fields is an error: the
// generator could not call through it.
func Find(root, module string) ([]Flow, error) {
	var out []Flow
	base := filepath.Join(root, Dir)
	entPath := module + "/ent"
	fset := token.NewFileSet()
	err := filepath.WalkDir(base, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) && path == base {
				return filepath.SkipDir
			}
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != base && (n == "testdata" || strings.HasPrefix(n, ".") || strings.HasPrefix(n, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		pkg := module + "/" + filepath.ToSlash(filepath.Dir(rel))
		found, err := inFile(fset, f, rel, pkg, entPath)
		out = append(out, found...)
		return err
	})
	sort.SliceStable(out, func(i, j int) bool { return out[i].Type < out[j].Type })
	return out, err
}

// inFile finds the flows of one file.
func inFile(fset *token.FileSet, f *ast.File, rel, pkg, entPath string) ([]Flow, error) {
	entName := ""
	for _, im := range f.Imports {
		if p, _ := strconv.Unquote(im.Path.Value); p == entPath {
			entName = "ent"
			if im.Name != nil {
				entName = im.Name.Name
			}
		}
	}
	if entName == "" || entName == "_" {
		return nil, nil
	}
	pos := func(n ast.Node) string {
		return fmt.Sprintf("%s:%d", filepath.ToSlash(rel), fset.Position(n.Pos()).Line)
	}
	// flowType is the ent type of a flow literal's type, or "".
	flowType := func(e ast.Expr) string {
		switch x := e.(type) {
		case *ast.IndexExpr: // a flow that hands over: ent.ShipmentFlow[T]
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		}
		sel, ok := e.(*ast.SelectorExpr)
		if !ok {
			return ""
		}
		if id, ok := sel.X.(*ast.Ident); !ok || id.Name != entName {
			return ""
		}
		t, ok := strings.CutSuffix(sel.Sel.Name, Suffix)
		if !ok || t == "" {
			return ""
		}
		return t
	}
	var out []Flow
	declared := map[*ast.CompositeLit]bool{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.VAR {
			continue
		}
		for _, s := range g.Specs {
			vs := s.(*ast.ValueSpec)
			for i, v := range vs.Values {
				lit, ok := v.(*ast.CompositeLit)
				if !ok {
					continue
				}
				t := flowType(lit.Type)
				if t == "" {
					continue
				}
				declared[lit] = true
				if i >= len(vs.Names) || vs.Names[i].Name == "_" {
					return nil, fmt.Errorf("%s: the flow of %s must be a named variable, which the generated handlers call through", pos(lit), t)
				}
				fl := Flow{Type: t, Package: pkg, Name: f.Name.Name, Var: vs.Names[i].Name, Pos: pos(lit)}
				for _, el := range lit.Elts {
					kv, ok := el.(*ast.KeyValueExpr)
					if !ok {
						return nil, fmt.Errorf("%s: %s sets its steps by position; name each (Prepare: …)", pos(lit), fl.Var)
					}
					k, ok := kv.Key.(*ast.Ident)
					if !ok {
						return nil, fmt.Errorf("%s: %s: a step must be named by a field of ent.%s%s", pos(lit), fl.Var, t, Suffix)
					}
					fl.Steps = append(fl.Steps, k.Name)
				}
				out = append(out, fl)
			}
		}
	}
	// A flow value anywhere else (in a function, or assigned later) is
	// not one the generator can call.
	var stray error
	ast.Inspect(f, func(n ast.Node) bool {
		if lit, ok := n.(*ast.CompositeLit); ok && stray == nil && !declared[lit] {
			if t := flowType(lit.Type); t != "" {
				stray = fmt.Errorf("%s: a value of ent.%s%s outside a package-level variable: declare the flow once, as var %s%s = ent.%s%s{…}", pos(lit), t, Suffix, t, Suffix, t, Suffix)
			}
		}
		return stray == nil
	})
	return out, stray
}

// Module reads the module path from root's go.mod.
func Module(root string) (string, error) {
	b, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`), nil
		}
	}
	return "", fmt.Errorf("%s: no module line", filepath.Join(root, "go.mod"))
}

// Root is the module root at or above dir: the directory holding go.mod.
func Root(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no go.mod at or above %s", dir)
		}
	}
}

// Digest is what the declared flows are, one per line: a generation step
// that writes calls through them runs again when it changes.
func Digest(root string) (string, error) {
	module, err := Module(root)
	if err != nil {
		return "", err
	}
	fs, err := Find(root, module)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "%s.%s = %s{%s}\n", f.Package, f.Var, f.Type, strings.Join(f.Steps, ", "))
	}
	return b.String(), nil
}
