package tenancy_test

import (
	"testing"

	"larder.dev/larder/dbtest"
	"larder.dev/larder/policy"
	"larder.dev/larder/store"
	"larder.dev/larder/tenancy"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

// CurrencyOf takes an API caller's currency from its key lookup (no read:
// the viewer's EUR wins over the organization's CAD), and reads the
// organization for a viewer that does not carry it (an app command).
func TestCurrencyOf(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		o := dbtest.NewOrg(t, st, "")
		app := o.Ctx(policy.Test)
		if got, err := tenancy.CurrencyOf(app, st.Client); err != nil || got != "CAD" {
			t.Errorf("app viewer: CurrencyOf = %q, %v; want the organization's CAD", got, err)
		}
		v := *policy.FromContext(app)
		v.Currency = "EUR"
		api := policy.NewContext(app, &v)
		if got, err := tenancy.CurrencyOf(api, st.Client); err != nil || got != "EUR" {
			t.Errorf("viewer with a currency: CurrencyOf = %q, %v; want the viewer's EUR", got, err)
		}
	})
}
