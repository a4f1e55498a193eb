package idempotency_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"larder.dev/larder/ent"
	"larder.dev/larder/internal/identity/idempotency"
	"larder.dev/larder/internal/platform/problem"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

// code is the API code of err, "" for none.
func code(err error) problem.Code {
	if p, ok := problem.As(err); ok {
		return p.Code
	}
	return ""
}

// The rules of docs/api-behaviour.md, "Idempotency keys": first claim works,
// same body replays, another body is REUSED, a running one is IN_USE, a
// failure releases, 24 hours keep it, accounts do not share keys.
func TestClaims(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		org := dbtest.NewOrg(t, st, "")
		ctx := org.Ctx(policy.Live)
		now := time.Now()
		fp := idempotency.Fingerprint([]byte(`{"supplier_id":1}`))
		take := func(key, fingerprint string, at time.Time) (*idempotency.Claim, error) {
			return idempotency.Take(ctx, st.Client, key, "createPurchaseOrder", fingerprint, at)
		}
		complete := func(c *idempotency.Claim, body string) {
			t.Helper()
			err := ent.RunInTx(ctx, st.Client, func(tx *ent.Tx) error { return c.Complete(ctx, tx, 201, []byte(body)) })
			if err != nil {
				t.Fatal(err)
			}
		}

		first, err := take("k1", fp, now)
		if err != nil || first.Replay {
			t.Fatalf("first claim: %+v %v", first, err)
		}
		if _, err := take("k1", fp, now.Add(time.Second)); code(err) != problem.IdempotencyKeyInUse {
			t.Fatalf("while running: %v, want IDEMPOTENCY_KEY_IN_USE", err)
		}
		complete(first, `{"data":{"id":7}}`)
		again, err := take("k1", fp, now.Add(time.Minute))
		if err != nil || !again.Replay || again.Status != 201 || string(again.Body) != `{"data":{"id":7}}` {
			t.Fatalf("replay: %+v %v", again, err)
		}
		if _, err := take("k1", idempotency.Fingerprint([]byte(`{"supplier_id":2}`)), now.Add(time.Minute)); code(err) != problem.IdempotencyKeyReused {
			t.Fatalf("another body: %v, want IDEMPOTENCY_KEY_REUSED", err)
		}
		// 24 hours keep the key; after them it is new.
		if c, err := take("k1", fp, now.Add(24*time.Hour-time.Second)); err != nil || !c.Replay {
			t.Fatalf("just before 24 h: %+v %v", c, err)
		}
		if c, err := take("k1", idempotency.Fingerprint([]byte("other")), now.Add(24*time.Hour)); err != nil || c.Replay {
			t.Fatalf("after 24 h: %+v %v", c, err)
		}

		// A failure releases the key.
		failed, err := take("k2", fp, now)
		if err != nil {
			t.Fatal(err)
		}
		if err := failed.Release(ctx, st.Client); err != nil {
			t.Fatal(err)
		}
		if c, err := take("k2", fp, now); err != nil || c.Replay {
			t.Fatalf("after a release: %+v %v", c, err)
		}

		// A claim whose process died is taken over after the lease; the
		// late first run cannot complete then.
		dead, err := take("k3", fp, now)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := take("k3", fp, now.Add(idempotency.Lease-time.Second)); code(err) != problem.IdempotencyKeyInUse {
			t.Fatalf("within the lease: %v", err)
		}
		heir, err := take("k3", fp, now.Add(idempotency.Lease+time.Second))
		if err != nil || heir.Replay {
			t.Fatalf("after the lease: %+v %v", heir, err)
		}
		complete(heir, `{"data":{"id":8}}`)
		err = ent.RunInTx(ctx, st.Client, func(tx *ent.Tx) error { return dead.Complete(ctx, tx, 201, []byte(`{}`)) })
		if code(err) != problem.IdempotencyKeyInUse {
			t.Fatalf("the dead run completed: %v", err)
		}

		// Keys are per account.
		other := dbtest.NewOrg(t, st, "")
		if c, err := idempotency.Take(other.Ctx(policy.Live), st.Client, "k1", "createPurchaseOrder", fp, now); err != nil || c.Replay {
			t.Fatalf("another account's k1: %+v %v", c, err)
		}
		if c, err := idempotency.Take(org.Ctx(policy.Test), st.Client, "k1", "createPurchaseOrder", fp, now.Add(time.Minute)); err != nil || c.Replay {
			t.Fatalf("the test account's k1: %+v %v", c, err)
		}

		// Pruning removes keys past 24 hours only.
		n, err := idempotency.Prune(policy.System(context.Background()), st.Client, now.Add(24*time.Hour+2*time.Minute))
		if err != nil || n < 1 {
			t.Fatalf("prune: %d %v", n, err)
		}
	})
}

