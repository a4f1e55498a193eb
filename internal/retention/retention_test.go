package retention_test

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"larder.dev/larder/ent/idempotencykey"
	"larder.dev/larder/ent/importcheck"
	"larder.dev/larder/ent/ratewindow"
	"larder.dev/larder/ent/session"
	"larder.dev/larder/ent/userlink"
	"larder.dev/larder/internal/identity/idempotency"
	"larder.dev/larder/internal/identity/people"
	"larder.dev/larder/internal/identity/ratelimit"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/reqlog"
	"larder.dev/larder/internal/retention"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

const day = 24 * time.Hour

// The schedules, written out as literals so that a change to them fails
// here: the request log, the webhook log and the Idempotency-Key records
// hourly, sessions and checked files every 10 minutes, all from the start;
// rate-limit windows every minute, the first a minute after the start.
func TestSchedules(t *testing.T) {
	for _, c := range []struct {
		job   retention.Job
		every time.Duration
		wait  bool
	}{
		{retention.RequestLog(nil, 30*day), time.Hour, false},
		{retention.Sessions(nil), 10 * time.Minute, false},
		{retention.CheckedFiles(nil), 10 * time.Minute, false},
		{retention.RateWindows(nil), time.Minute, true},
		{retention.Webhooks(nil), time.Hour, false},
		{retention.IdempotencyKeys(nil), time.Hour, false},
	} {
		if c.job.Every != c.every || c.job.Wait != c.wait {
			t.Errorf("%s: every %v (wait %v), want every %v (wait %v)", c.job.Name, c.job.Every, c.job.Wait, c.every, c.wait)
		}
	}
}

// Run runs a job at once (or after a period, with Wait), then every period,
// goes on after a failed run, and returns when ctx ends.
func TestRun(t *testing.T) {
	var mu sync.Mutex
	runs := map[string][]time.Time{}
	job := func(name string, wait bool, fail bool) retention.Job {
		return retention.Job{Name: name, Every: 50 * time.Millisecond, Wait: wait, Prune: func(_ context.Context, now time.Time) (int, error) {
			mu.Lock()
			defer mu.Unlock()
			runs[name] = append(runs[name], now)
			if fail {
				return 0, context.DeadlineExceeded
			}
			return 1, nil
		}}
	}
	ctx, cancel := context.WithCancel(context.Background())
	start := time.Now()
	done := make(chan struct{})
	go func() {
		defer close(done)
		retention.Run(ctx, slog.New(slog.DiscardHandler), job("now", false, false), job("later", true, false), job("failing", false, true))
	}()
	time.Sleep(300 * time.Millisecond)
	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return after ctx ended")
	}
	mu.Lock()
	defer mu.Unlock()
	if r := runs["now"]; len(r) < 3 || r[0].Sub(start) > 40*time.Millisecond {
		t.Errorf("a job runs at the start and every period: runs at %v after a start at %v", r, start)
	}
	if r := runs["later"]; len(r) < 2 || r[0].Sub(start) < 45*time.Millisecond {
		t.Errorf("a waiting job runs a period after the start: runs at %v after a start at %v", r, start)
	}
	if r := runs["failing"]; len(r) < 3 {
		t.Errorf("a failing job ran %d times; it goes on after a failure", len(r))
	}
}

