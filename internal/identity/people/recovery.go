package people

import (
	"context"
	"crypto/rand"
	"encoding/base32"
	"strings"
	"time"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/recoverycode"
	"larder.dev/larder/internal/identity/audit"
)

// RecoveryCodeCount is how many recovery codes a person gets at a time.
const RecoveryCodeCount = 10

// A recovery code is 16 characters of base32 (80 random bits), shown in
// four groups of four: too many to guess online behind the throttle, and too
// many to find from a stolen SHA-256 offline, so an unsalted fast hash
// stores it safely and the code is found by its hash alone.
const (
	recoveryCodeLen   = 16
	recoveryGroupSize = 4
)

var recoveryEncoding = base32.StdEncoding.WithPadding(base32.NoPadding)

// newRecoveryCode is a fresh code as it is shown: xxxx-xxxx-xxxx-xxxx.
func newRecoveryCode() string {
	b := make([]byte, recoveryCodeLen*5/8)
	_, _ = rand.Read(b) // crypto/rand.Read never fails
	c := strings.ToLower(recoveryEncoding.EncodeToString(b))
	var sb strings.Builder
	for i := 0; i < len(c); i += recoveryGroupSize {
		if i > 0 {
			sb.WriteByte('-')
		}
		sb.WriteString(c[i : i+recoveryGroupSize])
	}
	return sb.String()
}

// recoveryHash is the stored hash of a code as a person types it (any case,
// with or without the dashes and spaces); ok is false for something that
// cannot be a recovery code.
func recoveryHash(typed string) (hash string, ok bool) {
	c := strings.Map(func(r rune) rune {
		switch {
		case r == '-' || r == ' ':
			return -1
		case r >= 'A' && r <= 'Z':
			return r + 'a' - 'A'
		}
		return r
	}, typed)
	if len(c) != recoveryCodeLen {
		return "", false
	}
	for _, r := range c {
		if (r < 'a' || r > 'z') && (r < '2' || r > '7') {
			return "", false
		}
	}
	return tokenHash(c), true
}

// replaceRecoveryCodes voids u's recovery codes and makes RecoveryCodeCount
// new ones in tx, recorded (recovery_codes_generated); it returns them as
// they are shown, the only time they are.
func replaceRecoveryCodes(ctx context.Context, tx *ent.Tx, u *ent.User, now time.Time) ([]string, error) {
	voided, err := tx.RecoveryCode.Delete().Where(recoverycode.UserID(u.ID)).Exec(ctx)
	if err != nil {
		return nil, err
	}
	codes := make([]string, RecoveryCodeCount)
	creates := make([]*ent.RecoveryCodeCreate, RecoveryCodeCount)
	for i := range codes {
		codes[i] = newRecoveryCode()
		h, _ := recoveryHash(codes[i])
		creates[i] = tx.RecoveryCode.Create().
			SetOrganizationID(u.OrganizationID).
			SetUserID(u.ID).
			SetCodeHash(h).
			SetCreatedAt(now)
	}
	if err := tx.RecoveryCode.CreateBulk(creates...).Exec(ctx); err != nil {
		return nil, err
	}
	if err := recordOn(ctx, tx, u, now, audit.RecoveryCodesGenerated, map[string]any{"count": RecoveryCodeCount, "voided": voided}); err != nil {
		return nil, err
	}
	return codes, nil
}

// useRecoveryCode spends the recovery code typed, if it is one of u's
// unused codes, in tx: ok is false when it is not. A use is recorded
// (recovery_code_used) with how many codes remain.
func useRecoveryCode(ctx context.Context, tx *ent.Tx, u *ent.User, typed string, now time.Time) (ok bool, err error) {
	h, ok := recoveryHash(typed)
	if !ok {
		return false, nil
	}
	// Only an unused code is spent: of two uses at once, one updates it.
	n, err := tx.RecoveryCode.Update().
		Where(recoverycode.UserID(u.ID), recoverycode.CodeHash(h), recoverycode.UsedAtIsNil()).
		SetUsedAt(now).
		Save(ctx)
	if err != nil || n == 0 {
		return false, err
	}
	left, err := tx.RecoveryCode.Query().Where(recoverycode.UserID(u.ID), recoverycode.UsedAtIsNil()).Count(ctx)
	if err != nil {
		return false, err
	}
	return true, recordOn(ctx, tx, u, now, audit.RecoveryCodeUsed, map[string]any{"left": left})
}

// RegenerateRecoveryCodes makes a person RecoveryCodeCount new recovery
// codes in place of their old ones, which stop working, after proof that it
// is the person (their password or a current code, as ReplaceSecondFactor
// takes it), and returns them: they are shown once and stored only hashed.
// A person without a second factor has no use for them: ErrNoSecondFactor.
func (s *Service) RegenerateRecoveryCodes(ctx context.Context, orgID, userID int, proof string, from Client) ([]string, error) {
	ctx = systemCtx(ctx)
	now := s.now()
	u, err := s.user(ctx, s.c, orgID, userID)
	if err != nil {
		return nil, err
	}
	if u.TotpSecret == nil {
		return nil, ErrNoSecondFactor
	}
	var codes []string
	err = s.withProof(ctx, u, proof, from, now, func(tx *ent.Tx) error {
		var err error
		codes, err = replaceRecoveryCodes(ctx, tx, u, now)
		return err
	})
	if err != nil {
		return nil, err
	}
	return codes, nil
}

// RecoveryCodesLeft is how many of a person's recovery codes are unused.
func (s *Service) RecoveryCodesLeft(ctx context.Context, orgID, userID int) (int, error) {
	ctx = systemCtx(ctx)
	return s.c.RecoveryCode.Query().
		Where(recoverycode.OrganizationID(orgID), recoverycode.UserID(userID), recoverycode.UsedAtIsNil()).
		Count(ctx)
}
