// The one confirmation of an action that destroys something: a page that
// says what goes, with the button that does it and a way back. The page a
// person reaches from the link is the whole confirmation; the script adds
// none, and the form asks for no box to tick.

package console

import (
	"fmt"
	"net/http"
)

// confirmView is a confirmation page's own data.
type confirmView struct {
	// What names the record; Effects say what the action does, a
	// sentence each.
	What    string
	Effects []string
	// Action is where the form posts; Button is its label and Back the
	// page the cancel link returns to.
	Action, Button, Back string
}

// confirmTemplate asks once before an action that cannot be undone.
var confirmTemplate = newPage[confirmView]("confirm")

// confirmDeleteWebhookPage asks before an endpoint is deleted.
func (s *Server) confirmDeleteWebhookPage(w http.ResponseWriter, r *http.Request, c *caller) {
	s.confirmDeleteWebhook(w, r, c, http.StatusOK, nil)
}

// confirmDeleteWebhook renders the confirmation of an endpoint's deletion
// with status and f's error.
func (s *Server) confirmDeleteWebhook(w http.ResponseWriter, r *http.Request, c *caller, status int, f *form) {
	row, err := s.loadEndpoint(r, c)
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	confirmTemplate.render(s, w, r, c, status, "Delete the endpoint", f, confirmView{
		What: row.URL,
		Effects: []string{
			"The endpoint and its delivery log are deleted for good; no event is sent to it again.",
			"Events already delivered stay with the app that received them.",
		},
		Action: fmt.Sprintf("%swebhooks/%d/delete", Prefix, row.ID), Button: "Delete endpoint",
		Back: fmt.Sprintf("%swebhooks/%d", Prefix, row.ID),
	})
}

// confirmRemovePerson asks before a person is removed.
func (s *Server) confirmRemovePerson(w http.ResponseWriter, r *http.Request, c *caller) {
	p, err := s.person(r, c)
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	effects := []string{p.Email + " is signed out everywhere and can no longer sign in.", "Their unused one-time links stop working."}
	if p.ID == c.Me.Person.ID {
		effects[0] = "You are signed out everywhere and can no longer sign in to this organization."
	}
	confirmTemplate.render(s, w, r, c, http.StatusOK, "Remove "+p.Email, nil, confirmView{
		What: p.Email, Effects: effects,
		Action: fmt.Sprintf("%speople/%d/remove", Prefix, p.ID), Button: "Remove " + p.Email,
		Back: Prefix + "people",
	})
}

// confirmRemoveSecondFactor asks before a person's second factor is
// turned off.
func (s *Server) confirmRemoveSecondFactor(w http.ResponseWriter, r *http.Request, c *caller) {
	p, err := s.person(r, c)
	if err != nil {
		s.fail(w, r, c, err)
		return
	}
	confirmTemplate.render(s, w, r, c, http.StatusOK, "Turn off the second factor of "+p.Email, nil, confirmView{
		What: p.Email,
		Effects: []string{
			p.Email + " is signed out everywhere and signs in with the password alone until they set up another second factor.",
			"Do this for a lost phone, once you know the request comes from them.",
		},
		Action: fmt.Sprintf("%speople/%d/second-factor/remove", Prefix, p.ID), Button: "Turn off the second factor",
		Back: Prefix + "people",
	})
}
