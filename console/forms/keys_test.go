package forms

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"larder.dev/larder/internal/identity/auth"
	"larder.dev/larder/policy"
)

func TestParseNewKey(t *testing.T) {
	known := policy.Known()
	ok := url.Values{"env": {"test"}, "name": {"  ci  "}, "preset": {"custom"}, "scope": {string(known[0]), string(known[3])}}
	k, errs := ParseNewKey(ok)
	if !errs.OK() {
		t.Fatalf("errors: %v", errs)
	}
	if k.Env != policy.Test || k.Name != "ci" || !slices.Equal(k.Scopes, []policy.Scope{known[0], known[3]}) {
		t.Errorf("%+v", k)
	}
	k, errs = ParseNewKey(with(ok, "preset", "read-all"))
	if want, _ := policy.ParseScopes("read-all"); !errs.OK() || !slices.Equal(k.Scopes, want) {
		t.Errorf("read-all: %v %v", k.Scopes, errs)
	}
	parse := func(v url.Values) Errors { _, e := ParseNewKey(v); return e }
	long := strings.Repeat("é", auth.MaxNameLength+1)
	checkRules(t, parse, []rule{
		{"env neither", with(ok, "env", "staging"), "", "Choose the live or the test environment."},
		{"env live", with(ok, "env", "live"), "", ""},
		{"name too long", with(ok, "name", long), "name", fmt.Sprintf("The name has %d characters; use at most %d.", auth.MaxNameLength+1, auth.MaxNameLength)},
		{"name at the limit", with(ok, "name", long[2:]), "name", ""},
		{"unknown scope", with(ok, "scope", "product:eat"), "scope", `"product:eat" is not a scope; choose among the boxes shown.`},
		{"no scope", with(ok, "scope", ""), "scope", `"" is not a scope; choose among the boxes shown.`},
		{"no box", func() url.Values { v := with(ok); delete(v, "scope"); return v }(), "scope", "Choose at least one scope, or one of the presets above."},
		{"no box, a preset", func() url.Values { v := with(ok, "preset", "all"); delete(v, "scope"); return v }(), "scope", ""},
		{"unknown preset", with(ok, "preset", "everything"), "preset", "Choose what the key may do."},
		{"empty preset is custom", with(ok, "preset", ""), "preset", ""},
	})
	if k, errs := ParseNewKey(with(ok, "name", long)); errs.OK() || k.Scopes != nil {
		t.Errorf("a refused form gives scopes: %v", k.Scopes)
	}
}

func TestParseKeyRotation(t *testing.T) {
	g, errs := ParseKeyRotation(url.Values{"grace": {"7d"}})
	if !errs.OK() || g != 7*24*time.Hour {
		t.Errorf("7d: %v %v", g, errs)
	}
	parse := func(v url.Values) Errors { _, e := ParseKeyRotation(v); return e }
	checkRules(t, parse, []rule{
		{"unknown", url.Values{"grace": {"2h"}}, "grace", "Choose how long the old key keeps working."},
		{"missing", url.Values{}, "grace", "Choose how long the old key keeps working."},
		{"none", url.Values{"grace": {"none"}}, "grace", ""},
	})
}
