package policy

import (
	"context"

	"larder.dev/larder/ent/privacy"
)

// AllowSystem allows everything to the system viewer, the one explicit bypass
// used by seeding, workers and administrative commands.
func AllowSystem() Rule {
	r := privacy.ContextQueryMutationRule(func(ctx context.Context) error {
		if FromContext(ctx).IsSystem() {
			return privacy.Allow
		}
		return privacy.Skip
	})
	return Rule{Name: "system allow", Does: "The system viewer (CLI commands, seeding, workers; never an API key) reads and writes everything.", query: r, mutation: r}
}
