package report

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
)

// FindSites lists, from the Go source under root, every function that goes
// around the privacy policies: one that makes a system-viewer context
// (policy.System), and one that runs SQL itself (database/sql) — the file,
// the function, and why, from its marker comment (siteKinds). Tests,
// generated code, the benchmarks, package store and the statement cache
// under it (internal/platform/fastpath/stmtcache): the connection layer, whose wrappers
// implement those calls for ent, are left out.
func FindSites(root string) ([]Site, error) {
	var out []Site
	var missing []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if rel != "." && (rel == "ent" || rel == "bench" || rel == filepath.Join("internal", "platform", "store") || rel == filepath.Join("internal", "platform", "fastpath", "stmtcache") || strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		if ast.IsGenerated(f) {
			return nil
		}
		inPolicy := f.Name.Name == "policy"
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			for _, k := range siteKinds {
				call := k.find(fn, inPolicy)
				if call == nil {
					continue
				}
				site := Site{Kind: k.kind, File: filepath.ToSlash(rel), Function: funcName(fn), Why: why(fn, f, k.marker)}
				if site.Why == "" {
					missing = append(missing, fmt.Sprintf("%s: %s %s without a %q comment saying why",
						fset.Position(call.Pos()), site.Function, k.does, "// "+k.marker+" …"))
					continue
				}
				out = append(out, site)
			}
		}
		return nil
	})
	if err == nil && len(missing) > 0 {
		err = fmt.Errorf("access: %s", strings.Join(missing, "\n"))
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Kind != out[j].Kind {
			return out[i].Kind > out[j].Kind // system viewer first
		}
		if out[i].File != out[j].File {
			return out[i].File < out[j].File
		}
		return out[i].Function < out[j].Function
	})
	return out, err
}

func funcName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	t := fn.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	if g, ok := t.(*ast.IndexExpr); ok {
		t = g.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name + "." + fn.Name.Name
	}
	return fn.Name.Name
}

// siteKind is a way around the privacy policies that the report lists: the
// call that marks it, and the comment every function making it must carry
// to say why ("// System viewer: the audit history is system-only."). A use
// without its comment fails generation.
type siteKind struct {
	kind, marker, does string
	find               func(fn *ast.FuncDecl, inPolicy bool) *ast.CallExpr
}

var siteKinds = []siteKind{
	{kind: "system viewer", marker: "System viewer:", does: "makes a system-viewer context (policy.System)",
		find: func(fn *ast.FuncDecl, inPolicy bool) *ast.CallExpr {
			return firstCall(fn, func(c *ast.CallExpr) bool {
				switch x := c.Fun.(type) {
				case *ast.SelectorExpr:
					id, ok := x.X.(*ast.Ident)
					return ok && id.Name == "policy" && x.Sel.Name == "System"
				case *ast.Ident:
					return inPolicy && x.Name == "System"
				}
				return false
			})
		}},
	{kind: "direct SQL", marker: "Direct SQL:", does: "runs SQL outside ent and its policies (database/sql)",
		find: func(fn *ast.FuncDecl, _ bool) *ast.CallExpr {
			return firstCall(fn, func(c *ast.CallExpr) bool {
				x, ok := c.Fun.(*ast.SelectorExpr)
				if !ok {
					return false
				}
				switch x.Sel.Name {
				case "ExecContext", "QueryContext", "QueryRowContext", "PrepareContext":
					return true
				}
				return false
			})
		}},
}

// firstCall is the first call in fn's body that match accepts.
func firstCall(fn *ast.FuncDecl, match func(*ast.CallExpr) bool) *ast.CallExpr {
	var call *ast.CallExpr
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok && call == nil && match(c) {
			call = c
		}
		return call == nil
	})
	return call
}

// why is the text of the function's comment that begins with marker, or "".
func why(fn *ast.FuncDecl, f *ast.File, marker string) string {
	for _, g := range f.Comments {
		if g.Pos() < fn.Body.Lbrace || g.End() > fn.Body.Rbrace {
			continue
		}
		if text := strings.TrimSpace(g.Text()); strings.HasPrefix(text, marker) {
			return strings.Join(strings.Fields(strings.TrimPrefix(text, marker)), " ")
		}
	}
	return ""
}
