package people

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"time"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/auditrecord"
	"larder.dev/larder/ent/organization"
	"larder.dev/larder/ent/session"
	"larder.dev/larder/ent/user"
	"larder.dev/larder/ent/userlink"
	"larder.dev/larder/internal/identity/audit"
	"larder.dev/larder/policy"
)

// systemCtx is ctx as the system viewer, which every function of the package
// runs as.
func systemCtx(ctx context.Context) context.Context {
	// System viewer: people, sessions and one-time links are system-only; every management function names the organization it acts for and finds nothing outside it.
	return policy.System(ctx)
}

// SignedIn is a session just begun.
type SignedIn struct {
	// Token is the session's secret for the cookie; only its hash is stored.
	Token  string
	Person Person
	// Pending is true while the session awaits the second factor.
	Pending bool
	// ExpiresAt is the absolute end of the session; it ends sooner when
	// unused for the idle lifetime.
	ExpiresAt time.Time
}

// Current is the signed-in person of a session.
type Current struct {
	Person    Person
	SessionID int
	Token     string
	// Pending is true while the second factor is not yet given: only the
	// code page is open.
	Pending bool
	// MustEnroll is true when the organization requires a second factor and
	// the person has none.
	MustEnroll       bool
	OrganizationName string
	// ExpiresAt is the absolute end of the session.
	ExpiresAt time.Time
	// Env is the environment (live or test) the person chose to see in
	// this session; empty until they choose one (SetSessionEnv).
	Env string
}

// throttle counts one attempt in each bucket (all of them, before looking at
// any) and refuses when one is over its limit.
func (s *Service) throttle(ctx context.Context, now time.Time, buckets map[string]int) error {
	var wait time.Duration
	for b, limit := range buckets {
		r, err := s.limiter.Hit(ctx, b, limit, now)
		if err != nil {
			return err
		}
		if !r.Allowed {
			wait = max(wait, time.Duration(r.RetryAfter(now))*time.Second)
		}
	}
	if wait > 0 {
		return &ThrottledError{RetryAfter: wait}
	}
	return nil
}

// SignIn checks an e-mail address and password and begins a session, pending
// the second factor when the person has one. An unknown address, a wrong
// password and a person without a password yet all give ErrBadCredentials
// after the same argon2id work. At most SignInsPerAddress attempts a minute
// count per client address and SignInsPerEmail per e-mail address; more are
// refused with *ThrottledError before any password is checked, as is an
// attempt that waited HashQueueWait for its turn to check one. A sign-in is
// recorded in the person's organization (signed_in, or sign_in_failed), as
// the person.
func (s *Service) SignIn(ctx context.Context, email, password string, from Client) (SignedIn, error) {
	ctx = systemCtx(ctx)
	now := s.now()
	norm, normErr := NormalizeEmail(email)
	if normErr != nil {
		// Still counted, in a bucket of its own (bounded like an address).
		norm = cut(strings.ToLower(strings.TrimSpace(email)), 254)
	}
	if err := s.throttle(ctx, now, map[string]int{
		"signin-addr:" + cut(from.Address, 64): SignInsPerAddress,
		"signin-email:" + norm:                 SignInsPerEmail,
	}); err != nil {
		return SignedIn{}, err
	}
	var u *ent.User
	if normErr == nil {
		var err error
		u, err = s.c.User.Query().Where(user.Email(norm)).Only(ctx)
		if err != nil && !ent.IsNotFound(err) {
			return SignedIn{}, err
		}
	}
	ok := false
	if u == nil || u.PasswordHash == nil || len(password) > maxPasswordBytes {
		if err := dummyVerify(ctx, s.hash, password); err != nil {
			return SignedIn{}, err
		}
	} else {
		var err error
		if ok, err = verifyPassword(ctx, password, *u.PasswordHash); err != nil {
			return SignedIn{}, err
		}
	}
	if !ok {
		if u != nil {
			// An address that is nobody's belongs to no organization: only
			// the access log has its attempt.
			if err := s.recordFailed(ctx, u, from, now); err != nil {
				return SignedIn{}, err
			}
		}
		return SignedIn{}, ErrBadCredentials
	}
	ctx = asPerson(ctx, u, from)
	var out SignedIn
	err := ent.RunInTx(ctx, s.c, func(tx *ent.Tx) error {
		var err error
		out, err = s.startSession(ctx, tx, u, from, now, "password")
		return err
	})
	return out, err
}

