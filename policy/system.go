package policy

import (
	"context"

	"entgo.io/ent"

	gen "larder.dev/larder/ent"
	"larder.dev/larder/ent/privacy"
)

// AllowSystem allows everything to the system viewer, the one explicit bypass
// used by seeding, workers and administrative commands.
func AllowSystem() Rule { return allowSystem(nil) }

// allowSystem is AllowSystem whose reads, by the system viewer narrowed to
// one account (SystemWithin), take within's predicate on that account, as the
// tenant filter's reads do; nil allows them as any other.
func allowSystem(within *gen.Known) Rule {
	r := privacy.ContextQueryMutationRule(func(ctx context.Context) error {
		if FromContext(ctx).IsSystem() {
			return privacy.Allow
		}
		return privacy.Skip
	})
	rule := Rule{Name: "system allow", Does: "The system viewer (CLI commands, seeding, workers; never an API key) reads and writes everything; narrowed to one account (the webhook snapshots), it reads the tenant tables' rows of that account and the shared rows.", query: r, mutation: r}
	if within == nil {
		return rule
	}
	filter := privacy.FilterFunc(func(ctx context.Context, f privacy.Filter) error {
		return known(f, within, FromContext(ctx).AccountID)
	})
	rule.query = privacy.QueryRuleFunc(func(ctx context.Context, q ent.Query) error {
		switch v := FromContext(ctx); {
		case !v.IsSystem():
			return privacy.Skip
		case v.AccountID == 0:
			return privacy.Allow
		}
		return filter.EvalQuery(ctx, q)
	})
	return rule
}
