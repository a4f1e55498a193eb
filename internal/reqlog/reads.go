package reqlog

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/apirequestread"
	"larder.dev/larder/ent/predicate"
	"larder.dev/larder/internal/platform/ids"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/policy"
)

// The plain reads. Most of a busy API's requests are GETs answered 200 that
// keep no body: one row each, with its index entries, its WAL and its share
// of a commit, would cost the database more than a tenth of what the GET
// itself costs. So the writer stores them compactly: a batch's plain reads
// of one key, method and operation are one row of api_request_reads, whose
// entries field holds each request's own fields (encodeReads). Every other
// request (an error, a write, a deprecated use, a failed authentication)
// is a row of api_requests, as the searches for them read only there.
//
// Each read has its own id, drawn from api_requests' ids in the batch's
// transaction, so that a row id names one request whichever table holds
// it. A row of reads spans at most maxSpan of time and maxIDSpan of ids:
// the searches bound their scans by them.

const (
	// maxSpan bounds the time from a row of reads' first request to its
	// last.
	maxSpan = time.Minute
	// maxIDSpan bounds the ids of a row of reads: its last is less than
	// its first plus maxIDSpan. A batch's reads (at most batchSize) take
	// the ids of one value of the sequence, which steps by 1024, so a row
	// is cut only where its ids come from two values another writer drew
	// between; the search for an id reads the rows whose first id is
	// within maxIDSpan below it.
	maxIDSpan = 1 << 12
	// maxReads bounds the requests of a row of reads: a search decodes
	// whole rows, the newest eight first, so a row's size is what a page
	// of the log pays to read. A batch of one key and operation's reads
	// (up to batchSize) is two rows.
	maxReads = 500
	// readsVersion is the first byte of a row's entries: the encoding's.
	readsVersion = 1
)

// plain reports whether r is stored as a read: an authenticated GET or HEAD
// answered 2xx, that keeps no body and used nothing deprecated.
func (r *row) plain() bool {
	return r.account != 0 && r.key != 0 && (r.method == "GET" || r.method == "HEAD") &&
		r.status >= 200 && r.status < 300 && r.request == nil && r.response == nil &&
		!r.truncated && r.deprecated == "" && r.code == ""
}

// readGroup is what the requests of a row of reads share.
type readGroup struct {
	account, key      int64
	method, operation string
}

// readRow is a row of api_request_reads as stored: its requests in time
// order and their ids, ascending.
type readRow struct {
	readGroup
	reads []*row
	ids   []int64
}

// splitReads returns rows' plain reads grouped into rows of reads, each of
// one group, in time order, spanning at most span (at most maxSpan) and
// holding at most maxReads, and the other rows, in their order. The reads
// have no ids yet.
func splitReads(rows []row, span time.Duration) (reads []readRow, others []row) {
	var plain []*row
	for i := range rows {
		if rows[i].plain() {
			plain = append(plain, &rows[i])
		} else {
			others = append(others, rows[i])
		}
	}
	if len(plain) == 0 {
		return nil, others
	}
	slices.SortStableFunc(plain, func(a, b *row) int {
		if c := cmp.Compare(a.account, b.account); c != 0 {
			return c
		}
		if c := cmp.Compare(a.key, b.key); c != 0 {
			return c
		}
		if c := cmp.Compare(a.method, b.method); c != 0 {
			return c
		}
		if c := cmp.Compare(a.operation, b.operation); c != 0 {
			return c
		}
		return a.at.Compare(b.at)
	})
	for _, r := range plain {
		g := readGroup{account: r.account, key: r.key, method: r.method, operation: r.operation}
		if n := len(reads); n > 0 {
			last := &reads[n-1]
			if last.readGroup == g && len(last.reads) < maxReads && r.at.Sub(last.reads[0].at) <= span {
				last.reads = append(last.reads, r)
				continue
			}
		}
		reads = append(reads, readRow{readGroup: g, reads: []*row{r}})
	}
	return reads, others
}

// giveIDs gives the reads of rs the ids, ascending, in order (len(ids) reads
// in all): each row's requests take the next ids in their time order. A row
// whose ids would span maxIDSpan or more (another writer drew ids between
// them) is split where they do.
func giveIDs(rs []readRow, ids []int64) []readRow {
	out := make([]readRow, 0, len(rs))
	for _, r := range rs {
		r.ids = ids[:len(r.reads)]
		ids = ids[len(r.reads):]
		for start := 0; start < len(r.reads); {
			end := start + 1
			for end < len(r.reads) && r.ids[end]-r.ids[start] < maxIDSpan {
				end++
			}
			out = append(out, readRow{readGroup: r.readGroup, reads: r.reads[start:end], ids: r.ids[start:end]})
			start = end
		}
	}
	return out
}

