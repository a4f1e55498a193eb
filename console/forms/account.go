package forms

import (
	"fmt"
	"net/url"
	"regexp"
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

// ParseRecoveryCodesRenewal reads the form that makes new recovery codes:
// the password or a current code (field renew_proof), which it asks for.
func ParseRecoveryCodesRenewal(v url.Values) (string, Errors) {
	var errs Errors
	if v.Get("renew_proof") == "" {
		errs.Add("renew_proof", "Enter your password, or the code your app shows now.")
	}
	return strings.TrimSpace(v.Get("renew_proof")), errs
}

// recoveryCodeShape is a recovery code as it is shown: four groups of four
// of base32's lower-case letters and digits.
var recoveryCodeShape = regexp.MustCompile(`^[a-z2-7]{4}(-[a-z2-7]{4}){3}$`)

// maxRecoveryCodes is how many codes a download holds at most: one set.
const maxRecoveryCodes = 10

// ParseRecoveryCodesDownload reads the codes the recovery codes page sends
// back to be downloaded: one to ten, each of a code's shape.
func ParseRecoveryCodesDownload(v url.Values) ([]string, Errors) {
	var errs Errors
	codes := v["code"]
	if len(codes) == 0 || len(codes) > maxRecoveryCodes {
		errs.Add("code", fmt.Sprintf("Send one to %d recovery codes.", maxRecoveryCodes))
		return nil, errs
	}
	for _, c := range codes {
		if !recoveryCodeShape.MatchString(c) {
			errs.Add("code", "That is not a recovery code.")
			return nil, errs
		}
	}
	return codes, errs
}
