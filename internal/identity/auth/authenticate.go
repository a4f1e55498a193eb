package auth

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"

	"larder.dev/larder/internal/identity/ratelimit"
	"larder.dev/larder/internal/platform/fastpath"
	"larder.dev/larder/internal/platform/fastpath/prepared"
	"larder.dev/larder/internal/platform/fastpath/trust"
	"larder.dev/larder/internal/platform/problem"
	"larder.dev/larder/policy"
)

// ErrUnanswered is a key's lookup, a request's first statement, that got
// no answer within the request's time: nothing was done, and the database
// (or a pooler before it, paused or waiting for a server) is not serving.
var ErrUnanswered = errors.New("the database did not answer the key's lookup in time")

// ErrInvalidKey is the one answer to every authentication failure, so the
// reason (missing, malformed, unknown, revoked, expired, wrong environment) is
// never revealed.
var ErrInvalidKey = &problem.Error{Code: problem.InvalidAPIKey, Detail: "The API key is missing or invalid."}

// keyColumns are the key, its account and its organization.
const keyColumns = `k.id, k.scopes, k.expires_at, k.revoked_at, k.last_used_at, a.id, a.environment, o.id, o.name, o.plan, o.currency`

// keyFrom reads a key by its hash, which follows.
const keyFrom = `FROM api_keys k JOIN accounts a ON a.id = k.account_id JOIN organizations o ON o.id = a.organization_id
WHERE k.secret_hash = `

const keyJoin = keyFrom + `$1`

// keyPrint is everything authentication reads of a key, its account and its
// organization but the key's last use, as one value: PostgreSQL's text of a
// row, in which a NULL and an empty string differ. Two reads of a key print
// the same exactly when they authenticate a request alike.
const keyPrint = `ROW(k.id, k.scopes, k.expires_at, k.revoked_at, a.id, a.environment, o.id, o.name, o.plan, o.currency)::text`

// LookupSQL reads a key with its account and organization (PostgreSQL
// placeholders; SQLite's statement). Exported, like LookupAndSpendSQL, so
// bench/querycost measures the statements Larder runs.
const LookupSQL = `SELECT ` + keyColumns + "\n" + keyJoin

// LookupPrintSQL is PostgreSQL's LookupSQL: the key and its print.
const LookupPrintSQL = `SELECT ` + keyColumns + `, ` + keyPrint + "\n" + keyJoin

// PrintSQL reads a key's print alone: a trusted request's check when its
// statements brought no row to carry it (Confirm).
const PrintSQL = `SELECT ` + keyPrint + "\n" + keyJoin

// LookupAndSpendSQL resolves a key and, when it is valid, reserves $5 requests of
// its account's budget (see leases.Leases), in one prepared statement and
// one round trip. The counter row is the one ratelimit keeps for
// ratelimit.AccountBucket.
const LookupAndSpendSQL = `WITH k AS (
  SELECT k.id, k.scopes, k.expires_at, k.revoked_at, k.last_used_at, a.id AS account_id, a.environment,
         o.id AS organization_id, o.name, o.plan, o.currency, ` + keyPrint + ` AS print
  ` + keyJoin + `
), spent AS (
  INSERT INTO rate_windows (bucket, window_start, hits)
  SELECT 'acct:' || k.account_id, $2::bigint, $5::bigint FROM k
  WHERE k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > $3::timestamptz) AND k.environment = $4::text
  ON CONFLICT (bucket, window_start) DO UPDATE SET hits = rate_windows.hits + $5::bigint
  RETURNING hits
)
SELECT k.id, k.scopes, k.expires_at, k.revoked_at, k.last_used_at, k.account_id, k.environment,
       k.organization_id, k.name, k.plan, k.currency, k.print, COALESCE((SELECT hits FROM spent), 0)
FROM k`