// A request's claim lapses within a second of the request's deadline (the
// spec's 15 seconds), not after a minute, and while it runs a duplicate is
// told when to come back; a claim whose request has ended without releasing
// it (the release failed) is taken over at once. A claim taken over can
// neither complete nor release the key.
func TestLeases(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		org := dbtest.NewOrg(t, st, "")
		base := org.Ctx(policy.Live)
		fp := idempotency.Fingerprint([]byte("body"))
		now := time.Now()
		const timeout = 15 * time.Second
		ctx, cancel := context.WithDeadline(base, now.Add(timeout))
		defer cancel()
		take := func(at time.Time) (*idempotency.Claim, error) {
			return idempotency.Take(base, st.Client, "lease", "createBill", fp, at)
		}

		first, err := idempotency.Take(ctx, st.Client, "lease", "createBill", fp, now)
		if err != nil || first.Replay {
			t.Fatalf("first claim: %+v %v", first, err)
		}
		_, err = take(now.Add(5 * time.Second))
		if p, ok := problem.As(err); !ok || p.Code != problem.IdempotencyKeyInUse || p.RetryAfter < 10 || p.RetryAfter > 11 {
			t.Fatalf("5 s into a 15 s request: %v (Retry-After %d), want IDEMPOTENCY_KEY_IN_USE after 10 or 11 s", err, retryAfter(err))
		}
		// Still running here, but past its deadline by a second: taken over.
		heir, err := take(now.Add(timeout + time.Second))
		if err != nil || heir.Replay {
			t.Fatalf("a second past the deadline: %+v %v", heir, err)
		}
		err = ent.RunInTx(base, st.Client, func(tx *ent.Tx) error { return first.Complete(base, tx, 201, []byte(`{}`)) })
		if code(err) != problem.IdempotencyKeyInUse {
			t.Fatalf("the lapsed claim completed: %v", err)
		}
		first.End()

		// The heir's request ends without releasing the key: the next retry
		// takes it over at once, within the heir's lease.
		heir.End()
		next, err := take(now.Add(timeout + time.Second + time.Millisecond))
		if err != nil || next.Replay {
			t.Fatalf("after the request ended: %+v %v", next, err)
		}
		defer next.End()
		if err := heir.Release(base, st.Client); err != nil {
			t.Fatal(err)
		}
		err = ent.RunInTx(base, st.Client, func(tx *ent.Tx) error { return next.Complete(base, tx, 201, []byte(`{"data":{"id":9}}`)) })
		if err != nil {
			t.Fatalf("the claim that took over: %v", err)
		}
		if c, err := take(now.Add(timeout + 2*time.Second)); err != nil || !c.Replay || string(c.Body) != `{"data":{"id":9}}` {
			t.Fatalf("replay: %+v %v", c, err)
		}
	})
}

// retryAfter is the Retry-After of err's problem, 0 for none.
func retryAfter(err error) int {
	if p, ok := problem.As(err); ok {
		return p.RetryAfter
	}
	return 0
}

// Spec Limits: a key is at most 200 characters.
func TestCheck(t *testing.T) {
	cases := map[string]bool{"": false, strings.Repeat("k", 200): true, strings.Repeat("é", 200): true,
		strings.Repeat("k", 201): false, "a\x00b": false, "a\nb": false, "\xff": false, "order-2026-0001": true}
	for key, ok := range cases {
		if err := idempotency.Check(key); (err == nil) != ok {
			t.Errorf("%q: %v, want ok=%v", key, err, ok)
		}
	}
}

// Twenty concurrent first requests with one key: exactly one does the work;
// every other is told the key is in use or gets the replay, never an error
// of another kind.
func TestConcurrentClaims(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		org := dbtest.NewOrg(t, st, "")
		ctx := org.Ctx(policy.Live)
		fp := idempotency.Fingerprint([]byte("body"))
		var (
			wg    sync.WaitGroup
			mu    sync.Mutex
			work  int
			other []error
			start = make(chan struct{})
		)
		for i := 0; i < 20; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				c, err := idempotency.Take(ctx, st.Client, "same", "createBill", fp, time.Now())
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil && !c.Replay:
					work++
				case err == nil, code(err) == problem.IdempotencyKeyInUse:
				default:
					other = append(other, err)
				}
			}()
		}
		close(start)
		wg.Wait()
		if work != 1 || len(other) > 0 {
			t.Fatalf("%d claims did the work (want 1); other errors: %v", work, other)
		}
	})
}
