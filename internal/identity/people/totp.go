package people

import (
	"context"
	"crypto/subtle"
	"fmt"
	"strconv"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/organization"
	"larder.dev/larder/ent/recoverycode"
	"larder.dev/larder/ent/user"
	"larder.dev/larder/internal/identity/audit"
)

// The second factor is RFC 6238 TOTP as authenticator apps expect it: 30 s
// steps, 6 digits, HMAC-SHA1, and a code of the step before or after the
// current one accepted too, for clocks a little apart.
const (
	totpPeriod = 30
	totpSkew   = 1
)

var totpOpts = totp.ValidateOpts{Period: totpPeriod, Skew: totpSkew, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1}

// Code is the second factor's code for a secret (base32, as Enrollment.Secret)
// at a time, "" for a malformed secret.
func Code(secret string, at time.Time) string {
	c, err := totp.GenerateCodeCustom(secret, at, totpOpts)
	if err != nil {
		return ""
	}
	return c
}

// matchCode returns the time step at now (give or take totpSkew) whose code is
// code, if that step is later than last: a step accepted once is never
// accepted again.
func matchCode(secret, code string, now time.Time, last int64) (int64, bool) {
	if len(code) != int(otp.DigitsSix) {
		return 0, false
	}
	cur := now.Unix() / totpPeriod
	for step := cur - totpSkew; step <= cur+totpSkew; step++ {
		want := Code(secret, time.Unix(step*totpPeriod, 0))
		if want != "" && subtle.ConstantTimeCompare([]byte(want), []byte(code)) == 1 && step > last {
			return step, true
		}
	}
	return 0, false
}

// totpAAD binds a sealed second-factor secret to its person, for the pending
// and the confirmed column alike (confirming moves the value as it is).
func totpAAD(userID int) string { return "user_totp:" + strconv.Itoa(userID) }

// sealTOTP is what to store for a person's plain second-factor secret.
func (s *Service) sealTOTP(userID int, plain string) (string, error) {
	v, err := s.keys.Seal(plain, totpAAD(userID))
	if err != nil {
		return "", fmt.Errorf("encrypt the second factor of person %d: %w", userID, err)
	}
	return v, nil
}

// openTOTP is the plain second-factor secret a person's column stores.
func (s *Service) openTOTP(userID int, stored string) (string, error) {
	v, err := s.keys.Open(stored, totpAAD(userID))
	if err != nil {
		return "", fmt.Errorf("cannot decrypt the second factor of person %d: %w", userID, err)
	}
	return v, nil
}

// Enrollment is a second factor being set up: the secret, the otpauth:// URL
// an authenticator app reads, and that URL as a QR code (PNG).
type Enrollment struct {
	Secret, URL string
	QRPNG       []byte
}

// BeginSecondFactor makes a new second-factor secret for a person and keeps it
// pending until ConfirmSecondFactor gets its first code. A second factor the
// person has already stays in force meanwhile.
func (s *Service) BeginSecondFactor(ctx context.Context, orgID, userID int) (Enrollment, error) {
	ctx = systemCtx(ctx)
	u, err := s.user(ctx, s.c, orgID, userID)
	if err != nil {
		return Enrollment{}, err
	}
	key, err := totp.Generate(totp.GenerateOpts{
		Issuer: s.issuer, AccountName: u.Email, Period: totpPeriod,
		SecretSize: 20, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1,
	})
	if err != nil {
		return Enrollment{}, err
	}
	enr, err := s.enrollment(u.Email, key.Secret())
	if err != nil {
		return Enrollment{}, err
	}
	sealed, err := s.sealTOTP(u.ID, key.Secret())
	if err != nil {
		return Enrollment{}, err
	}
	if err := s.c.User.UpdateOneID(u.ID).SetTotpPendingSecret(sealed).Exec(ctx); err != nil {
		return Enrollment{}, isNotFound(err)
	}
	return enr, nil
}

// checkPending checks code against the person's pending secret: the stored
// (sealed) secret and the step the code matched; ErrBadCode when nothing is
// pending or the code is wrong. A new secret's steps are its own: none of
// them was used.
func (s *Service) checkPending(u *ent.User, code string, now time.Time) (pending string, step int64, err error) {
	if u.TotpPendingSecret == nil {
		return "", 0, ErrBadCode
	}
	pending = *u.TotpPendingSecret
	secret, err := s.openTOTP(u.ID, pending)
	if err != nil {
		return "", 0, err
	}
	step, ok := matchCode(secret, code, now, 0)
	if !ok {
		return "", 0, ErrBadCode
	}
	return pending, step, nil
}

