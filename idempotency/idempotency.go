// Package idempotency makes creates safe to retry (spec Common rules,
// Idempotency-Key; DECISIONS Limits): the first request with a key claims it
// before its work starts, and its work records the answer in the same
// transaction; a retry with the same key and body gets that answer again
// (200), one with another body 409 IDEMPOTENCY_KEY_REUSED, one while the
// first still runs 409 IDEMPOTENCY_KEY_IN_USE. A first request that fails
// releases the key, so it never blocks a retry. Keys are scoped per account
// (the privacy policy) and kept 24 hours.
package idempotency

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"
	"unicode/utf8"

	"entgo.io/ent/dialect/sql/sqlgraph"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/idempotencykey"
	"larder.dev/larder/problem"
)

const (
	// Header is the request header that carries a key.
	Header = "Idempotency-Key"
	// MaxLen is the longest key, in characters.
	MaxLen = 200
	// Retention is how long a key is kept.
	Retention = 24 * time.Hour
)

// Lease is how long a claimed key counts as running: a request that has
// not finished by then (its process died) is taken over by the next retry.
// It is longer than any request may live (the request timeout).
var Lease = time.Minute

// Fingerprint is the SHA-256 of a request body, as a key record keeps it.
func Fingerprint(body []byte) string {
	sum := sha256.Sum256(body)
	return hex.EncodeToString(sum[:])
}

// Claim is a key claimed for a request: either the first answer to replay,
// or the right to do the work (then Complete in the work's transaction, or
// Release when the work fails).
type Claim struct {
	id int
	// Replay is set when the key was used before with the same body and its
	// work committed: answer Status and Body again (a create's 201 as 200).
	Replay bool
	Status int
	Body   []byte
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
// concurrent duplicate sees the claim at once.
func Take(ctx context.Context, c *ent.Client, key, operation, fingerprint string, now time.Time) (*Claim, error) {
	if err := Check(key); err != nil {
		return nil, err
	}
	now = now.UTC().Truncate(time.Microsecond) // as both databases keep it
	for attempt := 0; attempt < 3; attempt++ {
		rec, err := c.IdempotencyKey.Create().
			SetKey(key).
			SetOperation(operation).
			SetFingerprint(fingerprint).
			SetStartedAt(now).
			SetCreatedAt(now).
			Save(ctx)
		if err == nil {
			return &Claim{id: rec.ID}, nil
		}
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
		case now.Sub(old.StartedAt) < Lease:
			return nil, problem.Conflict(problem.IdempotencyKeyInUse, Header,
				"A request with this Idempotency-Key is still being processed; retry after it finishes.")
		}
		// Running past the lease: its process is gone. Take it over, unless
		// another retry did first.
		n, err := c.IdempotencyKey.Update().
			Where(idempotencykey.ID(old.ID), idempotencykey.Done(false), idempotencykey.StartedAt(old.StartedAt)).
			SetStartedAt(now).
			Save(ctx)
		if err != nil {
			return nil, fmt.Errorf("idempotency: take over: %w", err)
		}
		if n == 1 {
			return &Claim{id: old.ID}, nil
		}
	}
	return nil, problem.Conflict(problem.IdempotencyKeyInUse, Header,
		"A request with this Idempotency-Key is still being processed; retry after it finishes.")
}

// Complete records the answer of the claimed work in the work's transaction:
// the key is done exactly when the work commits.
func (c *Claim) Complete(ctx context.Context, tx *ent.Tx, status int, body []byte) error {
	n, err := tx.IdempotencyKey.Update().
		Where(idempotencykey.ID(c.id), idempotencykey.Done(false)).
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
// again. A done key is never released.
func (c *Claim) Release(ctx context.Context, client *ent.Client) error {
	_, err := client.IdempotencyKey.Delete().Where(idempotencykey.ID(c.id), idempotencykey.Done(false)).Exec(ctx)
	return err
}

// Prune deletes the records of keys older than Retention, as of now.
func Prune(ctx context.Context, c *ent.Client, now time.Time) (int, error) {
	return c.IdempotencyKey.Delete().Where(idempotencykey.CreatedAtLT(now.Add(-Retention))).Exec(ctx)
}
