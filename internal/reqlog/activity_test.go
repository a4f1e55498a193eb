package reqlog_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"entgo.io/ent/dialect"
	"github.com/google/go-cmp/cmp"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/apirequest"
	"larder.dev/larder/ent/apirequesthour"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/reqlog"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/migrate"
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
		// Each day is the sum of its 24 hours.
		perHour, err := reqlog.Activity(ctx, st.Client, mine.Org.ID, policy.Live, day.AddDate(0, 0, -1), day.Add(23*time.Hour), time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		summed := []reqlog.Period{{Start: day.AddDate(0, 0, -1)}, {Start: day}}
		for i, p := range perHour {
			summed[i/24].Requests += p.Requests
			summed[i/24].Errors += p.Errors
		}
		if d := cmp.Diff(days, summed); d != "" {
			t.Errorf("days and the sums of their hours (-days +hours):\n%s", d)
		}
		if _, err := reqlog.Activity(ctx, st.Client, mine.Org.ID, policy.Live, day, day, time.Minute); err == nil {
			t.Error("a minute's periods were counted")
		}
	})
}

// counted is one account's hour as the counts hold it, or as the log's rows
// make it.
type counted struct {
	Hour             time.Time
	Requests, Errors int
}

// countsOf is account acct's hours in api_request_hours, oldest first.
func countsOf(t *testing.T, st *store.Store, acct int) []counted {
	t.Helper()
	rs, err := st.Client.APIRequestHour.Query().Where(apirequesthour.AccountID(acct)).Order(apirequesthour.ByHour()).All(policy.System(context.Background()))
	if err != nil {
		t.Fatal(err)
	}
	out := []counted{}
	for _, r := range rs {
		out = append(out, counted{r.Hour.UTC(), r.Requests, r.Errors})
	}
	return out
}

// logCounts is account acct's hours as its rows in the log make them,
// oldest first.
func logCounts(t *testing.T, st *store.Store, acct int) []counted {
	t.Helper()
	rs, err := st.Client.APIRequest.Query().Where(apirequest.AccountID(acct)).Order(apirequest.ByCreatedAt()).All(policy.System(context.Background()))
	if err != nil {
		t.Fatal(err)
	}
	out := []counted{}
	for _, r := range rs {
		h := r.CreatedAt.UTC().Truncate(time.Hour)
		if len(out) == 0 || !out[len(out)-1].Hour.Equal(h) {
			out = append(out, counted{Hour: h})
		}
		out[len(out)-1].Requests++
		if r.Status >= 400 {
			out[len(out)-1].Errors++
		}
	}
	return out
}

// The writer adds each batch to its accounts' hours: batches spanning two
// hours and two accounts, and rows stored with Insert, leave each hour's
// requests and errors (400 and above: not 399, not 3xx), as the log's rows
// make them; failed authentications (no account) are not counted.
func TestWriterCountsHours(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		a, b := dbtest.NewOrg(t, st, "").Live.ID, dbtest.NewOrg(t, st, "").Live.ID
		w := reqlog.NewWriter(st, nil, 0)
		h := time.Date(2026, 11, 7, 10, 0, 0, 0, time.UTC)
		n := 0
		record := func(acct int, at time.Time, status int) {
			n++
			w.Record(&reqlog.Entry{At: at, AccountID: acct, Method: "GET", Path: "/v1/tags", Status: status, RequestID: "req_hours" + strconv.Itoa(n)})
		}
		record(a, h.Add(time.Minute), 200)
		record(a, h.Add(2*time.Minute), 400)
		record(a, h.Add(3*time.Minute), 399)
		record(b, h.Add(5*time.Minute), 302)
		record(0, h.Add(6*time.Minute), 401)
		w.Flush()
		record(a, h.Add(time.Hour-time.Microsecond), 500)
		record(a, h.Add(time.Hour), 200)
		record(b, h.Add(time.Hour+time.Minute), 404)
		record(0, h.Add(time.Hour+2*time.Minute), 401)
		w.Flush()
		if w.Written() != 9 || w.Dropped() != 0 {
			t.Fatalf("written %d, dropped %d; want 9, 0", w.Written(), w.Dropped())
		}
		stored, err := reqlog.Insert(ctx, st, &ent.APIRequest{CreatedAt: h.Add(30 * time.Minute), AccountID: a, Method: "POST", Path: "/v1/tags",
			Status: 403, ErrorCode: "INSUFFICIENT_SCOPE", RequestID: "req_hours_inserted", RequestBody: []byte(`{}`)})
		if err != nil {
			t.Fatal(err)
		}
		if len(stored) != 1 || stored[0].ID == 0 || stored[0].RequestID != "req_hours_inserted" || stored[0].StatusClass != 4 || string(stored[0].RequestBody) != `{}` {
			t.Fatalf("Insert returned %+v", stored)
		}
		wantA := []counted{{h, 5, 3}, {h.Add(time.Hour), 1, 0}}
		wantB := []counted{{h, 1, 0}, {h.Add(time.Hour), 1, 1}}
		if d := cmp.Diff(wantA, countsOf(t, st, a)); d != "" {
			t.Errorf("first account's hours (-want +got):\n%s", d)
		}
		if d := cmp.Diff(wantB, countsOf(t, st, b)); d != "" {
			t.Errorf("second account's hours (-want +got):\n%s", d)
		}
		if d := cmp.Diff(logCounts(t, st, a), countsOf(t, st, a)); d != "" {
			t.Errorf("the counts are not the log's (-log +counts):\n%s", d)
		}
		if got := countsOf(t, st, 0); len(got) != 0 {
			t.Errorf("failed authentications counted: %v", got)
		}
	})
}

