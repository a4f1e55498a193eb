package reqlog

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"entgo.io/ent/dialect/sql"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/apirequest"
	"larder.dev/larder/ent/apirequesthour"
	"larder.dev/larder/ent/apirequestread"
	"larder.dev/larder/ent/event"
	"larder.dev/larder/ent/migrate"
	"larder.dev/larder/ent/predicate"
	"larder.dev/larder/internal/identity/tenancy"
	"larder.dev/larder/internal/platform/apidesc"
	"larder.dev/larder/internal/platform/ids"
	"larder.dev/larder/openapi"
	"larder.dev/larder/policy"
)

// Pages of the log.
const (
	// DefaultPage is the rows a page holds when the caller names no limit.
	DefaultPage = 50
	// MaxPage is the most rows a page holds.
	MaxPage = 500
	// DefaultRetention is how long requests are kept unless the operator
	// sets another period.
	DefaultRetention = 30 * 24 * time.Hour
)

// Filter narrows a list of requests; the zero Filter lists them all.
type Filter struct {
	// StatusClass is 2, 3, 4 or 5 (2xx … 5xx); 0 for any.
	StatusClass int
	// ErrorCode is a problem's code (VALIDATION_ERROR, …).
	ErrorCode string
	// KeyID is the id of an API key of the account.
	KeyID int
	// Method is an HTTP method; Operation an operation id (getTag, …).
	Method, Operation string
	// Since and Until bound the time the request arrived: Since included,
	// Until excluded; zero for no bound.
	Since, Until time.Time
	// Before is a cursor: only requests older than the one with this row id
	// (the last of the previous page).
	Before int
	// Limit bounds the page (DefaultPage when zero, at most MaxPage).
	Limit int
}

// ParseStatusClass reads a status class as the CLI and the console take it:
// 2xx, 3xx, 4xx or 5xx (or the digit alone); "" is any.
func ParseStatusClass(s string) (int, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" {
		return 0, nil
	}
	s = strings.TrimSuffix(s, "xx")
	if len(s) == 1 && s[0] >= '2' && s[0] <= '5' {
		return int(s[0] - '0'), nil
	}
	return 0, fmt.Errorf("status must be 2xx, 3xx, 4xx or 5xx")
}

// List returns a page of the requests of organization orgID's env account,
// newest first, narrowed by f.
func List(ctx context.Context, c *ent.Client, orgID int, env policy.Environment, f Filter) ([]*ent.APIRequest, error) {
	acct, err := account(ctx, c, orgID, env)
	if err != nil {
		return nil, err
	}
	return list(ctx, c, apirequest.AccountID(acct.ID), acct.ID, f)
}

// NoAccount is the account_id of a failed authentication's row, which
// belongs to no account: no account has id 0.
const NoAccount = 0

// ListFailedAuth returns a page of the failed authentications, which belong
// to no account, newest first: an operator's view of the whole server.
func ListFailedAuth(ctx context.Context, c *ent.Client, f Filter) ([]*ent.APIRequest, error) {
	return list(ctx, c, apirequest.AccountID(NoAccount), NoAccount, f)
}

