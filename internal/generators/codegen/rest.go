package codegen

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/template"

	"entgo.io/ent/entc/gen"
	"golang.org/x/tools/imports"

	"larder.dev/larder/internal/generators/annotate"
)

// restTemplates render package restapi, one file per resource.
var restTemplates = template.Must(template.New("rest").
	Funcs(template.FuncMap{
		"lowerFirst":      lowerFirst,
		"sortField":       sortField,
		"filterName":      func(f *Field) string { return strings.Join(filterParams(f), ", ") },
		"rootsField":      rootsField,
		"enumsOf":         enumsOf,
		"queryParams":     queryParams,
		"extraOperations": func() []extraOperation { return extraOperations },
		"scopeTable":      scopeTable,
		"pascal":          pascal,
		"borrows":         borrows,
		"ranged":          Ranged,
		"knownFilters":    KnownFilters,
		"actionEnums":     actionEnums,
		"human":           Human,
		"ops": func(xs ...string) []annotate.Operation {
			out := make([]annotate.Operation, len(xs))
			for i, x := range xs {
				out[i] = annotate.Operation(x)
			}
			return out
		},
	}).
	ParseFS(templates, "templates/rest/*.tmpl"))

// extraOperation is an operation that belongs to no ent schema.
type extraOperation struct {
	ID    string // operationId
	Scope string // "" for none
	// Query are its query parameters; Enums the values of its enumerated
	// ones.
	Query []string
	Enums map[string][]string
}

// Method is ogen's handler method name of the operation.
func (o extraOperation) Method() string { return pascal(o.ID) }

// extraOperations are added by the spec builder and listed in the scope table.
var extraOperations = []extraOperation{
	{ID: "getOrganization"},
	traceOperation,
}

// traceOperation is a lot's trace (spec_trace.go).
var traceOperation = extraOperation{ID: "traceProductLot", Scope: "inventory:read",
	Query: []string{"direction", "depth"},
	Enums: map[string][]string{"direction": {"backward", "forward", "both"}}}

// restDir is the directory of package restapi (larder.dev/larder/internal/restapi)
// relative to the module root. Only the HTTP layer imports it: package ent
// and everything under it stay free of net/http.
const restDir = "internal/restapi"

// writeREST writes package restapi into the module root, beside the generated
// ent code's directory, replacing whatever an earlier generation left there.
func writeREST(g *gen.Graph) error {
	rs, err := loadResources(g)
	if err != nil {
		return err
	}
	dir := filepath.Join(g.Config.Target, "..", restDir)
	old, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	for _, f := range old {
		if err := os.Remove(f); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	write := func(name, tmpl string, data any) error {
		var b bytes.Buffer
		if err := restTemplates.ExecuteTemplate(&b, tmpl, data); err != nil {
			return fmt.Errorf("restapi: %s: %w", name, err)
		}
		path := filepath.Join(dir, name)
		src, err := imports.Process(path, b.Bytes(), nil)
		if err != nil {
			return fmt.Errorf("restapi: format %s: %w\n%s", name, err, b.String())
		}
		return os.WriteFile(path, src, 0o644)
	}
	if err := write("rest.go", "rest", struct {
		Resources []*Resource
	}{rs}); err != nil {
		return err
	}
	addresses := false
	for _, r := range rs {
		if err := write(snake(r.Schema)+".go", "resource", r); err != nil {
			return err
		}
		for _, f := range r.Fields {
			addresses = addresses || f.Kind() == "address"
		}
	}
	if addresses {
		return write("address.go", "address", nil)
	}
	return nil
}

// NearPackages are the packages of the types r's type reaches in one or two
// edges, which its file may name (a line's or a through table's fields).
func (r *Resource) NearPackages() []string {
	seen := map[string]bool{}
	for _, e := range r.Type.Edges {
		seen[e.Type.PackageDir()] = true
		for _, e2 := range e.Type.Edges {
			seen[e2.Type.PackageDir()] = true
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

// sortField is the ent struct field of a sortable field name.
func sortField(r *Resource, name string) string {
	if name == "id" {
		return "ID"
	}
	for _, f := range r.Fields {
		if f.Name == name {
			return f.F.StructField()
		}
	}
	return pascal(name)
}

// rootsField is the ent struct field of the resource's RootsOnly field.
func rootsField(r *Resource) string {
	for _, f := range r.Type.Fields {
		if f.Name == r.Ann.RootsOnly {
			return f.StructField()
		}
	}
	return strings.ToUpper(r.Ann.RootsOnly)
}

// enumsOf maps the enumerated fields an operation accepts (body fields or
// filter parameters) to their values.
func enumsOf(r *Resource, op annotate.Operation) map[string][]string {
	var fs []*Field
	switch op {
	case annotate.List:
		fs = r.Filters()
	case annotate.Create:
		fs = r.Writable()
	case annotate.Update:
		fs = r.Updatable()
	}
	out := map[string][]string{}
	for _, f := range fs {
		if f.Kind() != "enum" {
			continue
		}
		name := f.Name
		if op == annotate.List {
			name = filterParam(f)
		}
		for _, v := range f.F.Enums {
			out[name] = append(out[name], v.Value)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// actionEnums maps the enumerated body fields of an action to their values.
func actionEnums(a *Action) map[string][]string {
	out := map[string][]string{}
	for _, f := range a.Fields {
		if f.Kind() == "enum" {
			for _, v := range f.F.Enums {
				out[f.Name] = append(out[f.Name], v.Value)
			}
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// queryParams are the query parameters of a resource's list, as listParams
// declares them.
func queryParams(r *Resource) []string {
	out := []string{"limit", "offset", "cursor", "sort"}
	if r.Ann.Unpaginated != "" {
		out = nil
	}
	if len(r.Searched()) > 0 {
		out = append(out, "search")
	}
	for _, f := range r.Filters() {
		out = append(out, filterParams(f)...)
	}
	for _, f := range r.Includes() {
		out = append(out, f.Ann.Include)
	}
	if r.Ann.UpdatedSince {
		out = append(out, "updated_since")
	}
	return out
}

// borrows are the borrowed fields of an entry (validated when loaded).
func borrows(r *Resource) []*Borrowed {
	bs, _ := r.Borrows()
	return bs
}
