package auth

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"entgo.io/ent/dialect"

	"larder.dev/larder/policy"
	"larder.dev/larder/problem"
	"larder.dev/larder/ratelimit"
)

// ErrInvalidKey is the one answer to every authentication failure, so the
// reason (missing, malformed, unknown, revoked, expired, wrong environment) is
// never revealed.
var ErrInvalidKey = &problem.Error{Code: problem.InvalidAPIKey, Detail: "The API key is missing or invalid."}

// keyColumns are the key, its account and its organization.
const keyColumns = `k.id, k.scopes, k.expires_at, k.revoked_at, k.last_used_at, a.id, a.environment, o.id, o.name, o.plan, o.currency`

const keyJoin = `FROM api_keys k JOIN accounts a ON a.id = k.account_id JOIN organizations o ON o.id = a.organization_id
WHERE k.secret_hash = $1`

// LookupSQL reads a key with its account and organization (PostgreSQL
// placeholders). Exported, like LookupAndSpendSQL, so bench/querycost measures
// the statements Larder runs.
const LookupSQL = `SELECT ` + keyColumns + "\n" + keyJoin

// LookupAndSpendSQL resolves a key and, when it is valid, reserves $5 requests of
// its account's budget (see ratelimit.Leases), in one prepared statement and
// one round trip. The counter row is the one ratelimit keeps for
// ratelimit.AccountBucket.
const LookupAndSpendSQL = `WITH k AS (
  SELECT k.id, k.scopes, k.expires_at, k.revoked_at, k.last_used_at, a.id AS account_id, a.environment,
         o.id AS organization_id, o.name, o.plan, o.currency
  ` + keyJoin + `
), spent AS (
  INSERT INTO rate_windows (bucket, window_start, hits)
  SELECT 'acct:' || k.account_id, $2::bigint, $5::bigint FROM k
  WHERE k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > $3::timestamptz) AND k.environment = $4::text
  ON CONFLICT (bucket, window_start) DO UPDATE SET hits = rate_windows.hits + $5::bigint
  RETURNING hits
)
SELECT k.id, k.scopes, k.expires_at, k.revoked_at, k.last_used_at, k.account_id, k.environment,
       k.organization_id, k.name, k.plan, k.currency, COALESCE((SELECT hits FROM spent), 0)
FROM k`

// Authenticator resolves the Authorization header of a request to a viewer
// and spends one request of the account's budget.
type Authenticator struct {
	lookup  *sql.Stmt // the key alone
	spend   *sql.Stmt // PostgreSQL: the key, reserving from the budget
	touch   *sql.Stmt
	limiter ratelimit.Limiter
	shared  *ratelimit.Postgres // the limiter, when counters are in PostgreSQL
	limit   int
	parsed  sync.Map // stored scope list → policy.Scopes
	owners  sync.Map // key hash → account id (a key's account never changes)
	touched sync.Map // key id → when this process last recorded its use
}

// NewAuthenticator prepares the statements that read keys from db and spend
// from limiter, which allows limit requests per account and minute.
func NewAuthenticator(db *sql.DB, dia string, limiter ratelimit.Limiter, limit int) (*Authenticator, error) {
	a := &Authenticator{limiter: limiter, limit: limit}
	lookup := LookupSQL
	touch := `UPDATE api_keys SET last_used_at = $1 WHERE id = $2`
	var err error
	if pg, ok := limiter.(*ratelimit.Postgres); ok && dia == dialect.Postgres {
		a.shared = pg
		if a.spend, err = db.Prepare(LookupAndSpendSQL); err != nil {
			return nil, fmt.Errorf("prepare key lookup: %w", err)
		}
	}
	if dia == dialect.SQLite {
		lookup = strings.ReplaceAll(lookup, "$1", "?")
		touch = strings.NewReplacer("$1", "?", "$2", "?").Replace(touch)
	}
	if a.lookup, err = db.Prepare(lookup); err != nil {
		return nil, fmt.Errorf("prepare key lookup: %w", err)
	}
	if a.touch, err = db.Prepare(touch); err != nil {
		return nil, fmt.Errorf("prepare key use: %w", err)
	}
	return a, nil
}

// budget spends one request of the account: the first of the numbers the
// lookup reserved, a number reserved earlier, or (SQLite) a count in memory.
func (a *Authenticator) budget(ctx context.Context, hash string, accountID, reserved, last int, now time.Time) (ratelimit.Result, error) {
	bucket := ratelimit.AccountBucket(accountID)
	if a.shared == nil {
		return a.limiter.Hit(ctx, bucket, a.limit, now)
	}
	start := now.Truncate(ratelimit.Window)
	if reserved > 0 {
		a.owners.Store(hash, accountID)
		return ratelimit.NewResult(a.shared.Leases.Add(bucket, now, last, reserved), a.limit, start), nil
	}
	if n, ok := a.shared.Leases.Take(bucket, now); ok {
		return ratelimit.NewResult(n, a.limit, start), nil
	}
	// Another request took the last reserved number meanwhile.
	last, err := a.shared.Reserve(ctx, bucket, 1, now)
	if err != nil {
		return ratelimit.Result{}, err
	}
	return ratelimit.NewResult(a.shared.Leases.Add(bucket, now, last, 1), a.limit, start), nil
}

