package reqlog_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/reqlog"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

// Activity counts one account's requests per UTC hour and per UTC day, the
// errors (400 and above, not 3xx) apart, with every period of the range
// present; a request at the last microsecond of an hour counts in that hour,
// and another organization's requests, or the other environment's, never
// count.
func TestActivityCountsPerPeriod(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		mine, other := dbtest.NewOrg(t, st, ""), dbtest.NewOrg(t, st, "")
		w := reqlog.NewWriter(st, nil, 0)
		h := time.Date(2026, 11, 3, 10, 0, 0, 0, time.UTC)
		n := 0
		record := func(acct int, at time.Time, status int) {
			n++
			w.Record(&reqlog.Entry{At: at, AccountID: acct, Method: "GET", Path: "/v1/tags", Status: status, RequestID: "req_act" + strconv.Itoa(n)})
		}
		// 10:00–10:59: three requests, one a 404 (the last microsecond of the hour).
		record(mine.Live.ID, h, 200)
		record(mine.Live.ID, h.Add(30*time.Minute), 304)
		record(mine.Live.ID, h.Add(time.Hour-time.Microsecond), 404)
		// 12:00: a 500 and a 201.
		record(mine.Live.ID, h.Add(2*time.Hour), 500)
		record(mine.Live.ID, h.Add(2*time.Hour+time.Second), 201)
		// The day before, at 23:30: one 200.
		record(mine.Live.ID, h.Add(-10*time.Hour-30*time.Minute), 200)
		// Never counted: the other organization, the test environment.
		record(other.Live.ID, h.Add(time.Minute), 500)
		record(mine.Test.ID, h.Add(time.Minute), 500)
		w.Flush()

		hours, err := reqlog.Activity(ctx, st.Client, mine.Org.ID, policy.Live, h.Add(-time.Hour+time.Minute), h.Add(2*time.Hour+5*time.Minute), time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		want := []reqlog.Period{
			{Start: h.Add(-time.Hour)},
			{Start: h, Requests: 3, Errors: 1},
			{Start: h.Add(time.Hour)},
			{Start: h.Add(2 * time.Hour), Requests: 2, Errors: 1},
		}
		if d := cmp.Diff(want, hours); d != "" {
			t.Errorf("per hour (-want +got):\n%s", d)
		}
		day := time.Date(2026, 11, 3, 0, 0, 0, 0, time.UTC)
		days, err := reqlog.Activity(ctx, st.Client, mine.Org.ID, policy.Live, day.AddDate(0, 0, -1), day.Add(time.Hour), 24*time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		want = []reqlog.Period{{Start: day.AddDate(0, 0, -1), Requests: 1}, {Start: day, Requests: 5, Errors: 2}}
		if d := cmp.Diff(want, days); d != "" {
			t.Errorf("per day (-want +got):\n%s", d)
		}
		if _, err := reqlog.Activity(ctx, st.Client, mine.Org.ID, policy.Live, day, day, time.Minute); err == nil {
			t.Error("a minute's periods were counted")
		}
	})
}

// A Counter counts a period that is over once and then answers from memory,
// while the period still open (ending less than a minute before until) is
// counted from the database each time; nothing of one account's counts
// answers for another's.
func TestCounterRemembersPeriodsThatAreOver(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		mine, other := dbtest.NewOrg(t, st, ""), dbtest.NewOrg(t, st, "")
		w := reqlog.NewWriter(st, nil, 0)
		h := time.Date(2026, 11, 4, 10, 0, 0, 0, time.UTC)
		n := 0
		record := func(acct int, at time.Time) {
			n++
			w.Record(&reqlog.Entry{At: at, AccountID: acct, Method: "GET", Path: "/v1/tags", Status: 200, RequestID: "req_cnt" + strconv.Itoa(n)})
			w.Flush()
		}
		record(mine.Live.ID, h.Add(time.Minute))
		record(mine.Live.ID, h.Add(time.Hour+time.Minute))
		// until is 30 s after the second hour ended: the first hour is
		// over, the second not settled yet.
		until := h.Add(2*time.Hour + 30*time.Second)
		k := reqlog.NewCounter()
		counts := func(org int) []int {
			ps, err := k.Activity(ctx, st.Client, org, policy.Live, h, until, time.Hour)
			if err != nil {
				t.Fatal(err)
			}
			out := make([]int, len(ps))
			for i, p := range ps {
				out[i] = p.Requests
			}
			return out
		}
		if got := counts(mine.Org.ID); !cmp.Equal(got, []int{1, 1, 0}) {
			t.Fatalf("first count %v, want [1 1 0]", got)
		}
		record(mine.Live.ID, h.Add(2*time.Minute))
		record(mine.Live.ID, h.Add(time.Hour+2*time.Minute))
		if got := counts(mine.Org.ID); !cmp.Equal(got, []int{1, 2, 0}) {
			t.Errorf("counted again %v, want the first hour from memory and the second anew: [1 2 0]", got)
		}
		plain, err := reqlog.Activity(ctx, st.Client, mine.Org.ID, policy.Live, h, until, time.Hour)
		if err != nil || plain[0].Requests != 2 {
			t.Errorf("Activity without memory: %+v, %v; want 2 in the first hour", plain, err)
		}
		if got := counts(other.Org.ID); !cmp.Equal(got, []int{0, 0, 0}) {
			t.Errorf("another organization's count %v, want none", got)
		}
	})
}