// ConfirmSecondFactor checks a code of the pending secret and makes it the
// second factor of a person who has none, with RecoveryCodeCount new
// recovery codes, which it returns (shown once, stored only hashed);
// ErrBadCode when the code is wrong or nothing is pending, ErrProofNeeded
// when the person has a second factor (ReplaceSecondFactor replaces it).
// The code's step counts as used.
func (s *Service) ConfirmSecondFactor(ctx context.Context, orgID, userID int, code string) ([]string, error) {
	ctx = systemCtx(ctx)
	now := s.now()
	u, err := s.user(ctx, s.c, orgID, userID)
	if err != nil {
		return nil, err
	}
	if u.TotpSecret != nil {
		return nil, ErrProofNeeded
	}
	pending, step, err := s.checkPending(u, code, now)
	if err != nil {
		return nil, err
	}
	var codes []string
	err = ent.RunInTx(ctx, s.c, func(tx *ent.Tx) error {
		// Only the secret the code was checked against is confirmed, once.
		n, err := tx.User.Update().
			Where(user.ID(u.ID), user.TotpPendingSecret(pending), user.TotpSecretIsNil()).
			SetTotpSecret(pending).
			ClearTotpPendingSecret().
			SetTotpLastStep(step).
			Save(ctx)
		if err != nil {
			return err
		}
		if n == 0 {
			return ErrBadCode
		}
		if err := audit.Record(ctx, tx, audit.Entry{
			OrganizationID: orgID, Action: audit.SecondFactorEnabled, At: now,
			Detail: map[string]any{"user_id": u.ID, "email": u.Email},
		}); err != nil {
			return err
		}
		codes, err = replaceRecoveryCodes(ctx, tx, u, now)
		return err
	})
	if err != nil {
		return nil, err
	}
	return codes, nil
}

// ReplaceSecondFactor makes the pending secret, whose code is code, the
// second factor of a person in place of the one they have, after proof that
// it is the person: their password, or a code (six digits) of the second
// factor they have, counted as a sign-in's code is. It ends the person's
// other sessions: all but the one of keepToken. Errors: ErrBadCode (the new
// code, or the proof's code), ErrBadCredentials (the proof's password),
// ErrSecondFactorLocked and *ThrottledError as signing in gives them.
func (s *Service) ReplaceSecondFactor(ctx context.Context, orgID, userID int, code, proof, keepToken string, from Client) error {
	ctx = systemCtx(ctx)
	now := s.now()
	u, err := s.user(ctx, s.c, orgID, userID)
	if err != nil {
		return err
	}
	pending, step, err := s.checkPending(u, code, now)
	if err != nil {
		return err
	}
	return s.withProof(ctx, u, proof, from, now, func(tx *ent.Tx) error {
		// Only the secret the code was checked against is confirmed, once.
		n, err := tx.User.Update().
			Where(user.ID(u.ID), user.TotpPendingSecret(pending)).
			SetTotpSecret(pending).
			ClearTotpPendingSecret().
			SetTotpLastStep(step).
			SetTotpFailures(0).
			ClearTotpFailedAt().
			Save(ctx)
		if err != nil {
			return err
		}
		if n == 0 {
			return ErrBadCode
		}
		if err := endSessions(ctx, tx, u.ID, keepHash(keepToken)); err != nil {
			return err
		}
		return recordOn(ctx, tx, u, now, audit.SecondFactorEnabled, map[string]any{"replaced": u.TotpSecret != nil})
	})
}

// RemoveOwnSecondFactor removes a person's second factor (and one being set
// up, and the recovery codes) at their own request, after proof that it is the person (as
// ReplaceSecondFactor takes it), and ends their other sessions: all but the
// one of keepToken. A person with only a second factor being set up needs no
// proof; one with none changes nothing and records nothing.
func (s *Service) RemoveOwnSecondFactor(ctx context.Context, orgID, userID int, proof, keepToken string, from Client) error {
	ctx = systemCtx(ctx)
	now := s.now()
	u, err := s.user(ctx, s.c, orgID, userID)
	if err != nil {
		return err
	}
	if u.TotpSecret == nil && u.TotpPendingSecret == nil {
		return nil
	}
	remove := func(tx *ent.Tx) error {
		q := tx.User.Update().Where(user.ID(u.ID))
		if u.TotpSecret == nil {
			q.Where(user.TotpSecretIsNil())
		} else {
			q.Where(user.TotpSecret(*u.TotpSecret))
		}
		n, err := q.ClearTotpSecret().ClearTotpPendingSecret().SetTotpFailures(0).ClearTotpFailedAt().Save(ctx)
		if err != nil {
			return err
		}
		if n == 0 {
			// Replaced meanwhile: the proof was for another factor.
			return ErrBadCode
		}
		if _, err := tx.RecoveryCode.Delete().Where(recoverycode.UserID(u.ID)).Exec(ctx); err != nil {
			return err
		}
		if err := endSessions(ctx, tx, u.ID, keepHash(keepToken)); err != nil {
			return err
		}
		return recordOn(ctx, tx, u, now, audit.SecondFactorDisabled, nil)
	}
	if u.TotpSecret == nil {
		return ent.RunInTx(ctx, s.c, remove)
	}
	return s.withProof(ctx, u, proof, from, now, remove)
}

