package people

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/crypto/argon2"

	"larder.dev/larder/internal/identity/audit"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/dbtest"
)

// withFactor makes an active person with a confirmed second factor, and
// returns them with its secret.
func (f *fixture) withFactor(role Role) (Person, string) {
	f.t.Helper()
	p, _ := f.active(f.org, email("totp"), role)
	enr, err := f.s.BeginSecondFactor(f.ctx, f.org, p.ID)
	if err != nil {
		f.t.Fatal(err)
	}
	if _, err := f.s.ConfirmSecondFactor(f.ctx, f.org, p.ID, Code(enr.Secret, f.clock.Now())); err != nil {
		f.t.Fatal(err)
	}
	f.clock.Add(30 * time.Second)
	return p, enr.Secret
}

// wrongCode is six digits that are no code of secret around now.
func wrongCode(secret string, now time.Time) string {
	for n := 0; ; n++ {
		c := fmt.Sprintf("%06d", n)
		if c != Code(secret, now) && c != Code(secret, now.Add(-30*time.Second)) && c != Code(secret, now.Add(30*time.Second)) {
			return c
		}
	}
}

// pending signs p in with the password: a session waiting for the code.
func (f *fixture) pending(p Person) SignedIn {
	f.t.Helper()
	in, err := f.s.SignIn(f.ctx, p.Email, password, Client{Address: "192.0.2.50"})
	if err != nil || !in.Pending {
		f.t.Fatalf("sign-in %+v %v", in, err)
	}
	return in
}

// personRecords are the records of an organization's history about a person, in
// order.
func personRecords(t *testing.T, f *fixture, userID int) []audit.Listed {
	t.Helper()
	h, err := audit.History(f.ctx, f.st.Client, f.org)
	if err != nil {
		t.Fatal(err)
	}
	var out []audit.Listed
	for _, l := range h {
		if id, ok := l.Detail["user_id"].(float64); ok && int(id) == userID {
			out = append(out, l)
		}
	}
	return out
}

// Wrong codes in a row back off (1 s after the first, doubling: 256 s after
// the ninth) and the tenth locks the second factor: even the right code is
// refused, in another service of the same database too, until an admin
// unlocks it. Each wrong code and the lockout are recorded.
func TestWrongCodesBackOffThenLock(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		f := newFixture(t, st)
		p, secret := f.withFactor(Developer)
		waits := []time.Duration{1, 2, 4, 8, 16, 32, 64, 128, 256}
		for n := 1; n <= 10; n++ {
			// A fresh pending session and minute each time: the
			// per-minute throttle and the session's 10 minutes are not
			// what is tested here.
			in := f.pending(p)
			_, err := f.s.VerifySecondFactor(f.ctx, in.Token, wrongCode(secret, f.clock.Now()), Client{Address: "192.0.2.50"})
			if n < 10 && err != ErrBadCode {
				t.Fatalf("wrong code %d: %v, want ErrBadCode", n, err)
			}
			if n == 10 {
				if !errors.Is(err, ErrSecondFactorLocked) {
					t.Fatalf("wrong code 10: %v, want ErrSecondFactorLocked", err)
				}
				if _, err := f.s.Session(f.ctx, in.Token); err != ErrNoSession {
					t.Errorf("the waiting session after the lockout: %v, want ErrNoSession", err)
				}
				break
			}
			wait := waits[n-1] * time.Second
			_, err = f.s.VerifySecondFactor(f.ctx, in.Token, Code(secret, f.clock.Now()), Client{})
			var th *ThrottledError
			if !errors.As(err, &th) || th.RetryAfter != wait {
				t.Fatalf("the right code at once after %d wrong: %v, want to wait %s", n, err, wait)
			}
			f.clock.Add(wait - time.Second)
			if _, err = f.s.VerifySecondFactor(f.ctx, in.Token, Code(secret, f.clock.Now()), Client{}); !errors.As(err, &th) {
				t.Fatalf("a second before the wait after %d wrong ends: %v", n, err)
			}
			f.clock.Add(max(time.Second, time.Minute-wait))
		}
		got, err := f.s.Get(f.ctx, f.org, p.ID)
		if err != nil || !got.SecondFactorLocked || got.FailedCodes != 10 {
			t.Fatalf("after 10 wrong codes: %+v %v", got, err)
		}
		f.clock.Add(24 * time.Hour)
		// Another process of the same database: the count is the row's.
		other := New(st.Client, Options{Now: f.clock.Now, Hash: cheap})
		in, err := other.SignIn(f.ctx, p.Email, password, Client{Address: "192.0.2.51"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := other.VerifySecondFactor(f.ctx, in.Token, Code(secret, f.clock.Now()), Client{}); !errors.Is(err, ErrSecondFactorLocked) {
			t.Fatalf("the right code a day later, another service: %v, want ErrSecondFactorLocked", err)
		}
		var failed, locked int
		for _, l := range personRecords(t, f, p.ID) {
			switch l.Action {
			case "second_factor_failed":
				failed++
				if l.Actor != p.Email || l.UserID != nil || l.Address != "192.0.2.50" || l.Detail["failures"] != float64(failed) {
					t.Errorf("record of wrong code %d: %+v", failed, l)
				}
			case "second_factor_locked":
				locked++
			}
		}
		if failed != 10 || locked != 1 {
			t.Errorf("recorded %d wrong codes and %d lockouts, want 10 and 1", failed, locked)
		}
		un, err := f.s.UnlockSecondFactor(audit.WithActor(f.ctx, "admin@example.com"), f.org, p.ID)
		if err != nil || un.SecondFactorLocked || un.FailedCodes != 0 {
			t.Fatalf("unlock: %+v %v", un, err)
		}
		if h := personRecords(t, f, p.ID); h[len(h)-1].Action != "second_factor_unlocked" || h[len(h)-1].Actor != "admin@example.com" {
			t.Errorf("the unlock's record: %+v", h[len(h)-1])
		}
		in = f.pending(p)
		if cur, err := f.s.VerifySecondFactor(f.ctx, in.Token, Code(secret, f.clock.Now()), Client{}); err != nil || cur.Pending {
			t.Fatalf("the right code after the unlock: %+v %v", cur, err)
		}
	})
}

