package reqlog_test

import (
	"context"
	"database/sql"
	"strings"
	"sync"
	"testing"
	"time"

	"entgo.io/ent/dialect"

	"larder.dev/larder/internal/platform/ids"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/reqlog"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/policy"
)

// A search for one key's or one operation's requests reads the account's
// time index newest first, without a sort, and tests the key or the
// operation on the index entry itself: the index carries both after the
// time, so that no index of their own costs each logged request an entry.
// A write operation's requests are read from the partial index of the
// writes, which carries the operation likewise. On PostgreSQL the condition shows as the index scan's Index Cond (a
// Filter would be a visit to the table per entry); SQLite names the index
// and no temporary B-tree for the order.
func TestKeyAndOperationSearchesTestTheirIndexEntries(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		org := dbtest.NewOrg(t, st, "")
		w := reqlog.NewWriter(st, nil, 0)
		at := time.Now().UTC().Add(-time.Hour)
		for i := range 20 {
			w.Record(&reqlog.Entry{At: at.Add(time.Duration(i) * time.Second), AccountID: org.Live.ID, KeyID: 1 + i%3,
				Method: "GET", Operation: []string{"getTag", "listTags"}[i%2], Path: "/v1/tags", Status: 200, RequestID: "req_ix" + string(rune('a'+i))})
		}
		for i := range 3 {
			w.Record(&reqlog.Entry{At: at.Add(time.Duration(i) * time.Minute), AccountID: org.Live.ID, KeyID: 1, Method: "POST", Operation: "createTag",
				Path: "/v1/tags", Status: 201, RequestID: "req_ixw" + string(rune('a'+i)), RequestBody: []byte(`{}`), ResponseBody: []byte(`{}`)})
		}
		w.Flush()

		var (
			mu          sync.Mutex
			sent, reads []store.Call
		)
		obs := dbtest.Observed(t, st, func(c store.Call) {
			if !c.Statement() || !strings.HasPrefix(c.SQL, "SELECT") {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			switch {
			case strings.Contains(c.SQL, "api_requests"):
				sent = append(sent, c)
			case strings.Contains(c.SQL, "api_request_reads"):
				reads = append(reads, c)
			}
		})
		for _, c := range []struct {
			name   string
			filter reqlog.Filter
			column string
			index  string // the partitioned index the search reads
			rows   int
			// readsIndex is the index of the rows of reads the search
			// reads; "" when the filter matches no plain read, and the
			// search sends them no statement.
			readsIndex string
		}{
			{"a key", reqlog.Filter{KeyID: 2}, "api_key_id", "apirequest_account_time", 7, "apirequestread_account_time"},
			{"an operation", reqlog.Filter{Operation: "getTag"}, "operation", "apirequest_account_time", 10, "apirequestread_account_time"},
			// A write operation: the partial index of the writes.
			{"a write operation", reqlog.Filter{Operation: "createTag"}, "operation", "apirequest_kept", 3, ""},
		} {
			mu.Lock()
			sent, reads = nil, nil
			mu.Unlock()
			page, err := reqlog.List(ctx, obs.Client, org.Org.ID, policy.Live, c.filter)
			if err != nil || len(page) != c.rows {
				t.Fatalf("%s: %d rows, %v; want %d", c.name, len(page), err, c.rows)
			}
			mu.Lock()
			q := sent[len(sent)-1]
			rq := reads
			mu.Unlock()
			if c.readsIndex == "" && len(rq) != 0 || c.readsIndex != "" && len(rq) == 0 {
				t.Errorf("%s: %d statements to the rows of reads", c.name, len(rq))
			}
			for _, r := range rq {
				checkPlan(t, st, c.name+" (reads)", explain(t, st, r), c.readsIndex, c.column)
			}
			checkPlan(t, st, c.name, explain(t, st, q), c.index, c.column)
		}
	})
}

// checkPlan checks that plan reads index (its partitions' copies on
// PostgreSQL), testing column on its entries, without sorting the rows.
func checkPlan(t *testing.T, st *store.Store, name, plan, index, column string) {
	t.Helper()
	switch st.Dialect {
	case dialect.Postgres:
		// Each day partition has its own copy of the index, named after
		// its columns; the plan must read those copies and test the
		// column in each one's Index Cond.
		days := partitionIndexes(t, st, index)
		scans := 0
		lines := strings.Split(plan, "\n")
		for i, line := range lines {
			if !strings.Contains(line, "Index Scan") {
				continue
			}
			scans++
			ix, _, _ := strings.Cut(strings.TrimSpace(line[strings.Index(line, " using ")+7:]), " ")
			if !days[ix] || i+1 >= len(lines) || !strings.Contains(lines[i+1], "Index Cond:") || !strings.Contains(lines[i+1], column) {
				t.Errorf("%s: %q reads another index than %s, or does not test %s on its entries:\n%s", name, line, index, column, plan)
			}
		}
		if scans == 0 || strings.Contains(plan, "Sort") {
			t.Errorf("%s: no index read, or the rows are sorted:\n%s", name, plan)
		}
	case dialect.SQLite:
		if !strings.Contains(plan, index) || strings.Contains(plan, "TEMP B-TREE") {
			t.Errorf("%s: the plan reads another index or sorts the rows:\n%s", name, plan)
		}
	}
}