// scopes returns the effective scopes of a key's stored scope list. Keys share
// few distinct lists, so each is parsed once and the result shared: viewers
// only read their scopes.
func (a *Authenticator) scopes(raw string) (policy.Scopes, error) {
	if s, ok := a.parsed.Load(raw); ok {
		return s.(policy.Scopes), nil
	}
	var granted []policy.Scope
	if err := json.Unmarshal([]byte(raw), &granted); err != nil {
		return nil, err
	}
	s := policy.Effective(granted)
	a.parsed.Store(raw, s)
	return s, nil
}

// Key is an authenticated key.
type Key struct {
	Viewer *policy.Viewer
	// ExpiresAt is when a rotated key stops working (nil: never).
	ExpiresAt *time.Time
	// Budget is the account's rate-limit window after this request.
	Budget ratelimit.Result
}

// Authenticate checks an Authorization header value ("Bearer key_…") at now
// and spends one request of the key's account.
func (a *Authenticator) Authenticate(ctx context.Context, header string, now time.Time) (*Key, error) {
	scheme, token, ok := strings.Cut(strings.TrimSpace(header), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return nil, ErrInvalidKey
	}
	token = strings.TrimSpace(token)
	env, ok := wellFormed(token)
	if !ok {
		return nil, ErrInvalidKey
	}
	hash := Hash(token)
	reserve := a.reservation(hash, now)
	row, err := a.read(ctx, hash, env, now, reserve)
	if err == nil && !row.valid(env, now) {
		err = ErrInvalidKey
	}
	if err != nil {
		if reserve > 1 {
			if owner, ok := a.owners.Load(hash); ok {
				a.shared.Leases.Abandon(ratelimit.AccountBucket(owner.(int)), now, reserve)
			}
		}
		if errors.Is(err, sql.ErrNoRows) || errors.Is(err, ErrInvalidKey) {
			return nil, ErrInvalidKey
		}
		return nil, fmt.Errorf("authenticate: %w", err)
	}
	budget, err := a.budget(ctx, hash, row.accountID, reserve, row.hits, now)
	if err != nil {
		return nil, err
	}
	scopes, err := a.scopes(row.scopes)
	if err != nil {
		return nil, fmt.Errorf("authenticate: scopes of key %d: %w", row.keyID, err)
	}
	k := &Key{Budget: budget, Viewer: &policy.Viewer{
		AccountID:        row.accountID,
		OrganizationID:   row.orgID,
		OrganizationName: row.orgName,
		Plan:             row.plan,
		Currency:         row.currency,
		Environment:      env,
		KeyID:            row.keyID,
		Scopes:           scopes,
		Source:           policy.SourceAPI,
	}}
	if row.expires.Valid {
		t := row.expires.Time
		k.ExpiresAt = &t
	}
	if !row.used.Valid || now.Sub(row.used.Time) >= time.Minute {
		a.recordUse(row.keyID, now)
	}
	return k, nil
}

// recordUse writes a key's last use, to the minute, off the request path: a
// request never waits for it nor fails with it, and a lost write only leaves
// "last used" a little older. One write a minute per key and process at most.
func (a *Authenticator) recordUse(keyID int, now time.Time) {
	// Direct SQL: a key's last use is stamped by id after the answer, off the request path (api_keys is system-only).
	if last, ok := a.touched.Load(keyID); ok && now.Sub(last.(time.Time)) < time.Minute {
		return
	}
	a.touched.Store(keyID, now)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_, _ = a.touch.ExecContext(ctx, now.UTC().Truncate(time.Second), keyID)
	}()
}

// keyRow is a stored key with its account and organization.
type keyRow struct {
	keyID, accountID, orgID      int
	scopes                       string
	expires, revoked, used       sql.NullTime
	env, orgName, plan, currency string
	hits                         int // the last number reserved, when reserving
}

// valid reports whether the key works in env at now.
func (r *keyRow) valid(env policy.Environment, now time.Time) bool {
	return !r.revoked.Valid && (!r.expires.Valid || now.Before(r.expires.Time)) && r.env == string(env)
}

// reservation is how many numbers of the account's budget reading the key
// reserves: none on SQLite, 1 for an unknown key, else what ratelimit.Leases
// advises (none while this process holds enough numbers of its account).
func (a *Authenticator) reservation(hash string, now time.Time) int {
	if a.shared == nil {
		return 0
	}
	owner, ok := a.owners.Load(hash)
	if !ok {
		return 1
	}
	return a.shared.Leases.Next(ratelimit.AccountBucket(owner.(int)), a.limit, now)
}

// read loads the key, reserving numbers of its budget in the same statement.
func (a *Authenticator) read(ctx context.Context, hash string, env policy.Environment, now time.Time, reserve int) (*keyRow, error) {
	// Direct SQL: authentication reads the key by its hash (and reserves its account's rate budget) in one prepared statement before any viewer exists; it sees only the key that hashes to the header.
	r := &keyRow{}
	dest := []any{&r.keyID, &r.scopes, &r.expires, &r.revoked, &r.used, &r.accountID, &r.env, &r.orgID, &r.orgName, &r.plan, &r.currency}
	if reserve == 0 {
		return r, a.lookup.QueryRowContext(ctx, hash).Scan(dest...)
	}
	start := now.Truncate(ratelimit.Window)
	return r, a.spend.QueryRowContext(ctx, hash, start.Unix(), now, string(env), reserve).Scan(append(dest, &r.hits)...)
}