// A right code sets the count of wrong ones back to zero: the next wrong
// code waits 1 s again, not the 8 s that a fourth in a row would.
func TestRightCodeResetsWrongCodes(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		f := newFixture(t, st)
		p, secret := f.withFactor(Viewer)
		for range 3 {
			in := f.pending(p)
			if _, err := f.s.VerifySecondFactor(f.ctx, in.Token, wrongCode(secret, f.clock.Now()), Client{}); err != ErrBadCode {
				t.Fatal(err)
			}
			f.clock.Add(time.Minute)
		}
		in := f.pending(p)
		if _, err := f.s.VerifySecondFactor(f.ctx, in.Token, Code(secret, f.clock.Now()), Client{}); err != nil {
			t.Fatal(err)
		}
		if got, _ := f.s.Get(f.ctx, f.org, p.ID); got.FailedCodes != 0 {
			t.Fatalf("wrong codes after a right one: %d", got.FailedCodes)
		}
		f.clock.Add(time.Minute)
		in = f.pending(p)
		if _, err := f.s.VerifySecondFactor(f.ctx, in.Token, wrongCode(secret, f.clock.Now()), Client{}); err != ErrBadCode {
			t.Fatal(err)
		}
		var th *ThrottledError
		if _, err := f.s.VerifySecondFactor(f.ctx, in.Token, Code(secret, f.clock.Now()), Client{}); !errors.As(err, &th) || th.RetryAfter != time.Second {
			t.Fatalf("after one wrong code following a right one: %v, want to wait 1s", err)
		}
	})
}

// Codes given at once for one person are counted each: of 20 wrong codes
// sent together none goes unrecorded, so no burst tries more codes than the
// count shows.
func TestCodesAtOnceAreEachCounted(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		f := newFixture(t, st)
		p, secret := f.withFactor(Viewer)
		in := f.pending(p)
		wrong := wrongCode(secret, f.clock.Now())
		var checked atomic.Int64
		var wg sync.WaitGroup
		for range 20 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := f.s.VerifySecondFactor(f.ctx, in.Token, wrong, Client{})
				if err == ErrBadCode {
					checked.Add(1)
				}
			}()
		}
		wg.Wait()
		got, err := f.s.Get(f.ctx, f.org, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		if int64(got.FailedCodes) != checked.Load() || checked.Load() < 1 {
			t.Fatalf("%d codes checked, %d counted", checked.Load(), got.FailedCodes)
		}
	})
}

