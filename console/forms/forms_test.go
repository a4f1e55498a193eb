package forms

import (
	"net/url"
	"testing"
)

// rule is one case of a form's rule: the values sent, and the message the
// field must show ("" for none).
type rule struct {
	name   string
	values url.Values
	field  string
	want   string
}

// checkRules runs parse on each case and checks the field's message: the
// one expected, or none.
func checkRules(t *testing.T, parse func(url.Values) Errors, rules []rule) {
	t.Helper()
	for _, r := range rules {
		t.Run(r.name, func(t *testing.T) {
			errs := parse(r.values)
			if got := errs[r.field]; got != r.want {
				t.Errorf("field %q: %q, want %q (all: %v)", r.field, got, r.want, errs)
			}
		})
	}
}

// with is base with the fields of kv set (pairs of name and value).
func with(base url.Values, kv ...string) url.Values {
	v := url.Values{}
	for k, xs := range base {
		v[k] = append([]string(nil), xs...)
	}
	for i := 0; i < len(kv); i += 2 {
		v.Set(kv[i], kv[i+1])
	}
	return v
}

func TestErrorsKeepTheFirstMessage(t *testing.T) {
	var errs Errors
	if !errs.OK() {
		t.Fatal("no error: not OK")
	}
	errs.Add("name", "first")
	errs.Add("name", "second")
	errs.Add("", "whole")
	if errs["name"] != "first" || errs[""] != "whole" || errs.OK() {
		t.Errorf("%v", errs)
	}
}
