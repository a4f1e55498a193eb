package console

import (
	"encoding/base64"
	"errors"
	"html/template"
	"net/http"

	"larder.dev/larder/people"
)

// accountRoutes are the signed-in person's own: password and second factor.
func (s *Server) accountRoutes() []Route {
	return []Route{
		{Method: "GET", Path: "/console/account", Summary: "your account: change the password, set up or remove the second factor", serve: s.account},
		{Method: "POST", Path: "/console/account/password", Summary: "change your password (ends your other sessions)", serve: s.changePassword},
		{Method: "GET", Path: "/console/account/second-factor", Enrolling: true, Summary: "set up a second factor (where the organization requires one, before anything else)", serve: s.enrollStart},
		{Method: "POST", Path: "/console/account/second-factor", Enrolling: true, Summary: "start setting up a second factor: a new authenticator key and its QR code", serve: s.enroll},
		{Method: "POST", Path: "/console/account/second-factor/confirm", Enrolling: true, Summary: "turn the second factor on with a code from the app", serve: s.confirmEnroll},
		{Method: "POST", Path: "/console/account/second-factor/remove", Summary: "turn your second factor off", serve: s.removeSecondFactor},
	}
}

// accountView is the account page's own data.
type accountView struct{ Required bool }

func (s *Server) account(w http.ResponseWriter, r *http.Request, c *caller) {
	s.accountPage(w, r, c, http.StatusOK, nil)
}

func (s *Server) accountPage(w http.ResponseWriter, r *http.Request, c *caller, status int, f *form) {
	req, err := s.o.People.SecondFactorRequired(c.ctx, c.orgID())
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	s.render(w, r, c, status, "account", "Your account", f, accountView{Required: req})
}

func (s *Server) changePassword(w http.ResponseWriter, r *http.Request, c *caller) {
	f := parseForm(w, r)
	if f.OK() && f.Raw("current") == "" {
		f.Fail("current", "Enter your current password.")
	}
	checkNewPassword(f)
	if !f.OK() {
		s.accountPage(w, r, c, http.StatusBadRequest, f)
		return
	}
	err := s.o.People.ChangePassword(c.ctx, c.orgID(), c.Me.Person.ID, f.Raw("current"), f.Raw("password"), c.Me.Token)
	switch {
	case errors.Is(err, people.ErrBadCredentials):
		f.Fail("current", "That is not your current password.")
		s.accountPage(w, r, c, http.StatusBadRequest, f)
	case errors.Is(err, people.ErrWeakPassword):
		f.Fail("password", weakPassword)
		s.accountPage(w, r, c, http.StatusBadRequest, f)
	case err != nil:
		s.fail(w, r, c, err)
	default:
		s.redirect(w, r, c, Prefix+"account", "Your password is changed; your other sessions are signed out.")
	}
}

// enrollView shows a second factor being set up.
type enrollView struct {
	Secret string
	// QR is the key as a PNG data URL (the page's policy allows data: images).
	QR template.URL
}

func (s *Server) enrollStart(w http.ResponseWriter, r *http.Request, c *caller) {
	if c.Me.Person.SecondFactor {
		http.Redirect(w, r, Prefix+"account", http.StatusSeeOther)
		return
	}
	s.render(w, r, c, http.StatusOK, "enrollstart", "Set up a second factor", nil, nil)
}

func (s *Server) enroll(w http.ResponseWriter, r *http.Request, c *caller) {
	e, err := s.o.People.BeginSecondFactor(c.ctx, c.orgID(), c.Me.Person.ID)
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	s.render(w, r, c, http.StatusOK, "enroll", "Set up a second factor", nil, enrollViewOf(e))
}

func enrollViewOf(e people.Enrollment) enrollView {
	return enrollView{Secret: e.Secret, QR: template.URL("data:image/png;base64," + base64.StdEncoding.EncodeToString(e.QRPNG))}
}

func (s *Server) confirmEnroll(w http.ResponseWriter, r *http.Request, c *caller) {
	f := parseForm(w, r)
	if f.OK() && f.Get("code") == "" {
		f.Fail("code", "Enter the six-digit code.")
	}
	if f.OK() {
		err := s.o.People.ConfirmSecondFactor(c.ctx, c.orgID(), c.Me.Person.ID, f.Get("code"))
		switch {
		case err == nil:
			s.redirect(w, r, c, Prefix+"account", "The second factor is on: signing in now asks for a code.")
			return
		case errors.Is(err, people.ErrBadCode):
			f.Fail("code", "That code is not right. Enter the code your app shows now.")
		default:
			s.fail(w, r, c, err)
			return
		}
	}
	// A wrong code shows the same key again: the pending one stays until
	// confirmed or replaced.
	e, err := s.o.People.PendingSecondFactor(c.ctx, c.orgID(), c.Me.Person.ID)
	if errors.Is(err, people.ErrNotFound) {
		http.Redirect(w, r, Prefix+"account/second-factor", http.StatusSeeOther)
		return
	}
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	s.render(w, r, c, http.StatusBadRequest, "enroll", "Set up a second factor", f, enrollViewOf(e))
}

func (s *Server) removeSecondFactor(w http.ResponseWriter, r *http.Request, c *caller) {
	if err := s.o.People.RemoveSecondFactor(c.ctx, c.orgID(), c.Me.Person.ID); err != nil {
		s.fail(w, r, c, err)
		return
	}
	s.redirect(w, r, c, Prefix+"account", "The second factor is off.")
}
