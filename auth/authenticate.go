package auth

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"entgo.io/ent/dialect"

	"larder.dev/larder/policy"
	"larder.dev/larder/problem"
)

// ErrInvalidKey is the one answer to every authentication failure, so the
// reason (missing, malformed, unknown, revoked, expired, wrong environment) is
// never revealed.
var ErrInvalidKey = &problem.Error{Code: problem.InvalidAPIKey, Detail: "The API key is missing or invalid."}

// Authenticator resolves the Authorization header of a request to a viewer.
type Authenticator struct {
	db     *sql.DB
	lookup string
	touch  string
	// Now is the clock; tests replace it.
	Now func() time.Time
}

// NewAuthenticator reads keys from db.
func NewAuthenticator(db *sql.DB, dia string) *Authenticator {
	a := &Authenticator{db: db, Now: time.Now}
	// One query: the key, its account and its organization.
	a.lookup = `SELECT k.id, k.scopes, k.expires_at, k.revoked_at, k.last_used_at, a.id, a.environment, o.id, o.name, o.plan, o.currency
FROM api_keys k JOIN accounts a ON a.id = k.account_id JOIN organizations o ON o.id = a.organization_id
WHERE k.secret_hash = $1`
	a.touch = `UPDATE api_keys SET last_used_at = $1 WHERE id = $2`
	if dia == dialect.SQLite {
		a.lookup = strings.ReplaceAll(a.lookup, "$1", "?")
		a.touch = strings.NewReplacer("$1", "?", "$2", "?").Replace(a.touch)
	}
	return a
}

// Key is an authenticated key.
type Key struct {
	Viewer *policy.Viewer
	// ExpiresAt is when a rotated key stops working (nil: never).
	ExpiresAt *time.Time
}

// Authenticate checks an Authorization header value ("Bearer key_…").
func (a *Authenticator) Authenticate(ctx context.Context, header string) (*Key, error) {
	scheme, token, ok := strings.Cut(strings.TrimSpace(header), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return nil, ErrInvalidKey
	}
	token = strings.TrimSpace(token)
	env, ok := wellFormed(token)
	if !ok {
		return nil, ErrInvalidKey
	}
	var (
		keyID, accountID, orgID int
		scopesJSON              string
		expires, revoked, used  sql.NullTime
		accountEnv              string
		orgName, plan, currency string
	)
	err := a.db.QueryRowContext(ctx, a.lookup, Hash(token)).Scan(&keyID, &scopesJSON, &expires, &revoked, &used,
		&accountID, &accountEnv, &orgID, &orgName, &plan, &currency)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrInvalidKey
	}
	if err != nil {
		return nil, fmt.Errorf("authenticate: %w", err)
	}
	now := a.Now()
	if revoked.Valid || (expires.Valid && !now.Before(expires.Time)) || accountEnv != string(env) {
		return nil, ErrInvalidKey
	}
	var granted []policy.Scope
	if err := json.Unmarshal([]byte(scopesJSON), &granted); err != nil {
		return nil, fmt.Errorf("authenticate: scopes of key %d: %w", keyID, err)
	}
	// Last use is kept to the minute: one write a minute per key at most.
	if !used.Valid || now.Sub(used.Time) >= time.Minute {
		if _, err := a.db.ExecContext(ctx, a.touch, now.UTC().Truncate(time.Second), keyID); err != nil {
			return nil, fmt.Errorf("authenticate: record use of key %d: %w", keyID, err)
		}
	}
	k := &Key{Viewer: &policy.Viewer{
		AccountID:        accountID,
		OrganizationID:   orgID,
		OrganizationName: orgName,
		Plan:             plan,
		Currency:         currency,
		Environment:      env,
		KeyID:            keyID,
		Scopes:           policy.Effective(granted),
		Source:           policy.SourceAPI,
	}}
	if expires.Valid {
		t := expires.Time
		k.ExpiresAt = &t
	}
	return k, nil
}
