package codegen

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"entgo.io/ent/dialect/sql/schema"
	"entgo.io/ent/entc/gen"

	"larder.dev/larder/internal/generators/annotate"
)

// Placement is one table and its class on a distributed PostgreSQL, as its
// schema declares it (annotate.Placement).
type Placement struct {
	Table string
	Class annotate.Class
}

// classNames are the Go names of the classes, in package annotate and in the
// generated package ent/migrate.
var classNames = map[annotate.Class]string{
	annotate.Distributed: "Distributed",
	annotate.Reference:   "Reference",
	annotate.Local:       "Local",
}

// Const is the Go name of the table's class.
func (p Placement) Const() string { return classNames[p.Class] }

// ClassConst is a class as the generated code declares it: its Go name and
// its value.
type ClassConst struct {
	Name  string
	Value annotate.Class
}

// classConsts are every class, in annotate.Classes' order.
func classConsts() []ClassConst {
	var out []ClassConst
	for _, c := range annotate.Classes {
		out = append(out, ClassConst{Name: classNames[c], Value: c})
	}
	return out
}

// IsDistributed reports whether the table's rows go to the shards of their
// account.
func (p Placement) IsDistributed() bool { return p.Class == annotate.Distributed }

// placements are the classes of every table of g, in order of table name,
// which the template migrate/placement lists in package ent/migrate. It
// refuses a table whose schema declares no class, a class it does not know,
// and Distributed for a table without account_id NOT NULL.
func placements(g *gen.Graph) ([]Placement, error) {
	tables, err := g.Tables()
	if err != nil {
		return nil, err
	}
	declared := map[string]annotate.Class{}
	for _, n := range g.Nodes {
		if n.IsView() {
			continue
		}
		raw, ok := n.Annotations[annotate.PlacementName]
		if !ok {
			continue
		}
		var p annotate.Placement
		if err := decode(raw, &p); err != nil {
			return nil, fmt.Errorf("codegen: schema %s: its placement annotation: %w", n.Name, err)
		}
		declared[n.Table()] = p.Class
	}
	var out []Placement
	var errs []string
	for _, tb := range tables {
		class, ok := declared[tb.Name]
		if !ok {
			errs = append(errs, fmt.Sprintf("table %s has no class on a distributed PostgreSQL: give its schema AccountMixin, or annotate.Place with one of %q (docs/scaling.md)", tb.Name, annotate.Classes))
			continue
		}
		if msg := placementError(tb, class); msg != "" {
			errs = append(errs, msg)
			continue
		}
		out = append(out, Placement{Table: tb.Name, Class: class})
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("codegen: %s", strings.Join(errs, "; "))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Table < out[j].Table })
	return out, nil
}

// placementError says why class does not fit table tb, or "" when it does.
func placementError(tb *schema.Table, class annotate.Class) string {
	if !slices.Contains(annotate.Classes, class) || classNames[class] == "" {
		return fmt.Sprintf("table %s has class %q; the classes are %q", tb.Name, class, annotate.Classes)
	}
	var notNull bool
	for _, c := range tb.Columns {
		if c.Name == "account_id" {
			notNull = !c.Nullable
		}
	}
	if class == annotate.Distributed && !notNull {
		return fmt.Sprintf("table %s is %s by account_id, which it does not have NOT NULL: give it the column NOT NULL, or place it %q or %q", tb.Name, class, annotate.Reference, annotate.Local)
	}
	return ""
}
