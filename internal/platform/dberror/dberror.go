// Package dberror classifies the errors of the databases Larder runs on: a
// unique value taken, a transaction the database aborted and that may run
// again, a database that cannot take the work now.
//
// Layering: this package imports no driver. It reads what every driver says
// alike (a SQLSTATE, through the method SQLState that PostgreSQL drivers
// give their errors; database/sql's ErrBadConn; a network error), and asks
// the Drivers registered with Register for the rest: package store, the one
// that opens databases, registers PostgreSQL's (lib/pq) and SQLite's
// (modernc.org/sqlite). So the generated package ent and the HTTP layer
// (handlers) ask this package what an error means, and neither depends on a
// driver.
package dberror

import (
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"slices"
	"strings"
	"sync"
)

// The SQLSTATE codes this package tells apart.
const (
	uniqueViolation      = "23505"
	serializationFailure = "40001"
	deadlockDetected     = "40P01"
	tooManyConnections   = "53300"
	cannotConnectNow     = "57P03"
	adminShutdown        = "57P01"
	crashShutdown        = "57P02"
	lockNotAvailable     = "55P03"
	// readOnlyTransaction is a write refused by a server that takes no
	// writes: a standby, or a primary just demoted by a failover.
	readOnlyTransaction = "25006"
	// connectionException is the class of a lost or refused connection:
	// PgBouncer reports with it (08P01) that no server connection could be
	// had in time (query_wait_timeout) or that it is shutting down.
	connectionException = "08"
)

// notNow are the SQLSTATE codes, beyond the class connectionException, of
// work the database cannot take now but may a moment later.
var notNow = []string{tooManyConnections, cannotConnectNow, adminShutdown, crashShutdown, lockNotAvailable, serializationFailure, deadlockDetected, readOnlyTransaction}

// gone are the SQLSTATE codes, beyond the class connectionException, after
// which a connection must not be used again: its server is shutting down
// (57P01, 57P02), is not accepting work yet (57P03), or takes no writes
// (25006: a demoted primary, whose leader is now another server).
var gone = []string{adminShutdown, crashShutdown, cannotConnectNow, readOnlyTransaction}

// ErrCommitUnknown is wrapped around the error of a COMMIT whose
// connection broke before the server's answer came: the transaction may
// have committed or not, and only reading the database again tells which.
var ErrCommitUnknown = errors.New("the connection was lost during COMMIT: the transaction may or may not have committed")

// A Driver reads what only one driver's errors say.
type Driver interface {
	// Unique reports whether err is the driver's unique violation, with the
	// constraint's name or the columns it names (see Unique).
	Unique(err error) (constraint string, columns []string, ok bool)
	// Unavailable reports whether err is the driver's own "not now" (a
	// lock not had in time) that no SQLSTATE names.
	Unavailable(err error) bool
}

var (
	mu      sync.RWMutex
	drivers []Driver
)

// Register adds d to the drivers asked, after those registered before it.
// The package that opens a driver's databases registers the driver's Driver
// when it is initialised.
func Register(d Driver) {
	mu.Lock()
	defer mu.Unlock()
	drivers = append(drivers, d)
}

func registered() []Driver {
	mu.RLock()
	defer mu.RUnlock()
	return drivers
}

// SQLState returns the SQLSTATE of the first error in err's chain that has
// one (PostgreSQL's drivers give their errors a method SQLState).
func SQLState(err error) (string, bool) {
	var s interface{ SQLState() string }
	if errors.As(err, &s) {
		return s.SQLState(), true
	}
	return "", false
}

// Unique reports whether err is a unique violation and what the database
// says of it: PostgreSQL names the constraint (not its columns), SQLite names
// the columns (not the index), so exactly one of constraint and columns is
// set. Columns are bare names, without their table, in index order.
func Unique(err error) (constraint string, columns []string, ok bool) {
	if err == nil {
		return "", nil, false
	}
	for _, d := range registered() {
		if constraint, columns, ok := d.Unique(err); ok {
			return constraint, columns, true
		}
	}
	return "", nil, false
}

// Retryable reports whether err ended a transaction that did nothing and may
// simply run again: PostgreSQL chose it as the victim of a deadlock (40P01)
// or could not serialise it with a concurrent one (40001). SQLite takes the
// write lock at BEGIN, so none of its transactions ends this way.
func Retryable(err error) bool {
	s, ok := SQLState(err)
	return ok && (s == deadlockDetected || s == serializationFailure)
}

// Unavailable reports errors that mean "not now": the database (or a pooler
// before it) refused or dropped a connection, is shutting down, or a lock
// could not be had in time. The same work may succeed a moment later.
func Unavailable(err error) bool {
	var ne *net.OpError
	if errors.Is(err, driver.ErrBadConn) || errors.As(err, &ne) {
		return true
	}
	if s, ok := SQLState(err); ok {
		return strings.HasPrefix(s, connectionException) || slices.Contains(notNow, s)
	}
	for _, d := range registered() {
		if d.Unavailable(err) {
			return true
		}
	}
	return false
}

// Gone reports errors after which the connection that returned them must
// be dropped from its pool rather than used again: it broke (database/sql's
// ErrBadConn, a network error, an end of stream), or its server is shutting
// down, not taking work yet, or read-only (a standby, or a primary demoted
// by a failover; the next connection reaches the new leader). A server's
// other errors (a constraint, a statement cancelled) leave the connection
// usable.
func Gone(err error) bool {
	if err == nil {
		return false
	}
	var ne *net.OpError
	if errors.Is(err, driver.ErrBadConn) || errors.As(err, &ne) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return true
	}
	if s, ok := SQLState(err); ok {
		return strings.HasPrefix(s, connectionException) || slices.Contains(gone, s)
	}
	return false
}