// Authenticator resolves the Authorization header of a request to a viewer
// and spends one request of the account's budget.
type Authenticator struct {
	lookup  *prepared.Stmt // the key alone
	spend   *prepared.Stmt // PostgreSQL: the key, reserving from the budget
	print   *prepared.Stmt // PostgreSQL: the key's print alone
	touch   *prepared.Stmt // SQLite: a key's last use
	db      *sql.DB        // PostgreSQL: where touchSQL runs
	limiter ratelimit.Limiter
	shared  *ratelimit.Postgres // the limiter, when counters are in PostgreSQL
	limit   int
	parsed  sync.Map // stored scope list → policy.Scopes
	owners  sync.Map // key hash → account id (a key's account never changes)
	touched sync.Map // key id → when this process last recorded its use
	// hints hold, by the key's SHA-256 ([32]byte), each valid key as this
	// process last read it (PostgreSQL): what Trust assumes of the next
	// request with the key.
	hints sync.Map
	// trust is whether Trust takes keys on trust (fastpath.TrustedKeys).
	trust bool
}

// NewAuthenticator prepares the statements that read keys from db and spend
// from limiter, which allows limit requests per account and minute. With
// fast's reserved budget, on PostgreSQL, a key's read reserves numbers of its
// account's budget in the same statement; with its trusted keys too, Trust
// takes reads' keys on trust. Without them every request reads its key, then
// spends one number from limiter.
//
// prepare says whether its statements may be prepared (package prepared).
func NewAuthenticator(db *sql.DB, dia string, limiter ratelimit.Limiter, limit int, fast fastpath.Set, prepare bool) (*Authenticator, error) {
	a := &Authenticator{limiter: limiter, limit: limit, trust: fast.Has(fastpath.TrustedKeys)}
	lookup := LookupSQL
	touch := `UPDATE api_keys SET last_used_at = $1 WHERE id = $2`
	if dia == dialect.Postgres {
		a.db = db
	}
	var err error
	if pg, ok := limiter.(*ratelimit.Postgres); ok && dia == dialect.Postgres && fast.Has(fastpath.ReservedBudget) {
		a.shared = pg
		if a.spend, err = prepared.Prepare(db, LookupAndSpendSQL, prepare); err != nil {
			return nil, fmt.Errorf("prepare key lookup: %w", err)
		}
		if a.print, err = prepared.Prepare(db, PrintSQL, prepare); err != nil {
			return nil, fmt.Errorf("prepare key check: %w", err)
		}
		lookup = LookupPrintSQL
	}
	if dia == dialect.SQLite {
		lookup = strings.ReplaceAll(lookup, "$1", "?")
		touch = strings.NewReplacer("$1", "?", "$2", "?").Replace(touch)
	}
	if a.lookup, err = prepared.Prepare(db, lookup, prepare); err != nil {
		return nil, fmt.Errorf("prepare key lookup: %w", err)
	}
	if a.db == nil {
		if a.touch, err = prepared.Prepare(db, touch, prepare); err != nil {
			return nil, fmt.Errorf("prepare key use: %w", err)
		}
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
// and spends one request of the key's account, unless spent is the request's
// budget already: that of a trusted request whose key changed (Trust,
// Confirm), which is authenticated again without spending twice (a key's
// account never changes).
func (a *Authenticator) Authenticate(ctx context.Context, header string, now time.Time, spent *ratelimit.Result) (*Key, error) {
	token, env, ok := bearer(header)
	if !ok {
		return nil, ErrInvalidKey
	}
	sum := digest(token)
	hash := hex.EncodeToString(sum[:])
	reserve := 0
	if spent == nil {
		reserve = a.reservation(hash, now)
	}
	row, err := a.read(ctx, hash, env, now, reserve)
	if err == nil && !row.valid(env, now) {
		err = ErrInvalidKey
	}
	if err != nil {
		a.hints.Delete(sum)
		if reserve > 1 {
			if owner, ok := a.owners.Load(hash); ok {
				a.shared.Leases.Abandon(ratelimit.AccountBucket(owner.(int)), now, reserve)
			}
		}
		if errors.Is(err, sql.ErrNoRows) || errors.Is(err, ErrInvalidKey) {
			return nil, ErrInvalidKey
		}
		var ne net.Error
		if errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
			return nil, fmt.Errorf("authenticate: %w: %w", ErrUnanswered, err)
		}
		return nil, fmt.Errorf("authenticate: %w", err)
	}
	var budget ratelimit.Result
	if spent != nil {
		budget = *spent
	} else if budget, err = a.budget(ctx, hash, row.accountID, reserve, row.hits, now); err != nil {
		return nil, err
	}
	scopes, err := a.scopes(row.scopes)
	if err != nil {
		return nil, fmt.Errorf("authenticate: scopes of key %d: %w", row.keyID, err)
	}
	if a.shared != nil && a.trust {
		a.hints.Store(sum, &hint{row: *row, scopes: scopes, hash: hash, args: [2]any{hash, row.print}, bucket: ratelimit.AccountBucket(row.accountID)})
	}
	if !row.used.Valid || now.Sub(row.used.Time) >= time.Minute {
		a.recordUse(row.keyID, now)
	}
	return row.key(env, scopes, budget), nil
}

// bearer returns the key of an Authorization header value and the
// environment its prefix names, if it is a well-formed bearer key.
func bearer(header string) (string, policy.Environment, bool) {
	scheme, token, ok := strings.Cut(strings.TrimSpace(header), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", "", false
	}
	token = strings.TrimSpace(token)
	env, ok := wellFormed(token)
	return token, env, ok
}

// hint is a valid key as a request of this process last read it, with
// its hash, the arguments of its check (keyHolds) and its account's
// rate-limit bucket, made once for every request that trusts it.
type hint struct {
	row    keyRow
	scopes policy.Scopes
	hash   string
	args   [2]any
	bucket string
}

// Check is a request's key taken on trust (Trust), to be confirmed (Confirm)
// before anything of the request's answer is sent.
type Check struct {
	h   *hint
	sum [sha256.Size]byte
}

// keyHolds writes whether the key whose hash is args[0] still prints as
// args[1], a boolean SQL expression for trust.Check: the request's first rows
// carry it as the column larder_key, computed when they are read (NULL when
// the key is gone). One value serves every check, so that the statements
// carrying it are compiled once (ent's Read).
var keyHolds = &trust.Expr{Column: "larder_key", Write: func(b *entsql.Builder, args []any) {
	// Direct SQL: a trusted request's first rows carry whether its key, found by its hash, reads as it did (system-only tables, read in the request's own statement).
	b.WriteString(`(SELECT ` + keyPrint + ` ` + keyFrom).Arg(args[0]).WriteString(`) = `).Arg(args[1])
}}

// KeyCheck is the check the request's first rows carry (ent.Carry): whether
// its key still prints as trusted.
func (c *Check) KeyCheck() *trust.Check {
	return trust.New(keyHolds, c.h.args[:])
}

// Trust authenticates a read on PostgreSQL from the key as this process last
// read it, without reading it: the caller checks it with the request's own
// statements and confirms it (Confirm) before the answer leaves. It reports
// false, having changed nothing, when the key is unknown here or not valid in
// its environment at now, or when its account's held numbers are too few to
// spend one without reserving more (the key's read reserves them:
// Authenticate). The request's number is spent from the held ones, so a key
// that proves revoked has used one number of its account's minute; one that
// proves changed but valid keeps it (Authenticate's spent).
func (a *Authenticator) Trust(header string, now time.Time) (*Key, *Check, bool) {
	if a.shared == nil || !a.trust {
		return nil, nil, false
	}
	token, env, ok := bearer(header)
	if !ok {
		return nil, nil, false
	}
	sum := digest(token)
	v, ok := a.hints.Load(sum)
	if !ok {
		return nil, nil, false
	}
	h := v.(*hint)
	if !h.row.valid(env, now) {
		return nil, nil, false
	}
	n, ok := a.shared.Leases.TakeHeld(h.bucket, a.limit, now)
	if !ok {
		return nil, nil, false
	}
	budget := ratelimit.NewResult(n, a.limit, now.Truncate(ratelimit.Window))
	return h.row.key(env, h.scopes, budget), &Check{h: h, sum: sum}, true
}

// Confirm reports whether the key of a trusted request still prints as it
// did when this process last read it: holds is what the request's rows
// carried, if one did (seen; trust.Check.Seen); otherwise the key is read now. A
// key that prints otherwise (revoked, expired, deleted, its scopes, plan or
// environment changed) is forgotten, and the caller authenticates the request
// again, afresh; one that holds has its use recorded, as Authenticate does.
func (a *Authenticator) Confirm(ctx context.Context, c *Check, holds, seen bool, now time.Time) (bool, error) {
	if !seen {
		// Direct SQL: a trusted request's key is checked by its hash when no row of the answer carried the check.
		var print string
		err := a.print.QueryRowContext(ctx, c.h.hash).Scan(&print)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return false, fmt.Errorf("confirm key: %w", err)
		}
		holds = err == nil && print == c.h.row.print
	}
	if !holds {
		a.hints.Delete(c.sum)
		return false, nil
	}
	a.recordUse(c.h.row.keyID, now)
	return true, nil
}

