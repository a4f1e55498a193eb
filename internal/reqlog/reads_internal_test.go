package reqlog

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"larder.dev/larder/ent"
	"larder.dev/larder/internal/platform/ids"
	"larder.dev/larder/migrate"
)

// requestIDs make the request ids of TestReadsEncodeDecode: Larder's own,
// which are stored as their 16 bytes, and others that only look alike,
// stored as they are.
var requestIDs = []func(i int) string{
	func(i int) string { return ids.NewAt("req_", time.UnixMilli(int64(i)*7919)) },
	func(i int) string { return fmt.Sprintf("req_%06d", i) },
	func(i int) string { return strings.ToLower(ids.NewAt("req_", time.UnixMilli(int64(i)))) },
	func(int) string { return "req_8" + strings.Repeat("0", 25) },
	func(i int) string { return "req_" + strings.Repeat("Z", 26) },
	func(int) string { return "req_7" + strings.Repeat("Z", 25) },
	func(int) string { return "" },
	func(i int) string { return ids.NewAt("req_", time.UnixMilli(int64(i)*7919))[:29] + "I" },
}

// A row of reads decodes to the requests it was made of, field for field,
// whatever their strings repeat; a cut or altered encoding is refused.
func TestReadsEncodeDecode(t *testing.T) {
	at := time.Date(2026, 12, 1, 8, 0, 0, 123000, time.UTC)
	var reads []*row
	for i := range 300 {
		reads = append(reads, &row{at: at.Add(time.Duration(i*i) * time.Microsecond), account: 5, key: 9, method: "GET", operation: "getTag",
			path: fmt.Sprintf("/v1/tags/%d?x=é\t", i), status: 200 + i%7, requestID: requestIDs[i%len(requestIDs)](i),
			clientRequestID: []string{"", "sync-1", "sync-2"}[i%3], addr: []string{"203.0.113.1", "2001:db8::1"}[i%2],
			userAgent: "agent/" + fmt.Sprint(i%5), us: int64(i * 1000)})
	}
	rowIDs := make([]int64, len(reads))
	for i := range rowIDs {
		rowIDs[i] = 1_000_000 + int64(i*3)
	}
	rr := readRow{readGroup: readGroup{account: 5, key: 9, method: "GET", operation: "getTag"}, reads: reads, ids: rowIDs}
	stored := &ent.APIRequestRead{ID: 1, AccountID: 5, APIKeyID: 9, Method: "GET", Operation: "getTag", FirstAt: reads[0].at,
		LastAt: reads[len(reads)-1].at, FirstID: int(rowIDs[0]), Requests: len(reads), Entries: encodeReads(nil, &rr)}
	got, err := decodeReads(stored)
	if err != nil {
		t.Fatal(err)
	}
	acct, key := 5, 9
	want := make([]*ent.APIRequest, len(reads))
	for i, r := range reads {
		want[i] = &ent.APIRequest{ID: int(rowIDs[i]), CreatedAt: r.at, AccountID: acct, APIKeyID: &key, Method: "GET", Operation: "getTag",
			Path: r.path, Status: r.status, StatusClass: 2, RequestID: r.requestID, ClientRequestID: r.clientRequestID,
			DurationUs: r.us, ClientAddr: r.addr, UserAgent: r.userAgent}
	}
	if d := cmp.Diff(want, got, cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) }), cmpopts.IgnoreUnexported(ent.APIRequest{})); d != "" {
		t.Fatalf("decoded (-want +got):\n%s", d)
	}
	// A key's reads of one path: each takes its numbers (at most 8 bytes
	// here), a byte for the path it shares, one for the empty rest, 17 for
	// its request id and three for the references; the strings once. With
	// the path, the request id's 31 bytes or the other strings written out
	// each time it would take 10, 14 or 40 bytes more.
	same := readRow{readGroup: rr.readGroup, ids: rowIDs[:100]}
	for i := range 100 {
		same.reads = append(same.reads, &row{at: at.Add(time.Duration(i) * time.Millisecond), status: 200, us: 900,
			path: "/v1/tags/1", requestID: ids.NewAt("req_", at.Add(time.Duration(i)*time.Millisecond)),
			clientRequestID: "sync-run-20261201", addr: "203.0.113.1", userAgent: "larder-sync/1.4 (go1.23)"})
	}
	if n := len(encodeReads(nil, &same)); n > 100*30+70 {
		t.Errorf("100 reads of one path encoded in %d bytes", n)
	}
	for _, cut := range []int{0, 1, 2, len(stored.Entries) / 2, len(stored.Entries) - 1} {
		bad := *stored
		bad.Entries = stored.Entries[:cut]
		if _, err := decodeReads(&bad); err == nil {
			t.Errorf("entries cut at %d of %d decoded", cut, len(stored.Entries))
		}
	}
	bad := *stored
	bad.Requests++
	if _, err := decodeReads(&bad); err == nil {
		t.Error("a row holding one request fewer than it says decoded")
	}
}

