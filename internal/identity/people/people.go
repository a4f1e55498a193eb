// Package people manages the people who sign in to the console: their
// invitations and password links, passwords, second factor, roles and
// sessions. Every management function takes the organization it acts for and
// finds nothing outside it; every change is one transaction together with its
// audit record. The package speaks no HTTP: the console and the CLI call it.
package people

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net/mail"
	"strings"
	"time"
	"unicode/utf8"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/user"
	"larder.dev/larder/internal/identity/ratelimit"
	"larder.dev/larder/internal/platform/secrets"
)

// Role is what a person may do in their organization.
type Role string

// The roles, from most to least powerful.
const (
	Admin     Role = "admin"
	Developer Role = "developer"
	Operator  Role = "operator"
	Viewer    Role = "viewer"
)

// Roles are every role, in the order screens offer them.
var Roles = []Role{Admin, Developer, Operator, Viewer}

// SeesCosts reports whether a person of role may read cost fields (costs,
// prices, discounts and taxes; the fields the API shows only to a key holding
// cost:read) where the console shows what the API was sent or answered, as
// the request log's bodies: admins alone. Everyone else sees each such field's
// value replaced.
func (r Role) SeesCosts() bool { return r == Admin }

// ParseRole returns the role named s.
func ParseRole(s string) (Role, error) {
	for _, r := range Roles {
		if string(r) == s {
			return r, nil
		}
	}
	return "", fmt.Errorf("unknown role %q: use admin, developer, operator or viewer", s)
}

// MinPasswordLength is the fewest characters (runes) a password may have.
const MinPasswordLength = 12

// maxPasswordBytes bounds the work one password costs to hash.
const maxPasswordBytes = 256

// LinkLifetime is how long an invitation or password reset link works.
const LinkLifetime = 24 * time.Hour

// The default session lifetimes: a session ends after DefaultIdle without use,
// and DefaultAbsolute after it began however it is used.
const (
	DefaultIdle     = 12 * time.Hour
	DefaultAbsolute = 7 * 24 * time.Hour
)

// PendingLifetime is how long a session that waits for its second factor
// lasts: whoever has the password must give the code within it, then sign in
// again (with the throttle's count) to try more codes.
const PendingLifetime = 10 * time.Minute

// touchEvery is how stale a session's last_seen_at may get before a use
// writes it again: one write a minute at most, not one per page.
const touchEvery = time.Minute

// The sign-in throttle: attempts per minute (ratelimit.Window) per client
// address and per e-mail address, and second-factor codes per e-mail address.
const (
	SignInsPerAddress = 10
	SignInsPerEmail   = 5
	CodesPerEmail     = 5
)

// The second factor's lockout, counted in the person's row (so every server
// process and restart sees it): after n wrong codes in a row the next code
// is checked no sooner than CodeBackoff × 2^(n-1) after the last (1 s, 2 s,
// 4 s … 256 s), and the MaxCodeFailures-th locks the second factor until an
// admin unlocks it. A right code sets the count back to zero.
const (
	MaxCodeFailures = 10
	CodeBackoff     = time.Second
)

// codeWait is how long after the last of failures wrong codes in a row the
// next is checked.
func codeWait(failures int) time.Duration {
	if failures <= 0 {
		return 0
	}
	return CodeBackoff << (failures - 1)
}

// The errors of the package. Callers compare with errors.Is.
var (
	// ErrNotFound is a person (or organization) that does not exist, or
	// belongs to another organization than the one acted for.
	ErrNotFound = errors.New("no such person in this organization")
	// ErrEmailTaken is an invitation of an address that already has a person.
	ErrEmailTaken = errors.New("a person with this e-mail address exists already")
	// ErrLastAdmin refuses to remove or demote the admin an organization
	// cannot do without.
	ErrLastAdmin = errors.New("the organization must keep an admin: make another person admin first")
	// ErrWeakPassword is a password too short or too long.
	ErrWeakPassword = fmt.Errorf("a password has at least %d characters and at most %d bytes", MinPasswordLength, maxPasswordBytes)
	// ErrBadCredentials is a failed sign-in, whatever the reason.
	ErrBadCredentials = errors.New("wrong e-mail address or password")
	// ErrLinkInvalid is a one-time link that is unknown, used or expired.
	ErrLinkInvalid = errors.New("this link is not valid: it was used, has expired, or never existed")
	// ErrNoSession is a session that is unknown or has ended.
	ErrNoSession = errors.New("not signed in")
	// ErrBadCode is a second-factor code that is wrong or was used already.
	ErrBadCode = errors.New("wrong or already used code")
	// ErrSecondFactorLocked is a second factor that took MaxCodeFailures
	// wrong codes in a row: it checks no code until an admin unlocks it.
	ErrSecondFactorLocked = fmt.Errorf("the second factor is locked after %d wrong codes in a row: an admin of the organization unlocks it", MaxCodeFailures)
	// ErrProofNeeded is a change of a second factor the person has, asked
	// without their password or a current code.
	ErrProofNeeded = errors.New("changing a second factor needs the password or a code of the current one")
	// ErrNoSecondFactor is asking for recovery codes without a second factor.
	ErrNoSecondFactor = errors.New("recovery codes stand in for a second factor: turn one on first")
)

// ThrottledError is a sign-in refused because too many were tried.
type ThrottledError struct {
	// RetryAfter is how long to wait before the next attempt can count.
	RetryAfter time.Duration
}

// Error implements error.
func (e *ThrottledError) Error() string {
	return fmt.Sprintf("too many attempts: try again in %s", e.RetryAfter.Round(time.Second))
}

