package console

import (
	"encoding/base64"
	"errors"
	"fmt"
	"html/template"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"

	"larder.dev/larder/console/forms"
	"larder.dev/larder/internal/identity/people"
)

// accountRoutes are the signed-in person's own: password and second factor.
func (s *Server) accountRoutes() []Route {
	return []Route{
		{Method: "GET", Path: "/console/account", Summary: "your account: change the password, set up or remove the second factor", serve: s.account},
		{Method: "POST", Path: "/console/account/password", Summary: "change your password (ends your other sessions)", serve: s.changePassword},
		{Method: "GET", Path: "/console/account/second-factor", Enrolling: true, Summary: "set up a second factor (where the organization requires one, before anything else)", serve: s.enrollStart},
		{Method: "POST", Path: "/console/account/second-factor", Enrolling: true, Summary: "start setting up a second factor: a new authenticator key and its QR code", serve: s.enroll},
		{Method: "POST", Path: "/console/account/second-factor/confirm", Enrolling: true, Summary: "turn the second factor on with a code from the app; replacing one asks for the password or a current code and ends your other sessions", serve: s.confirmEnroll},
		{Method: "POST", Path: "/console/account/second-factor/remove", Summary: "turn your second factor off with the password or a current code (ends your other sessions)", serve: s.removeSecondFactor},
		{Method: "POST", Path: "/console/account/recovery-codes", Summary: "make ten new recovery codes in place of the old ones, with the password or a current code; shows them once", serve: s.regenerateRecoveryCodes},
		{Method: "POST", Path: "/console/account/recovery-codes/download", Enrolling: true, Summary: "download the recovery codes just shown as a text file (the page sends them back; nothing is read or stored)", serve: s.downloadRecoveryCodes},
	}
}

// accountView is the account page's own data.
type accountView struct {
	Required bool
	// Remove is the form that turns the second factor off, Recovery the one
	// that makes new recovery codes.
	Remove, Recovery *form
	// CodesLeft is how many recovery codes are unused, of CodesMade.
	CodesLeft, CodesMade int
}

func (s *Server) account(w http.ResponseWriter, r *http.Request, c *caller) {
	s.accountPage(w, r, c, http.StatusOK, nil, nil, nil)
}

// accountPage renders the page with f, the password form, remove, the
// second factor's, or recovery, the recovery codes'.
func (s *Server) accountPage(w http.ResponseWriter, r *http.Request, c *caller, status int, f, remove, recovery *form) {
	req, err := s.o.People.SecondFactorRequired(c.ctx, c.orgID())
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	left, err := s.o.People.RecoveryCodesLeft(c.ctx, c.orgID(), c.Me.Person.ID)
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	if remove == nil {
		remove = newForm(nil)
	}
	if recovery == nil {
		recovery = newForm(nil)
	}
	v := accountView{Required: req, Remove: remove, Recovery: recovery, CodesLeft: left, CodesMade: people.RecoveryCodeCount}
	accountTemplate.render(s, w, r, c, status, "Your account", f, v)
}

// proofFailed puts on f (at its field "proof") why the password or code
// that should prove who changes a second factor was refused, and returns
// the status to answer with; ok is false for an error that is no refusal.
func proofFailed(w http.ResponseWriter, f *form, err error) (status int, ok bool) {
	return proofFailedAt(w, f, "proof", err)
}

// proofFailedAt is proofFailed for the proof given at field.
func proofFailedAt(w http.ResponseWriter, f *form, field string, err error) (status int, ok bool) {
	var th *people.ThrottledError
	switch {
	case errors.As(err, &th):
		secs := max(1, int(math.Ceil(th.RetryAfter.Seconds())))
		w.Header().Set("Retry-After", strconv.Itoa(secs))
		f.Fail(field, fmt.Sprintf("Too many attempts. Wait %d seconds and try again.", secs))
		return http.StatusTooManyRequests, true
	case errors.Is(err, people.ErrSecondFactorLocked):
		f.Fail(field, secondFactorLocked)
		return http.StatusLocked, true
	case errors.Is(err, people.ErrBadCredentials), errors.Is(err, people.ErrBadCode):
		f.Fail(field, "That is neither your password nor the code your app shows now.")
		return http.StatusBadRequest, true
	case errors.Is(err, people.ErrProofNeeded):
		// Another tab turned the second factor on meanwhile.
		f.Fail(field, "Your second factor is on already: to move it to another app, give your password or a current code.")
		return http.StatusBadRequest, true
	}
	return 0, false
}