// idSequence is api_requests' identity's sequence on PostgreSQL: its name
// and its increment, the ids one value drawn from it reserves (the
// migrations make it 1024; a database left at 1 gets a value an id).
type idSequence struct {
	name string
	step int64
}

// drawIDs returns n new ids of api_requests, ascending, drawn in tx: on
// PostgreSQL from its identity's sequence seq, a value for every seq.step
// ids, each value's ids the step's from it up; on SQLite by moving its
// AUTOINCREMENT counter past them (SQLite has one writer: the ids are
// contiguous).
func drawIDs(ctx context.Context, tx *sql.Tx, dia string, seq idSequence, n int) ([]int64, error) {
	out := make([]int64, 0, n)
	if dia == dialect.Postgres {
		step := seq.step // at least 1: readIDSequence refuses less
		values := (int64(n) + step - 1) / step
		// Direct SQL: the request log's writer draws the ids of a batch's plain reads from api_requests' sequence, a value for every increment's worth of ids, which ent has no words for; the sequence is named by a constant (pg_get_serial_sequence for every value costs more than the value).
		rows, err := tx.QueryContext(ctx, `SELECT nextval('`+strings.ReplaceAll(seq.name, "'", "''")+`'::regclass) FROM generate_series(1, $1)`, values)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		var firsts []int64
		for rows.Next() {
			var v int64
			if err := rows.Scan(&v); err != nil {
				return nil, err
			}
			firsts = append(firsts, v)
		}
		if err := rows.Err(); err != nil {
			return nil, err
		}
		if int64(len(firsts)) != values {
			return nil, fmt.Errorf("drew %d values of %d", len(firsts), values)
		}
		slices.Sort(firsts)
		for _, v := range firsts {
			for id := v; id < v+step && len(out) < n; id++ {
				out = append(out, id)
			}
		}
		return out, nil
	}
	// Direct SQL: the request log's writer moves api_requests' AUTOINCREMENT counter past a batch's plain reads, which take the ids passed (SQLite keeps the counter in sqlite_sequence).
	var last int64
	err := tx.QueryRowContext(ctx, `UPDATE sqlite_sequence SET seq = seq + ? WHERE name = 'api_requests' RETURNING seq`, n).Scan(&last)
	if errors.Is(err, sql.ErrNoRows) {
		// No request was ever stored: the counter starts here.
		last = int64(n)
		_, err = tx.ExecContext(ctx, `INSERT INTO sqlite_sequence (name, seq) VALUES ('api_requests', ?)`, last)
	}
	if err != nil {
		return nil, err
	}
	for id := last - int64(n) + 1; id <= last; id++ {
		out = append(out, id)
	}
	return out, nil
}

// readIDSequence reads api_requests' identity's sequence on PostgreSQL.
func readIDSequence(ctx context.Context, db *sql.DB) (idSequence, error) {
	var name sql.NullString
	var step sql.NullInt64
	// Direct SQL: the name and increment of api_requests' identity's sequence, which ent has no words for.
	err := db.QueryRowContext(ctx, `SELECT s.name, (SELECT seqincrement FROM pg_sequence WHERE seqrelid = s.name::regclass) FROM pg_get_serial_sequence('api_requests', 'id') AS s(name)`).Scan(&name, &step)
	if err != nil {
		return idSequence{}, err
	}
	if !name.Valid || !step.Valid {
		return idSequence{}, errors.New("api_requests.id has no sequence")
	}
	if step.Int64 < 1 {
		return idSequence{}, fmt.Errorf("api_requests' sequence steps by %d: the log needs ids that rise", step.Int64)
	}
	return idSequence{name: name.String, step: step.Int64}, nil
}

