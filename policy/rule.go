package policy

import (
	"context"
	"fmt"

	"entgo.io/ent"

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