// list is a page of the requests owner confines the query to: of account
// acct, whose plain reads it reads too (reads.go), or of no account (acct
// 0), which has none.
func list(ctx context.Context, c *ent.Client, owner func(*sql.Selector), acct int, f Filter) ([]*ent.APIRequest, error) {
	// System viewer: the request log is system-only; owner confines the query to one account (or to the failed authentications).
	sys := policy.System(ctx)
	q := c.APIRequest.Query().Where(owner)
	if f.StatusClass != 0 {
		if f.StatusClass < 2 || f.StatusClass > 5 {
			return nil, fmt.Errorf("status must be 2xx, 3xx, 4xx or 5xx")
		}
		q.Where(apirequest.StatusClass(f.StatusClass))
		if f.StatusClass >= 3 {
			q.Where(literal(notOK))
		}
	}
	if f.ErrorCode != "" {
		q.Where(apirequest.ErrorCode(f.ErrorCode), literal(errorsOnly))
	}
	if f.KeyID != 0 {
		q.Where(apirequest.APIKeyID(f.KeyID))
	}
	if f.Method != "" {
		m := strings.ToUpper(f.Method)
		q.Where(apirequest.Method(m))
		if m != "GET" && m != "HEAD" && m != "OPTIONS" {
			q.Where(literal(kept))
		}
	}
	if f.Operation != "" {
		q.Where(apirequest.Operation(f.Operation))
		// A write operation's requests are all in the partial index of the
		// writes, which carries the operation: the search reads the
		// method's entries there, not the account's whole log.
		if m := writeMethods()[f.Operation]; m != "" && f.Method == "" {
			q.Where(apirequest.Method(m), literal(kept))
		}
	}
	if !f.Since.IsZero() {
		q.Where(apirequest.CreatedAtGTE(f.Since.UTC()))
	}
	if !f.Until.IsZero() {
		q.Where(apirequest.CreatedAtLT(f.Until.UTC()))
	}
	var cursor *position
	if f.Before != 0 {
		// The cursor's request: most of an account's are plain reads.
		if acct != NoAccount {
			r, err := readByID(ctx, c, acct, f.Before)
			if err != nil {
				return nil, err
			}
			if r != nil {
				cursor = &position{at: r.CreatedAt, id: f.Before}
			}
		}
		if cursor == nil {
			last, err := c.APIRequest.Query().Where(owner, apirequest.ID(f.Before)).Select(apirequest.FieldCreatedAt).Only(sys)
			if ent.IsNotFound(err) {
				return nil, policy.Missingf("request %d does not exist", f.Before)
			}
			if err != nil {
				return nil, err
			}
			cursor = &position{at: last.CreatedAt, id: f.Before}
		}
		q.Where(olderThan(cursor.at, cursor.id))
	}
	limit := page(f.Limit)
	// The plain reads first: where a filter matches them, they are most of
	// the log, and a row older than the page's last read cannot be on the
	// page, which bounds the search of the rows (for a read operation the
	// rows hold its errors alone).
	var reads []*ent.APIRequest
	if acct != NoAccount {
		var err error
		if reads, err = listReads(ctx, c, acct, f, cursor, limit); err != nil {
			return nil, err
		}
		if len(reads) == limit {
			q.Where(apirequest.CreatedAtGTE(reads[limit-1].CreatedAt))
		}
	}
	rows, err := q.Order(apirequest.ByCreatedAt(sql.OrderDesc()), apirequest.ByID(sql.OrderDesc())).
		Limit(limit).
		All(sys)
	if err != nil || len(reads) == 0 {
		return rows, err
	}
	rows = append(rows, reads...)
	slices.SortFunc(rows, newestFirst)
	return rows[:min(len(rows), limit)], nil
}

// writeMethods maps each write operation of the API description (every
// method but GET, HEAD and OPTIONS) to its method.
var writeMethods = sync.OnceValue(func() map[string]string {
	ops, err := apidesc.Operations(openapi.Document)
	if err != nil {
		panic("reqlog: the API description: " + err.Error())
	}
	out := map[string]string{}
	for _, op := range ops {
		switch op.Method {
		case "POST", "PUT", "PATCH", "DELETE":
			out[op.ID] = op.Method
		}
	}
	return out
})

// The predicates of the request log's partial indexes, read from the
// generated migration schema (ent/migrate), which holds them as the schema
// declares them.
var (
	notOK      = indexWhere("apirequest_not_ok") // status >= 300
	errorsOnly = indexWhere("apirequest_errors") // status >= 400
	kept       = indexWhere("apirequest_kept")   // the writes, which keep their bodies
)

// indexWhere is the predicate of api_requests' partial index name.
func indexWhere(name string) string {
	for _, ix := range migrate.APIRequestsTable.Indexes {
		if ix.Name == name && ix.Annotation != nil && ix.Annotation.Where != "" {
			return ix.Annotation.Where
		}
	}
	panic("reqlog: api_requests has no partial index " + name)
}

// literal is the predicate of a partial index, written into the query as it
// is written in the index (not as parameters): both databases choose a
// partial index only for a query whose conditions imply the index's, which
// a parameter's value cannot show a prepared statement's plan.
func literal(predicate string) func(*sql.Selector) {
	return func(s *sql.Selector) { s.Where(sql.ExprP(predicate)) }
}

// olderThan is (created_at, id) < (at, id), the keyset condition the
// (account_id, created_at, id) indexes answer in order.
func olderThan(at time.Time, id int) func(*sql.Selector) {
	return func(s *sql.Selector) {
		s.Where(sql.P(func(b *sql.Builder) {
			b.WriteString("(" + s.C(apirequest.FieldCreatedAt) + ", " + s.C(apirequest.FieldID)).
				WriteString(") < (").Arg(at).Comma().Arg(id).WriteString(")")
		}))
	}
}

func page(limit int) int {
	switch {
	case limit <= 0:
		return DefaultPage
	case limit > MaxPage:
		return MaxPage
	}
	return limit
}