// asPerson is ctx naming u as who acts, from the client's address (when
// known): whoever signs in, or follows their one-time link, acts as
// themselves, whoever else was signed in in the browser.
func asPerson(ctx context.Context, u *ent.User, from Client) context.Context {
	ctx = audit.WithUser(audit.WithActor(ctx, cut(u.Email, 200)), u.ID)
	if from.Address != "" {
		ctx = audit.WithAddress(ctx, from.Address)
	}
	return ctx
}

// recordFailed records a wrong password given for u (sign_in_failed) in a
// transaction of its own, as attemptCtx names it.
func (s *Service) recordFailed(ctx context.Context, u *ent.User, from Client, now time.Time) error {
	ctx = attemptCtx(ctx, u, from)
	return ent.RunInTx(ctx, s.c, func(tx *ent.Tx) error {
		return recordOn(ctx, tx, u, now, audit.SignInFailed, nil)
	})
}

// attemptCtx is ctx naming, for the record of a failed attempt on u's
// account, u's address as the actor and no signed-in person: whoever tried
// has not shown to be u.
func attemptCtx(ctx context.Context, u *ent.User, from Client) context.Context {
	ctx = audit.WithUser(audit.WithActor(ctx, cut(u.Email, 200)), 0)
	if from.Address != "" {
		ctx = audit.WithAddress(ctx, from.Address)
	}
	return ctx
}

// auditAction is an action of the audit history.
type auditAction = auditrecord.Action

// recordOn records action about u in tx, with u's id and address in the
// detail beside extra.
func recordOn(ctx context.Context, tx *ent.Tx, u *ent.User, now time.Time, action auditAction, extra map[string]any) error {
	d := map[string]any{"user_id": u.ID, "email": u.Email}
	for k, v := range extra {
		d[k] = v
	}
	return audit.Record(ctx, tx, audit.Entry{OrganizationID: u.OrganizationID, Action: action, At: now, Detail: d})
}

// startSession begins a session of u in tx: verified at once unless the
// person has a second factor, in which case it waits for the code. A
// verified session records signed_in, by how it was begun.
func (s *Service) startSession(ctx context.Context, tx *ent.Tx, u *ent.User, from Client, now time.Time, by string) (SignedIn, error) {
	pending := u.TotpSecret != nil
	token, err := s.newSession(ctx, tx, u.ID, from, now, !pending)
	if err != nil {
		return SignedIn{}, err
	}
	if !pending {
		var err error
		if u, err = tx.User.UpdateOneID(u.ID).SetLastSignInAt(now).Save(ctx); err != nil {
			return SignedIn{}, err
		}
		if err := recordOn(ctx, tx, u, now, audit.SignedIn, map[string]any{"by": by}); err != nil {
			return SignedIn{}, err
		}
	}
	return SignedIn{Token: token, Person: person(u), Pending: pending, ExpiresAt: now.Add(s.abs)}, nil
}

// newSession inserts a session of a person in tx, verified or waiting for
// the second factor, and returns its token.
func (s *Service) newSession(ctx context.Context, tx *ent.Tx, userID int, from Client, now time.Time, verified bool) (string, error) {
	token, hash := newToken()
	c := tx.Session.Create().
		SetTokenHash(hash).
		SetUserID(userID).
		SetCreatedAt(now).
		SetLastSeenAt(now).
		SetExpiresAt(now.Add(s.abs)).
		SetAddress(cut(from.Address, 64)).
		SetUserAgent(cut(from.UserAgent, 256))
	if verified {
		c.SetVerifiedAt(now)
	}
	return token, c.Exec(ctx)
}

