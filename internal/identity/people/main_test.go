package people

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/crypto/argon2"

	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/testkit/dbtest"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

// cheap are argon2id's costs in the tests' services: they sign in hundreds
// of times on shared cores. TestPasswordHashParameters checks the real ones,
// and TestServiceHashesWithDefaultParams that a service without Hash uses
// them.
var cheap = HashParams{Memory: 256, Time: 1, Threads: 1}

// hashes counts argon2id derivations; the hook wraps argon2Key once.
var hashes atomic.Int64

func init() {
	argon2Key = func(pw, salt []byte, t, m uint32, p uint8, n uint32) []byte {
		hashes.Add(1)
		return argon2.IDKey(pw, salt, t, m, p, n)
	}
}

// clock is a settable time for the service.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock {
	return &clock{t: time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)}
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// fixture is a service on a store with a clock, and an organization.
type fixture struct {
	t     *testing.T
	st    *store.Store
	s     *Service
	clock *clock
	org   int
	ctx   context.Context
}

func newFixture(t *testing.T, st *store.Store) *fixture {
	t.Helper()
	c := newClock()
	return &fixture{
		t: t, st: st, clock: c, ctx: context.Background(),
		s:   New(st.Client, Options{Now: c.Now, Hash: cheap}),
		org: dbtest.NewOrg(t, st, "").Org.ID,
	}
}

// newOrg is another organization.
func (f *fixture) newOrg() int { return dbtest.NewOrg(f.t, f.st, "").Org.ID }

// password is a valid password for the tests.
const password = "correct horse battery"

// active invites a person into org and sets their password through the
// invitation, returning the person and the session the link began.
func (f *fixture) active(org int, email string, role Role) (Person, SignedIn) {
	f.t.Helper()
	p, l, err := f.s.Invite(f.ctx, org, email, role)
	if err != nil {
		f.t.Fatal(err)
	}
	in, err := f.s.UseLink(f.ctx, l.Token, password, Client{Address: "192.0.2.1"})
	if err != nil {
		f.t.Fatal(err)
	}
	return p, in
}

// email makes addresses unique across the PostgreSQL database the
// package's tests share.
var seq atomic.Int64

func email(name string) string {
	return name + "-" + time.Now().Format("150405.000000") + "-" + itoa(seq.Add(1)) + "@example.com"
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
