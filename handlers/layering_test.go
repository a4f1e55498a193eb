package handlers_test

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// driverPackages are the import paths of database drivers: their error
// types are read below the HTTP layer (by store, for package dberror), and
// nowhere here.
var driverPackages = []string{"github.com/lib/pq", "modernc.org/sqlite", "github.com/jackc/pgx", "github.com/mattn/go-sqlite3"}

// TestHandlersImportNoDriver pins the layering: handlers words database
// errors through dberror and names no driver package in its own imports
// (through store it still links them, as every program must).
func TestHandlersImportNoDriver(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var parsed int
	var sawDBError bool
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		parsed++
		for _, imp := range f.Imports {
			path, err := strconv.Unquote(imp.Path.Value)
			if err != nil {
				t.Fatal(err)
			}
			sawDBError = sawDBError || path == "larder.dev/larder/internal/platform/dberror"
			for _, d := range driverPackages {
				if path == d || strings.HasPrefix(path, d+"/") {
					t.Errorf("%s imports %s, a database driver", name, path)
				}
			}
		}
	}
	if parsed < 10 {
		t.Fatalf("parsed %d source files of handlers, want all of them (is the test running in the package's directory?)", parsed)
	}
	if !sawDBError {
		t.Fatal("no file of handlers imports larder.dev/larder/internal/platform/dberror; the files read are not the ones that classify database errors")
	}
}