// The request log keeps a request for the period (--request-log-retention):
// one a day older is gone, one a day younger kept.
func TestRequestLog(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		now := time.Now()
		w := reqlog.NewWriter(st, nil, 0)
		w.Record(&reqlog.Entry{At: now.Add(-31 * day), Method: "GET", Path: "/v1/tags", Status: 401, RequestID: "req_old_" + t.Name()})
		w.Record(&reqlog.Entry{At: now.Add(-29 * day), Method: "GET", Path: "/v1/tags", Status: 401, RequestID: "req_new_" + t.Name()})
		// Plain reads, which the log keeps apart (one row for a key's reads
		// of one operation), go with their days too.
		w.Record(&reqlog.Entry{At: now.Add(-31 * day), AccountID: 1, KeyID: 1, Method: "GET", Operation: "listTags", Path: "/v1/tags", Status: 200, RequestID: "req_old_read_" + t.Name()})
		w.Record(&reqlog.Entry{At: now.Add(-29 * day), AccountID: 1, KeyID: 1, Method: "GET", Operation: "listTags", Path: "/v1/tags", Status: 200, RequestID: "req_new_read_" + t.Name()})
		w.Flush()
		if _, err := retention.RequestLog(reqlog.Pruner(st), 30*day).Prune(context.Background(), now); err != nil {
			t.Fatal(err)
		}
		has := func(rid string) bool {
			rs, err := reqlog.Lookup(context.Background(), st.Client, rid)
			if err != nil {
				t.Fatal(err)
			}
			return len(rs) == 1
		}
		for _, kind := range []string{"", "read_"} {
			if has("req_old_"+kind+t.Name()) || !has("req_new_"+kind+t.Name()) {
				t.Errorf("after pruning %q: 31 days old kept %v, 29 days old kept %v; want false, true", kind,
					has("req_old_"+kind+t.Name()), has("req_new_"+kind+t.Name()))
			}
		}
	})
}

// Sessions: one past its absolute end, one idle past 12 hours and an expired
// one-time link are gone; a session in use and a link within its 24 hours
// stay.
func TestSessions(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		sys := policy.System(ctx)
		now := time.Now().UTC().Truncate(time.Microsecond)
		at := now.Add(-25 * time.Hour)
		ppl := people.New(st.Client, people.Options{Now: func() time.Time { return at }, Hash: people.HashParams{Memory: 256, Time: 1, Threads: 1}})
		org := dbtest.NewOrg(t, st, "").Org.ID
		old, _, err := ppl.Invite(ctx, org, "old@example.com", people.Admin)
		if err != nil {
			t.Fatal(err)
		}
		at = now.Add(-time.Hour)
		recent, _, err := ppl.Invite(ctx, org, "new@example.com", people.Admin)
		if err != nil {
			t.Fatal(err)
		}
		at = now
		newSession := func(hash string, lastSeen, expires time.Time) int {
			t.Helper()
			s, err := st.Client.Session.Create().SetTokenHash(hash).SetUserID(old.ID).SetCreatedAt(lastSeen).
				SetLastSeenAt(lastSeen).SetExpiresAt(expires).Save(sys)
			if err != nil {
				t.Fatal(err)
			}
			return s.ID
		}
		ended := newSession("ended", now.Add(-time.Hour), now.Add(-time.Minute))
		idle := newSession("idle", now.Add(-13*time.Hour), now.Add(day))
		live := newSession("live", now.Add(-time.Hour), now.Add(day))
		if _, err := retention.Sessions(ppl).Prune(ctx, now); err != nil {
			t.Fatal(err)
		}
		ids := st.Client.Session.Query().Where(session.UserID(old.ID)).IDsX(sys)
		if slices.Contains(ids, ended) || slices.Contains(ids, idle) || !slices.Contains(ids, live) {
			t.Errorf("sessions left %v; want only the live one, %d (ended %d, idle %d)", ids, live, ended, idle)
		}
		link := func(p people.Person) bool {
			return st.Client.UserLink.Query().Where(userlink.UserID(p.ID)).ExistX(sys)
		}
		if link(old) || !link(recent) {
			t.Errorf("invitations: 25 hours old kept %v, an hour old kept %v; want false, true", link(old), link(recent))
		}
	})
}

