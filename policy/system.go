package policy

import (
	"context"

	"larder.dev/larder/ent/privacy"
)

// AllowSystem allows everything to the system viewer, the one explicit bypass
// used by seeding, workers and administrative commands.
func AllowSystem() privacy.QueryMutationRule {
	return privacy.ContextQueryMutationRule(func(ctx context.Context) error {
		if FromContext(ctx).IsSystem() {
			return privacy.Allow
		}
		return privacy.Skip
	})
}