// encodeReads appends to b the entries of r: the version, then for each
// request its id and time as the step from the one before (the row's
// first_id and first_at for the first), its status and duration, its path
// as the length it shares with the path before and the rest, its request
// id (appendRequestID), and its caller's request id, client address and
// user agent as references into the strings the row has met so far (most
// requests of one key repeat them).
func encodeReads(b []byte, r *readRow) []byte {
	b = append(b, readsVersion)
	prevID, prevAt := r.ids[0], r.reads[0].at.UnixMicro()
	prevPath := ""
	dict := map[string]uint64{"": 0}
	ref := func(s string) {
		if k, ok := dict[s]; ok {
			b = binary.AppendUvarint(b, k)
			return
		}
		k := uint64(len(dict))
		dict[s] = k
		b = binary.AppendUvarint(b, k)
		b = appendString(b, s)
	}
	for i, e := range r.reads {
		at := e.at.UnixMicro()
		b = binary.AppendUvarint(b, uint64(r.ids[i]-prevID))
		b = binary.AppendUvarint(b, uint64(at-prevAt))
		prevID, prevAt = r.ids[i], at
		b = binary.AppendUvarint(b, uint64(e.status))
		b = binary.AppendUvarint(b, uint64(max(e.us, 0)))
		shared := commonPrefix(prevPath, e.path)
		b = binary.AppendUvarint(b, uint64(shared))
		b = appendString(b, e.path[shared:])
		prevPath = e.path
		b = appendRequestID(b, e.requestID)
		ref(e.clientRequestID)
		ref(e.addr)
		ref(e.userAgent)
	}
	return b
}

// commonPrefix is the length of the prefix a and b share.
func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// requestPrefix begins Larder's request ids.
const requestPrefix = "req_"

// appendRequestID appends a request id: one of Larder's (req_ and 26
// digits of Crockford's base32, as package ids makes them) as a 0 and its
// 16 bytes, any other as its length plus one and its bytes.
func appendRequestID(b []byte, id string) []byte {
	if v, ok := ids.Bits(requestPrefix, id); ok {
		b = append(b, 0)
		return append(b, v[:]...)
	}
	b = binary.AppendUvarint(b, uint64(len(id))+1)
	return append(b, id...)
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// errCorrupt is a row of reads whose entries do not decode.
var errCorrupt = errors.New("request log: a row of reads does not decode")

// decodeReads returns the requests of the row of reads rr, in time order,
// as rows of the log: no error code, no bodies, nothing deprecated.
func decodeReads(rr *ent.APIRequestRead) ([]*ent.APIRequest, error) {
	b := rr.Entries
	if len(b) == 0 || b[0] != readsVersion {
		return nil, errCorrupt
	}
	b = b[1:]
	uv := func() uint64 {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			b = nil
			return 0
		}
		b = b[n:]
		return v
	}
	str := func() string {
		n := uv()
		if n > uint64(len(b)) {
			b = nil
			return ""
		}
		s := string(b[:n])
		b = b[n:]
		return s
	}
	requestID := func() string {
		n := uv()
		if n == 0 {
			if len(b) < 16 {
				b = nil
				return ""
			}
			id := ids.Spell(requestPrefix, [16]byte(b[:16]))
			b = b[16:]
			return id
		}
		if n-1 > uint64(len(b)) {
			b = nil
			return ""
		}
		id := string(b[:n-1])
		b = b[n-1:]
		return id
	}
	prevPath := ""
	dict := []string{""}
	ref := func() string {
		k := uv()
		switch {
		case k < uint64(len(dict)):
			return dict[k]
		case k == uint64(len(dict)):
			s := str()
			dict = append(dict, s)
			return s
		}
		b = nil
		return ""
	}
	out := make([]*ent.APIRequest, 0, rr.Requests)
	id, at := int64(rr.FirstID), rr.FirstAt.UnixMicro()
	acct, key := rr.AccountID, rr.APIKeyID
	for len(b) > 0 {
		id += int64(uv())
		at += int64(uv())
		r := &ent.APIRequest{ID: int(id), CreatedAt: time.UnixMicro(at).UTC(), AccountID: acct, APIKeyID: &key,
			Method: rr.Method, Operation: rr.Operation}
		r.Status = int(uv())
		r.StatusClass = r.Status / 100
		r.DurationUs = int64(uv())
		shared := uv()
		if shared > uint64(len(prevPath)) {
			return nil, errCorrupt
		}
		r.Path = prevPath[:shared] + str()
		prevPath = r.Path
		r.RequestID = requestID()
		r.ClientRequestID = ref()
		r.ClientAddr = ref()
		r.UserAgent = ref()
		if b == nil {
			return nil, errCorrupt
		}
		out = append(out, r)
	}
	if len(out) != rr.Requests {
		return nil, errCorrupt
	}
	return out, nil
}

