package forms

import (
	"net/url"
	"testing"
)

func TestParsePasswordChange(t *testing.T) {
	good := "correct horse battery"
	in, errs := ParsePasswordChange(url.Values{"current": {" old "}, "password": {good}, "confirm": {good}})
	if !errs.OK() || in.Current != " old " || in.New != good {
		t.Errorf("%+v %v", in, errs)
	}
	parse := func(v url.Values) Errors { _, e := ParsePasswordChange(v); return e }
	checkRules(t, parse, []rule{
		{"no current", url.Values{"password": {good}, "confirm": {good}}, "current", "Enter your current password."},
		{"a current", url.Values{"current": {"x"}}, "current", ""},
		{"no new password", url.Values{"current": {"x"}}, "password", "Choose a password."},
		{"new passwords differ", url.Values{"current": {"x"}, "password": {good}, "confirm": {"other"}}, "confirm", "The two passwords differ."},
	})
}

func TestParseEnrollment(t *testing.T) {
	in, errs := ParseEnrollment(url.Values{"code": {" 123456 "}, "proof": {" 654321 "}}, true)
	if !errs.OK() || in.Code != "123456" || in.Proof != "654321" {
		t.Errorf("%+v %v", in, errs)
	}
	checkRules(t, func(v url.Values) Errors { _, e := ParseEnrollment(v, true); return e }, []rule{
		{"no code", url.Values{"proof": {"x"}}, "code", "Enter the six-digit code."},
		{"no code, no proof: the code first", url.Values{}, "proof", ""},
		{"no proof", url.Values{"code": {"1"}}, "proof", "Enter your password, or a code from the app you use now."},
		{"a proof", url.Values{"code": {"1"}, "proof": {"x"}}, "proof", ""},
	})
	checkRules(t, func(v url.Values) Errors { _, e := ParseEnrollment(v, false); return e }, []rule{
		{"first app, no proof asked", url.Values{"code": {"1"}}, "proof", ""},
	})
}

func TestParseSecondFactorRemoval(t *testing.T) {
	if p, errs := ParseSecondFactorRemoval(url.Values{"proof": {" pw "}}, true); !errs.OK() || p != "pw" {
		t.Errorf("%q %v", p, errs)
	}
	checkRules(t, func(v url.Values) Errors { _, e := ParseSecondFactorRemoval(v, true); return e }, []rule{
		{"no proof", url.Values{}, "proof", "Enter your password, or the code your app shows now."},
		{"a proof", url.Values{"proof": {"x"}}, "proof", ""},
	})
	checkRules(t, func(v url.Values) Errors { _, e := ParseSecondFactorRemoval(v, false); return e }, []rule{
		{"none on, no proof asked", url.Values{}, "proof", ""},
	})
}