// Get returns the request with row id id of organization orgID's env account.
func Get(ctx context.Context, c *ent.Client, orgID int, env policy.Environment, id int) (*ent.APIRequest, error) {
	acct, err := account(ctx, c, orgID, env)
	if err != nil {
		return nil, err
	}
	// System viewer: the request log is system-only; the query is confined to the organization's account.
	r, err := c.APIRequest.Query().Where(apirequest.AccountID(acct.ID), apirequest.ID(id)).Only(policy.System(ctx))
	if !ent.IsNotFound(err) {
		return r, err
	}
	if r, err = readByID(ctx, c, acct.ID, id); err != nil {
		return nil, err
	}
	if r == nil {
		return nil, policy.Missingf("request %d does not exist", id)
	}
	return r, nil
}

// Find returns the request with id requestID (req_…) in either of
// organization orgID's accounts, and the environment it was made in.
//
// A request id is made with the time of the request (package ids), to the
// millisecond, which its row's created_at follows by the microseconds the
// server takes to begin answering; so the search keeps to the findWindow
// around the id's time, through the account's time index: on PostgreSQL
// the day partition those seconds fall in. The request id has no index of
// its own, which would cost every logged request an entry; an id that
// carries no time is searched for in the account's whole log.
func Find(ctx context.Context, c *ent.Client, orgID int, requestID string) (*ent.APIRequest, policy.Environment, error) {
	requestID = strings.TrimSpace(requestID)
	match := []predicate.APIRequest{apirequest.RequestID(requestID)}
	var since, until time.Time
	if at, ok := ids.Time("req_", requestID); ok {
		since, until = at.Add(-findWindow), at.Add(findWindow)
		match = append(match, apirequest.CreatedAtGTE(since), apirequest.CreatedAtLT(until))
	}
	for _, env := range []policy.Environment{policy.Live, policy.Test} {
		acct, err := account(ctx, c, orgID, env)
		if err != nil {
			return nil, "", err
		}
		// System viewer: the request log is system-only; the query is confined to the organization's account.
		r, err := c.APIRequest.Query().Where(match...).Where(apirequest.AccountID(acct.ID)).First(policy.System(ctx))
		if err == nil {
			return r, env, nil
		}
		if !ent.IsNotFound(err) {
			return nil, "", err
		}
		if r, err = findRead(ctx, c, acct.ID, requestID, since, until); err != nil || r != nil {
			return r, env, err
		}
	}
	return nil, "", policy.Missingf("no request %s in this organization's log", strconv.Quote(requestID))
}

// findWindow is how far from its id's time Find looks for a request's row:
// the id and the row's time are read from the same clock a few
// microseconds apart, so a second either way leaves room for a step of the
// clock, and keeps a busy account's search to its entries of two seconds.
const findWindow = time.Second

// Events returns the webhook events request r emitted, oldest first.
func Events(ctx context.Context, c *ent.Client, r *ent.APIRequest) ([]*ent.Event, error) {
	if r.AccountID == NoAccount {
		return nil, nil
	}
	// System viewer: events are system-only; the query is confined to the request's account.
	return c.Event.Query().
		Where(event.RequestID(r.RequestID), event.AccountID(r.AccountID)).
		Order(event.ByID()).
		All(policy.System(ctx))
}

func account(ctx context.Context, c *ent.Client, orgID int, env policy.Environment) (*ent.Account, error) {
	if env != policy.Live && env != policy.Test {
		return nil, fmt.Errorf("environment must be live or test, not %q", env)
	}
	return tenancy.Account(ctx, c, orgID, env)
}

// pruneBatch is how many rows one DELETE removes: each is a short statement
// on the primary key, so pruning never holds the table for long.
const pruneBatch = 5_000