// cut shortens s to at most n bytes, keeping whole runes.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n]
	for len(s) > 0 && s[len(s)-1]&0xC0 == 0x80 {
		s = s[:len(s)-1]
	}
	if len(s) > 0 && s[len(s)-1] >= 0xC0 {
		s = s[:len(s)-1]
	}
	return s
}

// live finds the session of token that has not ended at now, with its person.
func (s *Service) live(ctx context.Context, token string, now time.Time) (*ent.Session, error) {
	if token == "" {
		return nil, ErrNoSession
	}
	ses, err := s.c.Session.Query().Where(session.TokenHash(tokenHash(token))).WithUser().Only(ctx)
	if ent.IsNotFound(err) {
		return nil, ErrNoSession
	}
	if err != nil {
		return nil, err
	}
	if ses.Edges.User == nil || !now.Before(ses.ExpiresAt) || !now.Before(ses.LastSeenAt.Add(s.idle)) {
		return nil, ErrNoSession
	}
	if ses.VerifiedAt == nil && !now.Before(ses.CreatedAt.Add(PendingLifetime)) {
		// A password alone buys codes to try for a short while only.
		return nil, ErrNoSession
	}
	return ses, nil
}

// Session returns the signed-in person of token. It is ErrNoSession when the
// token is unknown, the session was unused for the idle lifetime
// (last_seen_at+Idle <= now), is past its absolute end, or its person is gone.
// A use records itself in last_seen_at at most once a minute.
func (s *Service) Session(ctx context.Context, token string) (Current, error) {
	ctx = systemCtx(ctx)
	now := s.now()
	ses, err := s.live(ctx, token, now)
	if err != nil {
		return Current{}, err
	}
	if now.Sub(ses.LastSeenAt) >= touchEvery {
		if err := s.c.Session.UpdateOneID(ses.ID).SetLastSeenAt(now).Exec(ctx); err != nil && !ent.IsNotFound(err) {
			return Current{}, err
		}
	}
	return s.current(ctx, ses, token)
}

// current describes ses.
func (s *Service) current(ctx context.Context, ses *ent.Session, token string) (Current, error) {
	u := ses.Edges.User
	org, err := s.c.Organization.Query().Where(organization.ID(u.OrganizationID)).Only(ctx)
	if err != nil {
		return Current{}, err
	}
	return Current{
		Person: person(u), SessionID: ses.ID, Token: token,
		Pending:          ses.VerifiedAt == nil,
		MustEnroll:       org.RequireSecondFactor && u.TotpSecret == nil,
		OrganizationName: org.Name,
		ExpiresAt:        ses.ExpiresAt,
		Env:              sessionEnv(ses),
	}, nil
}

// sessionEnv is the environment chosen in ses, "" when none is.
func sessionEnv(ses *ent.Session) string {
	if ses.Env == nil {
		return ""
	}
	return string(*ses.Env)
}

// SetSessionEnv records the environment (live or test) the person of the
// session sessionID chose to see; every page of the session shows it until
// they choose again. A session that has ended is ErrNoSession.
func (s *Service) SetSessionEnv(ctx context.Context, sessionID int, env string) error {
	e := session.Env(env)
	if err := session.EnvValidator(e); err != nil {
		return fmt.Errorf("people: environment %q: %w", env, err)
	}
	err := s.c.Session.UpdateOneID(sessionID).SetEnv(e).Exec(systemCtx(ctx))
	if ent.IsNotFound(err) {
		return ErrNoSession
	}
	return err
}