// A batch's plain reads are grouped by account, key, method and operation,
// in time order, each row within the span and maxReads; the others keep
// their order; ids drawn apart split a row where they part.
func TestSplitReadsAndGiveIDs(t *testing.T) {
	base := time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)
	var rows []row
	for i := range 2500 {
		r := row{at: base.Add(time.Duration(2499-i) * 10 * time.Millisecond), account: 1, key: int64(1 + i%2), method: "GET",
			operation: "getTag", status: 200, requestID: fmt.Sprint(i)}
		rows = append(rows, r)
	}
	rows = append(rows,
		row{at: base, account: 1, key: 1, method: "GET", status: 404, code: "NOT_FOUND", requestID: "e"},
		row{at: base, account: 1, key: 1, method: "POST", status: 201, request: []byte{}, response: []byte{}, requestID: "w"},
		row{at: base, account: 1, key: 1, method: "GET", status: 200, deprecated: "listTags?name", requestID: "d"},
		row{at: base, method: "GET", status: 401, requestID: "f"},
		row{at: base, account: 1, key: 1, method: "GET", status: 304, requestID: "n"},
	)
	reads, others := splitReads(rows, 5*time.Second)
	var kept []string
	for _, o := range others {
		kept = append(kept, o.requestID)
	}
	if d := cmp.Diff([]string{"e", "w", "d", "f", "n"}, kept); d != "" {
		t.Errorf("others (-want +got):\n%s", d)
	}
	// 1,250 reads of each key, 10 ms apart per request: 20 ms apart per
	// key, 251 in five seconds (both ends in).
	n := 0
	for _, r := range reads {
		n += len(r.reads)
		if len(r.reads) > 251 || r.reads[len(r.reads)-1].at.Sub(r.reads[0].at) > 5*time.Second {
			t.Fatalf("a row of %d reads spans %s", len(r.reads), r.reads[len(r.reads)-1].at.Sub(r.reads[0].at))
		}
		for i := 1; i < len(r.reads); i++ {
			if r.reads[i].at.Before(r.reads[i-1].at) || r.reads[i].key != r.key {
				t.Fatal("a row's reads are out of order or of two keys")
			}
		}
	}
	if n != 2500 || len(reads) != 10 {
		t.Errorf("%d reads in %d rows, want 2500 in 10", n, len(reads))
	}
	full, _ := splitReads(rows[:2500], maxSpan)
	// 1,250 reads of each key: two full rows and one of 250.
	if len(full) != 6 || len(full[0].reads) != maxReads || len(full[1].reads) != maxReads || len(full[2].reads) != 250 {
		t.Errorf("with a minute's span: %d rows, the first of %d reads", len(full), len(full[0].reads))
	}

	ids := make([]int64, 2500)
	for i := range ids {
		ids[i] = int64(i + 1)
		if i >= 300 {
			ids[i] += maxIDSpan // another writer's ids between the 300th and the 301st
		}
	}
	given := giveIDs(full, ids)
	if len(given) != len(full)+1 || len(given[0].reads) != 300 || len(given[1].reads) != 200 || given[1].ids[0] != 301+maxIDSpan {
		t.Fatalf("ids split %d rows, the first two of %d and %d reads", len(given), len(given[0].reads), len(given[1].reads))
	}
	for _, g := range given {
		if len(g.ids) != len(g.reads) || g.ids[len(g.ids)-1]-g.ids[0] >= maxIDSpan {
			t.Errorf("a row of %d reads has %d ids from %d to %d", len(g.reads), len(g.ids), g.ids[0], g.ids[len(g.ids)-1])
		}
	}
}

// A full batch of plain reads takes the ids of one value of api_requests'
// sequence (putOneValue), and its rows of api_requests fit SQLite's bound on
// a statement's parameters.
func TestBatchSizeFitsOneValueAndSQLite(t *testing.T) {
	if batchSize > migrate.RequestIDStep {
		t.Errorf("a batch of %d reads needs more than one value of a sequence stepping by %d", batchSize, migrate.RequestIDStep)
	}
	if n := sqliteRows * len(columns); n > 32766 {
		t.Errorf("one INSERT of %d rows sends %d parameters, above SQLite's 32,766", sqliteRows, n)
	}
}

// A log loaded in bulk is cut into runs as the writer's batches are: at
// most batchSize rows, each run within the span of its first row.
func TestBatches(t *testing.T) {
	base := time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)
	var rows []row
	for _, ms := range []int{0, 100, 250, 251, 300, -10, 900} {
		rows = append(rows, row{at: base.Add(time.Duration(ms) * time.Millisecond)})
	}
	var sizes []int
	for _, b := range batches(rows, 250*time.Millisecond) {
		sizes = append(sizes, len(b))
	}
	if d := cmp.Diff([]int{3, 2, 1, 1}, sizes); d != "" {
		t.Errorf("runs (-want +got):\n%s", d)
	}
	many := make([]row, 2*batchSize+1)
	for i := range many {
		many[i].at = base
	}
	sizes = sizes[:0]
	for _, b := range batches(many, maxSpan) {
		sizes = append(sizes, len(b))
	}
	if d := cmp.Diff([]int{batchSize, batchSize, 1}, sizes); d != "" {
		t.Errorf("runs of one instant (-want +got):\n%s", d)
	}
}
