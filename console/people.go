package console

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"larder.dev/larder/console/forms"
	"larder.dev/larder/internal/identity/people"
)

// peopleRoutes are the organization's people and its sign-in setting: the
// admin's page.
func (s *Server) peopleRoutes() []Route {
	return []Route{
		{Method: "GET", Path: "/console/people", Nav: "People", Roles: Admins, Summary: "the organization's people: e-mail address, role, whether they have set a password, second factor, last sign-in, who invited them", serve: s.people},
		{Method: "POST", Path: "/console/people", Roles: Admins, Summary: "invite a person with a role: the one-time link (24 h) is shown once and e-mailed when a mail server is configured", serve: s.invite},
		{Method: "POST", Path: "/console/people/second-factor", Roles: Admins, Summary: "require a second factor of everyone in the organization, or stop requiring it", serve: s.requireSecondFactor},
		{Method: "POST", Path: "/console/people/{id}/role", Roles: Admins, Summary: "give a person of the organization another role (ends their sessions; the last admin cannot be demoted)", serve: s.setRole},
		{Method: "POST", Path: "/console/people/{id}/reset", Roles: Admins, Summary: "make a password reset link for a person of the organization (shown once; their earlier unused links stop working)", serve: s.resetPassword},
		{Method: "GET", Path: "/console/people/{id}/second-factor/remove", Roles: Admins, Summary: "the confirmation to turn off a person's second factor; changes nothing", serve: s.confirmRemoveSecondFactor},
		{Method: "POST", Path: "/console/people/{id}/second-factor/remove", Roles: Admins, Summary: "turn off another person's second factor (a lost phone; ends their sessions): they sign in with the password alone until they set up another", serve: s.removePersonSecondFactor},
		{Method: "POST", Path: "/console/people/{id}/second-factor/unlock", Roles: Admins, Summary: "unlock a person's second factor, locked after 10 wrong codes in a row (sets their count of wrong codes to zero)", serve: s.unlockSecondFactor},
		{Method: "GET", Path: "/console/people/{id}/remove", Roles: Admins, Summary: "the confirmation to remove a person of the organization; changes nothing", serve: s.confirmRemovePerson},
		{Method: "POST", Path: "/console/people/{id}/remove", Roles: Admins, Summary: "remove a person of the organization with their sessions and links, sent from its confirmation page (the last admin cannot be removed)", serve: s.removePerson},
	}
}

// lastAdmin is what the page says when people.ErrLastAdmin refuses a change.
const lastAdmin = "An organization keeps at least one admin: make another person admin (who has set a password) first."

// peopleView is the people page's own data.
type peopleView struct {
	People   []people.Person
	Roles    []people.Role
	Required bool
	// Admins, Invited and WithoutSecondFactor count the people for the
	// summary line.
	Admins, Invited, WithoutSecondFactor int
	// Link is a one-time link just made, shown once.
	Link *shownLink
	// Problem is an action on one person that was refused.
	Problem *problem
	// RoleTexts say what each role may do, for the invitation.
	RoleTexts []choice
}

// roleTexts say what each role may do in the console, as the routes'
// roles allow it (Writers, Operators, Admins; every role reads).
var roleTexts = []choice{
	{string(people.Admin), "everything the others do, and manage people, the organization's settings and sign-in, and read the audit history"},
	{string(people.Developer), "create and revoke API keys, register and change webhook endpoints, reset the test data; read the rest"},
	{string(people.Operator), "act on the floor: quality decisions on lots, planning, starting, completing and signing production runs, supplier approvals, cancelling invoices and bills, imports; read the rest"},
	{string(people.Viewer), "only read, every page but the admin's; change nothing"},
}

// shownLink is a one-time link as the page shows it after an invitation or
// a reset, with what became of the e-mail.
type shownLink struct {
	URL, Email, Purpose string
	Expires             any
	// Mailed is true when the link was e-mailed; otherwise Mail says why not.
	Mailed bool
	Mail   string
}

// problem is a refused action and the person it was about.
type problem struct {
	PersonID int
	Message  string
}

func (s *Server) people(w http.ResponseWriter, r *http.Request, c *caller) {
	s.peoplePage(w, r, c, http.StatusOK, nil, peopleView{})
}

