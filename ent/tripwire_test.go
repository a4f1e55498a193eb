package ent_test

import (
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"larder.dev/larder/ent"
)

// compiledTemplate is the template of compiled reads, relative to this
// package's directory.
const compiledTemplate = "../internal/generators/codegen/templates/compiled.tmpl"

// queryFields are the unexported fields of a generated query builder that
// internal/generators/codegen/templates/compiled.tmpl knows, and what it does with each; the
// with<Edge> fields of the type's edges are known besides (loaded after the
// compiled read as sqlAll loads them). A field not here could hold part of a
// query that the compiled statement leaves out.
var queryFields = map[string]string{
	"config":     "the client's driver and interceptors, as sqlAll uses them",
	"ctx":        "the QueryContext (queryContextFields)",
	"order":      "checked empty by sqlCompiled; named by shaped in sqlListCompiled",
	"inters":     "run by Read around the compiled read",
	"predicates": "checked all known by sqlCompiled (_q.known.all)",
	"known":      "the template's own field",
	"shaped":     "the template's own field: the name of a list's modifiers and order, part of its shape (sqlListCompiled)",
	"modifiers":  "checked empty by sqlCompiled; named by shaped in sqlListCompiled",
	"sql":        "checked nil by sqlCompiled (a traversal)",
	"path":       "checked nil by sqlCompiled (a traversal)",
	"withFKs":    "checked false by sqlCompiled",
}

// queryContextFields are the fields of ent.QueryContext the template knows.
var queryContextFields = map[string]string{
	"Op":     "the operation's name, never in the SQL",
	"Type":   "the type's name, never in the SQL",
	"Unique": "checked nil by sqlCompiled",
	"Limit":  "part of a statement's shape (readShape.limit)",
	"Offset": "checked nil by sqlCompiled",
	"Fields": "part of a statement's shape (readShape.fields)",
}

// configFields are the fields of the config every builder embeds: none of
// them changes the SQL of a query, so statements compiled under one client
// serve another (plainReads only keeps a client from using them).
var configFields = []string{"driver", "debug", "log", "hooks", "inters", "plainReads"}

// sqlCompiledChecks are the conditions of sqlCompiled that keep a query with
// any of the fields above set from being compiled.
var sqlCompiledChecks = []string{
	"_q.plainReads",
	"!_q.known.all(len(_q.predicates))",
	"len(_q.modifiers) > 0",
	"len(_q.order) > 0",
	"_q.sql != nil",
	"_q.path != nil",
	"_q.ctx.Unique != nil",
	"_q.ctx.Offset != nil",
	"_q.withFKs",
}

// Compiled reads (internal/generators/codegen/templates/compiled.tmpl, sqlCompiled) decide
// whether a query may be answered from a compiled statement by the fields of
// ent's query builders they know. A field an upgrade of ent adds or renames,
// in any type's builder, in ent.QueryContext or in the embedded config, fails
// here until the template accounts for it and the lists above say how.
func TestTripwireQueryFieldsKnownToCompiledReads(t *testing.T) {
	client := reflect.ValueOf(ent.NewClient()).Elem()
	queries := 0
	for i := range client.NumField() {
		f := client.Field(i)
		if !f.CanInterface() {
			continue
		}
		m := f.MethodByName("Query")
		if !m.IsValid() || m.Type().NumIn() != 0 || m.Type().NumOut() != 1 {
			continue
		}
		qt := m.Type().Out(0).Elem()
		queries++
		known := map[string]bool{}
		for name := range queryFields {
			known[name] = true
		}
		// The node is what Only returns; its Edges are what the builder may
		// load, each with its with<Edge> field.
		if only, ok := reflect.PointerTo(qt).MethodByName("Only"); ok {
			node := only.Type.Out(0).Elem()
			if edges, ok := node.FieldByName("Edges"); ok {
				for j := range edges.Type.NumField() {
					if e := edges.Type.Field(j); e.IsExported() {
						known["with"+e.Name] = true
					}
				}
			}
		} else {
			t.Errorf("%s has no Only: the test cannot find its edges", qt.Name())
		}
		for j := range qt.NumField() {
			if name := qt.Field(j).Name; !known[name] {
				t.Errorf("ent's %s has a field %q that compiled reads (internal/generators/codegen/templates/compiled.tmpl, sqlCompiled) do not know: a query that sets it could be answered from a statement without it", qt.Name(), name)
			}
		}
		if _, ok := qt.FieldByName("ctx"); !ok {
			t.Errorf("ent's %s has no ctx field: sqlCompiled (internal/generators/codegen/templates/compiled.tmpl) reads its limit, offset and fields there", qt.Name())
		}
	}
	if queries < 10 {
		t.Fatalf("found %d query builders on ent.Client, want every type's", queries)
	}
	qc := reflect.TypeFor[ent.QueryContext]()
	var got []string
	for i := range qc.NumField() {
		got = append(got, qc.Field(i).Name)
		if _, ok := queryContextFields[qc.Field(i).Name]; !ok {
			t.Errorf("ent.QueryContext has a field %q that compiled reads (internal/generators/codegen/templates/compiled.tmpl, readShape and sqlCompiled) do not know", qc.Field(i).Name)
		}
	}
	for name := range queryContextFields {
		if !slices.Contains(got, name) {
			t.Errorf("ent.QueryContext has no field %q any more (fields %v): internal/generators/codegen/templates/compiled.tmpl reads it", name, got)
		}
	}
	ct, ok := reflect.TypeFor[ent.TagQuery]().FieldByName("config")
	if !ok {
		t.Fatal("ent.TagQuery embeds no config: internal/generators/codegen/templates/compiled.tmpl reads the driver from it")
	}
	var config []string
	for i := range ct.Type.NumField() {
		config = append(config, ct.Type.Field(i).Name)
	}
	if !slices.Equal(config, configFields) {
		t.Errorf("ent's config has fields %v, want %v: compiled statements (internal/generators/codegen/templates/compiled.tmpl) are shared by every client, so no config field may change a query's SQL", config, configFields)
	}
	tmpl, err := os.ReadFile(compiledTemplate)
	if err != nil {
		t.Fatal(err)
	}
	for _, check := range sqlCompiledChecks {
		if !strings.Contains(string(tmpl), check) {
			t.Errorf("%s no longer checks %q in sqlCompiled: the field lists of this test say it does", compiledTemplate, check)
		}
	}
}