// The right code ends the session of the password step and begins another
// with a new token: the token a browser held before the code signs in
// nobody.
func TestSecondFactorIssuesNewToken(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		f := newFixture(t, st)
		p, secret := f.withFactor(Admin)
		in := f.pending(p)
		cur, err := f.s.VerifySecondFactor(f.ctx, in.Token, Code(secret, f.clock.Now()), Client{Address: "192.0.2.60"})
		if err != nil {
			t.Fatal(err)
		}
		if cur.Token == "" || cur.Token == in.Token || cur.Pending {
			t.Fatalf("verified %+v: want a new token", cur)
		}
		if _, err := f.s.Session(f.ctx, in.Token); err != ErrNoSession {
			t.Errorf("the password step's token after the code: %v, want ErrNoSession", err)
		}
		if got, err := f.s.Session(f.ctx, cur.Token); err != nil || got.Pending || got.Person.ID != p.ID {
			t.Errorf("the new token: %+v %v", got, err)
		}
		h := personRecords(t, f, p.ID)
		if l := h[len(h)-1]; l.Action != "signed_in" || l.Detail["by"] != "second_factor" || l.UserID == nil || *l.UserID != p.ID || l.Address != "192.0.2.60" {
			t.Errorf("record of the sign-in: %+v", l)
		}
	})
}

// Removing one's second factor, or replacing it with another app, asks for
// the password or a code of the current one, and ends the person's other
// sessions; an admin's removal ends them all.
func TestChangingSecondFactorNeedsProof(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		f := newFixture(t, st)
		p, secret := f.withFactor(Developer)
		signedIn := func() string {
			in := f.pending(p)
			cur, err := f.s.VerifySecondFactor(f.ctx, in.Token, Code(secret, f.clock.Now()), Client{})
			if err != nil {
				t.Fatal(err)
			}
			f.clock.Add(30 * time.Second)
			return cur.Token
		}
		mine, other := signedIn(), signedIn()
		for _, proof := range []string{"", "not my password", wrongCode(secret, f.clock.Now())} {
			err := f.s.RemoveOwnSecondFactor(f.ctx, f.org, p.ID, proof, mine, Client{})
			if err != ErrBadCredentials && err != ErrBadCode {
				t.Fatalf("remove with %q: %v", proof, err)
			}
			f.clock.Add(time.Minute)
		}
		if got, _ := f.s.Get(f.ctx, f.org, p.ID); !got.SecondFactor {
			t.Fatal("a second factor removed without proof")
		}
		if err := f.s.RemoveOwnSecondFactor(f.ctx, f.org, p.ID, Code(secret, f.clock.Now()), mine, Client{}); err != nil {
			t.Fatalf("remove with a current code: %v", err)
		}
		if got, _ := f.s.Get(f.ctx, f.org, p.ID); got.SecondFactor || got.FailedCodes != 0 {
			t.Fatalf("after removing: %+v", got)
		}
		if _, err := f.s.Session(f.ctx, other); err != ErrNoSession {
			t.Errorf("the other session after removing: %v", err)
		}
		if _, err := f.s.Session(f.ctx, mine); err != nil {
			t.Errorf("the remover's session: %v", err)
		}

		// Set up again (none to replace: no proof), then replace.
		enr, err := f.s.BeginSecondFactor(f.ctx, f.org, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.s.ConfirmSecondFactor(f.ctx, f.org, p.ID, Code(enr.Secret, f.clock.Now())); err != nil {
			t.Fatal(err)
		}
		secret = enr.Secret
		f.clock.Add(time.Minute)
		mine, other = signedIn(), signedIn()
		next, err := f.s.BeginSecondFactor(f.ctx, f.org, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.s.ConfirmSecondFactor(f.ctx, f.org, p.ID, Code(next.Secret, f.clock.Now())); err != ErrProofNeeded {
			t.Fatalf("replace without proof: %v, want ErrProofNeeded", err)
		}
		if err := f.s.ReplaceSecondFactor(f.ctx, f.org, p.ID, Code(next.Secret, f.clock.Now()), "not my password", mine, Client{}); err != ErrBadCredentials {
			t.Fatalf("replace with a wrong password: %v", err)
		}
		if err := f.s.ReplaceSecondFactor(f.ctx, f.org, p.ID, Code(next.Secret, f.clock.Now()), password, mine, Client{}); err != nil {
			t.Fatalf("replace with the password: %v", err)
		}
		if _, err := f.s.Session(f.ctx, other); err != ErrNoSession {
			t.Errorf("the other session after replacing: %v", err)
		}
		f.clock.Add(time.Minute)
		in := f.pending(p)
		if _, err := f.s.VerifySecondFactor(f.ctx, in.Token, Code(secret, f.clock.Now()), Client{}); err != ErrBadCode {
			t.Errorf("the replaced app's code: %v, want ErrBadCode", err)
		}
		f.clock.Add(time.Minute)
		if _, err := f.s.VerifySecondFactor(f.ctx, in.Token, Code(next.Secret, f.clock.Now()), Client{}); err != nil {
			t.Errorf("the new app's code: %v", err)
		}

		if err := f.s.RemoveSecondFactor(f.ctx, f.org, p.ID); err != nil {
			t.Fatal(err)
		}
		if n := sessionsOf(t, f, p.ID); n != 0 {
			t.Errorf("%d sessions after an admin removed the second factor, want 0", n)
		}
	})
}

