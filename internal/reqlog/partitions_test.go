package reqlog_test

import (
	"bytes"
	"context"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/apirequest"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/reqlog"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/migrate"
	"larder.dev/larder/policy"
)

// partitioned is a migrated PostgreSQL database of this test's own, so that
// creating and dropping days touches no other test's rows.
func partitioned(t *testing.T) *store.Store {
	t.Helper()
	if !hasPostgres(t) {
		t.Skip("partitions are PostgreSQL's; set LARDER_TEST_POSTGRES_URL")
	}
	st := dbtest.OpenURL(t, dbtest.Scratch(t, "parts"))
	if _, err := migrate.Apply(context.Background(), st.DB, st.Dialect); err != nil {
		t.Fatal(err)
	}
	return st
}

func hasPostgres(t *testing.T) bool {
	for _, b := range dbtest.Backends(t) {
		if b == dbtest.Postgres {
			return true
		}
	}
	return false
}

func days(t *testing.T, st *store.Store) []string {
	t.Helper()
	parts, err := reqlog.Partitions(context.Background(), st.DB)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range parts {
		out = append(out, p.Day.Format("2006-01-02"))
	}
	return out
}

func count(t *testing.T, st *store.Store, table string) int {
	t.Helper()
	var n int
	if err := st.DB.QueryRow(`SELECT count(*) FROM ` + table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// The migration leaves today and three days ahead; a batch of a day with no
// partition (a week ahead, and ten days back) creates it with the three
// after the newest, and every row lands in its own day's partition.
func TestRequestLogPartitionsOnDemand(t *testing.T) {
	st := partitioned(t)
	today := time.Now().UTC().Truncate(24 * time.Hour)
	want := []string{}
	for i := 0; i <= 3; i++ {
		want = append(want, today.AddDate(0, 0, i).Format("2006-01-02"))
	}
	if got := days(t, st); !cmp.Equal(got, want) {
		t.Fatalf("after the migration: days %v, want %v", got, want)
	}
	w := reqlog.NewWriter(st, nil, 0)
	back, ahead := today.AddDate(0, 0, -10).Add(5*time.Hour), today.AddDate(0, 0, 7).Add(23*time.Hour+59*time.Minute)
	for i, at := range []time.Time{back, today.Add(time.Hour), ahead} {
		w.Record(&reqlog.Entry{At: at, Method: "GET", Path: "/v1/tags", Status: 401, RequestID: "req_day_" + string(rune('a'+i))})
	}
	w.Flush()
	if w.Written() != 3 || w.Dropped() != 0 {
		t.Fatalf("written %d, dropped %d; want 3, 0", w.Written(), w.Dropped())
	}
	for _, d := range []time.Time{back, ahead, ahead.AddDate(0, 0, 3)} {
		if !contains(days(t, st), d.Format("2006-01-02")) {
			t.Errorf("no partition of %s: %v", d.Format("2006-01-02"), days(t, st))
		}
	}
	for _, at := range []time.Time{back, today, ahead} {
		if n := count(t, st, reqlog.PartitionName(at)); n != 1 {
			t.Errorf("%s holds %d rows, want 1", reqlog.PartitionName(at), n)
		}
	}
}

// A day dropped behind the writer's back (another server pruned it) is
// made again when a row of it comes: the row lands, nothing is dropped.
func TestRequestLogPartitionDroppedElsewhere(t *testing.T) {
	st := partitioned(t)
	ctx := context.Background()
	old := time.Now().UTC().AddDate(0, 0, -20)
	w := reqlog.NewWriter(st, nil, 0)
	w.Record(&reqlog.Entry{At: old, Method: "GET", Path: "/v1/tags", Status: 401, RequestID: "req_first"})
	w.Flush()
	if _, err := st.DB.ExecContext(ctx, `DROP TABLE `+reqlog.PartitionName(old)); err != nil {
		t.Fatal(err)
	}
	w.Record(&reqlog.Entry{At: old, Method: "GET", Path: "/v1/tags", Status: 401, RequestID: "req_again"})
	w.Flush()
	if w.Dropped() != 0 || count(t, st, reqlog.PartitionName(old)) != 1 {
		t.Fatalf("dropped %d; the day holds %d rows, want 0 and 1", w.Dropped(), count(t, st, reqlog.PartitionName(old)))
	}
}

// Pruning on PostgreSQL drops the days wholly before the cutoff and counts
// their rows; the day holding the cutoff and the days after stay whole.
// The period is the one the operators' documentation gives: 30 days.
func TestRequestLogPruneDropsOldDays(t *testing.T) {
	st := partitioned(t)
	ctx := context.Background()
	now := time.Date(2026, 12, 5, 13, 0, 0, 0, time.UTC)
	cutoff := now.Add(-30 * 24 * time.Hour) // 5 November, 13:00
	w := reqlog.NewWriter(st, nil, 0)
	for id, at := range map[string]time.Time{
		"req_nov3":       time.Date(2026, 11, 3, 12, 0, 0, 0, time.UTC),
		"req_nov4_late":  time.Date(2026, 11, 4, 23, 59, 59, 0, time.UTC),
		"req_nov4_early": time.Date(2026, 11, 4, 0, 0, 0, 0, time.UTC),
		"req_nov5_early": time.Date(2026, 11, 5, 1, 0, 0, 0, time.UTC),
		"req_nov5_late":  time.Date(2026, 11, 5, 20, 0, 0, 0, time.UTC),
		"req_nov6":       time.Date(2026, 11, 6, 0, 0, 0, 0, time.UTC),
		"req_today":      now,
	} {
		w.Record(&reqlog.Entry{At: at, Method: "GET", Path: "/v1/tags", Status: 401, RequestID: id})
	}
	w.Flush()
	n, err := reqlog.Pruner(st)(ctx, cutoff)
	if err != nil || n != 3 {
		t.Fatalf("pruned %d rows (%v), want the 3 of 3 and 4 November", n, err)
	}
	var left []string
	for _, r := range st.Client.APIRequest.Query().Order(apirequest.ByCreatedAt()).AllX(policy.System(ctx)) {
		left = append(left, r.RequestID)
	}
	if want := []string{"req_nov5_early", "req_nov5_late", "req_nov6", "req_today"}; !cmp.Equal(left, want) {
		t.Errorf("left %v, want %v", left, want)
	}
	for _, d := range days(t, st) {
		if d < "2026-11-05" {
			t.Errorf("day %s kept", d)
		}
	}
	today := time.Now().UTC()
	for i := 0; i <= reqlog.Ahead; i++ {
		if d := today.AddDate(0, 0, i).Format("2006-01-02"); !contains(days(t, st), d) {
			t.Errorf("pruning left no partition of %s ahead: %v", d, days(t, st))
		}
	}
}

// Pruning on SQLite deletes the rows before the cutoff's hour (the cutoff
// here is on the hour).
func TestRequestLogPruneDeletesOnSQLite(t *testing.T) {
	st := dbtest.Open(t, dbtest.SQLite)
	ctx := context.Background()
	cutoff := time.Date(2026, 11, 5, 13, 0, 0, 0, time.UTC)
	w := reqlog.NewWriter(st, nil, 0)
	for id, at := range map[string]time.Time{
		"req_before": cutoff.Add(-time.Second),
		"req_at":     cutoff,
		"req_after":  cutoff.Add(time.Hour),
	} {
		w.Record(&reqlog.Entry{At: at, Method: "GET", Path: "/v1/tags", Status: 401, RequestID: id})
	}
	w.Flush()
	n, err := reqlog.Pruner(st)(ctx, cutoff)
	if err != nil || n != 1 {
		t.Fatalf("pruned %d rows (%v), want 1", n, err)
	}
	var left []string
	for _, r := range st.Client.APIRequest.Query().Order(apirequest.ByCreatedAt()).AllX(policy.System(ctx)) {
		left = append(left, r.RequestID)
	}
	if want := []string{"req_at", "req_after"}; !cmp.Equal(left, want) {
		t.Errorf("left %v, want %v", left, want)
	}
}

// COPY on PostgreSQL stores every column as the SQLite insert does: the
// same entries, read back through ent, are the same rows.
func TestRequestLogCopyStoresEveryColumn(t *testing.T) {
	if !hasPostgres(t) {
		t.Skip("COPY is PostgreSQL's; set LARDER_TEST_POSTGRES_URL")
	}
	at := time.Date(2026, 12, 5, 10, 11, 12, 123456789, time.UTC)
	entries := func(acct, key int) []*reqlog.Entry {
		return []*reqlog.Entry{
			{At: at, AccountID: acct, KeyID: key, Method: "POST", Operation: "createTag", Path: "/v1/tags?x=1\t\\y",
				Status: 422, Duration: 1234567 * time.Nanosecond, RequestID: "req_copy_write", ClientRequestID: "mine,\r\n\"quoted\"\\",
				RemoteAddr: "192.0.2.1:4000", UserAgent: "agent/1.0", RequestBody: []byte("{\"name\":\"a\\u0000\"}\x00\xff"),
				ResponseBody: []byte(`{"code":"VALIDATION_ERROR"}`), Truncated: true, Deprecated: "createTag:description listTags?name"},
			{At: at.Add(time.Second), AccountID: acct, KeyID: key, Method: "GET", Operation: "getTag", Path: "/v1/tags/1",
				Status: 200, RequestID: "req_copy_read", RemoteAddr: "[2001:db8::1]:443", ClientRequestID: "a\tb\\c\n", UserAgent: "x\r\ny"},
			{At: at.Add(2 * time.Second), Method: "GET", Path: "/v1/tags", Status: 401, RequestID: "req_copy_unauth",
				ResponseBody: []byte{}, RequestBody: []byte{}},
		}
	}
	read := func(t *testing.T, b dbtest.Backend) []*ent.APIRequest {
		st := dbtest.Open(t, b)
		ctx := context.Background()
		w := reqlog.NewWriter(st, nil, 0)
		for _, e := range entries(700001, 900001) {
			w.Record(e)
		}
		w.Flush()
		rows, err := reqlog.Lookup(ctx, st.Client, "req_copy_write", "req_copy_read", "req_copy_unauth")
		slices.SortFunc(rows, func(a, b *ent.APIRequest) int { return a.CreatedAt.Compare(b.CreatedAt) })
		if err != nil || len(rows) != 3 {
			t.Fatalf("%s: %d rows, want 3", b, len(rows))
		}
		return rows
	}
	pg, lite := read(t, dbtest.Postgres), read(t, dbtest.SQLite)
	if pg[0].AccountID != 700001 || *pg[0].APIKeyID != 900001 {
		t.Errorf("PostgreSQL's account and key: %d %d", pg[0].AccountID, *pg[0].APIKeyID)
	}
	opts := []cmp.Option{
		cmpopts.IgnoreFields(ent.APIRequest{}, "ID"),
		cmpopts.IgnoreUnexported(ent.APIRequest{}),
		cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) }),
		// SQLite's driver reads an empty BLOB back as nil; NULLs are checked below.
		cmp.Comparer(func(a, b []byte) bool { return bytes.Equal(a, b) }),
	}
	if d := cmp.Diff(lite, pg, opts...); d != "" {
		t.Errorf("PostgreSQL's rows (+) differ from SQLite's (-):\n%s", d)
	}
	if pg[0].ErrorCode != "VALIDATION_ERROR" || pg[0].Deprecated != "createTag:description listTags?name" || !pg[0].Truncated ||
		pg[0].DurationUs != 1234 || pg[0].StatusClass != 4 || string(pg[0].RequestBody) != "{\"name\":\"a\\u0000\"}\x00\xff" {
		t.Errorf("PostgreSQL's write row: %+v", pg[0])
	}
	if pg[1].RequestBody != nil || pg[2].AccountID != reqlog.NoAccount || pg[2].APIKeyID != nil || pg[2].RequestBody == nil {
		t.Errorf("NULLs: read's body %v, failed authentication's account %d, key %v and body %v", pg[1].RequestBody, pg[2].AccountID, pg[2].APIKeyID, pg[2].RequestBody)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
