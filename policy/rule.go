package policy

import (
	"context"
	"fmt"

	"entgo.io/ent"
	entprivacy "entgo.io/ent/privacy"

	"larder.dev/larder/ent/privacy"
)

// Rule is a privacy rule with the name and meaning the access report prints
// (docs/ACCESS.md, `larder access-report`). The report reads each schema's
// policy as ent/runtime wires it and names its rules by these fields, so a
// rule is never described apart from the code that runs it.
type Rule struct {
	// Name is the rule's short name ("tenant filter").
	Name string
	// Does says what it does, in one sentence.
	Does     string
	query    privacy.QueryRule
	mutation privacy.MutationRule
}

// EvalQuery runs the query rule; a mutation-only rule skips.
func (r Rule) EvalQuery(ctx context.Context, q ent.Query) error {
	if r.query == nil {
		return privacy.Skip
	}
	return r.query.EvalQuery(ctx, q)
}

// EvalMutation runs the mutation rule; a query-only rule skips.
func (r Rule) EvalMutation(ctx context.Context, m ent.Mutation) error {
	if r.mutation == nil {
		return privacy.Skip
	}
	return r.mutation.EvalMutation(ctx, m)
}

// Describe names a rule of a policy: its Name and Does when it is a Rule;
// otherwise the Go type, which the access report flags as unnamed.
func Describe(rule any) (name, does string, named bool) {
	if r, ok := rule.(Rule); ok {
		return r.Name, r.Does, true
	}
	return fmt.Sprintf("%T", rule), "", false
}

// Annotation is a privacy policy with its rules named (DescribePolicy), in
// the order they run. A schema's policy mixin gives it as an annotation
// beside the policy itself, so entc, which loads the schema's annotations,
// has the rules' names for the access report without compiling the
// generated packages that run them.
type Annotation struct {
	Query    []Named `json:"query_rules"`
	Mutation []Named `json:"mutation_rules"`
}

// Named is a rule's Name and Does (Describe); Does is empty for a rule that
// is not a Rule, whose Name is then its Go type.
type Named struct {
	Name string `json:"name"`
	Does string `json:"does"`
}

// AnnotationName is the name of the Annotation among a schema's annotations.
const AnnotationName = "LarderPolicy"

// Name names the annotation for entc.
func (Annotation) Name() string { return AnnotationName }

// DescribePolicy names the rules of a policy: a privacy.Policy, or several
// (entgo.io/ent/privacy.Policies, as ent wires a schema's and its mixins'
// policies), whose rules run in turn. A policy of another type is described
// as one unnamed rule.
func DescribePolicy(p ent.Policy) Annotation {
	var a Annotation
	ps, ok := p.(entprivacy.Policies)
	if !ok {
		ps = entprivacy.Policies{p}
	}
	named := func(rule any) Named {
		name, does, _ := Describe(rule)
		return Named{Name: name, Does: does}
	}
	for _, p := range ps {
		pol, ok := p.(privacy.Policy)
		if !ok {
			a.Query = append(a.Query, Named{Name: fmt.Sprintf("policy %T, not a privacy.Policy", p)})
			continue
		}
		for _, q := range pol.Query {
			a.Query = append(a.Query, named(q))
		}
		for _, m := range pol.Mutation {
			a.Mutation = append(a.Mutation, named(m))
		}
	}
	return a
}
