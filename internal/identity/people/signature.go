package people

import (
	"context"
	"errors"
	"time"

	"larder.dev/larder/ent"
	"larder.dev/larder/internal/identity/audit"
)

// SignedWith is how a signature's audit record says the person proved who
// they are: their password, given again in the form that signs.
const SignedWith = "password"

// CheckSignature checks the password a signed-in person gives again to sign
// a decision (a production run, a lot's release) before the decision is
// made. Each attempt counts toward the person's sign-in throttle
// (SignInsPerEmail a minute: *ThrottledError beyond it), and a wrong
// password is recorded (signature_failed, with what in its detail, as the
// person) and is ErrBadCredentials: the caller then changes nothing. The
// decision's own record carries the signature (SignedWith).
func (s *Service) CheckSignature(ctx context.Context, orgID, userID int, password string, from Client, what map[string]any) error {
	ctx = systemCtx(ctx)
	now := s.now()
	u, err := s.user(ctx, s.c, orgID, userID)
	if err != nil {
		return err
	}
	err = s.checkOwnPassword(ctx, u, password)
	if !errors.Is(err, ErrBadCredentials) {
		return err
	}
	if rerr := s.recordOwn(asPerson(ctx, u, from), u, now, what); rerr != nil {
		return rerr
	}
	return err
}

// recordOwn records a wrong signature of u, signed in, in a transaction of
// its own.
func (s *Service) recordOwn(ctx context.Context, u *ent.User, now time.Time, what map[string]any) error {
	return ent.RunInTx(ctx, s.c, func(tx *ent.Tx) error {
		return recordOn(ctx, tx, u, now, audit.SignatureFailed, what)
	})
}
