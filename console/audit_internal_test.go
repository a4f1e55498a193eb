package console

import (
	"encoding/json"
	"testing"

	"larder.dev/larder/internal/identity/audit"
)

// A record's details read as words, whatever JSON holds: no map[...], no
// <nil>, whole numbers without a decimal point, groups in parentheses.
func TestAuditDetailsInWords(t *testing.T) {
	var detail map[string]any
	if err := json.Unmarshal([]byte(`{"counts":{"bills":{"created":4,"cancelled":0},"lots":12},"note":null,"scopes":["catalog:read","sales:write"],"required":true,"empty":[],"price":"2.40","ratio":0.5}`), &detail); err != nil {
		t.Fatal(err)
	}
	env := "live"
	id := 7
	got := onWhat(audit.Listed{KeyID: &id, Env: &env, Detail: detail})
	want := "key 7 (live); counts: bills (cancelled 0, created 4), lots 12; empty: —; note: none; price: 2.40; ratio: 0.5; required: yes; scopes: catalog:read, sales:write"
	if got != want {
		t.Errorf("the details read\n%q\nwant\n%q", got, want)
	}
}
