package policy_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"larder.dev/larder/policy"
)

// A direct SQL statement's tenant filter: the predicates name the account
// parameter on the alias, and the arguments start with the viewer's account,
// or there are none at all.
func TestDirectSQLTenantFilter(t *testing.T) {
	if got, want := policy.AccountRows("lot"), "lot.account_id = $1"; got != want {
		t.Errorf("AccountRows = %q, want %q", got, want)
	}
	if got, want := policy.AccountOrSharedRows("u"), "(u.account_id = $1 OR u.is_global)"; got != want {
		t.Errorf("AccountOrSharedRows = %q, want %q", got, want)
	}
	args, err := policy.AccountArgs(policy.App(context.Background(), 42, policy.Live), 7, "x")
	if err != nil || !slices.Equal(args, []any{42, 7, "x"}) {
		t.Errorf("AccountArgs of account 42 = %v, %v; want [42 7 x]", args, err)
	}
	for name, ctx := range map[string]context.Context{
		"no viewer":     context.Background(),
		"system viewer": policy.System(context.Background()),
		"no account":    policy.NewContext(context.Background(), &policy.Viewer{Source: policy.SourceAPI}),
	} {
		args, err := policy.AccountArgs(ctx, 7)
		if !errors.Is(err, policy.ErrNoAccount) || args != nil {
			t.Errorf("%s: AccountArgs = %v, %v; want ErrNoAccount and no arguments", name, args, err)
		}
	}
	for _, alias := range []string{"", "l.x", "1l", "l; DROP TABLE lots", "l "} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("AccountRows(%q) did not refuse the alias", alias)
				}
			}()
			policy.AccountRows(alias)
		}()
	}
}
