package console

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"

	"larder.dev/larder/internal/identity/people"
)

// signaturePassword is the form field where a person gives their password
// again to sign a decision.
const signaturePassword = "signature_password"

// checkSignature checks the password of the form's signature field for the
// signed-in person before a signed decision is made (what names it for the
// record of a wrong one). A refusal puts its error on f at the field and
// returns the answer's status (4xx); 0 and no error is a good signature.
func (s *Server) checkSignature(w http.ResponseWriter, c *caller, f *form, what map[string]any) (status int, err error) {
	pw := f.values.Get(signaturePassword)
	if pw == "" {
		f.Fail(signaturePassword, "Enter your password to sign: signing asks for it again.")
		return http.StatusBadRequest, nil
	}
	err = s.o.People.CheckSignature(c.ctx, c.orgID(), c.Me.Person.ID, pw, c.From, what)
	var th *people.ThrottledError
	switch {
	case errors.Is(err, people.ErrBadCredentials):
		f.Fail(signaturePassword, "That is not your password: nothing was signed or changed.")
		return http.StatusBadRequest, nil
	case errors.As(err, &th):
		secs := max(1, int(math.Ceil(th.RetryAfter.Seconds())))
		w.Header().Set("Retry-After", strconv.Itoa(secs))
		f.Fail(signaturePassword, fmt.Sprintf("Too many attempts. Wait %d seconds and sign again.", secs))
		return http.StatusTooManyRequests, nil
	}
	return 0, err
}

// signature is what a signed decision's audit record says of its
// signature: who signed, and how they proved it.
func signature(c *caller) map[string]any {
	return map[string]any{"by": c.Me.Person.Email, "user_id": c.Me.Person.ID, "with": people.SignedWith}
}
