package console

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"

	"larder.dev/larder/console/forms"
	"larder.dev/larder/internal/identity/people"
)

// signInRoutes are signing in and out and the one-time links.
func (s *Server) signInRoutes() []Route {
	return []Route{
		{Method: "GET", Path: "/console/{$}", Summary: "the console's home: the first page the person may open", serve: s.home},
		{Method: "GET", Path: "/console/sign-in", Public: true, Summary: "the sign-in form", serve: s.signInForm},
		{Method: "POST", Path: "/console/sign-in", Public: true, Summary: "sign in with e-mail address and password (throttled per client address and per address)", serve: s.signIn},
		{Method: "GET", Path: "/console/sign-in/code", Pending: true, Enrolling: true, Summary: "the second factor's form", serve: s.codeForm},
		{Method: "POST", Path: "/console/sign-in/code", Pending: true, Enrolling: true, Summary: "give the one-time code of the second factor", serve: s.code},
		{Method: "POST", Path: "/console/sign-out", Pending: true, Enrolling: true, Summary: "end the session", serve: s.signOut},
		{Method: "GET", Path: "/console/welcome/{token}", Public: true, Summary: "a one-time link (invitation or password reset): the set-password form", serve: s.welcomeForm},
		{Method: "POST", Path: "/console/welcome/{token}", Public: true, Summary: "set the password with a one-time link and sign in", serve: s.welcome},
	}
}

// home sends the person to the first page of the navigation.
func (s *Server) home(w http.ResponseWriter, r *http.Request, c *caller) {
	if items := s.nav(c); len(items) > 0 {
		http.Redirect(w, r, items[0].Path, http.StatusSeeOther)
		return
	}
	http.Redirect(w, r, Prefix+"account", http.StatusSeeOther)
}

func (s *Server) signInForm(w http.ResponseWriter, r *http.Request, c *caller) {
	if c.Me != nil && !c.Me.Pending {
		http.Redirect(w, r, nextPath(r.URL.Query().Get("next")), http.StatusSeeOther)
		return
	}
	signinTemplate.render(s, w, r, c, http.StatusOK, "Sign in", nil, signInView{Next: nextParam(r)})
}

// nextParam is the page to return to after signing in, as the sign-in forms
// carry it (empty for the home page).
func nextParam(r *http.Request) string {
	if n := nextPath(r.URL.Query().Get("next")); n != Prefix {
		return n
	}
	return ""
}

// signIn checks the address and password. An unknown address and a wrong
// password get the same answer (people.SignIn does the same work for both).
func (s *Server) signIn(w http.ResponseWriter, r *http.Request, c *caller) {
	f := parseForm(w, r)
	in, errs := forms.ParseSignIn(f.values)
	if f.OK() {
		f.add(errs)
	}
	if !f.OK() {
		signinTemplate.render(s, w, r, c, http.StatusBadRequest, "Sign in", f, signInView{Next: nextParam(r)})
		return
	}
	signed, err := s.o.People.SignIn(c.ctx, in.Email, in.Password, c.From)
	if err != nil {
		s.signInFailed(w, r, c, f, "signin", err)
		return
	}
	// A session of someone else in this browser ends: one person at a time.
	if old := s.token(r, c.tls); old != "" {
		_ = s.o.People.SignOut(c.ctx, old)
	}
	s.setSession(w, c, signed.Token, signed.ExpiresAt)
	if signed.Pending {
		target := Prefix + "sign-in/code"
		if n := nextParam(r); n != "" {
			target += "?next=" + n
		}
		http.Redirect(w, r, target, http.StatusSeeOther)
		return
	}
	http.Redirect(w, r, nextPath(r.URL.Query().Get("next")), http.StatusSeeOther)
}

// signInFailed shows why signing in did not work: 429 with Retry-After when
// throttled, 401 otherwise.
func (s *Server) signInFailed(w http.ResponseWriter, r *http.Request, c *caller, f *form, pg string, err error) {
	title, page := "Sign in", signinTemplate
	if pg == "code" {
		title, page = "Second factor", codeTemplate
	}
	var th *people.ThrottledError
	switch {
	case errors.As(err, &th):
		secs := int(math.Ceil(th.RetryAfter.Seconds()))
		if secs < 1 {
			secs = 1
		}
		w.Header().Set("Retry-After", strconv.Itoa(secs))
		f.Fail("", fmt.Sprintf("Too many attempts. Wait %d seconds and try again.", secs))
		page.render(s, w, r, c, http.StatusTooManyRequests, title, f, signInView{Next: nextParam(r)})
	case errors.Is(err, people.ErrBadCredentials):
		f.Fail("", "The e-mail address or the password is not right.")
		page.render(s, w, r, c, http.StatusUnauthorized, title, f, signInView{Next: nextParam(r)})
	case errors.Is(err, people.ErrBadCode):
		f.Fail("code", "That code is not right, or was used already. Enter the code your app shows now.")
		page.render(s, w, r, c, http.StatusUnauthorized, title, f, signInView{Next: nextParam(r)})
	case errors.Is(err, people.ErrSecondFactorLocked):
		// The sessions waiting for a code ended with the lockout.
		s.clearSession(w, c.tls)
		s.showError(w, r, c, http.StatusLocked, "Second factor locked", secondFactorLocked)
	case errors.Is(err, people.ErrNoSession):
		// The session waiting for the code ended meanwhile (signed out
		// in another tab): sign in again.
		s.clearSession(w, c.tls)
		http.Redirect(w, r, Prefix+"sign-in", http.StatusSeeOther)
	default:
		s.fail(w, r, c, err)
	}
}