// refuse makes the database refuse the rows of account acct in table until
// the test ends (or the returned function is called).
func refuse(t *testing.T, st *store.Store, table string, acct int) func() {
	t.Helper()
	ctx := context.Background()
	name := "refuse_" + table
	var do, undo []string
	if st.Dialect == dialect.Postgres {
		do = []string{
			fmt.Sprintf(`CREATE FUNCTION %s() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF NEW.account_id = %d THEN RAISE EXCEPTION 'refused'; END IF; RETURN NEW; END $$`, name, acct),
			fmt.Sprintf(`CREATE TRIGGER %s BEFORE INSERT ON %s FOR EACH ROW EXECUTE FUNCTION %s()`, name, table, name),
		}
		undo = []string{fmt.Sprintf(`DROP TRIGGER IF EXISTS %s ON %s`, name, table), fmt.Sprintf(`DROP FUNCTION IF EXISTS %s()`, name)}
	} else {
		do = []string{fmt.Sprintf(`CREATE TRIGGER %s BEFORE INSERT ON %s WHEN NEW.account_id = %d BEGIN SELECT RAISE(ABORT, 'refused'); END`, name, table, acct)}
		undo = []string{`DROP TRIGGER IF EXISTS ` + name}
	}
	for _, q := range do {
		if _, err := st.DB.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	done := func() {
		for _, q := range undo {
			if _, err := st.DB.ExecContext(ctx, q); err != nil {
				t.Error(err)
			}
		}
	}
	t.Cleanup(done)
	return done
}

// A batch is written whole or not at all: when its counts are refused its
// rows are not written, and when its rows are refused its counts are not
// added, for none of its accounts; the writer goes on with the next batch.
func TestFailedBatchWritesNeitherRowsNorCounts(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		a, b := dbtest.NewOrg(t, st, "").Live.ID, dbtest.NewOrg(t, st, "").Live.ID
		w := reqlog.NewWriter(st, nil, 0)
		h := time.Date(2026, 11, 8, 10, 0, 0, 0, time.UTC)
		n := 0
		batch := func(accts ...int) {
			for _, acct := range accts {
				n++
				w.Record(&reqlog.Entry{At: h.Add(time.Duration(n) * time.Minute), AccountID: acct, Method: "GET", Path: "/v1/tags", Status: 200, RequestID: "req_failed" + strconv.Itoa(n)})
			}
			w.Flush()
		}
		batch(a)
		for _, table := range []string{"api_request_hours", "api_requests"} {
			undo := refuse(t, st, table, b)
			before := w.Dropped()
			batch(a, b)
			if w.Dropped() != before+2 {
				t.Fatalf("%s refused: dropped %d, want %d", table, w.Dropped(), before+2)
			}
			undo()
			if got := countsOf(t, st, a); !cmp.Equal(got, []counted{{h, 1, 0}}) {
				t.Errorf("%s refused: the first account's hours %v, want the first batch's 1", table, got)
			}
			if got := countsOf(t, st, b); len(got) != 0 {
				t.Errorf("%s refused: the second account's hours %v, want none", table, got)
			}
			if c := st.Client.APIRequest.Query().Where(apirequest.AccountIDIn(a, b)).CountX(policy.System(ctx)); c != 1 {
				t.Errorf("%s refused: %d rows, want the first batch's 1", table, c)
			}
		}
		batch(a, b)
		if got := countsOf(t, st, a); !cmp.Equal(got, []counted{{h, 2, 0}}) || w.Written() != 3 {
			t.Errorf("after the refusals: hours %v and %d written, want [{10:00 2 0}] and 3", got, w.Written())
		}
	})
}

