// Package idempotency makes creates safe to retry (the specification's
// Common rules, Idempotency-Key; docs/api-behaviour.md, "Idempotency keys"): the first request with a key claims it
// before its work starts, and its work records the answer in the same
// transaction; a retry with the same key and body gets that answer again
// (200), one with another body 409 IDEMPOTENCY_KEY_REUSED, one while the
// first still runs 409 IDEMPOTENCY_KEY_IN_USE with Retry-After. A first
// request that fails releases the key, so it never blocks a retry; when the
// release fails too, the claim lapses as soon as its request has ended (in
// this process) or at its request's deadline (see Grace). Keys are scoped
// per account (the privacy policy) and kept 24 hours.
package idempotency

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"entgo.io/ent/dialect/sql/sqlgraph"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/idempotencykey"
	"larder.dev/larder/internal/platform/ids"
	"larder.dev/larder/internal/platform/problem"
)

const (
	// Header is the request header that carries a key.
	Header = "Idempotency-Key"
	// MaxLen is the longest key, in characters.
	MaxLen = 200
	// Retention is how long a key is kept.
	Retention = 24 * time.Hour
)

// Lease is how long a claim taken without a deadline (outside a request)
// counts as running: one that has not finished by then (its process died) is
// taken over by the next retry. A request's claim lapses at its deadline
// plus Grace instead.
var Lease = time.Minute

// Grace is how long past its request's deadline a claim may still be
// released: the release of a request whose work ran out of time ends by then,
// and so does the claim, so the request answers within a second of its
// deadline and a retry after the answer is never refused for it.
const Grace = 500 * time.Millisecond

// process prefixes the holder of every claim this process takes, so that
// Take can tell a claim of its own whose request has ended (take it over) from
// one of another process (wait for its lease).
var process = ids.New("p_")

// seq numbers the claims of this process.
var seq atomic.Uint64

// running are the holders of this process's claims whose requests have not
// ended (Claim.End).
var running sync.Map

// held reports whether a request may still be working under holder: one of
// this process while it runs, any of another process (until its lease ends).
func held(holder string) bool {
	if !strings.HasPrefix(holder, process+".") {
		return true
	}
	_, ok := running.Load(holder)
	return ok
}

// inUse is the 409 for a key whose request is still running until until.
func inUse(now, until time.Time) error {
	p := problem.Conflict(problem.IdempotencyKeyInUse, Header,
		"A request with this Idempotency-Key is still being processed; retry after it finishes.")
	p.RetryAfter = max(1, int((until.Sub(now)+time.Second-1)/time.Second))
	return p
}

// Fingerprint is the SHA-256 of a request body, as a key record keeps it.
func Fingerprint(body []byte) string {
	sum := sha256.Sum256(body)
	return hex.EncodeToString(sum[:])
}

// Claim is a key claimed for a request: either the first answer to replay,
// or the right to do the work (then Complete in the work's transaction, or
// Release when the work fails; End when the request ends, either way).
type Claim struct {
	id     int
	holder string
	until  time.Time
	// Replay is set when the key was used before with the same body and its
	// work committed: answer Status and Body again (a create's 201 as 200).
	Replay bool
	Status int
	Body   []byte
}

// newClaim returns the claim of record id for a request running until until,
// counted as running in this process until End.
func newClaim(id int, until time.Time) *Claim {
	c := &Claim{id: id, holder: process + "." + strconv.FormatUint(seq.Add(1), 36), until: until}
	running.Store(c.holder, struct{}{})
	return c
}

// End records that the claim's request has ended, answered or not: from then
// on a retry may take the key over at once if it is still claimed (its
// release failed). Safe on nil and replay claims.
func (c *Claim) End() {
	if c != nil && c.holder != "" {
		running.Delete(c.holder)
	}
}

// Check refuses a key that is empty, longer than MaxLen characters, or not
// printable text, with a 400 naming the header.
func Check(key string) error {
	n := utf8.RuneCountInString(key)
	switch {
	case key == "":
		return problem.Invalid(Header, "must not be empty")
	case n > MaxLen:
		return problem.Invalidf(Header, "must be at most %d characters (got %d)", MaxLen, n)
	case !utf8.ValidString(key):
		return problem.Invalid(Header, "must be valid UTF-8 text")
	}
	for _, r := range key {
		if r < 0x20 || r == 0x7f {
			return problem.Invalid(Header, "must not contain control characters")
		}
	}
	return nil
}