func (s *Server) changePassword(w http.ResponseWriter, r *http.Request, c *caller) {
	f := parseForm(w, r)
	in, errs := forms.ParsePasswordChange(f.values)
	if f.OK() {
		f.add(errs)
	} else {
		checkNewPassword(f)
	}
	if !f.OK() {
		s.accountPage(w, r, c, http.StatusBadRequest, f, nil, nil)
		return
	}
	err := s.o.People.ChangePassword(c.ctx, c.orgID(), c.Me.Person.ID, in.Current, in.New, c.Me.Token)
	var th *people.ThrottledError
	switch {
	case errors.Is(err, people.ErrBadCredentials):
		f.Fail("current", "That is not your current password.")
		s.accountPage(w, r, c, http.StatusBadRequest, f, nil, nil)
	case errors.Is(err, people.ErrWeakPassword):
		f.Fail("password", weakPassword)
		s.accountPage(w, r, c, http.StatusBadRequest, f, nil, nil)
	case errors.As(err, &th):
		secs := max(1, int(math.Ceil(th.RetryAfter.Seconds())))
		w.Header().Set("Retry-After", strconv.Itoa(secs))
		f.Fail("", fmt.Sprintf("Too many attempts. Wait %d seconds and try again.", secs))
		s.accountPage(w, r, c, http.StatusTooManyRequests, f, nil, nil)
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
	enrollstartTemplate.render(s, w, r, c, http.StatusOK, "Set up a second factor", nil, enrollStartView{})
}

func (s *Server) enroll(w http.ResponseWriter, r *http.Request, c *caller) {
	e, err := s.o.People.BeginSecondFactor(c.ctx, c.orgID(), c.Me.Person.ID)
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	enrollTemplate.render(s, w, r, c, http.StatusOK, "Set up a second factor", nil, enrollViewOf(e))
}

func enrollViewOf(e people.Enrollment) enrollView {
	return enrollView{Secret: e.Secret, QR: template.URL("data:image/png;base64," + base64.StdEncoding.EncodeToString(e.QRPNG))}
}

func (s *Server) confirmEnroll(w http.ResponseWriter, r *http.Request, c *caller) {
	f := parseForm(w, r)
	replacing := c.Me.Person.SecondFactor
	in, errs := forms.ParseEnrollment(f.values, replacing)
	if f.OK() {
		f.add(errs)
	}
	status := http.StatusBadRequest
	if f.OK() {
		var err error
		var codes []string
		if replacing {
			err = s.o.People.ReplaceSecondFactor(c.ctx, c.orgID(), c.Me.Person.ID, in.Code, in.Proof, c.Me.Token, c.From)
		} else {
			codes, err = s.o.People.ConfirmSecondFactor(c.ctx, c.orgID(), c.Me.Person.ID, in.Code)
		}
		switch {
		case err == nil && replacing:
			s.redirect(w, r, c, Prefix+"account", "The second factor is now the new app; your other sessions are signed out.")
			return
		case err == nil:
			// The page is this answer: the codes are never shown again.
			c.Me.Person.SecondFactor, c.Me.MustEnroll = true, false
			s.showRecoveryCodes(w, r, c, "The second factor is on: signing in asks for a code from your app.", codes)
			return
		case errors.Is(err, people.ErrBadCode) && !replacing:
			f.Fail("code", "That code is not right. Enter the code your app shows now.")
		case errors.Is(err, people.ErrBadCode):
			f.Fail("code", "A code is not right: enter the codes both apps show now.")
		default:
			var ok bool
			if status, ok = proofFailed(w, f, err); !ok {
				s.fail(w, r, c, err)
				return
			}
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
	enrollTemplate.render(s, w, r, c, status, "Set up a second factor", f, enrollViewOf(e))
}

func (s *Server) removeSecondFactor(w http.ResponseWriter, r *http.Request, c *caller) {
	f := parseForm(w, r)
	proof, errs := forms.ParseSecondFactorRemoval(f.values, c.Me.Person.SecondFactor)
	if f.OK() {
		f.add(errs)
	}
	if !f.OK() {
		s.accountPage(w, r, c, http.StatusBadRequest, nil, f, nil)
		return
	}
	err := s.o.People.RemoveOwnSecondFactor(c.ctx, c.orgID(), c.Me.Person.ID, proof, c.Me.Token, c.From)
	if err != nil {
		if status, ok := proofFailed(w, f, err); ok {
			s.accountPage(w, r, c, status, nil, f, nil)
			return
		}
		s.fail(w, r, c, err)
		return
	}
	s.redirect(w, r, c, Prefix+"account", "The second factor is off; your other sessions are signed out.")
}

// recoveryCodesView shows recovery codes just made, the one time they are.
type recoveryCodesView struct {
	// Done says what was done before the codes were made.
	Done  string
	Codes []string
	// Text is the codes one a line, for copying and the download.
	Text string
}

// showRecoveryCodes renders codes, just made, with done, what led to them.
func (s *Server) showRecoveryCodes(w http.ResponseWriter, r *http.Request, c *caller, done string, codes []string) {
	// Neither the browser nor a proxy keeps the page.
	w.Header().Set("Cache-Control", "no-store")
	v := recoveryCodesView{Done: done, Codes: codes, Text: strings.Join(codes, "\n")}
	recoverycodesTemplate.render(s, w, r, c, http.StatusOK, "Your recovery codes", nil, v)
}

// regenerateRecoveryCodes makes new recovery codes, the old ones void,
// once the password or a current code shows it is the person.
func (s *Server) regenerateRecoveryCodes(w http.ResponseWriter, r *http.Request, c *caller) {
	f := parseForm(w, r)
	proof, errs := forms.ParseRecoveryCodesRenewal(f.values)
	if f.OK() {
		f.add(errs)
	}
	if !f.OK() {
		s.accountPage(w, r, c, http.StatusBadRequest, nil, nil, f)
		return
	}
	codes, err := s.o.People.RegenerateRecoveryCodes(c.ctx, c.orgID(), c.Me.Person.ID, proof, c.From)
	if errors.Is(err, people.ErrNoSecondFactor) {
		f.Fail("", "Recovery codes stand in for a second factor: set one up first.")
		s.accountPage(w, r, c, http.StatusBadRequest, nil, nil, f)
		return
	}
	if err != nil {
		if status, ok := proofFailedAt(w, f, "renew_proof", err); ok {
			s.accountPage(w, r, c, status, nil, nil, f)
			return
		}
		s.fail(w, r, c, err)
		return
	}
	s.showRecoveryCodes(w, r, c, "Your old recovery codes no longer work.", codes)
}

// downloadRecoveryCodes answers the codes the page sent back as a text
// file: they are checked for their shape and never stored.
func (s *Server) downloadRecoveryCodes(w http.ResponseWriter, r *http.Request, c *caller) {
	f := parseForm(w, r)
	codes, errs := forms.ParseRecoveryCodesDownload(f.values)
	if !f.OK() || len(errs) > 0 {
		http.Error(w, "Those are not recovery codes: make new ones on your account page.", http.StatusBadRequest)
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Larder recovery codes for %s\n", c.Me.Person.Email)
	b.WriteString("Each code signs you in once in place of a code from your authenticator app.\n\n")
	for _, code := range codes {
		b.WriteString(code + "\n")
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="larder-recovery-codes.txt"`)
	w.Header().Set("Cache-Control", "no-store")
	_, _ = io.WriteString(w, b.String())
}
