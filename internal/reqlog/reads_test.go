package reqlog_test

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strconv"
	"testing"
	"time"

	"entgo.io/ent/dialect"
	"github.com/google/go-cmp/cmp"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/apirequest"
	"larder.dev/larder/ent/apirequestread"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/internal/reqlog"
	"larder.dev/larder/internal/testkit/dbtest"
	"larder.dev/larder/migrate"
	"larder.dev/larder/policy"
)

// The plain reads (GET or HEAD answered 2xx, no body, nothing deprecated)
// are stored a batch's key and operation to a row, and every search, page,
// lookup and pruning finds them as it finds the other requests: the log
// reads as if every request were a row.
func TestPlainReadsReadAsRows(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		sys := policy.System(ctx)
		mine, other := dbtest.NewOrg(t, st, ""), dbtest.NewOrg(t, st, "")
		w := reqlog.NewWriter(st, nil, 0)
		base := time.Date(2026, 11, 3, 9, 0, 0, 0, time.UTC)
		type sent struct {
			rid   string
			at    time.Time
			plain bool
			e     reqlog.Entry
		}
		var all []sent
		add := func(e reqlog.Entry, plain bool) {
			e.RequestID = fmt.Sprintf("req_plain%03d", len(all))
			e.At = base.Add(time.Duration(len(all)) * 7 * time.Second)
			if e.AccountID == 0 {
				e.AccountID = mine.Live.ID
			}
			all = append(all, sent{rid: e.RequestID, at: e.At, plain: plain, e: e})
			w.Record(&e)
		}
		for i := range 60 {
			key, op, path := 11, "getTag", fmt.Sprintf("/v1/tags/%d", i)
			if i%3 == 0 {
				key, op, path = 12, "listTags", "/v1/tags?limit=200&after="+fmt.Sprint(i)
			}
			method := "GET"
			if i%10 == 5 {
				method = "HEAD"
			}
			status := 200
			if i == 8 {
				status = 206
			}
			add(reqlog.Entry{KeyID: key, Method: method, Operation: op, Path: path, Status: status, Duration: time.Duration(100+i) * time.Microsecond,
				ClientRequestID: fmt.Sprintf("sync-%d", i%4), RemoteAddr: "203.0.113.7:4000", UserAgent: "sync/2.0"}, true)
			switch i % 12 {
			case 4:
				add(reqlog.Entry{KeyID: 11, Method: "GET", Operation: "getTag", Path: "/v1/tags/0", Status: 404,
					ResponseBody: []byte(`{"code":"NOT_FOUND"}`)}, false)
			case 7:
				add(reqlog.Entry{KeyID: 12, Method: "POST", Operation: "createTag", Path: "/v1/tags", Status: 201,
					RequestBody: []byte(`{}`), ResponseBody: []byte(`{}`)}, false)
			case 9:
				add(reqlog.Entry{KeyID: 11, Method: "GET", Operation: "listTags", Path: "/v1/tags?name=x", Status: 200, Deprecated: "listTags?name"}, false)
			case 10:
				add(reqlog.Entry{KeyID: 11, Method: "GET", Operation: "getTag", Path: "/v1/tags/3", Status: 304}, false)
			}
		}
		w.Record(&reqlog.Entry{At: base.Add(time.Second), AccountID: other.Live.ID, KeyID: 99, Method: "GET", Operation: "getTag",
			Path: "/v1/tags/1", Status: 200, RequestID: "req_theirs_plain"})
		w.Flush()
		if got, want := w.Written(), int64(len(all)+1); got != want {
			t.Fatalf("written %d, want %d", got, want)
		}

		// Stored: the plain ones in rows of reads, the others as rows.
		nplain := 0
		for _, s := range all {
			if s.plain {
				nplain++
			}
		}
		if n := st.Client.APIRequest.Query().Where(apirequest.AccountID(mine.Live.ID)).CountX(sys); n != len(all)-nplain {
			t.Errorf("api_requests holds %d of the account's requests, want the %d that are not plain reads", n, len(all)-nplain)
		}
		rrs := st.Client.APIRequestRead.Query().Where(apirequestread.AccountID(mine.Live.ID)).AllX(sys)
		held := 0
		for _, rr := range rrs {
			held += rr.Requests
		}
		// Three groups of key, method and operation, each within a minute
		// (60 reads seven seconds apart: about seven minutes).
		if held != nplain || len(rrs) < 3 || len(rrs) > 3*9 {
			t.Errorf("%d rows of reads hold %d requests, want the %d plain reads in at most 27 rows", len(rrs), held, nplain)
		}

		// Paged newest first, three at a time, through both tables: every
		// request once, in order.
		var paged []*ent.APIRequest
		before := 0
		for {
			page, err := reqlog.List(ctx, st.Client, mine.Org.ID, policy.Live, reqlog.Filter{Limit: 3, Before: before})
			if err != nil {
				t.Fatal(err)
			}
			paged = append(paged, page...)
			if len(page) < 3 {
				break
			}
			before = page[len(page)-1].ID
		}
		want := make([]string, len(all))
		for i, s := range all {
			want[len(all)-1-i] = s.rid
		}
		if got := rids(paged); !slices.Equal(got, want) {
			t.Fatalf("paged\n%v\nwant\n%v", got, want)
		}
		ids := map[int]bool{}
		for _, r := range paged {
			if ids[r.ID] {
				t.Fatalf("row id %d given twice", r.ID)
			}
			ids[r.ID] = true
		}

		// A read reads back with every field it was recorded with.
		var e8 reqlog.Entry
		for _, s := range all {
			if s.rid == "req_plain010" {
				e8 = s.e
			}
		}
		r, env, err := reqlog.Find(ctx, st.Client, mine.Org.ID, "req_plain010")
		if err != nil || env != policy.Live {
			t.Fatalf("find a plain read: %v %v", env, err)
		}
		if r.Method != "GET" || r.Operation != "getTag" || r.Path != e8.Path || r.Status != 206 || r.StatusClass != 2 || r.DurationUs != 108 ||
			r.ClientRequestID != "sync-0" || r.ClientAddr != "203.0.113.7" || r.UserAgent != "sync/2.0" || *r.APIKeyID != 11 ||
			r.AccountID != mine.Live.ID || !r.CreatedAt.Equal(e8.At) || r.RequestBody != nil || r.ErrorCode != "" {
			t.Errorf("read back %+v, recorded %+v", r, e8)
		}
		got, err := reqlog.Get(ctx, st.Client, mine.Org.ID, policy.Live, r.ID)
		if err != nil || got.RequestID != "req_plain010" || got.ID != r.ID {
			t.Fatalf("get row %d: %v %v", r.ID, got, err)
		}
		if _, err := reqlog.Get(ctx, st.Client, mine.Org.ID, policy.Test, r.ID); err == nil {
			t.Error("a live read was found by its row id in the test account")
		}
		if _, _, err := reqlog.Find(ctx, st.Client, mine.Org.ID, "req_theirs_plain"); err == nil {
			t.Error("another organization's plain read was found")
		}
		theirs, err := reqlog.Lookup(ctx, st.Client, "req_theirs_plain")
		if err != nil || len(theirs) != 1 {
			t.Fatalf("lookup: %v %v", theirs, err)
		}
		if _, err := reqlog.List(ctx, st.Client, mine.Org.ID, policy.Live, reqlog.Filter{Before: theirs[0].ID}); err == nil {
			t.Error("another organization's plain read served as a cursor")
		}

		// Each filter lists what it names from both tables.
		match := func(f func(s sent) bool) []string {
			var out []string
			for i := len(all) - 1; i >= 0; i-- {
				if f(all[i]) {
					out = append(out, all[i].rid)
				}
			}
			return out
		}
		mid := base.Add(30 * 7 * time.Second)
		for _, c := range []struct {
			name string
			f    reqlog.Filter
			want []string
		}{
			{"key 12", reqlog.Filter{KeyID: 12}, match(func(s sent) bool { return s.e.KeyID == 12 })},
			{"listTags", reqlog.Filter{Operation: "listTags"}, match(func(s sent) bool { return s.e.Operation == "listTags" })},
			{"HEAD", reqlog.Filter{Method: "head"}, match(func(s sent) bool { return s.e.Method == "HEAD" })},
			{"GET", reqlog.Filter{Method: "GET"}, match(func(s sent) bool { return s.e.Method == "GET" })},
			{"2xx", reqlog.Filter{StatusClass: 2}, match(func(s sent) bool { return s.e.Status < 300 })},
			{"4xx", reqlog.Filter{StatusClass: 4}, match(func(s sent) bool { return s.e.Status >= 400 })},
			{"POST", reqlog.Filter{Method: "POST"}, match(func(s sent) bool { return s.e.Method == "POST" })},
			{"getTag of key 11 in two minutes", reqlog.Filter{Operation: "getTag", KeyID: 11, Since: mid, Until: mid.Add(2 * time.Minute)},
				match(func(s sent) bool {
					return s.e.Operation == "getTag" && s.e.KeyID == 11 && !s.at.Before(mid) && s.at.Before(mid.Add(2*time.Minute))
				})},
		} {
			got, err := reqlog.List(ctx, st.Client, mine.Org.ID, policy.Live, reqlog.Filter{
				KeyID: c.f.KeyID, Operation: c.f.Operation, Method: c.f.Method, StatusClass: c.f.StatusClass, Since: c.f.Since, Until: c.f.Until, Limit: reqlog.MaxPage})
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			if len(c.want) == 0 || !slices.Equal(rids(got), c.want) {
				t.Errorf("%s: listed %v, want %v", c.name, rids(got), c.want)
			}
		}

		// Pruning takes the rows of reads with the rows (and, on
		// PostgreSQL, the other tests' older rows in the package's
		// database).
		n, err := reqlog.Prune(ctx, st.Client, base.Add(3*time.Hour))
		if err != nil || n < len(all)+1 {
			t.Fatalf("pruned %d (%v), want at least %d", n, err, len(all)+1)
		}
		left, err := reqlog.Lookup(ctx, st.Client, append(want, "req_theirs_plain")...)
		if err != nil || len(left) != 0 {
			t.Errorf("left after pruning: %v (%v)", rids(left), err)
		}
		if n := st.Client.APIRequestRead.Query().Where(apirequestread.AccountIDIn(mine.Live.ID, other.Live.ID)).CountX(sys); n != 0 {
			t.Errorf("%d rows of reads left after pruning them all", n)
		}
	})
}

