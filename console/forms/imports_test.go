package forms

import (
	"net/url"
	"testing"

	"larder.dev/larder/internal/modules/catalog"
	"larder.dev/larder/policy"
)

func TestParseUpload(t *testing.T) {
	known := func(l string) bool { return l == "products" }
	ok := url.Values{"env": {"test"}, "list": {"products"}, "format": {"csv"}}
	in, errs := ParseUpload(ok, "x.jsonl", known)
	if !errs.OK() || in.Env != policy.Test || in.List != "products" || in.Format != catalog.CSV {
		t.Errorf("%+v %v", in, errs)
	}
	if in, _ := ParseUpload(with(ok, "env", "", "format", ""), "Products.CSV", known); in.Env != policy.Live || in.Format != catalog.CSV {
		t.Errorf("defaults: %+v", in)
	}
	parse := func(v url.Values) Errors { _, e := ParseUpload(v, "", known); return e }
	checkRules(t, parse, []rule{
		{"env neither", with(ok, "env", "staging"), "", "Choose the live or the test environment."},
		{"env live", with(ok, "env", "live"), "", ""},
		{"unknown list", with(ok, "list", "recipes"), "list", "Choose the list the file holds."},
		{"no list", with(ok, "list", ""), "list", "Choose the list the file holds."},
		{"unknown format", with(ok, "format", "xlsx"), "format", "Choose CSV or JSON Lines."},
		{"json lines", with(ok, "format", "jsonl"), "format", ""},
	})
}
