package access

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
)

// FindSites lists, from the Go source under root, every function that makes
// a system-viewer context (policy.System): the file, the function, and why,
// which is the first sentence of the function's doc comment (or of the
// comment just above the call). Tests and generated code are left out.
func FindSites(root string) ([]Site, error) {
	var out []Site
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if rel != "." && (rel == "ent" || rel == "bench" || strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
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
			var call *ast.CallExpr
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				c, ok := n.(*ast.CallExpr)
				if !ok || call != nil {
					return call == nil
				}
				switch x := c.Fun.(type) {
				case *ast.SelectorExpr:
					if id, ok := x.X.(*ast.Ident); ok && id.Name == "policy" && x.Sel.Name == "System" {
						call = c
					}
				case *ast.Ident:
					if inPolicy && x.Name == "System" {
						call = c
					}
				}
				return call == nil
			})
			if call == nil {
				continue
			}
			out = append(out, Site{File: filepath.ToSlash(rel), Function: funcName(fn), Why: why(fn, f, fset, call)})
		}
		return nil
	})
	sort.Slice(out, func(i, j int) bool {
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

// why is the first sentence of the comment just above the call, else of
// the function's doc comment.
func why(fn *ast.FuncDecl, f *ast.File, fset *token.FileSet, call *ast.CallExpr) string {
	line := fset.Position(call.Pos()).Line
	for _, g := range f.Comments {
		end := fset.Position(g.End()).Line
		if g.Pos() > fn.Pos() && (end == line-1 || end == line) {
			return firstSentence(g.Text())
		}
	}
	if fn.Doc != nil {
		return firstSentence(fn.Doc.Text())
	}
	return ""
}

func firstSentence(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if i := strings.Index(s, ". "); i >= 0 {
		s = s[:i+1]
	}
	return s
}