// A password reset link dies when its person sets a password another way; a
// link made after that works.
func TestResetLinkDiesWithPasswordChange(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		f := newFixture(t, st)
		p, in := f.active(f.org, email("reset"), Viewer)
		f.clock.Add(time.Minute)
		l, err := f.s.IssueReset(f.ctx, f.org, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		f.clock.Add(time.Minute)
		if err := f.s.ChangePassword(f.ctx, f.org, p.ID, password, "another long password", in.Token); err != nil {
			t.Fatal(err)
		}
		if _, err := f.s.OpenLink(f.ctx, l.Token); err != ErrLinkInvalid {
			t.Errorf("open the link after a password change: %v, want ErrLinkInvalid", err)
		}
		if _, err := f.s.UseLink(f.ctx, l.Token, "a third long password", Client{}); err != ErrLinkInvalid {
			t.Errorf("use the link after a password change: %v, want ErrLinkInvalid", err)
		}
		f.clock.Add(time.Minute)
		l, err = f.s.IssueReset(f.ctx, f.org, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.s.UseLink(f.ctx, l.Token, "a third long password", Client{}); err != nil {
			t.Errorf("a link made after the change: %v", err)
		}

		// A link made at the very instant of a change (two servers'
		// clocks are never finer than that) dies with it too.
		q, qin := f.active(f.org, email("same-instant"), Viewer)
		l, err = f.s.IssueReset(f.ctx, f.org, q.ID)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.s.ChangePassword(f.ctx, f.org, q.ID, password, "another long password", qin.Token); err != nil {
			t.Fatal(err)
		}
		if _, err := f.s.UseLink(f.ctx, l.Token, "a third long password", Client{}); err != ErrLinkInvalid {
			t.Errorf("use a link made at the instant of a password change: %v, want ErrLinkInvalid", err)
		}
	})
}

// A one-time link followed where someone else is signed in acts as the
// link's person: the password it sets and the sign-in are theirs in the
// audit history.
func TestLinkActsAsItsPerson(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		f := newFixture(t, st)
		admin, _ := f.active(f.org, email("admin"), Admin)
		p, l, err := f.s.Invite(f.ctx, f.org, email("new"), Viewer)
		if err != nil {
			t.Fatal(err)
		}
		// The context of a request in the admin's browser.
		ctx := audit.WithUser(audit.WithActor(f.ctx, admin.Email), admin.ID)
		if _, err := f.s.UseLink(ctx, l.Token, password, Client{Address: "192.0.2.70"}); err != nil {
			t.Fatal(err)
		}
		h := personRecords(t, f, p.ID)
		for _, l := range h[1:] {
			if l.Actor != p.Email || l.UserID == nil || *l.UserID != p.ID || l.Address != "192.0.2.70" {
				t.Errorf("%s recorded as %s (user %v, from %q), want %s", l.Action, l.Actor, l.UserID, l.Address, p.Email)
			}
		}
		if len(h) != 3 || h[1].Action != "password_set" || h[2].Action != "signed_in" {
			t.Errorf("history of the link's person: %+v", h)
		}
	})
}

// Sign-ins are recorded in the person's organization: the right password
// (signed_in), a wrong one (sign_in_failed, by the address tried with no
// signed-in person) and signing out (signed_out).
func TestSignInsRecorded(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		f := newFixture(t, st)
		p, _ := f.active(f.org, email("audited"), Operator)
		if _, err := f.s.SignIn(f.ctx, p.Email, "wrong password!", Client{Address: "192.0.2.80"}); err != ErrBadCredentials {
			t.Fatal(err)
		}
		in, err := f.s.SignIn(f.ctx, p.Email, password, Client{Address: "192.0.2.81"})
		if err != nil {
			t.Fatal(err)
		}
		if err := f.s.SignOut(audit.WithAddress(f.ctx, "192.0.2.82"), in.Token); err != nil {
			t.Fatal(err)
		}
		h := personRecords(t, f, p.ID)
		h = h[len(h)-3:]
		want := []struct {
			action, addr string
			user         bool
		}{{"sign_in_failed", "192.0.2.80", false}, {"signed_in", "192.0.2.81", true}, {"signed_out", "192.0.2.82", true}}
		for i, w := range want {
			l := h[i]
			if l.Action != w.action || l.Actor != p.Email || l.Address != w.addr || (l.UserID != nil) != w.user {
				t.Errorf("record %d: %+v, want %s from %s", i, l, w.action, w.addr)
			}
		}
	})
}

