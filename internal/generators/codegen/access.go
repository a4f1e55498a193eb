package codegen

import (
	"encoding/json"
	"fmt"

	"entgo.io/ent/entc/gen"

	"larder.dev/larder/internal/generators/access/report"
	"larder.dev/larder/internal/generators/annotate"
)

// policyAnnotation is the name of the annotation a schema's policy mixin
// gives with its rules named (policy.Annotation, whose package imports the
// generated ent and so is not imported here).
const policyAnnotation = "LarderPolicy"

// scopeTable is every operation's handler method name and the scope it
// needs: restapi.Scopes (the rest template writes it from this) and the
// access report's scope column.
func scopeTable(rs []*Resource) map[string]string {
	t := map[string]string{}
	for _, r := range rs {
		for _, op := range r.Ann.Ops {
			t[r.Method(op)] = r.Scope(op)
		}
		for _, a := range r.Actions {
			t[a.Method()] = r.Scope(annotate.Update)
		}
	}
	for _, o := range extraOperations {
		t[o.Method()] = o.Scope
	}
	return t
}

// accessSchema is the access report's schema part: the operations of the
// published description (doc) with their scopes, and every schema as
// ent.Access lists it, with its policy's rules from the policy annotation.
func accessSchema(g *gen.Graph, rs []*Resource, doc []byte) (*report.Schema, error) {
	ops, err := report.Operations(doc, scopeTable(rs))
	if err != nil {
		return nil, err
	}
	ns, err := nodes(g)
	if err != nil {
		return nil, err
	}
	s := &report.Schema{Operations: ops}
	for _, n := range ns {
		e := report.SchemaEntity{Name: n.T.Name, Table: n.T.Table()}
		if n.Res != nil {
			e.Path, e.Module = n.Res.Ann.Path, string(n.Res.Ann.Scope)
			for _, o := range n.Res.Ann.Ops {
				e.Ops = append(e.Ops, string(o))
			}
			for _, o := range n.Res.Ann.Custom {
				e.Ops = append(e.Ops, string(o))
			}
			for _, a := range n.Res.Ann.Actions {
				e.Ops = append(e.Ops, a.Name)
			}
		}
		for _, f := range n.Costs {
			e.Costs = append(e.Costs, f.Name)
		}
		for _, f := range n.Locks {
			e.Locks = append(e.Locks, f.Name)
		}
		if n.T.NumPolicy() > 0 {
			a, ok := n.T.Annotations[policyAnnotation]
			if !ok {
				return nil, fmt.Errorf("codegen: schema %s has a privacy policy without its rules named: give it with AccountMixin or SystemOnlyMixin", n.T.Name)
			}
			b, err := json.Marshal(a)
			if err != nil {
				return nil, err
			}
			var rules struct {
				Query    []report.Rule `json:"query_rules"`
				Mutation []report.Rule `json:"mutation_rules"`
			}
			if err := json.Unmarshal(b, &rules); err != nil {
				return nil, fmt.Errorf("codegen: schema %s: its policy annotation: %w", n.T.Name, err)
			}
			e.Policy, e.Query, e.Mutation = true, rules.Query, rules.Mutation
		}
		s.Entities = append(s.Entities, e)
	}
	return s, nil
}
