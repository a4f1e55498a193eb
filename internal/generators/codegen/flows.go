package codegen

// Workflows (package flows): each resource whose schema declares workflow
// steps gets a flow type in package ent, one typed function field per step,
// and the module that implements the steps declares its one value; the
// generated handlers call the steps through it.

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"

	"larder.dev/larder/internal/generators/flows"
)

// FlowStep is one step of a resource's flow type.
type FlowStep struct {
	// Name is the field ("Prepare", "Record", or the action's, "Status").
	Name string
	// Func is the field's type, as package ent declares it.
	Func string
	// Doc says when the generated handlers call it.
	Doc string
}

// FlowType is the flow type's name in package ent ("BillFlow").
func (r *Resource) FlowType() string { return r.Type.Name + flows.Suffix }

// FlowGeneric reports whether the flow type is generic in what Prepare hands
// over to Record (DocLines.Handover).
func (r *Resource) FlowGeneric() bool {
	d := r.DocEdge()
	return d != nil && d.Ann.Doc.Handover
}

// FlowSteps are the steps the schema declares: a document's Prepare and
// Record, then one per action.
func (r *Resource) FlowSteps() []FlowStep {
	var out []FlowStep
	T := r.Type.Name
	if e := r.DocEdge(); e != nil {
		d, L := e.Ann.Doc, e.LineType()
		if d.Prepare {
			args := fmt.Sprintf("ctx context.Context, tx *Tx, m *%sMutation, lines []*%sCreate", T, L)
			if l := e.ReadRef(); l != nil {
				args += fmt.Sprintf(", rows map[int]*%s", l.Ref.E.Type.Name)
			}
			res := "error"
			if d.Handover {
				res = "(T, error)"
			}
			doc := "completes the lines and the " + prose(T) + " before it is saved, given its mutation and the line builders in body order"
			if l := e.ReadRef(); l != nil {
				doc += ", and the rows the check of the lines' " + l.F.Name + " read, by id"
			}
			out = append(out, FlowStep{Name: "Prepare", Func: "func(" + args + ") " + res, Doc: doc + "."})
		}
		if d.Record {
			args := fmt.Sprintf("ctx context.Context, tx *Tx, doc *%s, lines []*%s", T, L)
			doc := "runs after the lines are written, given the saved " + prose(T) + " and its new lines in body order"
			if d.Handover {
				args += ", prepared T"
				doc += ", and what Prepare returned"
			}
			out = append(out, FlowStep{Name: "Record", Func: "func(" + args + ") error", Doc: doc + "; it must leave the lines as written."})
		}
	}
	for _, a := range r.Actions {
		args := []string{"ctx context.Context", "tx *Tx", "id int"}
		for _, f := range a.Fields {
			args = append(args, f.Name+" "+f.F.Type.String())
		}
		out = append(out, FlowStep{Name: a.Step(), Func: "func(" + strings.Join(args, ", ") + ") (*" + T + ", error)",
			Doc: "runs POST /" + r.Ann.Path + "/{id}/" + a.Ann.Name + " (" + a.Ann.ID + ") and returns the " + prose(T) + " to answer with."})
	}
	return out
}

// Step is the flow field of the action's workflow: its name in Go.
func (a *Action) Step() string { return pascal(a.Ann.Name) }

// FlowResources are the resources with a flow type, by type name.
func FlowResources(rs []*Resource) []*Resource {
	var out []*Resource
	for _, r := range rs {
		if len(r.FlowSteps()) > 0 {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b *Resource) int { return strings.Compare(a.Type.Name, b.Type.Name) })
	return out
}

// step is the call of the resource's flow step with args.
func (r *Resource) step(name string, args ...string) string {
	return r.Flow.Ref(name) + "(" + strings.Join(args, ", ") + ")"
}

// bindFlows gives each resource with steps the one flow declared for it, and
// refuses a resource no module declares a flow for, a flow that leaves a step
// out or sets one the schema does not declare, a second flow of a type, and a
// flow of a type that has none.
func bindFlows(rs []*Resource, fs []flows.Flow) error {
	byType := map[string]*Resource{}
	names := map[string]bool{}
	var withSteps []string
	for _, r := range rs {
		names[r.Type.Name] = true
		if len(r.FlowSteps()) > 0 {
			byType[r.Type.Name] = r
			withSteps = append(withSteps, r.Type.Name)
		}
	}
	slices.Sort(withSteps)
	var errs []string
	seen := map[string]flows.Flow{}
	for _, f := range fs {
		r := byType[f.Type]
		if r == nil {
			errs = append(errs, fmt.Sprintf("%s: %s is ent.%s%s, which is no resource's flow (the resources with workflow steps: %s)",
				f.Pos, f.Var, f.Type, flows.Suffix, strings.Join(withSteps, ", ")))
			continue
		}
		if first, ok := seen[f.Type]; ok {
			errs = append(errs, fmt.Sprintf("%s: a second flow of %s (the first is %s.%s, at %s): declare it once", f.Pos, f.Type, first.Name, first.Var, first.Pos))
			continue
		}
		seen[f.Type] = f
		var want []string
		for _, s := range r.FlowSteps() {
			want = append(want, s.Name)
			if !slices.Contains(f.Steps, s.Name) {
				errs = append(errs, fmt.Sprintf("%s: %s leaves out %s, a step the schema of %s declares", f.Pos, f.Var, s.Name, f.Type))
			}
		}
		for _, s := range f.Steps {
			if !slices.Contains(want, s) {
				errs = append(errs, fmt.Sprintf("%s: %s sets %s, which is not a step of ent.%s (its steps: %s)", f.Pos, f.Var, s, r.FlowType(), strings.Join(want, ", ")))
			}
		}
		r.Flow = &f
	}
	for _, t := range withSteps {
		r := byType[t]
		if names[r.FlowType()] {
			errs = append(errs, fmt.Sprintf("%s: its flow type ent.%s would be named as the schema %s", t, r.FlowType(), r.FlowType()))
		}
		if r.Flow == nil {
			var steps []string
			for _, s := range r.FlowSteps() {
				steps = append(steps, s.Name+": …")
			}
			errs = append(errs, fmt.Sprintf("%s: its schema declares workflow steps, but no package under %s declares its flow: "+
				"add `var %s = ent.%s{%s}` to the module that implements them", t, flows.Dir, r.FlowType(), r.FlowType(), strings.Join(steps, ", ")))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("workflows:\n\t%s", strings.Join(errs, "\n\t"))
	}
	return nil
}

// declaredFlows are the flows of the module the generator runs in, read once
// per run: entc runs in the module's ent directory.
var declaredFlows = sync.OnceValues(func() ([]flows.Flow, error) {
	wd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	root, err := flows.Root(wd)
	if err != nil {
		return nil, err
	}
	module, err := flows.Module(root)
	if err != nil {
		return nil, err
	}
	return flows.Find(root, module)
})