// peoplePage renders the page with v's link or problem, reading the people
// and the setting afresh.
func (s *Server) peoplePage(w http.ResponseWriter, r *http.Request, c *caller, status int, f *form, v peopleView) {
	ps, err := s.o.People.List(c.ctx, c.orgID())
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	req, err := s.o.People.SecondFactorRequired(c.ctx, c.orgID())
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	v.People, v.Roles, v.Required, v.RoleTexts = ps, people.Roles, req, roleTexts
	for _, p := range ps {
		if p.Role == people.Admin {
			v.Admins++
		}
		if !p.Active {
			v.Invited++
		}
		if !p.SecondFactor {
			v.WithoutSecondFactor++
		}
	}
	if f == nil {
		f = newForm(nil)
		f.values.Set("role", string(people.Developer))
	}
	peopleTemplate.render(s, w, r, c, status, "People", f, v)
}

// absolute is path under the console's configured origin, never the host a
// request names.
func (s *Server) absolute(path string) string { return s.o.BaseURL + path }

// showLink is the page's view of l: its absolute URL, e-mailed when the
// people service has a mail server. The link is shown either way, so a
// failed e-mail loses nothing.
func (s *Server) showLink(r *http.Request, c *caller, l people.Link) *shownLink {
	sl := &shownLink{URL: s.absolute(people.LinkPath(l.Token)), Email: l.Person.Email, Purpose: l.Purpose, Expires: l.ExpiresAt}
	err := s.o.People.MailLink(c.ctx, l, s.absolute(""))
	switch {
	case err == nil:
		sl.Mailed = true
	case errors.Is(err, people.ErrNoMailer):
		sl.Mail = "It was not e-mailed: no mail server is configured. Give it to them yourself."
	default:
		s.log.Error("console: e-mail a one-time link", "user_id", l.Person.ID, "error", err)
		sl.Mail = "It could not be e-mailed (the mail server refused or did not answer). Give it to them yourself."
	}
	return sl
}

// cannotInvite is the one refusal of an invitation's address.
const cannotInvite = forms.CannotInvite

func (s *Server) invite(w http.ResponseWriter, r *http.Request, c *caller) {
	f := parseForm(w, r)
	in, errs := forms.ParseInvitation(f.values)
	if f.OK() {
		f.add(errs)
	}
	if !f.OK() {
		s.peoplePage(w, r, c, http.StatusBadRequest, f, peopleView{})
		return
	}
	_, l, err := s.o.People.Invite(c.ctx, c.orgID(), in.Email, in.Role)
	if errors.Is(err, people.ErrEmailTaken) {
		// The same answer as a malformed address: an admin never learns
		// that an address signs in to another organization.
		f.Fail("email", cannotInvite)
		s.peoplePage(w, r, c, http.StatusBadRequest, f, peopleView{})
		return
	}
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	// The link is a secret shown once: the page is rendered, not redirected to.
	s.peoplePage(w, r, c, http.StatusOK, nil, peopleView{Link: s.showLink(r, c, l)})
}

// personID is the {id} of the path; a malformed one finds nobody.
func personID(r *http.Request) (int, error) {
	id, err := strconv.Atoi(r.PathValue("id"))
	if err != nil || id <= 0 {
		return 0, people.ErrNotFound
	}
	return id, nil
}

// person finds the {id} of the path in the caller's organization
// (people.ErrNotFound for another organization's).
func (s *Server) person(r *http.Request, c *caller) (people.Person, error) {
	id, err := personID(r)
	if err != nil {
		return people.Person{}, err
	}
	return s.o.People.Get(c.ctx, c.orgID(), id)
}

// refused shows the people page with an action's refusal next to its person.
func (s *Server) refused(w http.ResponseWriter, r *http.Request, c *caller, p people.Person, msg string) {
	s.peoplePage(w, r, c, http.StatusBadRequest, nil, peopleView{Problem: &problem{PersonID: p.ID, Message: msg}})
}

// ownSessionEnded sends the caller to sign in again after a change that
// ended their own session (their role changed, or they removed themselves).
func (s *Server) ownSessionEnded(w http.ResponseWriter, r *http.Request, c *caller, msg string) {
	s.clearSession(w, c.tls)
	s.redirect(w, r, c, Prefix+"sign-in", msg)
}