// VerifySecondFactor gives the second factor's code for a session that awaits
// it, and on the right code ends that session and begins a verified one
// with a new token (Current.Token): the token of the password step, which a
// browser held before the person proved who they are, signs in nobody. A
// code (its time step) is accepted once: a code that signed in, or an older
// one, is ErrBadCode. At most CodesPerEmail codes a minute are checked per
// person, and wrong codes in a row back off and lock (MaxCodeFailures,
// CodeBackoff): *ThrottledError while the next must wait,
// ErrSecondFactorLocked once locked.
func (s *Service) VerifySecondFactor(ctx context.Context, token, code string, from Client) (Current, error) {
	ctx = systemCtx(ctx)
	now := s.now()
	ses, err := s.live(ctx, token, now)
	if err != nil {
		return Current{}, err
	}
	u := ses.Edges.User
	if ses.VerifiedAt != nil {
		return s.current(ctx, ses, token)
	}
	if err := s.throttle(ctx, now, map[string]int{"signin-code:" + u.Email: CodesPerEmail}); err != nil {
		return Current{}, err
	}
	from.Address = cmp.Or(from.Address, ses.Address)
	from.UserAgent = cmp.Or(from.UserAgent, ses.UserAgent)
	ctx = asPerson(ctx, u, from)
	var next string
	err = s.useCode(ctx, u, code, from, now, func(tx *ent.Tx) error {
		// Only while it still waits: of two right codes at once, or a
		// code and a sign-out, one ends it.
		n, err := tx.Session.Delete().Where(session.ID(ses.ID), session.VerifiedAtIsNil()).Exec(ctx)
		if err != nil {
			return err
		}
		if n == 0 {
			return ErrNoSession
		}
		if next, err = s.newSession(ctx, tx, u.ID, from, now, true); err != nil {
			return err
		}
		v, err := tx.User.UpdateOneID(u.ID).SetLastSignInAt(now).Save(ctx)
		if err != nil {
			return err
		}
		return recordOn(ctx, tx, v, now, audit.SignedIn, map[string]any{"by": "second_factor"})
	})
	if err != nil {
		return Current{}, err
	}
	ses, err = s.c.Session.Query().Where(session.TokenHash(tokenHash(next))).WithUser().Only(ctx)
	if err != nil {
		return Current{}, err
	}
	return s.current(ctx, ses, next)
}

// useCode checks code against u's second factor, or as one of u's unused
// recovery codes, and, when it is right, runs then in the transaction that
// takes the code's step (or spends the recovery code). The attempt is counted
// as wrong in the person's row before the code is checked, so that of
// attempts at once one takes the turn and the others find the count changed
// and wait; a right code sets the count back to zero. A wrong one is recorded
// (second_factor_failed), and the MaxCodeFailures-th locks the second factor
// (second_factor_locked) and ends the sessions that wait for it. Errors:
// ErrBadCode, ErrSecondFactorLocked, *ThrottledError while the backoff runs.
func (s *Service) useCode(ctx context.Context, u *ent.User, code string, from Client, now time.Time, then func(tx *ent.Tx) error) error {
	if u.TotpSecret == nil {
		return ErrBadCode
	}
	secret, err := s.openTOTP(u.ID, *u.TotpSecret)
	if err != nil {
		return err
	}
	var wrong error
	err = ent.RunInTx(ctx, s.c, func(tx *ent.Tx) error {
		wrong = nil // RunInTx runs this again after a retryable conflict
		cur, err := tx.User.Query().Where(user.ID(u.ID)).Only(ctx)
		if err != nil {
			return isNotFound(err)
		}
		if cur.TotpSecret == nil || *cur.TotpSecret != *u.TotpSecret {
			// Removed or replaced meanwhile.
			return ErrBadCode
		}
		if cur.TotpFailures >= MaxCodeFailures {
			return ErrSecondFactorLocked
		}
		if cur.TotpFailures > 0 && cur.TotpFailedAt != nil {
			if until := cur.TotpFailedAt.Add(codeWait(cur.TotpFailures)); now.Before(until) {
				return &ThrottledError{RetryAfter: until.Sub(now)}
			}
		}
		failures := cur.TotpFailures + 1
		n, err := tx.User.Update().
			Where(user.ID(u.ID), user.TotpFailures(cur.TotpFailures)).
			SetTotpFailures(failures).
			SetTotpFailedAt(now).
			Save(ctx)
		if err != nil {
			return err
		}
		if n == 0 {
			return &ThrottledError{RetryAfter: codeWait(failures)}
		}
		if step, ok := matchCode(secret, code, now, cur.TotpLastStep); ok {
			// The step only ever grows, so of two uses of one code only
			// the first updates the row.
			n, err := tx.User.Update().
				Where(user.ID(u.ID), user.TotpLastStepLT(step)).
				SetTotpLastStep(step).
				SetTotpFailures(0).
				ClearTotpFailedAt().
				Save(ctx)
			if err != nil {
				return err
			}
			if n == 1 {
				return then(tx)
			}
		} else if used, err := useRecoveryCode(ctx, tx, u, code, now); err != nil {
			return err
		} else if used {
			if err := tx.User.UpdateOneID(u.ID).SetTotpFailures(0).ClearTotpFailedAt().Exec(ctx); err != nil {
				return err
			}
			return then(tx)
		}
		// Wrong: the count stays, with its record, and the error is
		// returned once they are committed.
		wrong = ErrBadCode
		fctx := attemptCtx(ctx, u, from)
		if err := recordOn(fctx, tx, u, now, audit.SecondFactorFailed, map[string]any{"failures": failures}); err != nil {
			return err
		}
		if failures < MaxCodeFailures {
			return nil
		}
		wrong = ErrSecondFactorLocked
		if _, err := tx.Session.Delete().Where(session.UserID(u.ID), session.VerifiedAtIsNil()).Exec(ctx); err != nil {
			return err
		}
		return recordOn(fctx, tx, u, now, audit.SecondFactorLocked, map[string]any{"failures": failures})
	})
	if err != nil {
		return err
	}
	return wrong
}