func (s *Server) codeForm(w http.ResponseWriter, r *http.Request, c *caller) {
	if !c.Me.Pending {
		http.Redirect(w, r, nextPath(r.URL.Query().Get("next")), http.StatusSeeOther)
		return
	}
	codeTemplate.render(s, w, r, c, http.StatusOK, "Second factor", nil, signInView{Next: nextParam(r)})
}

func (s *Server) code(w http.ResponseWriter, r *http.Request, c *caller) {
	f := parseForm(w, r)
	if !c.Me.Pending {
		http.Redirect(w, r, Prefix, http.StatusSeeOther)
		return
	}
	code, errs := forms.ParseCode(f.values)
	if f.OK() {
		f.add(errs)
	}
	if !f.OK() {
		codeTemplate.render(s, w, r, c, http.StatusBadRequest, "Second factor", f, signInView{Next: nextParam(r)})
		return
	}
	cur, err := s.o.People.VerifySecondFactor(c.ctx, c.Me.Token, code, c.From)
	if err != nil {
		s.signInFailed(w, r, c, f, "code", err)
		return
	}
	// The verified session has a token of its own.
	s.setSession(w, c, cur.Token, cur.ExpiresAt)
	http.Redirect(w, r, nextPath(r.URL.Query().Get("next")), http.StatusSeeOther)
}

func (s *Server) signOut(w http.ResponseWriter, r *http.Request, c *caller) {
	if err := s.o.People.SignOut(c.ctx, c.Me.Token); err != nil {
		s.fail(w, r, c, err)
		return
	}
	s.clearSession(w, c.tls)
	s.redirect(w, r, c, Prefix+"sign-in", "You are signed out.")
}

// welcomeView is the set-password page of a one-time link.
type welcomeView struct {
	Token, Purpose, Email, Role string
	Expires                     any
}

func (s *Server) welcomeView(c *caller, l people.Link) welcomeView {
	return welcomeView{Token: l.Token, Purpose: l.Purpose, Email: l.Person.Email, Role: string(l.Person.Role), Expires: l.ExpiresAt}
}

func (s *Server) welcomeForm(w http.ResponseWriter, r *http.Request, c *caller) {
	l, err := s.o.People.OpenLink(c.ctx, r.PathValue("token"))
	if errors.Is(err, people.ErrLinkInvalid) {
		s.showError(w, r, c, http.StatusNotFound, "Link not valid", "This link was used already, has expired, or never existed. Ask an admin of your organization for a new one.")
		return
	}
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	welcomeTemplate.render(s, w, r, c, http.StatusOK, "Set your password", nil, s.welcomeView(c, l))
}

func (s *Server) welcome(w http.ResponseWriter, r *http.Request, c *caller) {
	f := parseForm(w, r)
	tok := r.PathValue("token")
	l, err := s.o.People.OpenLink(c.ctx, tok)
	if errors.Is(err, people.ErrLinkInvalid) {
		s.showError(w, r, c, http.StatusNotFound, "Link not valid", "This link was used already, has expired, or never existed. Ask an admin of your organization for a new one.")
		return
	}
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	checkNewPassword(f)
	if !f.OK() {
		welcomeTemplate.render(s, w, r, c, http.StatusBadRequest, "Set your password", f, s.welcomeView(c, l))
		return
	}
	// Whoever is signed in in this browser is signed out first: what follows
	// is the link's person's.
	if c.Me != nil {
		if err := s.o.People.SignOut(c.ctx, c.Me.Token); err != nil {
			s.fail(w, r, c, err)
			return
		}
		s.clearSession(w, c.tls)
		c.Me = nil
	}
	in, err := s.o.People.UseLink(c.ctx, tok, f.Raw("password"), c.From)
	var th *people.ThrottledError
	switch {
	case errors.Is(err, people.ErrWeakPassword):
		f.Fail("password", weakPassword)
		welcomeTemplate.render(s, w, r, c, http.StatusBadRequest, "Set your password", f, s.welcomeView(c, l))
		return
	case errors.Is(err, people.ErrLinkInvalid):
		s.showError(w, r, c, http.StatusNotFound, "Link not valid", "This link was used already or has expired.")
		return
	case errors.As(err, &th):
		// Every turn to hash a password was taken for too long.
		secs := max(1, int(math.Ceil(th.RetryAfter.Seconds())))
		w.Header().Set("Retry-After", strconv.Itoa(secs))
		f.Fail("", fmt.Sprintf("Too many attempts. Wait %d seconds and try again.", secs))
		welcomeTemplate.render(s, w, r, c, http.StatusTooManyRequests, "Set your password", f, s.welcomeView(c, l))
		return
	case err != nil:
		s.fail(w, r, c, err)
		return
	}
	s.setSession(w, c, in.Token, in.ExpiresAt)
	if in.Pending {
		http.Redirect(w, r, Prefix+"sign-in/code", http.StatusSeeOther)
		return
	}
	s.redirect(w, r, c, Prefix, "Your password is set; you are signed in.")
}

// secondFactorLocked says what a person whose second factor is locked does.
var secondFactorLocked = fmt.Sprintf("Your second factor is locked after %d wrong codes in a row. Ask an admin of your organization to unlock it.", people.MaxCodeFailures)

// weakPassword says what a password must be.
var weakPassword = forms.WeakPassword

// checkNewPassword checks the new password and its confirmation.
func checkNewPassword(f *form) {
	_, errs := forms.ParseNewPassword(f.values)
	f.add(errs)
}