// touchSQL records a key's last use on PostgreSQL, in one statement. It only
// ever moves the stamp forward (GREATEST), so two of them leave the same row
// in either order: the update commutes, and it says so to Citus, for which
// api_keys is a reference table, copied to every node. Citus otherwise
// serialises an UPDATE of a reference table with an exclusive lock on it
// and then on the reference tables it refers to (accounts, organizations),
// which an organization's creation (organizations, then accounts) and a
// key's (accounts, then api_keys) take the other way round: each waited for
// the other until one was cancelled as a deadlock. A commutative update
// takes the lock an insert takes, which does not conflict with theirs. The
// setting lasts for the statement's own transaction; on PostgreSQL alone it
// is an unused placeholder. A DO block takes no parameters: the values are
// a timestamp and an id, written out.
func touchSQL(at time.Time, keyID int) string {
	return fmt.Sprintf(`DO $$ BEGIN
  PERFORM set_config('citus.all_modifications_commutative', 'on', true);
  UPDATE api_keys SET last_used_at = GREATEST(last_used_at, '%s'::timestamptz) WHERE id = %d;
END $$`, at.UTC().Format(time.RFC3339Nano), keyID)
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
		at := now.UTC().Truncate(time.Second)
		if a.db != nil {
			_, _ = a.db.ExecContext(ctx, touchSQL(at, keyID))
			return
		}
		_, _ = a.touch.ExecContext(ctx, at, keyID)
	}()
}

