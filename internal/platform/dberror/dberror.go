// Package dberror classifies the errors of the databases Larder runs on
// (PostgreSQL through lib/pq, SQLite through modernc.org/sqlite): a unique
// value taken, a transaction the database aborted and that may run again, a
// database that cannot take the work now.
//
// Layering: this is the one package that reads driver error types, SQLSTATE
// codes and SQLite result codes; the HTTP layer (handlers) asks it rather
// than importing a driver, so a driver's details stay below the layer that
// words answers.
package dberror

import (
	"database/sql/driver"
	"errors"
	"net"
	"regexp"
	"slices"
	"strings"

	"github.com/lib/pq"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// PostgreSQL's SQLSTATE codes this package tells apart.
const (
	uniqueViolation      pq.ErrorCode = "23505"
	serializationFailure pq.ErrorCode = "40001"
	deadlockDetected     pq.ErrorCode = "40P01"
	tooManyConnections   pq.ErrorCode = "53300"
	cannotConnectNow     pq.ErrorCode = "57P03"
	adminShutdown        pq.ErrorCode = "57P01"
	crashShutdown        pq.ErrorCode = "57P02"
	lockNotAvailable     pq.ErrorCode = "55P03"
	// connectionException is the class of a lost or refused connection:
	// PgBouncer reports with it (08P01) that no server connection could be
	// had in time (query_wait_timeout) or that it is shutting down.
	connectionException = "08"
)

// sqliteUnique reads the columns out of SQLite's message, which names them
// ("UNIQUE constraint failed: products.account_id, products.sku") but not
// the index.
var sqliteUnique = regexp.MustCompile(`UNIQUE constraint failed: ([\w., ]+)`)

// Unique reports whether err is a unique violation and what the database
// says of it: PostgreSQL names the constraint (not its columns), SQLite names
// the columns (not the index), so exactly one of constraint and columns is
// set. Columns are bare names, without their table, in index order.
func Unique(err error) (constraint string, columns []string, ok bool) {
	if err == nil {
		return "", nil, false
	}
	var pe *pq.Error
	if errors.As(err, &pe) {
		if pe.Code != uniqueViolation {
			return "", nil, false
		}
		return pe.Constraint, nil, true
	}
	// SQLite's text, not its result code: ent's ConstraintError keeps the
	// driver's message even where a wrapper drops the error value itself.
	m := sqliteUnique.FindStringSubmatch(err.Error())
	if m == nil {
		return "", nil, false
	}
	for _, c := range strings.Split(m[1], ",") {
		_, col, _ := strings.Cut(strings.TrimSpace(c), ".")
		columns = append(columns, col)
	}
	return "", columns, true
}

// Retryable reports whether err ended a transaction that did nothing and may
// simply run again: PostgreSQL chose it as the victim of a deadlock (40P01)
// or could not serialise it with a concurrent one (40001). SQLite takes the
// write lock at BEGIN, so none of its transactions ends this way.
func Retryable(err error) bool {
	var pe *pq.Error
	return errors.As(err, &pe) && (pe.Code == deadlockDetected || pe.Code == serializationFailure)
}

// Unavailable reports errors that mean "not now": the database (or a pooler
// before it) refused or dropped a connection, is shutting down, or a lock
// could not be had in time. The same work may succeed a moment later.
func Unavailable(err error) bool {
	var (
		ne *net.OpError
		pe *pq.Error
		se *sqlite.Error
	)
	switch {
	case errors.Is(err, driver.ErrBadConn), errors.As(err, &ne):
		return true
	case errors.As(err, &pe):
		return pe.Code.Class() == connectionException ||
			slices.Contains([]pq.ErrorCode{tooManyConnections, cannotConnectNow, adminShutdown, crashShutdown, lockNotAvailable, serializationFailure, deadlockDetected}, pe.Code)
	case errors.As(err, &se):
		code := se.Code() & 0xff // the primary result code, without its extension
		return code == sqlite3.SQLITE_BUSY || code == sqlite3.SQLITE_LOCKED
	}
	return false
}
