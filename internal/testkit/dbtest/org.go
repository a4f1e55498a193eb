package dbtest

import (
	"context"
	"testing"

	"larder.dev/larder/internal/identity/auth"
	"larder.dev/larder/internal/identity/tenancy"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/seed"
	"larder.dev/larder/policy"
)

// Org is an organization made for one test.
type Org struct {
	*tenancy.Organization
	st *store.Store
}

// NewOrg creates an organization on plan (enterprise when empty), unseeded.
func NewOrg(t testing.TB, st *store.Store, plan string) *Org {
	t.Helper()
	if plan == "" {
		plan = tenancy.Entitled
	}
	o, err := tenancy.Create(context.Background(), st.Client, t.Name(), plan, "CAD")
	if err != nil {
		t.Fatal(err)
	}
	return &Org{Organization: o, st: st}
}

// NewSeededOrg creates an enterprise organization whose test account holds the
// seeded dataset, as `larder org create` makes them.
func NewSeededOrg(t testing.TB, st *store.Store) *Org {
	t.Helper()
	o, err := tenancy.Create(context.Background(), st.Client, t.Name(), tenancy.Entitled, "CAD", seed.TestAccount)
	if err != nil {
		t.Fatal(err)
	}
	return &Org{Organization: o, st: st}
}

// Key issues a key of env with the given scopes (policy.ParseScopes syntax).
func (o *Org) Key(t testing.TB, env policy.Environment, scopes string) string {
	t.Helper()
	ss, err := policy.ParseScopes(scopes)
	if err != nil {
		t.Fatal(err)
	}
	k, err := auth.CreateKey(context.Background(), o.st.Client, o.Org.ID, auth.Holder, env, ss, "test")
	if err != nil {
		t.Fatal(err)
	}
	return k.Key
}

// Ctx is a context acting for the env account from the web application.
func (o *Org) Ctx(env policy.Environment) context.Context {
	id := o.Live.ID
	if env == policy.Test {
		id = o.Test.ID
	}
	return policy.App(context.Background(), id, env)
}
