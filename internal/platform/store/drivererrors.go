package store

import (
	"errors"
	"regexp"
	"strconv"
	"strings"

	"github.com/lib/pq"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"larder.dev/larder/ent"
	"larder.dev/larder/internal/platform/dberror"
)

// The drivers store opens tell package dberror what their own errors say;
// what every driver says alike (a SQLSTATE, a lost connection) dberror reads
// itself.
func init() {
	dberror.Register(postgresErrors{})
	dberror.Register(sqliteErrors{})
}

// postgresErrors reads lib/pq's errors.
type postgresErrors struct{}

// Unique reads the constraint a unique violation (23505) names, and the
// columns its detail names ("Key (account_id, name)=(…) already exists.").
func (postgresErrors) Unique(err error) (string, []string, bool) {
	var pe *pq.Error
	if !errors.As(err, &pe) || pe.Code != "23505" {
		return "", nil, false
	}
	constraint := pe.Constraint
	if m := pgUniqueMessage.FindStringSubmatch(pe.Message); constraint == "" && m != nil {
		// Citus relays a worker's violation with its message alone.
		constraint = schemaIndex(m[1])
	}
	var cols []string
	if m := pgKeyDetail.FindStringSubmatch(pe.Detail); m != nil {
		for c := range strings.SplitSeq(m[1], ",") {
			cols = append(cols, strings.Trim(strings.TrimSpace(c), `"`))
		}
	}
	return constraint, cols, true
}

// schemaIndex is the schema's name of the unique index a violation names:
// name itself, or, when that is no index of the schema, name less the
// "_<shard id>" that Citus gives an index's copy on each shard of a
// distributed table.
func schemaIndex(name string) string {
	if ent.UniqueColumns(name) != nil {
		return name
	}
	i := strings.LastIndexByte(name, '_')
	if _, err := strconv.ParseUint(name[i+1:], 10, 64); i > 0 && err == nil && ent.UniqueColumns(name[:i]) != nil {
		return name[:i]
	}
	return name
}

// pgUniqueMessage reads the constraint of a unique violation's message.
var pgUniqueMessage = regexp.MustCompile(`unique constraint "([^"]+)"`)

// pgKeyDetail reads the columns of a unique violation's detail.
var pgKeyDetail = regexp.MustCompile(`^Key \(([^)]*)\)=`)

// Unavailable: every "not now" of PostgreSQL has its SQLSTATE, which
// dberror reads.
func (postgresErrors) Unavailable(error) bool { return false }

// sqliteErrors reads modernc.org/sqlite's errors.
type sqliteErrors struct{}

// sqliteUnique reads the columns out of SQLite's message, which names them
// ("UNIQUE constraint failed: products.account_id, products.sku") but not
// the index.
var sqliteUnique = regexp.MustCompile(`UNIQUE constraint failed: ([\w., ]+)`)

// Unique reads the columns a unique violation names. It reads SQLite's
// text, not its result code: ent's ConstraintError keeps the driver's
// message even where a wrapper drops the error value itself.
func (sqliteErrors) Unique(err error) (string, []string, bool) {
	if _, ok := dberror.SQLState(err); ok {
		return "", nil, false // PostgreSQL's, whatever its text
	}
	m := sqliteUnique.FindStringSubmatch(err.Error())
	if m == nil {
		return "", nil, false
	}
	var columns []string
	for _, c := range strings.Split(m[1], ",") {
		_, col, _ := strings.Cut(strings.TrimSpace(c), ".")
		columns = append(columns, col)
	}
	return "", columns, true
}

// Unavailable reports a database locked by another connection past the
// busy timeout (SQLITE_BUSY, SQLITE_LOCKED).
func (sqliteErrors) Unavailable(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	code := se.Code() & 0xff // the primary result code, without its extension
	return code == sqlite3.SQLITE_BUSY || code == sqlite3.SQLITE_LOCKED
}
