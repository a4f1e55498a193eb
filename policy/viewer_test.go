package policy_test

import (
	"context"
	"testing"

	"larder.dev/larder/policy"
)

// The system and app viewers share one set of every scope; SeeingCost must
// copy a viewer's scopes before adding cost:read, or it would grant cost:read
// to every viewer sharing them.
func TestSeeingCostCopiesScopes(t *testing.T) {
	ctx := context.Background()
	sys := policy.FromContext(policy.System(ctx))
	app := policy.FromContext(policy.App(ctx, 7, policy.Test))
	for _, s := range policy.Known() {
		if !sys.Scopes[s] || !app.Scopes[s] {
			t.Errorf("scope %s: system %v, app %v; want both", s, sys.Scopes[s], app.Scopes[s])
		}
	}
	if len(app.Scopes) != len(policy.Known()) {
		t.Errorf("the app viewer holds %d scopes, want the %d known", len(app.Scopes), len(policy.Known()))
	}

	key := &policy.Viewer{AccountID: 7, Environment: policy.Test, Scopes: policy.Effective([]policy.Scope{"catalog:write"})}
	seeing := policy.FromContext(policy.SeeingCost(policy.NewContext(ctx, key)))
	if !seeing.Can(policy.CostRead) || !seeing.Can("catalog:read") {
		t.Errorf("SeeingCost gave %v, want catalog:read, catalog:write and cost:read", seeing.ScopeList())
	}
	if key.Can(policy.CostRead) {
		t.Errorf("SeeingCost added cost:read to the caller's own viewer: %v", key.ScopeList())
	}
}
