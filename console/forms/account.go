package forms

import (
	"net/url"
	"strings"
)

// PasswordChange is the account page's password form.
type PasswordChange struct {
	// Current and New are as typed, never trimmed.
	Current, New string
}

// ParsePasswordChange reads the password form: the current password, and
// a new one as ParseNewPassword reads it.
func ParsePasswordChange(v url.Values) (PasswordChange, Errors) {
	var errs Errors
	in := PasswordChange{Current: v.Get("current")}
	if in.Current == "" {
		errs.Add("current", "Enter your current password.")
	}
	p, perrs := ParseNewPassword(v)
	for k, m := range perrs {
		errs.Add(k, m)
	}
	in.New = p
	return in, errs
}

// Enrollment is the form that confirms a second factor: the new app's code,
// and when it replaces one, the person's password or the old app's code.
type Enrollment struct{ Code, Proof string }

// ParseEnrollment reads the confirmation of a second factor; replacing asks
// for proof as well.
func ParseEnrollment(v url.Values, replacing bool) (Enrollment, Errors) {
	var errs Errors
	in := Enrollment{Code: get(v, "code"), Proof: strings.TrimSpace(v.Get("proof"))}
	switch {
	case in.Code == "":
		errs.Add("code", "Enter the six-digit code.")
	case replacing && v.Get("proof") == "":
		errs.Add("proof", "Enter your password, or a code from the app you use now.")
	}
	return in, errs
}

// ParseSecondFactorRemoval reads the form that turns off one's own second
// factor: the password or a current code, asked when there is one on.
func ParseSecondFactorRemoval(v url.Values, on bool) (string, Errors) {
	var errs Errors
	if on && v.Get("proof") == "" {
		errs.Add("proof", "Enter your password, or the code your app shows now.")
	}
	return strings.TrimSpace(v.Get("proof")), errs
}
