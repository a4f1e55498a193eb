package people

import (
	"context"
	"strings"
	"time"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/organization"
	"larder.dev/larder/ent/session"
	"larder.dev/larder/ent/user"
	"larder.dev/larder/ent/userlink"
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
// refused with *ThrottledError before any password is checked.
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
	if u == nil || u.PasswordHash == nil || len(password) > maxPasswordBytes {
		dummyVerify(s.hash, password)
		return SignedIn{}, ErrBadCredentials
	}
	ok, err := verifyPassword(password, *u.PasswordHash)
	if err != nil {
		return SignedIn{}, err
	}
	if !ok {
		return SignedIn{}, ErrBadCredentials
	}
	var out SignedIn
	err = ent.RunInTx(ctx, s.c, func(tx *ent.Tx) error {
		var err error
		out, err = s.startSession(ctx, tx, u, from, now)
		return err
	})
	return out, err
}

// startSession begins a session of u in tx: verified at once unless the
// person has a second factor, in which case it waits for the code.
func (s *Service) startSession(ctx context.Context, tx *ent.Tx, u *ent.User, from Client, now time.Time) (SignedIn, error) {
	token, hash := newToken()
	pending := u.TotpSecret != nil
	c := tx.Session.Create().
		SetTokenHash(hash).
		SetUserID(u.ID).
		SetCreatedAt(now).
		SetLastSeenAt(now).
		SetExpiresAt(now.Add(s.abs)).
		SetAddress(cut(from.Address, 64)).
		SetUserAgent(cut(from.UserAgent, 256))
	if !pending {
		c.SetVerifiedAt(now)
	}
	if err := c.Exec(ctx); err != nil {
		return SignedIn{}, err
	}
	if !pending {
		var err error
		if u, err = tx.User.UpdateOneID(u.ID).SetLastSignInAt(now).Save(ctx); err != nil {
			return SignedIn{}, err
		}
	}
	return SignedIn{Token: token, Person: person(u), Pending: pending, ExpiresAt: now.Add(s.abs)}, nil
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
	}, nil
}

// VerifySecondFactor gives the second factor's code for a session that awaits
// it. A code (its time step) is accepted once: a code that signed in, or an
// older one, is ErrBadCode. At most CodesPerEmail codes a minute are checked
// per person; more are refused with *ThrottledError.
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
	if u.TotpSecret == nil {
		return Current{}, ErrBadCode
	}
	secret, err := s.openTOTP(u.ID, *u.TotpSecret)
	if err != nil {
		return Current{}, err
	}
	step, ok := matchCode(secret, code, now, u.TotpLastStep)
	if !ok {
		return Current{}, ErrBadCode
	}
	err = ent.RunInTx(ctx, s.c, func(tx *ent.Tx) error {
		// The step only ever grows, so of two requests with one code only
		// the first updates a row.
		n, err := tx.User.Update().
			Where(user.ID(u.ID), user.TotpLastStepLT(step)).
			SetTotpLastStep(step).
			SetLastSignInAt(now).
			Save(ctx)
		if err != nil {
			return err
		}
		if n == 0 {
			return ErrBadCode
		}
		return tx.Session.UpdateOneID(ses.ID).SetVerifiedAt(now).SetLastSeenAt(now).Exec(ctx)
	})
	if err != nil {
		return Current{}, err
	}
	ses, err = s.c.Session.Query().Where(session.ID(ses.ID)).WithUser().Only(ctx)
	if err != nil {
		return Current{}, err
	}
	return s.current(ctx, ses, token)
}

// SignOut ends the session of token. Ending an ended session is no error.
func (s *Service) SignOut(ctx context.Context, token string) error {
	if token == "" {
		return nil
	}
	_, err := s.c.Session.Delete().Where(session.TokenHash(tokenHash(token))).Exec(systemCtx(ctx))
	return err
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
