package people

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
	"time"

	"larder.dev/larder/ent/recoverycode"
	"larder.dev/larder/internal/identity/ratelimit"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

// withCodes makes an active person with a confirmed second factor, and
// returns them with its secret and the recovery codes confirming made.
func (f *fixture) withCodes() (Person, string, []string) {
	f.t.Helper()
	p, _ := f.active(f.org, email("codes"), Developer)
	enr, err := f.s.BeginSecondFactor(f.ctx, f.org, p.ID)
	if err != nil {
		f.t.Fatal(err)
	}
	codes, err := f.s.ConfirmSecondFactor(f.ctx, f.org, p.ID, Code(enr.Secret, f.clock.Now()))
	if err != nil {
		f.t.Fatal(err)
	}
	f.clock.Add(30 * time.Second)
	return p, enr.Secret, codes
}

// Turning the second factor on makes ten distinct codes of 80 random bits,
// stored only as their SHA-256: no column holds a code.
func TestRecoveryCodesStoredHashed(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		f := newFixture(t, st)
		p, _, codes := f.withCodes()
		if len(codes) != 10 {
			t.Fatalf("%d codes, want 10", len(codes))
		}
		seen := map[string]bool{}
		for _, c := range codes {
			if len(strings.ReplaceAll(c, "-", "")) != 16 || seen[c] {
				t.Fatalf("code %q: want 16 characters (80 bits of base32), each once", c)
			}
			seen[c] = true
		}
		rows, err := st.Client.RecoveryCode.Query().Where(recoverycode.UserID(p.ID)).All(policy.System(f.ctx))
		if err != nil || len(rows) != 10 {
			t.Fatalf("%d rows %v, want 10", len(rows), err)
		}
		for _, r := range rows {
			for _, c := range codes {
				plain := strings.ReplaceAll(c, "-", "")
				if strings.Contains(r.CodeHash, c) || strings.Contains(r.CodeHash, plain) {
					t.Fatalf("a stored row holds the code %q in clear", c)
				}
			}
			if r.OrganizationID != f.org {
				t.Errorf("a code of organization %d, want %d", r.OrganizationID, f.org)
			}
		}
		sum := sha256.Sum256([]byte(strings.ReplaceAll(codes[0], "-", "")))
		if n, err := st.Client.RecoveryCode.Query().Where(recoverycode.CodeHash(hex.EncodeToString(sum[:]))).Count(policy.System(f.ctx)); err != nil || n != 1 {
			t.Errorf("the first code's SHA-256 is stored %d times (%v), want once", n, err)
		}
		if left, err := f.s.RecoveryCodesLeft(f.ctx, f.org, p.ID); err != nil || left != 10 {
			t.Errorf("codes left %d %v, want 10", left, err)
		}
	})
}

// A recovery code signs in once in place of the app's code, typed in any
// case with or without its dashes; the second use fails, as does a code of
// another person. Its use is recorded with how many remain.
func TestRecoveryCodeWorksOnce(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		f := newFixture(t, st)
		p, _, codes := f.withCodes()
		other, _, otherCodes := f.withCodes()
		in := f.pending(p)
		typed := strings.ToUpper(strings.ReplaceAll(codes[3], "-", " "))
		cur, err := f.s.VerifySecondFactor(f.ctx, in.Token, typed, Client{Address: "192.0.2.50"})
		if err != nil || cur.Pending || cur.Person.ID != p.ID {
			t.Fatalf("a recovery code: %+v %v, want signed in", cur, err)
		}
		f.clock.Add(time.Minute)
		in = f.pending(p)
		if _, err := f.s.VerifySecondFactor(f.ctx, in.Token, codes[3], Client{}); err != ErrBadCode {
			t.Fatalf("the same code again: %v, want ErrBadCode", err)
		}
		f.clock.Add(time.Minute)
		in = f.pending(p)
		if _, err := f.s.VerifySecondFactor(f.ctx, in.Token, otherCodes[0], Client{}); err != ErrBadCode {
			t.Fatalf("another person's code: %v, want ErrBadCode", err)
		}
		if left, _ := f.s.RecoveryCodesLeft(f.ctx, f.org, p.ID); left != 9 {
			t.Errorf("codes left after one use: %d, want 9", left)
		}
		if left, _ := f.s.RecoveryCodesLeft(f.ctx, f.org, other.ID); left != 10 {
			t.Errorf("the other person's codes left: %d, want 10", left)
		}
		var used []float64
		for _, l := range personRecords(t, f, p.ID) {
			if l.Action == "recovery_code_used" {
				used = append(used, l.Detail["left"].(float64))
			}
		}
		if len(used) != 1 || used[0] != 9 {
			t.Errorf("recovery_code_used records: %v, want one with 9 left", used)
		}
	})
}

// A wrong recovery code is a wrong code: it counts toward the backoff and
// the lockout of the second factor like a wrong six-digit code.
func TestWrongRecoveryCodeCounts(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		f := newFixture(t, st)
		lim, err := ratelimit.New(st.DB, st.Dialect, st.Prepare)
		if err != nil {
			t.Fatal(err)
		}
		f.s = New(st.Client, Options{Now: f.clock.Now, Limiter: lim, Hash: cheap})
		p, _, codes := f.withCodes()
		in := f.pending(p)
		if _, err := f.s.VerifySecondFactor(f.ctx, in.Token, "aaaa-bbbb-cccc-dddd", Client{}); err != ErrBadCode {
			t.Fatalf("a wrong recovery code: %v, want ErrBadCode", err)
		}
		got, err := f.s.Get(f.ctx, f.org, p.ID)
		if err != nil || got.FailedCodes != 1 {
			t.Fatalf("after a wrong recovery code: %d failed codes %v, want 1", got.FailedCodes, err)
		}
		// The backoff holds even the right recovery code back.
		_, err = f.s.VerifySecondFactor(f.ctx, in.Token, codes[0], Client{})
		var th *ThrottledError
		if !errors.As(err, &th) || th.RetryAfter != time.Second {
			t.Fatalf("a right code at once after a wrong one: %v, want to wait 1s", err)
		}
		f.clock.Add(time.Second)
		if _, err := f.s.VerifySecondFactor(f.ctx, in.Token, codes[0], Client{}); err != nil {
			t.Fatalf("the right code after the wait: %v", err)
		}
		if got, _ := f.s.Get(f.ctx, f.org, p.ID); got.FailedCodes != 0 {
			t.Errorf("a right recovery code leaves %d failed codes, want 0", got.FailedCodes)
		}
	})
}