func rids(rs []*ent.APIRequest) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.RequestID
	}
	return out
}

// A batch's plain reads take contiguous ids, on PostgreSQL those of one
// value drawn from api_requests' sequence, which steps by 1024: a batch
// draws a value for its reads and one for each other row, not one for each
// read.
func TestABatchsReadsTakeOneValueOfTheSequence(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		sys := policy.System(ctx)
		org := dbtest.NewOrg(t, st, "")
		lastValue := func() int64 {
			var v sql.NullInt64
			// Direct SQL: the last value drawn from api_requests' sequence, which ent has no words for.
			if err := st.DB.QueryRowContext(ctx, `SELECT pg_sequence_last_value(pg_get_serial_sequence('api_requests', 'id')::regclass)`).Scan(&v); err != nil {
				t.Fatal(err)
			}
			return v.Int64
		}
		w := reqlog.NewWriter(st, nil, 0)
		at := time.Date(2026, 11, 4, 9, 0, 0, 0, time.UTC)
		// A row first, so that the sequence has a last value on a new
		// database too.
		w.Record(&reqlog.Entry{At: at, AccountID: org.Live.ID, KeyID: 5, Method: "DELETE", Operation: "deleteTag",
			Path: "/v1/tags/1", Status: 204, RequestID: "req_blockfirst"})
		w.Flush()
		var before int64
		if st.Dialect == dialect.Postgres {
			before = lastValue()
		}
		const reads = 300
		for i := range reads {
			w.Record(&reqlog.Entry{At: at.Add(time.Duration(i) * time.Millisecond), AccountID: org.Live.ID, KeyID: 5, Method: "GET",
				Operation: "getTag", Path: fmt.Sprintf("/v1/tags/%d", i), Status: 200, RequestID: fmt.Sprintf("req_block%03d", i)})
		}
		for i := range 2 {
			w.Record(&reqlog.Entry{At: at.Add(time.Second), AccountID: org.Live.ID, KeyID: 5, Method: "POST", Operation: "createTag",
				Path: "/v1/tags", Status: 201, RequestID: fmt.Sprintf("req_blockpost%d", i)})
		}
		w.Flush()

		rrs := st.Client.APIRequestRead.Query().Where(apirequestread.AccountID(org.Live.ID)).AllX(sys)
		if len(rrs) != 1 || rrs[0].Requests != reads {
			t.Fatalf("%d rows of reads, want one holding the %d reads", len(rrs), reads)
		}
		if rr := rrs[0]; rr.LastID-rr.FirstID+1 != reads {
			t.Errorf("the reads' ids run from %d to %d, want %d contiguous ids", rr.FirstID, rr.LastID, reads)
		}
		for _, i := range []int{0, 137, reads - 1} {
			got, err := reqlog.Get(ctx, st.Client, org.Org.ID, policy.Live, rrs[0].FirstID+i)
			if err != nil || got.RequestID != fmt.Sprintf("req_block%03d", i) {
				t.Errorf("row id %d: %v %v, want the read req_block%03d", rrs[0].FirstID+i, got, err, i)
			}
		}
		if st.Dialect != dialect.Postgres {
			return
		}
		// Three values: the reads' and the two other rows'.
		if got, want := lastValue()-before, int64(3*migrate.RequestIDStep); got != want {
			t.Errorf("the sequence moved by %d, want %d: a value for the reads and one for each other row", got, want)
		}
	})
}