// putOneValue stores rs, whose reads take the ids of one value of seq, and
// adds counts to their hours' counts, in one statement on PostgreSQL, which
// draws the value itself: a batch of plain reads costs one round trip, a
// transaction of its own, where drawing the value, storing the rows and
// adding the counts took five (BEGIN and COMMIT among them). Each row's
// first id is the value plus the reads of the rows before it; a row's
// entries hold only the steps between its ids, the same whatever the value.
// The caller has made sure the reads are at most seq.step (oneValue).
func putOneValue(ctx context.Context, ex store.Execer, seq idSequence, rs []readRow, counts []hourCount) error {
	var q strings.Builder
	args := make([]any, 0, len(readColumns)*len(rs)+4*len(counts))
	q.WriteString(`WITH v AS (SELECT nextval('` + strings.ReplaceAll(seq.name, "'", "''") + `'::regclass) AS first)`)
	if len(counts) > 0 {
		q.WriteString(`, r AS (`)
	} else {
		q.WriteByte(' ')
	}
	q.WriteString(`INSERT INTO api_request_reads (` + strings.Join(readColumns, ", ") + `) VALUES `)
	var rel []int64
	first := int64(0)
	for i := range rs {
		r := rs[i]
		if i > 0 {
			q.WriteByte(',')
		}
		n := len(args)
		fmt.Fprintf(&q, "($%d, $%d, $%d, $%d, $%d, $%d, (SELECT first FROM v) + $%d, (SELECT first FROM v) + $%d, $%d, $%d)",
			n+1, n+2, n+3, n+4, n+5, n+6, n+7, n+8, n+9, n+10)
		rel = rel[:0]
		for j := range r.reads {
			rel = append(rel, first+int64(j))
		}
		r.ids = rel
		last := first + int64(len(r.reads)) - 1
		args = append(args, r.account, r.key, r.method, r.operation, r.reads[0].at, r.reads[len(r.reads)-1].at, first, last,
			int64(len(r.reads)), encodeReads(nil, &r))
		first = last + 1
	}
	if len(counts) > 0 {
		q.WriteString(`) `)
		args = appendCounts(&q, args, dialect.Postgres, counts)
	}
	// Direct SQL: the request log's writer draws a value of api_requests' sequence, stores a batch's plain reads with the ids it reserves and adds the batch's hours' counts in one statement, which ent has no words for; api_request_reads and api_request_hours are system-only and emit no event.
	_, err := ex.ExecContext(ctx, q.String(), args...)
	return err
}

// readColumns are api_request_reads' columns in the order the writes give
// them.
var readColumns = []string{"account_id", "api_key_id", "method", "operation", "first_at", "last_at", "first_id", "last_id", "requests", "entries"}

// putReads stores rs in tx, in one multi-row insert on either database:
// ten parameters a row, a batch's rows far below either's bound. On
// PostgreSQL a row's entries go as a binary parameter (lib/pq's
// binary_parameters, which the store's URL turns on), which the server
// stores as it comes; as COPY's text, its hex took the server longer to read
// than the rest of the batch's statements together.
func putReads(ctx context.Context, tx *sql.Tx, dia string, rs []readRow) error {
	if len(rs) == 0 {
		return nil
	}
	var q strings.Builder
	args := make([]any, 0, len(readColumns)*len(rs))
	q.WriteString(`INSERT INTO api_request_reads (` + strings.Join(readColumns, ", ") + `) VALUES `)
	for i := range rs {
		r := &rs[i]
		if i > 0 {
			q.WriteByte(',')
		}
		q.WriteByte('(')
		for j := range readColumns {
			if j > 0 {
				q.WriteString(", ")
			}
			if dia == dialect.Postgres {
				q.WriteByte('$')
				q.WriteString(strconv.Itoa(len(args) + j + 1))
			} else {
				q.WriteByte('?')
			}
		}
		q.WriteByte(')')
		args = append(args, r.account, r.key, r.method, r.operation, r.reads[0].at, r.reads[len(r.reads)-1].at, r.ids[0],
			r.ids[len(r.ids)-1], int64(len(r.reads)), encodeReads(nil, r))
	}
	// Direct SQL: the request log's writer stores a batch's plain reads, grouped by key and operation, in one multi-row insert; api_request_reads is system-only and emits no event.
	_, err := tx.ExecContext(ctx, q.String(), args...)
	return err
}

