package people

import (
	"context"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/session"
	"larder.dev/larder/ent/user"
	"larder.dev/larder/ent/userlink"
	"larder.dev/larder/internal/identity/audit"
)

// user is a person of an organization; another organization's is ErrNotFound.
func (s *Service) user(ctx context.Context, c *ent.Client, orgID, userID int) (*ent.User, error) {
	u, err := c.User.Query().Where(user.ID(userID), user.OrganizationID(orgID)).Only(ctx)
	return u, isNotFound(err)
}

// lockOrganization writes the organization's row in tx, so that changes to
// its admins run one after the other; ErrNotFound when it does not exist.
func lockOrganization(ctx context.Context, tx *ent.Tx, orgID int) error {
	return isNotFound(tx.Organization.UpdateOneID(orgID).Exec(ctx))
}

// keepsAdmin returns ErrLastAdmin when taking u's admin role away would leave
// the organization without an admin, or, u having a password, without an
// admin who has one (and so can sign in to give the role). Call it in the tx
// that locked the organization.
func keepsAdmin(ctx context.Context, tx *ent.Tx, u *ent.User) error {
	if u.Role != user.RoleAdmin {
		return nil
	}
	others := tx.User.Query().Where(user.OrganizationID(u.OrganizationID), user.RoleEQ(user.RoleAdmin), user.IDNEQ(u.ID))
	if u.PasswordHash != nil {
		others.Where(user.PasswordHashNotNil())
	}
	n, err := others.Count(ctx)
	if err != nil {
		return err
	}
	if n == 0 {
		return ErrLastAdmin
	}
	return nil
}

// Invite adds a person to an organization with a role and makes the
// invitation link where they set a password (valid LinkLifetime). The address
// is normalised; one that has a person already, in any organization, is
// ErrEmailTaken.
func (s *Service) Invite(ctx context.Context, orgID int, email string, role Role) (Person, Link, error) {
	ctx = systemCtx(ctx)
	now := s.now()
	norm, err := NormalizeEmail(email)
	if err != nil {
		return Person{}, Link{}, err
	}
	if _, err := ParseRole(string(role)); err != nil {
		return Person{}, Link{}, err
	}
	var p Person
	var l Link
	err = ent.RunInTx(ctx, s.c, func(tx *ent.Tx) error {
		if err := lockOrganization(ctx, tx, orgID); err != nil {
			return err
		}
		taken, err := tx.User.Query().Where(user.Email(norm)).Exist(ctx)
		if err != nil {
			return err
		}
		if taken {
			return ErrEmailTaken
		}
		u, err := tx.User.Create().
			SetOrganizationID(orgID).
			SetEmail(norm).
			SetRole(user.Role(role)).
			SetInvitedBy(cut(audit.Actor(ctx), 254)).
			SetCreatedAt(now).
			Save(ctx)
		if ent.IsConstraintError(err) {
			return ErrEmailTaken
		}
		if err != nil {
			return err
		}
		p = person(u)
		if l, err = s.newLink(ctx, tx, u, userlink.PurposeInvitation, now); err != nil {
			return err
		}
		return audit.Record(ctx, tx, audit.Entry{
			OrganizationID: orgID, Action: audit.UserInvited, At: now,
			Detail: map[string]any{"user_id": u.ID, "email": norm, "role": string(role)},
		})
	})
	if err != nil {
		return Person{}, Link{}, err
	}
	return p, l, nil
}

// List returns the people of an organization by e-mail address.
func (s *Service) List(ctx context.Context, orgID int) ([]Person, error) {
	ctx = systemCtx(ctx)
	if _, err := s.SecondFactorRequired(ctx, orgID); err != nil {
		return nil, err
	}
	us, err := s.c.User.Query().Where(user.OrganizationID(orgID)).Order(user.ByEmail()).All(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Person, len(us))
	for i, u := range us {
		out[i] = person(u)
	}
	return out, nil
}

// Get returns a person of an organization.
func (s *Service) Get(ctx context.Context, orgID, userID int) (Person, error) {
	u, err := s.user(systemCtx(ctx), s.c, orgID, userID)
	if err != nil {
		return Person{}, err
	}
	return person(u), nil
}

// ByEmail returns the person of an organization with an address (normalised
// first).
func (s *Service) ByEmail(ctx context.Context, orgID int, email string) (Person, error) {
	norm, err := NormalizeEmail(email)
	if err != nil {
		return Person{}, ErrNotFound
	}
	u, err := s.c.User.Query().Where(user.Email(norm), user.OrganizationID(orgID)).Only(systemCtx(ctx))
	if err != nil {
		return Person{}, isNotFound(err)
	}
	return person(u), nil
}