// At most 2 argon2id derivations run at once: 100 sign-ins at once all get
// their answer, but never more than 2 hold a hash's memory together.
func TestPasswordChecksBounded(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		f := newFixture(t, st)
		var inFlight, peak atomic.Int64
		orig := argon2Key
		t.Cleanup(func() { argon2Key = orig })
		argon2Key = func(pw, salt []byte, tm, m uint32, p uint8, n uint32) []byte {
			now := inFlight.Add(1)
			for {
				if old := peak.Load(); now <= old || peak.CompareAndSwap(old, now) {
					break
				}
			}
			// Long enough that unbounded sign-ins overlap.
			time.Sleep(5 * time.Millisecond)
			defer inFlight.Add(-1)
			return orig(pw, salt, tm, m, p, n)
		}
		var wg sync.WaitGroup
		errs := make(chan error, 100)
		for i := range 100 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := f.s.SignIn(f.ctx, email("burst"), password, Client{Address: fmt.Sprintf("198.18.%d.%d", i/250, i%250)})
				errs <- err
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != ErrBadCredentials {
				t.Errorf("a sign-in of the burst: %v, want ErrBadCredentials", err)
			}
		}
		if p := peak.Load(); p > 2 || p < 1 {
			t.Errorf("%d derivations at once, want at most 2", p)
		}
	})
}

// A password check that waits HashQueueWait (2 s) for its turn is refused as
// a throttled sign-in is.
func TestPasswordCheckQueueIsBounded(t *testing.T) {
	if HashQueueWait != 2*time.Second {
		t.Errorf("HashQueueWait %s, want 2s", HashQueueWait)
	}
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		f := newFixture(t, st)
		old := hashWait
		hashWait = 50 * time.Millisecond
		t.Cleanup(func() { hashWait = old })
		for range HashesAtOnce {
			hashSlots <- struct{}{}
		}
		_, err := f.s.SignIn(f.ctx, email("queued"), password, Client{Address: "198.19.0.1"})
		for range HashesAtOnce {
			<-hashSlots
		}
		var th *ThrottledError
		if !errors.As(err, &th) || th.RetryAfter <= 0 {
			t.Fatalf("a sign-in with every turn taken: %v, want *ThrottledError", err)
		}
		if _, err := f.s.SignIn(f.ctx, email("queued"), password, Client{Address: "198.19.0.2"}); err != ErrBadCredentials {
			t.Fatalf("with turns free: %v", err)
		}
	})
}

// 100 password checks at once with the real costs (64 MiB each) grow the
// heap the process holds (runtime.MemStats.HeapSys) by less than 256 MiB:
// two run at a time, and a finished check's memory is collected as the next
// takes its turn, so at most three hashes' memory exists at once (192 MiB),
// whatever the collector's setting (GOGC).
func TestPasswordChecksMemoryCeiling(t *testing.T) {
	if testing.Short() {
		t.Skip("hashes at 64 MiB")
	}
	phc, err := hashPassword(context.Background(), DefaultParams, password)
	if err != nil {
		t.Fatal(err)
	}
	orig := argon2Key
	t.Cleanup(func() { argon2Key = orig })
	argon2Key = argon2.IDKey
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	var wg sync.WaitGroup
	var checked, throttled atomic.Int64
	for range 100 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ok, err := verifyPassword(context.Background(), password, phc)
			var th *ThrottledError
			switch {
			case err == nil && ok:
				checked.Add(1)
			case errors.As(err, &th):
				throttled.Add(1)
			default:
				t.Errorf("check: %v %v", ok, err)
			}
		}()
	}
	wg.Wait()
	runtime.ReadMemStats(&after)
	grew := (after.HeapSys - before.HeapSys) >> 20
	t.Logf("%d checked, %d throttled; HeapSys grew %d MiB (%d MiB allocated)", checked.Load(), throttled.Load(), grew, (after.TotalAlloc-before.TotalAlloc)>>20)
	if checked.Load() < 2 {
		t.Errorf("%d checks ran", checked.Load())
	}
	if grew >= 256 {
		t.Errorf("HeapSys grew %d MiB, want under 256", grew)
	}
}