// partitionIndexes are the names of the day partitions' copies of the
// partitioned index name.
func partitionIndexes(t *testing.T, st *store.Store, name string) map[string]bool {
	t.Helper()
	rows, err := st.DB.QueryContext(context.Background(),
		`SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = $1::regclass`, name)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		out[n] = true
	}
	if err := rows.Err(); err != nil || len(out) == 0 {
		t.Fatalf("the partitions' copies of %s: %v, %v", name, out, err)
	}
	return out
}

// explain is the plan of the statement q on st's database: on PostgreSQL
// with sequential scans and sorts priced out (a table of a few rows is
// otherwise read whole), so that the plan shows what the index serves.
func explain(t *testing.T, st *store.Store, q store.Call) string {
	t.Helper()
	ctx := context.Background()
	tx, err := st.DB.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	prefix := "EXPLAIN QUERY PLAN "
	if st.Dialect == dialect.Postgres {
		prefix = "EXPLAIN (COSTS OFF) "
		if _, err := tx.ExecContext(ctx, "SET LOCAL enable_seqscan = off; SET LOCAL enable_sort = off"); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := tx.QueryContext(ctx, prefix+q.SQL, q.Args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var lines []string
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, vals[len(vals)-1].String)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return strings.Join(lines, "\n")
}

// A request found by its id is searched for in the seconds around the time
// the id carries: on PostgreSQL the plan reads that day's partition alone,
// not every day's, through the account's time index (the request id has no
// index of its own); an id that carries no time is searched for everywhere.
func TestFindReadsTheDayOfTheRequestID(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		org := dbtest.NewOrg(t, st, "")
		at := time.Now().UTC().Truncate(24 * time.Hour).Add(12*time.Hour + 345*time.Millisecond) // far from a day's edges
		id := ids.NewAt("req_", at)
		w := reqlog.NewWriter(st, nil, 0)
		w.Record(&reqlog.Entry{At: at.Add(300 * time.Microsecond), AccountID: org.Test.ID, Method: "GET", Path: "/v1/tags", Status: 200, RequestID: id})
		w.Record(&reqlog.Entry{At: at, AccountID: org.Live.ID, Method: "GET", Path: "/v1/tags", Status: 200, RequestID: "req_without_time"})
		w.Flush()

		var (
			mu   sync.Mutex
			sent []store.Call
		)
		obs := dbtest.Observed(t, st, func(c store.Call) {
			if c.Statement() && strings.HasPrefix(c.SQL, "SELECT") && strings.Contains(c.SQL, "request_id") {
				mu.Lock()
				sent = append(sent, c)
				mu.Unlock()
			}
		})
		r, env, err := reqlog.Find(ctx, obs.Client, org.Org.ID, id)
		if err != nil || r.RequestID != id || env != policy.Test {
			t.Fatalf("Find(%s) = %v, %s, %v", id, r, env, err)
		}
		if r, _, err := reqlog.Find(ctx, obs.Client, org.Org.ID, "req_without_time"); err != nil || r.RequestID != "req_without_time" {
			t.Fatalf("Find(req_without_time) = %v, %v", r, err)
		}
		if st.Dialect != dialect.Postgres {
			t.Log("SQLite keeps the log in one table: only the answers are checked")
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if len(sent) != 3 {
			t.Fatalf("the two searches sent %d statements, want 3 (the id's in live, then in test; then the other's in live)", len(sent))
		}
		day := "api_requests_" + at.Format("20060102")
		for i, want := range []int{1, 1} {
			plan := explain(t, st, sent[i])
			if n := strings.Count(plan, " on api_requests_"); n != want || !strings.Contains(plan, " on "+day) {
				t.Errorf("the id's search reads %d partitions, want %s alone:\n%s", n, day, plan)
			}
			if !strings.Contains(plan, "Index Cond: ((account_id = ") || !strings.Contains(plan, "created_at >=") || strings.Contains(plan, "Seq Scan") {
				t.Errorf("the id's search does not read the account's time index within the id's seconds:\n%s", plan)
			}
		}
		if plan := explain(t, st, sent[2]); strings.Count(plan, " on api_requests_") < 2 {
			t.Errorf("an id without a time is searched for in one partition:\n%s", plan)
		}
	})
}