// keyRow is a stored key with its account and organization.
type keyRow struct {
	keyID, accountID, orgID      int
	scopes                       string
	expires, revoked, used       sql.NullTime
	env, orgName, plan, currency string
	print                        string // PostgreSQL: keyPrint
	hits                         int    // the last number reserved, when reserving
}

// key is the authenticated key of the row, in env, with its parsed scopes and
// the request's budget.
func (r *keyRow) key(env policy.Environment, scopes policy.Scopes, budget ratelimit.Result) *Key {
	k := &Key{Budget: budget, Viewer: &policy.Viewer{
		AccountID:        r.accountID,
		OrganizationID:   r.orgID,
		OrganizationName: r.orgName,
		Plan:             r.plan,
		Currency:         r.currency,
		Environment:      env,
		KeyID:            r.keyID,
		Scopes:           scopes,
		Source:           policy.SourceAPI,
	}}
	if r.expires.Valid {
		t := r.expires.Time
		k.ExpiresAt = &t
	}
	return k
}

// valid reports whether the key works in env at now.
func (r *keyRow) valid(env policy.Environment, now time.Time) bool {
	return !r.revoked.Valid && (!r.expires.Valid || now.Before(r.expires.Time)) && r.env == string(env)
}

// reservation is how many numbers of the account's budget reading the key
// reserves: none on SQLite, 1 for an unknown key, else what leases.Leases
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
	if a.shared != nil {
		dest = append(dest, &r.print)
	}
	if reserve == 0 {
		return r, a.lookup.QueryRowContext(ctx, hash).Scan(dest...)
	}
	start := now.Truncate(ratelimit.Window)
	return r, a.spend.QueryRowContext(ctx, hash, start.Unix(), now, string(env), reserve).Scan(append(dest, &r.hits)...)
}