// SetRole gives a person another role and ends their sessions, so that no
// page opened with the old role goes on working. Demoting the organization's
// last admin is ErrLastAdmin. Giving the role they have changes nothing.
func (s *Service) SetRole(ctx context.Context, orgID, userID int, role Role) (Person, error) {
	ctx = systemCtx(ctx)
	now := s.now()
	if _, err := ParseRole(string(role)); err != nil {
		return Person{}, err
	}
	var p Person
	err := ent.RunInTx(ctx, s.c, func(tx *ent.Tx) error {
		if err := lockOrganization(ctx, tx, orgID); err != nil {
			return err
		}
		u, err := s.user(ctx, tx.Client(), orgID, userID)
		if err != nil {
			return err
		}
		if Role(u.Role) == role {
			p = person(u)
			return nil
		}
		if role != Admin {
			if err := keepsAdmin(ctx, tx, u); err != nil {
				return err
			}
		}
		from := u.Role
		if u, err = tx.User.UpdateOneID(u.ID).SetRole(user.Role(role)).Save(ctx); err != nil {
			return err
		}
		if err := endSessions(ctx, tx, u.ID, ""); err != nil {
			return err
		}
		p = person(u)
		return audit.Record(ctx, tx, audit.Entry{
			OrganizationID: orgID, Action: audit.UserRoleChanged, At: now,
			Detail: map[string]any{"user_id": u.ID, "email": u.Email, "from": string(from), "to": string(role)},
		})
	})
	return p, err
}

// Remove deletes a person with their sessions and links. Removing the
// organization's last admin is ErrLastAdmin.
func (s *Service) Remove(ctx context.Context, orgID, userID int) error {
	ctx = systemCtx(ctx)
	now := s.now()
	return ent.RunInTx(ctx, s.c, func(tx *ent.Tx) error {
		if err := lockOrganization(ctx, tx, orgID); err != nil {
			return err
		}
		u, err := s.user(ctx, tx.Client(), orgID, userID)
		if err != nil {
			return err
		}
		if err := keepsAdmin(ctx, tx, u); err != nil {
			return err
		}
		// The foreign keys cascade; deleting explicitly keeps that true
		// whatever the database's settings.
		if _, err := tx.Session.Delete().Where(session.UserID(u.ID)).Exec(ctx); err != nil {
			return err
		}
		if _, err := tx.UserLink.Delete().Where(userlink.UserID(u.ID)).Exec(ctx); err != nil {
			return err
		}
		if err := tx.User.DeleteOneID(u.ID).Exec(ctx); err != nil {
			return err
		}
		return audit.Record(ctx, tx, audit.Entry{
			OrganizationID: orgID, Action: audit.UserRemoved, At: now,
			Detail: map[string]any{"user_id": u.ID, "email": u.Email, "role": string(u.Role)},
		})
	})
}

// ChangePassword sets a signed-in person's password after checking the
// current one (ErrBadCredentials when wrong), and ends their other sessions:
// all but the one of keepToken. Attempts count against the person's sign-in
// throttle (SignInsPerEmail a minute). The person's one-time links made
// before stop working (openLink).
func (s *Service) ChangePassword(ctx context.Context, orgID, userID int, current, next string, keepToken string) error {
	ctx = systemCtx(ctx)
	u, err := s.user(ctx, s.c, orgID, userID)
	if err != nil {
		return err
	}
	if err := s.checkOwnPassword(ctx, u, current); err != nil {
		return err
	}
	if err := checkPassword(next); err != nil {
		return err
	}
	hash, err := hashPassword(ctx, s.hash, next)
	if err != nil {
		return err
	}
	now := s.now()
	return ent.RunInTx(ctx, s.c, func(tx *ent.Tx) error {
		// Only the hash that was checked is replaced: a concurrent change
		// of the password makes this one fail rather than undo it.
		n, err := tx.User.Update().
			Where(user.ID(u.ID), user.PasswordHash(*u.PasswordHash)).
			SetPasswordHash(hash).
			SetPasswordChangedAt(now).
			Save(ctx)
		if err != nil {
			return err
		}
		if n == 0 {
			return ErrBadCredentials
		}
		// The person's unused links die with the old password, whatever
		// the servers' clocks say of when each was made.
		if _, err := tx.UserLink.Delete().Where(userlink.UserID(u.ID), userlink.UsedAtIsNil()).Exec(ctx); err != nil {
			return err
		}
		if err := endSessions(ctx, tx, u.ID, keepHash(keepToken)); err != nil {
			return err
		}
		return audit.Record(ctx, tx, audit.Entry{
			OrganizationID: orgID, Action: audit.PasswordSet, At: now,
			Detail: map[string]any{"user_id": u.ID, "email": u.Email, "by": "change"},
		})
	})
}

// checkOwnPassword checks that pw is u's password, as a signed-in person
// proves who they are to change their password or second factor:
// ErrBadCredentials when it is not. Guessing it here counts against the
// same budget as guessing it at sign-in (SignInsPerEmail a minute).
func (s *Service) checkOwnPassword(ctx context.Context, u *ent.User, pw string) error {
	if err := s.throttle(ctx, s.now(), map[string]int{"signin-email:" + u.Email: SignInsPerEmail}); err != nil {
		return err
	}
	if u.PasswordHash == nil || len(pw) > maxPasswordBytes {
		if err := dummyVerify(ctx, s.hash, pw); err != nil {
			return err
		}
		return ErrBadCredentials
	}
	ok, err := verifyPassword(ctx, pw, *u.PasswordHash)
	if err != nil {
		return err
	}
	if !ok {
		return ErrBadCredentials
	}
	return nil
}