// Checked import files are kept until their end: one past it is gone, one
// before it kept.
func TestCheckedFiles(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		sys := policy.System(ctx)
		now := time.Now().UTC().Truncate(time.Microsecond)
		org := dbtest.NewOrg(t, st, "")
		ppl := people.New(st.Client, people.Options{Hash: people.HashParams{Memory: 256, Time: 1, Threads: 1}})
		p, _, err := ppl.Invite(ctx, org.Org.ID, "files@example.com", people.Admin)
		if err != nil {
			t.Fatal(err)
		}
		newCheck := func(expires time.Time) int {
			t.Helper()
			c, err := st.Client.ImportCheck.Create().SetOrganizationID(org.Org.ID).SetUserID(p.ID).SetEnvironment(importcheck.EnvironmentLive).
				SetList("tags").SetFormat(importcheck.FormatCsv).SetSha256(strings.Repeat("0", 64)).SetContent([]byte("code\n")).
				SetCreatedAt(expires.Add(-time.Hour)).SetExpiresAt(expires).Save(sys)
			if err != nil {
				t.Fatal(err)
			}
			return c.ID
		}
		expired, current := newCheck(now.Add(-time.Minute)), newCheck(now.Add(time.Minute))
		if _, err := retention.CheckedFiles(st.Client).Prune(ctx, now); err != nil {
			t.Fatal(err)
		}
		ids := st.Client.ImportCheck.Query().Where(importcheck.OrganizationID(org.Org.ID)).IDsX(sys)
		if !slices.Equal(ids, []int{current}) {
			t.Errorf("checked files left %v; want only %d (expired: %d)", ids, current, expired)
		}
	})
}

// recordingLimiter records the times it is pruned as of.
type recordingLimiter struct {
	ratelimit.Limiter
	pruned []time.Time
}

func (r *recordingLimiter) Prune(ctx context.Context, now time.Time) error {
	r.pruned = append(r.pruned, now)
	return r.Limiter.Prune(ctx, now)
}

// Rate-limit windows are forgotten once they end: on PostgreSQL the rows of
// rate_windows, on SQLite the process's own counters.
func TestRateWindows(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		l, err := ratelimit.New(st.DB, st.Dialect, false)
		if err != nil {
			t.Fatal(err)
		}
		now := time.Now().UTC()
		bucket := "retention:" + t.Name()
		for _, at := range []time.Time{now.Add(-2 * ratelimit.Window), now} {
			if _, err := l.Hit(ctx, bucket, 10, at); err != nil {
				t.Fatal(err)
			}
		}
		rec := &recordingLimiter{Limiter: l}
		if _, err := retention.RateWindows(rec).Prune(ctx, now); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(rec.pruned, []time.Time{now}) {
			t.Fatalf("the limiter was pruned as of %v, want %v", rec.pruned, now)
		}
		if _, ok := l.(*ratelimit.Postgres); !ok {
			return
		}
		var starts []int64
		for _, w := range st.Client.RateWindow.Query().Where(ratewindow.Bucket(bucket)).AllX(policy.System(ctx)) {
			starts = append(starts, w.WindowStart)
		}
		if len(starts) != 1 || starts[0] != now.Truncate(ratelimit.Window).Unix() {
			t.Errorf("windows left %v; want only the current one, %d", starts, now.Truncate(ratelimit.Window).Unix())
		}
	})
}

// Idempotency-Key records are kept 24 hours.
func TestIdempotencyKeys(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		org := dbtest.NewOrg(t, st, "")
		ctx := org.Ctx(policy.Live)
		now := time.Now().UTC().Truncate(time.Microsecond)
		for key, at := range map[string]time.Time{"old": now.Add(-25 * time.Hour), "new": now.Add(-23 * time.Hour)} {
			if _, err := idempotency.Take(ctx, st.Client, key, "createTag", "fp", at); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := retention.IdempotencyKeys(st.Client).Prune(context.Background(), now); err != nil {
			t.Fatal(err)
		}
		keys := st.Client.IdempotencyKey.Query().Select(idempotencykey.FieldKey).StringsX(ctx)
		if !slices.Equal(keys, []string{"new"}) {
			t.Errorf("keys left %v; want only the one 23 hours old", keys)
		}
	})
}
