package forms

import (
	"fmt"
	"net/url"

	"larder.dev/larder/internal/identity/people"
)

// SignIn is the sign-in form.
type SignIn struct {
	// Email is trimmed; Password is as typed.
	Email, Password string
}

// ParseSignIn reads the sign-in form: both fields are required.
func ParseSignIn(v url.Values) (SignIn, Errors) {
	var errs Errors
	in := SignIn{Email: get(v, "email"), Password: v.Get("password")}
	if in.Email == "" {
		errs.Add("email", "Enter your e-mail address.")
	}
	if in.Password == "" {
		errs.Add("password", "Enter your password.")
	}
	return in, errs
}

// ParseCode reads the second factor's form: a code is required (the
// people service checks it).
func ParseCode(v url.Values) (string, Errors) {
	var errs Errors
	code := get(v, "code")
	if code == "" {
		errs.Add("code", "Enter the six-digit code.")
	}
	return code, errs
}

// WeakPassword says what a password must be.
var WeakPassword = fmt.Sprintf("Use at least %d characters.", people.MinPasswordLength)

// ParseNewPassword reads a new password and its confirmation: at least
// people.MinPasswordLength characters, typed twice alike. The password is
// as typed, never trimmed.
func ParseNewPassword(v url.Values) (string, Errors) {
	var errs Errors
	p := v.Get("password")
	switch {
	case p == "":
		errs.Add("password", "Choose a password.")
	case len([]rune(p)) < people.MinPasswordLength:
		errs.Add("password", WeakPassword)
	case v.Get("confirm") != p:
		errs.Add("confirm", "The two passwords differ.")
	}
	return p, errs
}