func (s *Server) setRole(w http.ResponseWriter, r *http.Request, c *caller) {
	f := parseForm(w, r)
	p, err := s.person(r, c)
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	role, ok := forms.ParseRoleChange(f.values)
	if !ok || !f.OK() {
		s.refused(w, r, c, p, "Choose a role for "+p.Email+".")
		return
	}
	if role == p.Role {
		s.redirect(w, r, c, Prefix+"people", fmt.Sprintf("%s is %s already; nothing changed.", p.Email, role))
		return
	}
	_, err = s.o.People.SetRole(c.ctx, c.orgID(), p.ID, role)
	switch {
	case errors.Is(err, people.ErrLastAdmin):
		s.refused(w, r, c, p, lastAdmin)
	case err != nil:
		s.fail(w, r, c, err)
	case p.ID == c.Me.Person.ID:
		s.ownSessionEnded(w, r, c, fmt.Sprintf("Your role is now %s. Sign in again to go on with it.", role))
	default:
		s.redirect(w, r, c, Prefix+"people", fmt.Sprintf("%s is now %s; their sessions are signed out.", p.Email, role))
	}
}

func (s *Server) resetPassword(w http.ResponseWriter, r *http.Request, c *caller) {
	id, err := personID(r)
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	l, err := s.o.People.IssueReset(c.ctx, c.orgID(), id)
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	s.peoplePage(w, r, c, http.StatusOK, nil, peopleView{Link: s.showLink(r, c, l)})
}

func (s *Server) removePersonSecondFactor(w http.ResponseWriter, r *http.Request, c *caller) {
	p, err := s.person(r, c)
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	if p.ID == c.Me.Person.ID {
		// One's own goes through the account page, which asks for proof.
		s.refused(w, r, c, p, "Turn off your own second factor on your account page: it asks for your password.")
		return
	}
	if err := s.o.People.RemoveSecondFactor(c.ctx, c.orgID(), p.ID); err != nil {
		s.fail(w, r, c, err)
		return
	}
	msg := p.Email + "'s second factor is off and they are signed out: they sign in with their password and set up a new one."
	if !p.SecondFactor {
		msg = p.Email + " had no second factor; nothing changed."
	}
	s.redirect(w, r, c, Prefix+"people", msg)
}

func (s *Server) unlockSecondFactor(w http.ResponseWriter, r *http.Request, c *caller) {
	p, err := s.person(r, c)
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	if _, err := s.o.People.UnlockSecondFactor(c.ctx, c.orgID(), p.ID); err != nil {
		s.fail(w, r, c, err)
		return
	}
	msg := p.Email + "'s second factor takes codes again. Whoever locked it knew the password: reset it too unless they made the mistakes themselves."
	if p.FailedCodes == 0 {
		msg = p.Email + " had no wrong codes; nothing changed."
	}
	s.redirect(w, r, c, Prefix+"people", msg)
}

func (s *Server) removePerson(w http.ResponseWriter, r *http.Request, c *caller) {
	f := parseForm(w, r)
	p, err := s.person(r, c)
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	if !f.OK() {
		s.refused(w, r, c, p, f.Error(""))
		return
	}
	err = s.o.People.Remove(c.ctx, c.orgID(), p.ID)
	switch {
	case errors.Is(err, people.ErrLastAdmin):
		s.refused(w, r, c, p, lastAdmin)
	case err != nil:
		s.fail(w, r, c, err)
	case p.ID == c.Me.Person.ID:
		s.ownSessionEnded(w, r, c, "You removed yourself from the organization.")
	default:
		s.redirect(w, r, c, Prefix+"people", p.Email+" is removed and signed out everywhere.")
	}
}

func (s *Server) requireSecondFactor(w http.ResponseWriter, r *http.Request, c *caller) {
	f := parseForm(w, r)
	if !f.OK() {
		s.peoplePage(w, r, c, http.StatusBadRequest, f, peopleView{})
		return
	}
	on := forms.SecondFactorRequired(f.values)
	if err := s.o.People.RequireSecondFactor(c.ctx, c.orgID(), on); err != nil {
		s.fail(w, r, c, err)
		return
	}
	msg := "A second factor is no longer required; people who have one keep it."
	if on {
		msg = "Everyone now signs in with a second factor; people without one set it up when they next sign in."
	}
	s.redirect(w, r, c, Prefix+"people", msg)
}