// withProof runs change in a transaction once proof shows that whoever
// changes u's second factor is u: a code of it (six digits; no password is
// that short), checked and counted by useCode in change's transaction, or
// u's password (checkOwnPassword).
func (s *Service) withProof(ctx context.Context, u *ent.User, proof string, from Client, now time.Time, change func(tx *ent.Tx) error) error {
	if isCode(proof) {
		return s.useCode(ctx, u, proof, from, now, change)
	}
	if err := s.checkOwnPassword(ctx, u, proof); err != nil {
		return err
	}
	return ent.RunInTx(ctx, s.c, change)
}

// isCode reports whether proof has a code's shape: six digits.
func isCode(proof string) bool {
	if len(proof) != int(otp.DigitsSix) {
		return false
	}
	for _, r := range proof {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// keepHash is the stored hash of keepToken, "" (keep none) for none.
func keepHash(keepToken string) string {
	if keepToken == "" {
		return ""
	}
	return tokenHash(keepToken)
}

// RemoveSecondFactor removes a person's second factor (and one being set up,
// and the recovery codes) as an admin does for a person who lost theirs, with its lockout, and ends
// the person's sessions. Removing none is no change and records nothing.
func (s *Service) RemoveSecondFactor(ctx context.Context, orgID, userID int) error {
	ctx = systemCtx(ctx)
	now := s.now()
	return ent.RunInTx(ctx, s.c, func(tx *ent.Tx) error {
		u, err := s.user(ctx, tx.Client(), orgID, userID)
		if err != nil {
			return err
		}
		if u.TotpSecret == nil && u.TotpPendingSecret == nil {
			return nil
		}
		err = tx.User.UpdateOneID(u.ID).ClearTotpSecret().ClearTotpPendingSecret().SetTotpFailures(0).ClearTotpFailedAt().Exec(ctx)
		if err != nil {
			return err
		}
		if _, err := tx.RecoveryCode.Delete().Where(recoverycode.UserID(u.ID)).Exec(ctx); err != nil {
			return err
		}
		if err := endSessions(ctx, tx, u.ID, ""); err != nil {
			return err
		}
		return audit.Record(ctx, tx, audit.Entry{
			OrganizationID: orgID, Action: audit.SecondFactorDisabled, At: now,
			Detail: map[string]any{"user_id": u.ID, "email": u.Email},
		})
	})
}

// UnlockSecondFactor sets a person's count of wrong codes back to zero, as
// an admin does: a locked second factor takes codes again. A person
// without wrong codes changes nothing and records nothing. Someone who
// locked it knew the password: reset that too (IssueReset).
func (s *Service) UnlockSecondFactor(ctx context.Context, orgID, userID int) (Person, error) {
	ctx = systemCtx(ctx)
	now := s.now()
	var p Person
	err := ent.RunInTx(ctx, s.c, func(tx *ent.Tx) error {
		u, err := s.user(ctx, tx.Client(), orgID, userID)
		if err != nil {
			return err
		}
		if u.TotpFailures == 0 {
			p = person(u)
			return nil
		}
		if err := tx.User.UpdateOneID(u.ID).SetTotpFailures(0).ClearTotpFailedAt().Exec(ctx); err != nil {
			return err
		}
		p = person(u)
		p.FailedCodes, p.SecondFactorLocked = 0, false
		return audit.Record(ctx, tx, audit.Entry{
			OrganizationID: orgID, Action: audit.SecondFactorUnlocked, At: now,
			Detail: map[string]any{"user_id": u.ID, "email": u.Email, "failures": u.TotpFailures},
		})
	})
	return p, err
}

// RequireSecondFactor sets whether everyone of an organization must sign in
// with a second factor. People without one are sent to set one up. Asking for
// the setting the organization has changes and records nothing.
func (s *Service) RequireSecondFactor(ctx context.Context, orgID int, on bool) error {
	ctx = systemCtx(ctx)
	now := s.now()
	return ent.RunInTx(ctx, s.c, func(tx *ent.Tx) error {
		// Written first: it locks the row, so two changes record in turn.
		if err := tx.Organization.UpdateOneID(orgID).Exec(ctx); err != nil {
			return isNotFound(err)
		}
		o, err := tx.Organization.Get(ctx, orgID)
		if err != nil {
			return err
		}
		if o.RequireSecondFactor == on {
			return nil
		}
		if err := tx.Organization.UpdateOneID(orgID).SetRequireSecondFactor(on).Exec(ctx); err != nil {
			return err
		}
		return audit.Record(ctx, tx, audit.Entry{
			OrganizationID: orgID, Action: audit.SettingsChanged, At: now,
			Detail: map[string]any{"require_second_factor": on},
		})
	})
}

// SecondFactorRequired reports whether an organization requires a second factor.
func (s *Service) SecondFactorRequired(ctx context.Context, orgID int) (bool, error) {
	o, err := s.c.Organization.Query().Where(organization.ID(orgID)).Only(systemCtx(ctx))
	if err != nil {
		return false, isNotFound(err)
	}
	return o.RequireSecondFactor, nil
}