// Take claims key for operation with a body of fingerprint, as the caller
// in ctx (its account). It writes outside any transaction of the work, so a
// concurrent duplicate sees the claim at once. The claim lapses at ctx's
// deadline plus Grace (without a deadline, Lease after now).
func Take(ctx context.Context, c *ent.Client, key, operation, fingerprint string, now time.Time) (*Claim, error) {
	if err := Check(key); err != nil {
		return nil, err
	}
	now = now.UTC().Truncate(time.Microsecond) // as both databases keep it
	until := now.Add(Lease)
	if dl, ok := ctx.Deadline(); ok {
		until = dl.Add(Grace).UTC().Truncate(time.Microsecond)
	}
	for attempt := 0; attempt < 3; attempt++ {
		claim := newClaim(0, until)
		rec, err := c.IdempotencyKey.Create().
			SetKey(key).
			SetOperation(operation).
			SetFingerprint(fingerprint).
			SetStartedAt(now).
			SetHolder(claim.holder).
			SetLeaseUntil(until).
			SetCreatedAt(now).
			Save(ctx)
		if err == nil {
			claim.id = rec.ID
			return claim, nil
		}
		claim.End()
		if !sqlgraph.IsUniqueConstraintError(err) {
			return nil, fmt.Errorf("idempotency: claim: %w", err)
		}
		old, err := c.IdempotencyKey.Query().Where(idempotencykey.Key(key)).Only(ctx)
		if ent.IsNotFound(err) {
			continue // released meanwhile: claim again
		}
		if err != nil {
			return nil, fmt.Errorf("idempotency: read claim: %w", err)
		}
		lapses := old.StartedAt.Add(Lease) // claimed before leases were recorded
		if old.LeaseUntil != nil {
			lapses = *old.LeaseUntil
		}
		switch {
		case now.Sub(old.CreatedAt) >= Retention:
			// Expired: the key is new again.
			if _, err := c.IdempotencyKey.Delete().Where(idempotencykey.ID(old.ID), idempotencykey.CreatedAt(old.CreatedAt)).Exec(ctx); err != nil {
				return nil, fmt.Errorf("idempotency: expire: %w", err)
			}
			continue
		case old.Operation != operation || old.Fingerprint != fingerprint:
			return nil, problem.Conflict(problem.IdempotencyKeyReused, Header,
				"This Idempotency-Key was used with a different request; use a new key for a new request.")
		case old.Done:
			var body []byte
			if old.Response != nil {
				body = *old.Response
			}
			status := 0
			if old.Status != nil {
				status = *old.Status
			}
			return &Claim{id: old.ID, Replay: true, Status: status, Body: body}, nil
		case now.Before(lapses) && held(old.Holder):
			return nil, inUse(now, lapses)
		}
		// Its request has ended without releasing the key (the database
		// failed), or ran past its lease (its process is gone). Take it over,
		// unless another retry did first.
		claim = newClaim(old.ID, until)
		n, err := c.IdempotencyKey.Update().
			Where(idempotencykey.ID(old.ID), idempotencykey.Done(false), idempotencykey.Holder(old.Holder)).
			SetStartedAt(now).
			SetHolder(claim.holder).
			SetLeaseUntil(until).
			Save(ctx)
		if err != nil {
			claim.End()
			return nil, fmt.Errorf("idempotency: take over: %w", err)
		}
		if n == 1 {
			return claim, nil
		}
		claim.End()
	}
	return nil, inUse(now, until)
}

// Complete records the answer of the claimed work in the work's transaction:
// the key is done exactly when the work commits, and only while the claim is
// still this request's.
func (c *Claim) Complete(ctx context.Context, tx *ent.Tx, status int, body []byte) error {
	n, err := tx.IdempotencyKey.Update().
		Where(idempotencykey.ID(c.id), idempotencykey.Done(false), idempotencykey.Holder(c.holder)).
		SetDone(true).
		SetStatus(status).
		SetResponse(body).
		Save(ctx)
	if err != nil {
		return fmt.Errorf("idempotency: complete: %w", err)
	}
	if n != 1 {
		return problem.Conflict(problem.IdempotencyKeyInUse, Header, "This Idempotency-Key was taken over by a retry; its answer is that retry's.")
	}
	return nil
}

// Release gives up a claim whose work failed, so a retry can claim the key
// again. A done key, or one a retry took over, is never released. The
// release outlives a cancelled request but not the claim's lease: it gives
// up when the lease ends (the database holds the row), and the claim then
// lapses by itself.
func (c *Claim) Release(ctx context.Context, client *ent.Client) error {
	ctx, cancel := context.WithDeadline(context.WithoutCancel(ctx), c.until)
	defer cancel()
	_, err := client.IdempotencyKey.Delete().Where(idempotencykey.ID(c.id), idempotencykey.Done(false), idempotencykey.Holder(c.holder)).Exec(ctx)
	if err != nil {
		return fmt.Errorf("idempotency: release: %w", err)
	}
	return nil
}

// Prune deletes the records of keys older than Retention, as of now.
func Prune(ctx context.Context, c *ent.Client, now time.Time) (int, error) {
	return c.IdempotencyKey.Delete().Where(idempotencykey.CreatedAtLT(now.Add(-Retention))).Exec(ctx)
}