// A batch of plain reads alone is stored in one statement on PostgreSQL
// that draws the value of the sequence its reads' ids come from: rows of
// reads of two accounts, two keys and two hours take contiguous ids, each
// read is found by its own, and each hour is counted. With a sequence that
// steps by 1 (as Citus leaves a distributed table's), the reads draw a
// value each, and the same holds.
func TestABatchOfReadsAloneTakesItsIDsAndCounts(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		sys := policy.System(ctx)
		a, b := dbtest.NewOrg(t, st, ""), dbtest.NewOrg(t, st, "")
		h := time.Date(2026, 11, 5, 10, 0, 0, 0, time.UTC)
		check := func(t *testing.T, tag string, w *reqlog.Writer) {
			type sent struct {
				acct int
				rid  string
			}
			var all []sent
			record := func(acct, key int, at time.Time) {
				rid := fmt.Sprintf("req_%s%02d", tag, len(all))
				all = append(all, sent{acct, rid})
				w.Record(&reqlog.Entry{At: at, AccountID: acct, KeyID: key, Method: "GET", Operation: "getTag",
					Path: fmt.Sprintf("/v1/tags/%d", len(all)), Status: 200, RequestID: rid})
			}
			for i := range 4 {
				record(a.Live.ID, 5, h.Add(59*time.Minute+time.Duration(i)*time.Second))
				record(a.Live.ID, 6, h.Add(59*time.Minute+time.Duration(i)*time.Second))
				record(b.Live.ID, 7, h.Add(59*time.Minute+time.Duration(i)*time.Second))
			}
			record(a.Live.ID, 5, h.Add(61*time.Minute))
			before := w.Written()
			w.Flush()
			if w.Written()-before != int64(len(all)) || w.Dropped() != 0 {
				t.Fatalf("written %d, dropped %d; want %d, 0", w.Written()-before, w.Dropped(), len(all))
			}
			rrs := st.Client.APIRequestRead.Query().Where(apirequestread.AccountIDIn(a.Live.ID, b.Live.ID)).
				Order(apirequestread.ByFirstID()).AllX(sys)
			if len(rrs) != 4 {
				t.Fatalf("%d rows of reads, want 4: two keys of one account, one of the other, and the next hour's", len(rrs))
			}
			seen := map[int]bool{}
			for _, rr := range rrs {
				if int(rr.LastID-rr.FirstID+1) != rr.Requests {
					t.Errorf("a row of %d reads has ids %d to %d", rr.Requests, rr.FirstID, rr.LastID)
				}
				for id := rr.FirstID; id <= rr.LastID; id++ {
					if seen[id] {
						t.Errorf("id %d taken twice", id)
					}
					seen[id] = true
				}
			}
			if first, last := rrs[0].FirstID, rrs[len(rrs)-1].LastID; last-first+1 != len(all) {
				t.Errorf("the batch's ids run from %d to %d, want %d contiguous ids", first, last, len(all))
			}
			if st.Dialect == dialect.Postgres {
				// The sequence has handed out every id the reads took: its
				// last value reserves the step's ids from it up.
				var last, step int
				// Direct SQL: the last value and increment of api_requests' sequence, which ent has no words for.
				if err := st.DB.QueryRowContext(ctx, `SELECT pg_sequence_last_value(s::regclass), (SELECT seqincrement FROM pg_sequence WHERE seqrelid = s::regclass) FROM pg_get_serial_sequence('api_requests', 'id') AS s`).Scan(&last, &step); err != nil {
					t.Fatal(err)
				}
				if max := rrs[len(rrs)-1].LastID; max > last+step-1 {
					t.Errorf("a read took id %d, which the sequence (at %d, by %d) will hand out again", max, last, step)
				}
			}
			found := map[string]bool{}
			for id := range seen {
				for _, o := range []*dbtest.Org{a, b} {
					if got, err := reqlog.Get(ctx, st.Client, o.Org.ID, policy.Live, id); err == nil {
						found[got.RequestID] = true
						if want := o.Live.ID; got.AccountID != want {
							t.Errorf("id %d: %s of account %d, want %d", id, got.RequestID, got.AccountID, want)
						}
					}
				}
			}
			for _, s := range all {
				if !found[s.rid] {
					t.Errorf("%s not found by its id", s.rid)
				}
			}
			if d := cmp.Diff([]counted{{h, 8, 0}, {h.Add(time.Hour), 1, 0}}, countsOf(t, st, a.Live.ID)); d != "" {
				t.Errorf("first account's hours (-want +got):\n%s", d)
			}
			if d := cmp.Diff([]counted{{h, 4, 0}}, countsOf(t, st, b.Live.ID)); d != "" {
				t.Errorf("second account's hours (-want +got):\n%s", d)
			}
			// Direct SQL: the test's own rows of reads and counts go, so that the next check starts from none.
			for _, table := range []string{"api_request_reads", "api_request_hours"} {
				if _, err := st.DB.ExecContext(ctx, `DELETE FROM `+table+` WHERE account_id IN (`+strconv.Itoa(a.Live.ID)+`, `+strconv.Itoa(b.Live.ID)+`)`); err != nil {
					t.Fatal(err)
				}
			}
		}
		t.Run("step", func(t *testing.T) { check(t, "step", reqlog.NewWriter(st, nil, 0)) })
		if st.Dialect != dialect.Postgres {
			return
		}
		t.Run("own connection", func(t *testing.T) {
			// The writer's own connection runs the batch's statement
			// prepared where the store caches statements: the cache
			// admits it on its second batch of one shape (four rows of
			// reads, three hours) and prepares it no more after.
			own, err := st.Dedicated(ctx, "larder request log")
			if err != nil {
				t.Fatal(err)
			}
			defer own.Close()
			prepared := func() int {
				var n int
				// Direct SQL: the statements prepared on the writer's connection, from PostgreSQL's session view.
				if err := own.QueryRowContext(ctx, `SELECT count(*) FROM pg_prepared_statements WHERE statement LIKE 'WITH v AS%'`).Scan(&n); err != nil {
					t.Fatal(err)
				}
				return n
			}
			w := reqlog.NewWriter(st, nil, 0)
			w.Dedicate(st, own)
			defer w.Close()
			// On the plain path (no statement cache) nothing is prepared.
			wants := []int{0, 0, 0}
			if ex, stop := st.Cached(own, 1); ex != store.Execer(own) {
				wants = []int{0, 1, 1}
				stop()
			}
			for i, want := range wants {
				check(t, fmt.Sprintf("own%d", i), w)
				if n := prepared(); n != want {
					t.Errorf("after batch %d of one shape %d statements prepared, want %d", i+1, n, want)
				}
			}
		})
		t.Run("by one", func(t *testing.T) {
			setStep := func(n int) {
				// Direct SQL: api_requests' sequence moved past the ids its last value reserved, then its increment set, which ent has no words for.
				if _, err := st.DB.ExecContext(ctx, fmt.Sprintf(`SELECT setval(pg_get_serial_sequence('api_requests', 'id'), nextval(pg_get_serial_sequence('api_requests', 'id'))); ALTER SEQUENCE %s INCREMENT BY %d`, seqName(t, st), n)); err != nil {
					t.Fatal(err)
				}
			}
			setStep(1)
			t.Cleanup(func() { setStep(migrate.RequestIDStep) })
			check(t, "one", reqlog.NewWriter(st, nil, 0))
		})
	})
}

// seqName is the name of api_requests' sequence on PostgreSQL.
func seqName(t *testing.T, st *store.Store) string {
	t.Helper()
	var name string
	// Direct SQL: the name of api_requests' identity's sequence, which ent has no words for.
	if err := st.DB.QueryRow(`SELECT pg_get_serial_sequence('api_requests', 'id')`).Scan(&name); err != nil {
		t.Fatal(err)
	}
	return name
}