// Prune deletes the requests that arrived before the start of cutoff's UTC
// hour, in batches, and returns how many it deleted. The counts of those
// hours (api_request_hours) go first, in one statement: the charts never
// count a request the log no longer holds, and a pruning cut short leaves
// rows of hours no longer counted, which the next one deletes. A request is
// kept up to an hour past the retention; a plain read, kept in a row of
// reads with those up to a minute after it (reads.go), an hour and a
// minute.
func Prune(ctx context.Context, c *ent.Client, cutoff time.Time) (int, error) {
	cutoff = cutoff.UTC().Truncate(time.Hour)
	// System viewer: pruning is the server's own upkeep, across every account.
	sys := policy.System(ctx)
	if _, err := c.APIRequestHour.Delete().Where(apirequesthour.HourLT(cutoff)).Exec(sys); err != nil {
		return 0, err
	}
	total := 0
	for {
		ids, err := c.APIRequest.Query().
			Where(apirequest.CreatedAtLT(cutoff)).
			Order(apirequest.ByCreatedAt()).
			Limit(pruneBatch).
			IDs(sys)
		if err != nil {
			return total, err
		}
		if len(ids) == 0 {
			break
		}
		n, err := c.APIRequest.Delete().Where(apirequest.IDIn(ids...)).Exec(sys)
		total += n
		if err != nil {
			return total, err
		}
		if len(ids) < pruneBatch {
			break
		}
		if err := ctx.Err(); err != nil {
			return total, err
		}
	}
	// The rows of reads whose last request arrived before the cutoff, as
	// many requests as they hold.
	for {
		rrs, err := c.APIRequestRead.Query().
			Where(apirequestread.LastAtLT(cutoff)).
			Order(apirequestread.ByLastAt()).
			Limit(pruneBatch).
			Select(apirequestread.FieldID, apirequestread.FieldRequests).
			All(sys)
		if err != nil || len(rrs) == 0 {
			return total, err
		}
		ids := make([]int, len(rrs))
		held := 0
		for i, rr := range rrs {
			ids[i] = rr.ID
			held += rr.Requests
		}
		if _, err := c.APIRequestRead.Delete().Where(apirequestread.IDIn(ids...)).Exec(sys); err != nil {
			return total, err
		}
		total += held
		if len(rrs) < pruneBatch {
			return total, nil
		}
		if err := ctx.Err(); err != nil {
			return total, err
		}
	}
}

// DeprecatedUse is what one key used that is deprecated: how often within
// the log, and when last.
type DeprecatedUse struct {
	KeyID int `json:"api_key_id"`
	// Uses is the request's use as recorded ("listTags", "listTags?name",
	// "createTag:description", space separated when one request used more).
	Uses     string    `json:"uses"`
	Requests int       `json:"requests"`
	Last     time.Time `json:"last_at"`
	// LastRequestID is the request id of the last such request.
	LastRequestID string `json:"last_request_id"`
}

// deprecatedOnly is the predicate of the partial index of the requests
// that used something deprecated.
var deprecatedOnly = indexWhere("apirequest_deprecated") // deprecated <> ''

// DeprecatedUses lists, for organization orgID's env account, every key that
// used something deprecated since since (zero: the whole log), by key and
// use, most recent first: who must move before it goes.
func DeprecatedUses(ctx context.Context, c *ent.Client, orgID int, env policy.Environment, since time.Time) ([]DeprecatedUse, error) {
	acct, err := account(ctx, c, orgID, env)
	if err != nil {
		return nil, err
	}
	// System viewer: the request log is system-only; the query is confined to the account of orgID's env.
	sys := policy.System(ctx)
	q := c.APIRequest.Query().Where(apirequest.AccountID(acct.ID), literal(deprecatedOnly))
	if !since.IsZero() {
		q.Where(apirequest.CreatedAtGTE(since.UTC()))
	}
	var groups []struct {
		KeyID      int    `json:"api_key_id"`
		Deprecated string `json:"deprecated"`
		Count      int    `json:"count"`
		Max        int    `json:"max"`
	}
	if err := q.GroupBy(apirequest.FieldAPIKeyID, apirequest.FieldDeprecated).
		Aggregate(ent.Count(), ent.Max(apirequest.FieldID)).
		Scan(sys, &groups); err != nil {
		return nil, err
	}
	ids := make([]int, len(groups))
	for i, g := range groups {
		ids[i] = g.Max
	}
	last, err := c.APIRequest.Query().Where(apirequest.IDIn(ids...)).
		Select(apirequest.FieldCreatedAt, apirequest.FieldRequestID).All(sys)
	if err != nil {
		return nil, err
	}
	byID := map[int]*ent.APIRequest{}
	for _, r := range last {
		byID[r.ID] = r
	}
	out := make([]DeprecatedUse, 0, len(groups))
	for _, g := range groups {
		u := DeprecatedUse{KeyID: g.KeyID, Uses: g.Deprecated, Requests: g.Count}
		if r := byID[g.Max]; r != nil {
			u.Last, u.LastRequestID = r.CreatedAt, r.RequestID
		}
		out = append(out, u)
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].Last.Equal(out[j].Last) {
			return out[i].Last.After(out[j].Last)
		}
		return out[i].KeyID < out[j].KeyID
	})
	return out, nil
}