// readsMatch reports whether a plain read can match f, and the conditions
// on the rows of reads that narrow a search to those that can.
func readsMatch(f Filter) ([]predicate.APIRequestRead, bool) {
	var where []predicate.APIRequestRead
	if f.StatusClass != 0 && f.StatusClass != 2 || f.ErrorCode != "" {
		return nil, false
	}
	if f.Method != "" {
		m := strings.ToUpper(f.Method)
		if m != "GET" && m != "HEAD" {
			return nil, false
		}
		where = append(where, apirequestread.Method(m))
	}
	if f.Operation != "" {
		if writeMethods()[f.Operation] != "" {
			return nil, false
		}
		where = append(where, apirequestread.Operation(f.Operation))
	}
	if f.KeyID != 0 {
		where = append(where, apirequestread.APIKeyID(f.KeyID))
	}
	return where, true
}

// position is a request's place in the log's order: newest first by time,
// then by id.
type position struct {
	at time.Time
	id int
}

// before reports whether r comes after p in the log's order (is older).
func (p position) before(r *ent.APIRequest) bool {
	if c := r.CreatedAt.Compare(p.at); c != 0 {
		return c < 0
	}
	return r.ID < p.id
}

// newestFirst orders requests as the log lists them.
func newestFirst(a, b *ent.APIRequest) int {
	if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
		return c
	}
	return cmp.Compare(b.ID, a.ID)
}

// listReads returns at most limit of the plain reads of account acct that
// match f, older than cursor when it is given, newest first. It reads the
// account's rows of reads newest first (by their last request) through the
// account's time index, a few at a time, and stops once the next row's
// last request is older than the limit-th found.
func listReads(ctx context.Context, c *ent.Client, acct int, f Filter, cursor *position, limit int) ([]*ent.APIRequest, error) {
	where, ok := readsMatch(f)
	if !ok {
		return nil, nil
	}
	where = append(where, apirequestread.AccountID(acct))
	var since, until time.Time
	if !f.Since.IsZero() {
		since = f.Since.UTC()
		where = append(where, apirequestread.LastAtGTE(since))
	}
	if !f.Until.IsZero() {
		until = f.Until.UTC()
	}
	if cursor != nil && (until.IsZero() || !cursor.at.After(until)) {
		// The cursor's request is older than until: the time up to it
		// bounds the search (its own time included: the ids order a tie).
		until = cursor.at.Add(time.Microsecond)
	}
	if !until.IsZero() {
		where = append(where, apirequestread.FirstAtLT(until), apirequestread.LastAtLT(until.Add(maxSpan)))
	}
	// System viewer: the request log is system-only; the query is confined to the account.
	sys := policy.System(ctx)
	var found []*ent.APIRequest
	var after *ent.APIRequestRead
	// read is how many of the rows this statement returns were read
	// before (the first ones).
	read := 0
	// The numbers of rows read at once: a few, as the statements a server
	// keeps prepared are one for each text (the LIMIT written in it), and
	// the second enough for a page of rows of one request each.
	chunks := []int{8, limit + 8, 4 * limit, 16 * limit}
	// The first rows are read again with a larger LIMIT rather than after
	// a keyset condition: one statement text for every depth, whose
	// prepared plan PostgreSQL keeps generic, where a keyset's is planned
	// again for its values over every day partition (milliseconds). Past
	// the largest chunk, the search goes on from the last row read.
	step := 0
	for chunk := chunks[0]; ; {
		q := c.APIRequestRead.Query().Where(where...)
		if after != nil && step >= len(chunks) {
			q.Where(readsOlderThan(after.LastAt, after.ID))
		}
		rrs, err := q.Order(apirequestread.ByLastAt(entsql.OrderDesc()), apirequestread.ByID(entsql.OrderDesc())).Limit(chunk).All(sys)
		if err != nil {
			return nil, err
		}
		fresh := rrs
		if step < len(chunks) {
			// The rows before read are the first of these.
			fresh = rrs[min(read, len(rrs)):]
		}
		for _, rr := range fresh {
			rs, err := decodeReads(rr)
			if err != nil {
				return nil, fmt.Errorf("request log: reads row %d: %w", rr.ID, err)
			}
			for _, r := range rs {
				if !since.IsZero() && r.CreatedAt.Before(since) || !f.Until.IsZero() && !r.CreatedAt.Before(f.Until) ||
					cursor != nil && !cursor.before(r) {
					continue
				}
				found = append(found, r)
			}
		}
		read += len(fresh)
		if len(rrs) < chunk {
			break
		}
		after = rrs[len(rrs)-1]
		if len(found) >= limit {
			slices.SortFunc(found, newestFirst)
			found = found[:limit]
			// The rows still to read hold nothing newer than their last
			// request.
			if found[limit-1].CreatedAt.After(after.LastAt) {
				break
			}
		}
		// The next size: as many rows as the requests still wanted take, at
		// the rate the rows read so far held them (a few more when the page
		// is full: rows of other keys and operations of the same batches
		// may hold newer requests); past the sizes, the largest, after the
		// last row read.
		perRow := max(len(found)/max(read, 1), 1)
		want := read + max(limit-len(found), 1)/perRow + 1
		for step < len(chunks) && chunks[step] < want {
			step++
		}
		if step < len(chunks) {
			chunk = chunks[step]
		} else {
			chunk, read = chunks[len(chunks)-1], 0
		}
	}
	slices.SortFunc(found, newestFirst)
	if len(found) > limit {
		found = found[:limit]
	}
	return found, nil
}

