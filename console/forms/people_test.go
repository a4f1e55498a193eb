package forms

import (
	"net/url"
	"testing"

	"larder.dev/larder/internal/identity/people"
)

func TestParseInvitation(t *testing.T) {
	ok := url.Values{"email": {" ana@example.com "}, "role": {"operator"}}
	in, errs := ParseInvitation(ok)
	if !errs.OK() || in.Email != "ana@example.com" || in.Role != people.Operator {
		t.Errorf("%+v %v", in, errs)
	}
	parse := func(v url.Values) Errors { _, e := ParseInvitation(v); return e }
	checkRules(t, parse, []rule{
		{"no address", with(ok, "email", ""), "email", CannotInvite},
		{"a display name", with(ok, "email", "Ana <ana@example.com>"), "email", CannotInvite},
		{"a bare address", with(ok, "email", "ana@example.org"), "email", ""},
		{"no role", with(ok, "role", ""), "role", "Choose a role."},
		{"unknown role", with(ok, "role", "owner"), "role", "Choose a role."},
		{"admin", with(ok, "role", "admin"), "role", ""},
	})
}

func TestParseRoleChange(t *testing.T) {
	if r, ok := ParseRoleChange(url.Values{"role": {"developer"}}); !ok || r != people.Developer {
		t.Errorf("developer: %v %v", r, ok)
	}
	if _, ok := ParseRoleChange(url.Values{"role": {"root"}}); ok {
		t.Error("root is a role")
	}
}

func TestConfirmations(t *testing.T) {
	if SecondFactorRequired(url.Values{}) || !SecondFactorRequired(url.Values{"required": {"yes"}}) {
		t.Error("SecondFactorRequired: the box decides")
	}
	s := ParseSettings(url.Values{"manual_costing": {"yes"}})
	if s.BlockUnapprovedSuppliers || !s.ManualCosting {
		t.Errorf("settings: %+v", s)
	}
	if s := ParseSettings(url.Values{"block_unapproved_suppliers": {"yes"}}); !s.BlockUnapprovedSuppliers || s.ManualCosting {
		t.Errorf("settings: %+v", s)
	}
}

func TestParseTestReset(t *testing.T) {
	parse := func(v url.Values) Errors { return ParseTestReset(v, "Acme Foods") }
	checkRules(t, parse, []rule{
		{"empty", url.Values{}, "name", "Type the organization's name to confirm the reset."},
		{"another name", url.Values{"name": {"acme foods"}}, "name", "That is not the organization's name. Type “Acme Foods” exactly to confirm the reset."},
		{"the name", url.Values{"name": {" Acme Foods "}}, "name", ""},
	})
}

func TestParseSignIn(t *testing.T) {
	in, errs := ParseSignIn(url.Values{"email": {" a@example.com "}, "password": {" secret "}})
	if !errs.OK() || in.Email != "a@example.com" || in.Password != " secret " {
		t.Errorf("%+v %v", in, errs)
	}
	parse := func(v url.Values) Errors { _, e := ParseSignIn(v); return e }
	checkRules(t, parse, []rule{
		{"no address", url.Values{"password": {"x"}}, "email", "Enter your e-mail address."},
		{"an address", url.Values{"email": {"a@example.com"}}, "email", ""},
		{"no password", url.Values{"email": {"a@example.com"}}, "password", "Enter your password."},
		{"a password", url.Values{"password": {"x"}}, "password", ""},
	})
	code, errs := ParseCode(url.Values{"code": {" 123456 "}})
	if !errs.OK() || code != "123456" {
		t.Errorf("code %q %v", code, errs)
	}
	checkRules(t, func(v url.Values) Errors { _, e := ParseCode(v); return e }, []rule{
		{"no code", url.Values{"code": {"  "}}, "code", "Enter the six-digit code."},
		{"a code", url.Values{"code": {"1"}}, "code", ""},
	})
}

func TestParseNewPassword(t *testing.T) {
	good := "correct horse battery"
	p, errs := ParseNewPassword(url.Values{"password": {good}, "confirm": {good}})
	if !errs.OK() || p != good {
		t.Errorf("%q %v", p, errs)
	}
	short := string([]rune("ééééééééééééééééééééé")[:people.MinPasswordLength-1])
	parse := func(v url.Values) Errors { _, e := ParseNewPassword(v); return e }
	checkRules(t, parse, []rule{
		{"empty", url.Values{}, "password", "Choose a password."},
		{"short", url.Values{"password": {short}, "confirm": {short}}, "password", WeakPassword},
		{"long enough", url.Values{"password": {short + "é"}, "confirm": {short + "é"}}, "password", ""},
		{"differs", url.Values{"password": {good}, "confirm": {good + " "}}, "confirm", "The two passwords differ."},
		{"alike", url.Values{"password": {good}, "confirm": {good}}, "confirm", ""},
	})
}