// SignOut ends the session of token, recorded as signed_out by its person.
// Ending an ended session is no error and records nothing.
func (s *Service) SignOut(ctx context.Context, token string) error {
	if token == "" {
		return nil
	}
	ctx = systemCtx(ctx)
	ses, err := s.c.Session.Query().Where(session.TokenHash(tokenHash(token))).WithUser().Only(ctx)
	if ent.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	u := ses.Edges.User
	if u == nil {
		return nil
	}
	ctx = asPerson(ctx, u, Client{})
	return ent.RunInTx(ctx, s.c, func(tx *ent.Tx) error {
		n, err := tx.Session.Delete().Where(session.ID(ses.ID)).Exec(ctx)
		if err != nil || n == 0 {
			return err
		}
		return recordOn(ctx, tx, u, s.now(), audit.SignedOut, map[string]any{"verified": ses.VerifiedAt != nil})
	})
}

// Prune deletes ended sessions (past their absolute end or idle too long),
// expired one-time links, and the throttle's past windows, returning how many
// sessions and links went.
func (s *Service) Prune(ctx context.Context) (int, error) {
	ctx = systemCtx(ctx)
	now := s.now()
	n, err := s.c.Session.Delete().Where(session.Or(
		session.ExpiresAtLTE(now),
		session.LastSeenAtLTE(now.Add(-s.idle)),
	)).Exec(ctx)
	if err != nil {
		return 0, err
	}
	m, err := s.c.UserLink.Delete().Where(userlink.ExpiresAtLTE(now)).Exec(ctx)
	if err != nil {
		return n, err
	}
	if err := s.limiter.Prune(ctx, now); err != nil {
		return n + m, err
	}
	return n + m, nil
}

// endSessions deletes the sessions of a person in tx but the one whose token
// hash is keep ("" keeps none).
func endSessions(ctx context.Context, tx *ent.Tx, userID int, keep string) error {
	q := tx.Session.Delete().Where(session.UserID(userID))
	if keep != "" {
		q.Where(session.TokenHashNEQ(keep))
	}
	_, err := q.Exec(ctx)
	return err
}

// isNotFound maps ent's not-found error to ErrNotFound.
func isNotFound(err error) error {
	if ent.IsNotFound(err) {
		return ErrNotFound
	}
	return err
}