// Pruning deletes the counts of the hours it prunes with their rows, so
// the counts stay the log's: on PostgreSQL the days wholly before the
// cutoff go (with their hours), on SQLite the hours before the cutoff's.
// A request in the cutoff's own hour is kept and counted on both.
func TestPruningDeletesTheCountsOfPrunedHours(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		if st.Dialect == dialect.Postgres {
			st = partitioned(t) // dropping days touches no other test's rows
		}
		ctx := context.Background()
		org := dbtest.NewOrg(t, st, "")
		a := org.Live.ID
		cutoff := time.Date(2026, 11, 5, 13, 30, 0, 0, time.UTC)
		w := reqlog.NewWriter(st, nil, 0)
		n := 0
		record := func(at time.Time, status int) {
			n++
			w.Record(&reqlog.Entry{At: at, AccountID: a, Method: "GET", Path: "/v1/tags", Status: status, RequestID: "req_pruned" + strconv.Itoa(n)})
		}
		nov3 := time.Date(2026, 11, 3, 12, 0, 0, 0, time.UTC)
		record(nov3, 200)
		record(nov3.Add(10*time.Minute), 500)
		early := time.Date(2026, 11, 5, 1, 0, 0, 0, time.UTC)
		record(early, 200)
		hourBefore := cutoff.Add(-time.Hour) // 12:30, in the hour before the cutoff's
		record(hourBefore, 200)
		record(cutoff.Add(-20*time.Minute), 404)
		record(cutoff.Add(20*time.Minute), 200)
		nov6 := time.Date(2026, 11, 6, 0, 0, 0, 0, time.UTC)
		record(nov6, 200)
		w.Flush()
		if _, err := reqlog.Pruner(st)(ctx, cutoff); err != nil {
			t.Fatal(err)
		}
		want := []counted{{early, 1, 0}, {hourBefore.Truncate(time.Hour), 1, 0}, {cutoff.Truncate(time.Hour), 2, 1}, {nov6, 1, 0}}
		if st.Dialect != dialect.Postgres {
			want = want[2:] // SQLite prunes to the hour
		}
		if d := cmp.Diff(want, countsOf(t, st, a)); d != "" {
			t.Errorf("hours after pruning (-want +got):\n%s", d)
		}
		if d := cmp.Diff(logCounts(t, st, a), countsOf(t, st, a)); d != "" {
			t.Errorf("the counts are not the log's after pruning (-log +counts):\n%s", d)
		}
		days, err := reqlog.Activity(ctx, st.Client, org.Org.ID, policy.Live, nov3, nov3, 24*time.Hour)
		if err != nil || days[0].Requests != 0 {
			t.Errorf("a pruned day's chart: %+v, %v; want no requests", days, err)
		}
	})
}

// The migration that adds the counts counts the rows the log already
// holds as the writer would have: the same hours, requests and errors (no
// failed authentication), stored so that the writer's next batch adds to
// them instead of meeting a second row of the same hour.
func TestMigrationCountsTheLogAsTheWriterDoes(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		if st.Dialect == dialect.Postgres {
			st = partitioned(t) // the statement counts the whole log
		}
		ctx := context.Background()
		a := dbtest.NewOrg(t, st, "").Live.ID
		w := reqlog.NewWriter(st, nil, 0)
		h := time.Date(2026, 11, 9, 23, 0, 0, 0, time.UTC)
		n := 0
		record := func(acct int, at time.Time, status int) {
			n++
			w.Record(&reqlog.Entry{At: at, AccountID: acct, Method: "GET", Path: "/v1/tags", Status: status, RequestID: "req_backfill" + strconv.Itoa(n)})
		}
		record(a, h.Add(time.Second), 200)
		record(a, h.Add(time.Hour-time.Microsecond), 400)
		record(a, h.Add(time.Hour+123456*time.Microsecond), 399)
		w.Flush()
		want := countsOf(t, st, a)
		if len(want) != 2 {
			t.Fatalf("the writer's counts: %v, want two hours", want)
		}
		dir, err := migrate.Embedded(st.Dialect)
		if err != nil {
			t.Fatal(err)
		}
		files, err := dir.Files()
		if err != nil {
			t.Fatal(err)
		}
		var stmt string
		for _, f := range files {
			if strings.HasSuffix(f.Name(), "_request_hours.sql") {
				_, stmt, _ = strings.Cut(string(f.Bytes()), "-- count the requests the log already holds\n")
			}
		}
		if stmt == "" {
			t.Fatal("no count of the existing log in the request_hours migration")
		}
		if _, err := st.DB.ExecContext(ctx, `DELETE FROM api_request_hours`); err != nil {
			t.Fatal(err)
		}
		if _, err := st.DB.ExecContext(ctx, stmt); err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want, countsOf(t, st, a)); d != "" {
			t.Errorf("the migration's counts (-writer's +migration's):\n%s", d)
		}
		record(a, h.Add(30*time.Minute), 500)
		record(reqlog.NoAccount, h.Add(time.Minute), 401)
		w.Flush()
		if got := countsOf(t, st, reqlog.NoAccount); len(got) != 0 {
			t.Errorf("failed authentications counted: %v", got)
		}
		want[0].Requests, want[0].Errors = want[0].Requests+1, want[0].Errors+1
		if d := cmp.Diff(want, countsOf(t, st, a)); d != "" || w.Dropped() != 0 {
			t.Errorf("the writer after the migration: dropped %d (-want +got):\n%s", w.Dropped(), d)
		}
	})
}