// readsOlderThan is (last_at, id) < (at, id), the keyset condition the
// account's time index of the rows of reads answers in order (written as
// one row comparison, which PostgreSQL takes as a bound of the index scan
// in a prepared statement's plan too, where an OR of two conditions is a
// filter on every row newer than the bound).
func readsOlderThan(at time.Time, id int) func(*entsql.Selector) {
	return func(s *entsql.Selector) {
		s.Where(entsql.P(func(b *entsql.Builder) {
			b.WriteString("(" + s.C(apirequestread.FieldLastAt) + ", " + s.C(apirequestread.FieldID)).
				WriteString(") < (").Arg(at).Comma().Arg(id).WriteString(")")
		}))
	}
}

// readByID returns account acct's plain read with id id, or nil. It is in
// one of the rows whose ids cover it: first id at most id (and more than id
// less maxIDSpan), last id at least id; nearly always one row, a few where
// another writer drew ids beside this one's.
func readByID(ctx context.Context, c *ent.Client, acct, id int) (*ent.APIRequest, error) {
	// System viewer: the request log is system-only; the query is confined to the account.
	rrs, err := c.APIRequestRead.Query().
		Where(apirequestread.AccountID(acct), apirequestread.FirstIDLTE(id), apirequestread.FirstIDGT(id-maxIDSpan),
			apirequestread.LastIDGTE(id)).
		All(policy.System(ctx))
	if err != nil {
		return nil, err
	}
	for _, rr := range rrs {
		rs, err := decodeReads(rr)
		if err != nil {
			return nil, fmt.Errorf("request log: reads row %d: %w", rr.ID, err)
		}
		for _, r := range rs {
			if r.ID == id {
				return r, nil
			}
		}
	}
	return nil, nil
}

// findRead returns the plain read of account acct with request id rid that
// arrived in [since, until) (zero: any time), or nil.
func findRead(ctx context.Context, c *ent.Client, acct int, rid string, since, until time.Time) (*ent.APIRequest, error) {
	found, err := readsByRequestID(ctx, c, []predicate.APIRequestRead{apirequestread.AccountID(acct)}, []string{rid}, since, until)
	if err != nil || len(found) == 0 {
		return nil, err
	}
	return found[0], nil
}

// readsByRequestID returns the plain reads whose request ids are rids, of
// the rows of reads where says, that arrived in [since, until) (zero: any
// time).
func readsByRequestID(ctx context.Context, c *ent.Client, where []predicate.APIRequestRead, rids []string, since, until time.Time) ([]*ent.APIRequest, error) {
	if !since.IsZero() {
		where = append(where, apirequestread.LastAtGTE(since))
	}
	if !until.IsZero() {
		where = append(where, apirequestread.FirstAtLT(until), apirequestread.LastAtLT(until.Add(maxSpan)))
	}
	want := make(map[string]bool, len(rids))
	for _, rid := range rids {
		want[rid] = true
	}
	// System viewer: the request log is system-only; where confines the query (to an account, or for tools and tests to the times of the rows they stored).
	rrs, err := c.APIRequestRead.Query().Where(where...).All(policy.System(ctx))
	if err != nil {
		return nil, err
	}
	var out []*ent.APIRequest
	for _, rr := range rrs {
		rs, err := decodeReads(rr)
		if err != nil {
			return nil, fmt.Errorf("request log: reads row %d: %w", rr.ID, err)
		}
		for _, r := range rs {
			if want[r.RequestID] && (since.IsZero() || !r.CreatedAt.Before(since)) && (until.IsZero() || r.CreatedAt.Before(until)) {
				out = append(out, r)
			}
		}
	}
	return out, nil
}
