package people

import (
	"context"
	"time"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/user"
	"larder.dev/larder/ent/userlink"
	"larder.dev/larder/internal/identity/audit"
)

// Link is a one-time link where a person sets a password.
type Link struct {
	// Token is the secret the link's path carries; only its hash is stored.
	Token string
	// Purpose is "invitation" or "password_reset".
	Purpose   string
	ExpiresAt time.Time
	Person    Person
}

// LinkPath is the console's path of a link's token.
func LinkPath(token string) string { return "/console/welcome/" + token }

// newLink makes a link of u in tx, valid LinkLifetime from now.
func (s *Service) newLink(ctx context.Context, tx *ent.Tx, u *ent.User, purpose userlink.Purpose, now time.Time) (Link, error) {
	token, hash := newToken()
	exp := now.Add(LinkLifetime)
	err := tx.UserLink.Create().
		SetTokenHash(hash).
		SetUserID(u.ID).
		SetPurpose(purpose).
		SetCreatedAt(now).
		SetExpiresAt(exp).
		Exec(ctx)
	if err != nil {
		return Link{}, err
	}
	return Link{Token: token, Purpose: string(purpose), ExpiresAt: exp, Person: person(u)}, nil
}

// IssueReset makes a password reset link for a person. Links the person was
// given before and has not used stop working.
func (s *Service) IssueReset(ctx context.Context, orgID, userID int) (Link, error) {
	ctx = systemCtx(ctx)
	now := s.now()
	var l Link
	err := ent.RunInTx(ctx, s.c, func(tx *ent.Tx) error {
		u, err := s.user(ctx, tx.Client(), orgID, userID)
		if err != nil {
			return err
		}
		if _, err := tx.UserLink.Delete().Where(userlink.UserID(u.ID), userlink.UsedAtIsNil()).Exec(ctx); err != nil {
			return err
		}
		if l, err = s.newLink(ctx, tx, u, userlink.PurposePasswordReset, now); err != nil {
			return err
		}
		return audit.Record(ctx, tx, audit.Entry{
			OrganizationID: orgID, Action: audit.PasswordResetIssued, At: now,
			Detail: map[string]any{"user_id": u.ID, "email": u.Email},
		})
	})
	if err != nil {
		return Link{}, err
	}
	return l, nil
}

// openLink finds the link of token that works at now, with its person.
func (s *Service) openLink(ctx context.Context, c *ent.Client, token string, now time.Time) (*ent.UserLink, error) {
	if token == "" {
		return nil, ErrLinkInvalid
	}
	l, err := c.UserLink.Query().Where(userlink.TokenHash(tokenHash(token))).WithUser().Only(ctx)
	if ent.IsNotFound(err) {
		return nil, ErrLinkInvalid
	}
	if err != nil {
		return nil, err
	}
	if l.UsedAt != nil || !now.Before(l.ExpiresAt) || l.Edges.User == nil || changedSince(l.Edges.User, l.CreatedAt) {
		return nil, ErrLinkInvalid
	}
	return l, nil
}

// changedSince reports whether u's password was set after at: a link made
// before dies when the person sets a password by any other way.
func changedSince(u *ent.User, at time.Time) bool {
	return u.PasswordChangedAt != nil && u.PasswordChangedAt.After(at)
}

// OpenLink returns the link of token while it works: ErrLinkInvalid when it
// is unknown, used or expired.
func (s *Service) OpenLink(ctx context.Context, token string) (Link, error) {
	l, err := s.openLink(systemCtx(ctx), s.c, token, s.now())
	if err != nil {
		return Link{}, err
	}
	return Link{Token: token, Purpose: string(l.Purpose), ExpiresAt: l.ExpiresAt, Person: person(l.Edges.User)}, nil
}

// UseLink sets the password of the link's person (ErrWeakPassword when it is
// shorter than MinPasswordLength characters or longer than 256 bytes), uses
// the link up, ends the person's other sessions and begins one, pending the
// second factor when the person has one. The link's person is who acts, in
// the audit history, whoever else is signed in where it is followed. A link
// made before the person last set a password (ChangePassword, another link)
// is ErrLinkInvalid.
func (s *Service) UseLink(ctx context.Context, token, password string, from Client) (SignedIn, error) {
	ctx = systemCtx(ctx)
	now := s.now()
	l, err := s.openLink(ctx, s.c, token, now)
	if err != nil {
		return SignedIn{}, err
	}
	if err := checkPassword(password); err != nil {
		return SignedIn{}, err
	}
	hash, err := hashPassword(ctx, s.hash, password)
	if err != nil {
		return SignedIn{}, err
	}
	u := l.Edges.User
	ctx = asPerson(ctx, u, from)
	var out SignedIn
	err = ent.RunInTx(ctx, s.c, func(tx *ent.Tx) error {
		// Marking the link used only while unused lets one of two
		// concurrent uses through.
		n, err := tx.UserLink.Update().
			Where(userlink.ID(l.ID), userlink.UsedAtIsNil()).
			SetUsedAt(now).
			Save(ctx)
		if err != nil {
			return err
		}
		if n == 0 {
			return ErrLinkInvalid
		}
		// Only while no password was set since the link was made.
		n, err = tx.User.Update().
			Where(user.ID(u.ID), user.Or(user.PasswordChangedAtIsNil(), user.PasswordChangedAtLTE(l.CreatedAt))).
			SetPasswordHash(hash).
			SetPasswordChangedAt(now).
			Save(ctx)
		if err != nil {
			return err
		}
		if n == 0 {
			return ErrLinkInvalid
		}
		u, err := tx.User.Get(ctx, u.ID)
		if err != nil {
			return isLinkGone(err)
		}
		if err := endSessions(ctx, tx, u.ID, ""); err != nil {
			return err
		}
		err = audit.Record(ctx, tx, audit.Entry{
			OrganizationID: u.OrganizationID, Action: audit.PasswordSet, At: now,
			Detail: map[string]any{"user_id": u.ID, "email": u.Email, "by": string(l.Purpose)},
		})
		if err != nil {
			return err
		}
		out, err = s.startSession(ctx, tx, u, from, now, string(l.Purpose))
		return err
	})
	if err != nil {
		return SignedIn{}, err
	}
	return out, nil
}

// isLinkGone maps a person removed meanwhile to ErrLinkInvalid.
func isLinkGone(err error) error {
	if ent.IsNotFound(err) {
		return ErrLinkInvalid
	}
	return err
}