// New codes void the old ones, used or not, after proof that it is the
// person; the change is recorded with how many codes it voided.
func TestRegenerateVoidsOldCodes(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		f := newFixture(t, st)
		p, _, old := f.withCodes()
		if _, err := f.s.RegenerateRecoveryCodes(f.ctx, f.org, p.ID, "not the password", Client{}); err != ErrBadCredentials {
			t.Fatalf("with a wrong password: %v, want ErrBadCredentials", err)
		}
		codes, err := f.s.RegenerateRecoveryCodes(f.ctx, f.org, p.ID, password, Client{})
		if err != nil || len(codes) != 10 {
			t.Fatalf("%d codes %v", len(codes), err)
		}
		for _, c := range codes {
			for _, o := range old {
				if c == o {
					t.Fatalf("code %q is in both sets", c)
				}
			}
		}
		in := f.pending(p)
		if _, err := f.s.VerifySecondFactor(f.ctx, in.Token, old[0], Client{}); err != ErrBadCode {
			t.Fatalf("an old code: %v, want ErrBadCode", err)
		}
		f.clock.Add(2 * time.Second)
		if _, err := f.s.VerifySecondFactor(f.ctx, in.Token, codes[0], Client{}); err != nil {
			t.Fatalf("a new code: %v", err)
		}
		var voided []float64
		for _, l := range personRecords(t, f, p.ID) {
			if l.Action == "recovery_codes_generated" {
				voided = append(voided, l.Detail["voided"].(float64))
			}
		}
		if len(voided) != 2 || voided[0] != 0 || voided[1] != 10 {
			t.Errorf("recovery_codes_generated records voided %v, want [0 10]", voided)
		}
		// Another organization's id for the person finds nobody.
		if _, err := f.s.RegenerateRecoveryCodes(f.ctx, f.newOrg(), p.ID, password, Client{}); err != ErrNotFound {
			t.Errorf("from another organization: %v, want ErrNotFound", err)
		}
		// Without a second factor there is nothing to recover.
		if err := f.s.RemoveSecondFactor(f.ctx, f.org, p.ID); err != nil {
			t.Fatal(err)
		}
		if left, _ := f.s.RecoveryCodesLeft(f.ctx, f.org, p.ID); left != 0 {
			t.Errorf("codes left once the second factor is removed: %d, want 0", left)
		}
		if _, err := f.s.RegenerateRecoveryCodes(f.ctx, f.org, p.ID, password, Client{}); err != ErrNoSecondFactor {
			t.Errorf("without a second factor: %v, want ErrNoSecondFactor", err)
		}
	})
}

// A signature's password is checked like a sign-in's: a wrong one is
// recorded with what it would have signed and counts toward the throttle of
// the person's address, where the right one is then refused too.
func TestCheckSignature(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		f := newFixture(t, st)
		lim, err := ratelimit.New(st.DB, st.Dialect, st.Prepare)
		if err != nil {
			t.Fatal(err)
		}
		f.s = New(st.Client, Options{Now: f.clock.Now, Limiter: lim, Hash: cheap})
		p, _ := f.active(f.org, email("signer"), Developer)
		f.clock.Add(time.Minute - f.clock.Now().Sub(f.clock.Now().Truncate(time.Minute)))
		what := map[string]any{"signing": "lot_release", "lot_id": 7}
		if err := f.s.CheckSignature(f.ctx, f.org, p.ID, password, Client{}, what); err != nil {
			t.Fatalf("the right password: %v", err)
		}
		for i := 0; i < 4; i++ {
			if err := f.s.CheckSignature(f.ctx, f.org, p.ID, "wrong password!", Client{Address: "192.0.2.9"}, what); err != ErrBadCredentials {
				t.Fatalf("wrong password %d: %v, want ErrBadCredentials", i+1, err)
			}
		}
		var th *ThrottledError
		if err := f.s.CheckSignature(f.ctx, f.org, p.ID, password, Client{}, what); !errors.As(err, &th) {
			t.Fatalf("a sixth attempt within the minute: %v, want throttled", err)
		}
		if _, err := f.s.SignIn(f.ctx, p.Email, password, Client{Address: "192.0.2.10"}); !errors.As(err, &th) {
			t.Fatalf("signing in after five signature attempts: %v, want throttled", err)
		}
		var failed int
		for _, l := range personRecords(t, f, p.ID) {
			if l.Action == "signature_failed" {
				failed++
				if l.Detail["signing"] != "lot_release" || l.Actor != p.Email || l.Address != "192.0.2.9" {
					t.Errorf("signature_failed record %+v", l)
				}
			}
		}
		if failed != 4 {
			t.Errorf("%d signature_failed records, want 4", failed)
		}
		if err := f.s.CheckSignature(f.ctx, f.newOrg(), p.ID, password, Client{}, what); err != ErrNotFound {
			t.Errorf("from another organization: %v, want ErrNotFound", err)
		}
	})
}