// Person is a user as the console and CLI show it (never the hash or secrets).
type Person struct {
	ID             int    `json:"id"`
	OrganizationID int    `json:"organization_id"`
	Email          string `json:"email"`
	Role           Role   `json:"role"`
	Active         bool   `json:"active"`        // has set a password
	SecondFactor   bool   `json:"second_factor"` // TOTP confirmed
	// FailedCodes are the wrong codes given in a row; at MaxCodeFailures
	// the second factor is locked.
	FailedCodes        int        `json:"failed_codes"`
	SecondFactorLocked bool       `json:"second_factor_locked"`
	InvitedBy          string     `json:"invited_by"`
	CreatedAt          time.Time  `json:"created_at"`
	LastSignInAt       *time.Time `json:"last_sign_in_at"`
}

// person is the public view of u.
func person(u *ent.User) Person {
	return Person{
		ID: u.ID, OrganizationID: u.OrganizationID, Email: u.Email, Role: Role(u.Role),
		Active: u.PasswordHash != nil, SecondFactor: u.TotpSecret != nil,
		FailedCodes: u.TotpFailures, SecondFactorLocked: u.TotpFailures >= MaxCodeFailures,
		InvitedBy: u.InvitedBy, CreatedAt: u.CreatedAt, LastSignInAt: u.LastSignInAt,
	}
}

// Client is where a request comes from (for sessions, throttling and the audit record).
type Client struct{ Address, UserAgent string }

// Options configure a Service.
type Options struct {
	// Idle and Absolute are the session lifetimes; 0 means DefaultIdle and
	// DefaultAbsolute.
	Idle, Absolute time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Keys seals second-factor secrets when it holds a key.
	Keys *secrets.Keyring
	// Limiter throttles sign-ins; nil means an in-process limiter.
	Limiter ratelimit.Limiter
	// Issuer labels the second factor in authenticator apps; "" means "Larder".
	Issuer string
	// Mailer e-mails one-time links (MailLink); nil means none (NewMailer
	// of an empty --smtp-url).
	Mailer *Mailer
	// Hash are the costs of the password hashes it makes; zero means
	// DefaultParams. Only tests lower them: a hash keeps its costs, and a
	// sign-in checks a password with the costs of the hash stored.
	Hash HashParams
}

// Service is the people of every organization of one database.
type Service struct {
	c       *ent.Client
	idle    time.Duration
	abs     time.Duration
	clock   func() time.Time
	keys    *secrets.Keyring
	limiter ratelimit.Limiter
	issuer  string
	mailer  *Mailer
	hash    HashParams
}

// New returns the service for c.
func New(c *ent.Client, o Options) *Service {
	s := &Service{c: c, idle: o.Idle, abs: o.Absolute, clock: o.Now, keys: o.Keys, limiter: o.Limiter, issuer: o.Issuer, mailer: o.Mailer, hash: o.Hash}
	if s.idle <= 0 {
		s.idle = DefaultIdle
	}
	if s.abs <= 0 {
		s.abs = DefaultAbsolute
	}
	if s.clock == nil {
		s.clock = time.Now
	}
	if s.limiter == nil {
		s.limiter = ratelimit.NewMemory()
	}
	if s.issuer == "" {
		s.issuer = "Larder"
	}
	if s.hash == (HashParams{}) {
		s.hash = DefaultParams
	}
	return s
}

// now is the clock's time as the database stores it (UTC, microseconds), so
// that what is written compares equal to what is read back.
func (s *Service) now() time.Time { return s.clock().UTC().Truncate(time.Microsecond) }

// NormalizeEmail returns the address as stored: trimmed and lower case. It
// must be a bare address as net/mail parses one (no display name, no angle
// brackets: "Ana <ana@example.com>" is refused rather than guessed at),
// hold exactly one '@' with text on both sides and be at most 254 bytes.
func NormalizeEmail(email string) (string, error) {
	e := strings.ToLower(strings.TrimSpace(email))
	local, domain, ok := strings.Cut(e, "@")
	if !ok || local == "" || domain == "" || strings.Contains(domain, "@") || len(e) > 254 ||
		strings.ContainsAny(e, " \t\r\n") || !utf8.ValidString(e) {
		return "", fmt.Errorf("%q is not an e-mail address", email)
	}
	if a, err := mail.ParseAddress(e); err != nil || a.Name != "" || a.Address != e {
		return "", fmt.Errorf("%q is not a bare e-mail address", email)
	}
	return e, nil
}

// checkPassword refuses a password outside the allowed lengths.
func checkPassword(pw string) error {
	if utf8.RuneCountInString(pw) < MinPasswordLength || len(pw) > maxPasswordBytes {
		return ErrWeakPassword
	}
	return nil
}

// newToken returns a random token (32 bytes, base64url) and the hex SHA-256
// that is stored for it.
func newToken() (token, hash string) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand does not fail on supported systems
	}
	token = base64.RawURLEncoding.EncodeToString(b)
	return token, tokenHash(token)
}

// tokenHash is what the database stores for a token.
func tokenHash(token string) string {
	h := sha256.Sum256([]byte(token))
	return hex.EncodeToString(h[:])
}

// UserOrganization is the organization a person belongs to, for callers (the
// CLI) that name a person without an organization.
func UserOrganization(ctx context.Context, c *ent.Client, userID int) (int, error) {
	u, err := c.User.Query().Where(user.ID(userID)).Only(systemCtx(ctx))
	if ent.IsNotFound(err) {
		return 0, ErrNotFound
	}
	if err != nil {
		return 0, err
	}
	return u.OrganizationID, nil
}
