package codegen

import (
	"embed"
	"slices"
	"sort"
	"text/template"

	"entgo.io/ent/entc"
	"entgo.io/ent/entc/gen"

	"larder.dev/larder/internal/generators/annotate"
)

//go:embed templates
var templates embed.FS

// Extension is the entc extension: it validates the annotations and adds the
// templates that generate the Go side of the API.
type Extension struct{ entc.DefaultExtension }

// Templates returns the project templates.
func (Extension) Templates() []*gen.Template {
	return []*gen.Template{
		gen.MustParse(gen.NewTemplate("larder").
			Funcs(template.FuncMap{
				"nodes":           nodes,
				"corePackages":    corePackages,
				"uniqueIndexes":   uniqueIndexes,
				"uniqueConflicts": uniqueConflicts,
				"human":           Human,
				"lowerFirst":      lowerFirst,
				"catalogue":       func() []annotate.EventResource { return theCatalogue },
				"flowResources":   flowResources,
				"flowPackages":    flowPackages,
				"placements":      placements,
				"classConsts":     classConsts,
				"sameShard":       sameShard,
			}).
			ParseFS(templates, "templates/*.tmpl")),
	}
}

// theCatalogue is the event catalogue of the graph being generated
// (eventCatalogue), which Hooks derives before the templates run: the
// templates' catalogue.
var theCatalogue []annotate.EventResource

// theClasses are the class of every table of the graph being generated, by
// table name (placements), which Hooks derives before the templates run.
var theClasses map[string]annotate.Class

// sameShard reports whether an edge from table from to table to joins two
// tables distributed by account (annotate.Distributed), whose rows of one
// account are on one shard, through a foreign key on the tables themselves
// (not a join table, m2m).
func sameShard(from, to string, m2m bool) bool {
	return !m2m && theClasses[from] == annotate.Distributed && theClasses[to] == annotate.Distributed
}

// Hooks validates the annotations before anything is written.
func (Extension) Hooks() []gen.Hook {
	return []gen.Hook{func(next gen.Generator) gen.Generator {
		return gen.GenerateFunc(func(g *gen.Graph) error {
			rs, err := loadResources(g)
			if err != nil {
				return err
			}
			if theCatalogue, err = eventCatalogue(rs); err != nil {
				return err
			}
			if _, err := nodes(g); err != nil {
				return err
			}
			ps, err := placements(g)
			if err != nil {
				return err
			}
			theClasses = map[string]annotate.Class{}
			for _, p := range ps {
				theClasses[p.Table] = p.Class
			}
			if err := next.Generate(g); err != nil {
				return err
			}
			return writeREST(g)
		})
	}}
}

// corePackages are the node packages the ent-package template refers to.
func corePackages(ns []*Node) []string {
	seen := map[string]bool{}
	var out []string
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	for _, n := range ns {
		if len(n.Locks) > 0 || len(n.Refs) > 0 || len(n.Machines) > 0 {
			add(n.T.PackageDir())
		}
		for _, r := range n.Refs {
			add(r.E.Type.PackageDir())
		}
	}
	sort.Strings(out)
	return out
}

// flowResources are the resources of g with a flow type.
func flowResources(g *gen.Graph) ([]*Resource, error) {
	rs, err := loadResources(g)
	if err != nil {
		return nil, err
	}
	return FlowResources(rs), nil
}

// flowPackages are the node packages the flow types name (the enums of the
// actions' body fields).
func flowPackages(rs []*Resource) []string {
	var out []string
	for _, r := range rs {
		for _, a := range r.Actions {
			for _, f := range a.Fields {
				if f.F.IsEnum() && !slices.Contains(out, r.Type.PackageDir()) {
					out = append(out, r.Type.PackageDir())
				}
			}
		}
	}
	sort.Strings(out)
	return out
}
